//! A multi-tenant HTTP host on `runtime_core::serve::Server`: tenants' handlers from their
//! directories (`tenants.rs`), one runtime per tenant and worker thread, each served by a
//! `Server` of its own (`http.rs` routes `/<tenant>/...` to it). What each tenant gets:
//!
//! - its own URL space (`tenant-<name>:/handler.js`): no host path in its `import.meta.url`,
//!   stacks or errors, and nothing outside its directory to import;
//! - a memory budget (heap and buffers) and, per request, a call timeout (504, its timers
//!   cancelled) and an entry limit (a spin is terminated: 500 naming the request that spun
//!   and the line it spun at; every request in flight on that runtime fails with it, and the
//!   runtime is made again from the tenant's snapshot);
//! - backpressure (503 past `max_in_flight`), and its console in the host's log.
//!
//! Connections are accepted on one thread and handed to the workers in turn.

pub mod http;
pub mod tenants;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use runtime_core::serve::{ServeOptions, Server};
use tenants::Tenant;
use tokio::sync::mpsc;

/// How the host runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The directory of the tenants' directories.
    pub tenants: PathBuf,
    /// The loopback port; 0: any free one.
    pub port: u16,
    /// Worker threads, each with a runtime per tenant.
    pub workers: usize,
    /// Each runtime's memory budget, heap and buffers together.
    pub memory_limit: usize,
    /// The server's limits per runtime (and `entry_limit` for loading a tenant).
    pub serve: ServeOptions,
}

impl Config {
    /// The tenants under `tenants`, with the example's limits.
    pub fn new(tenants: PathBuf) -> Self {
        Self {
            tenants,
            port: 0,
            workers: 2,
            memory_limit: 64 << 20,
            serve: ServeOptions {
                max_in_flight: 256,
                call_timeout: Duration::from_secs(2),
                entry_limit: Duration::from_millis(200),
            },
        }
    }
}

/// A running host.
pub struct Host {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
}

impl Host {
    /// Loads the tenants (each into its snapshot), then serves them on loopback.
    pub fn start(config: &Config) -> Result<Self, String> {
        let tenants = tenants::load_all(
            &config.tenants,
            config.serve.entry_limit,
            config.memory_limit,
        )?;
        let listener = TcpListener::bind(("127.0.0.1", config.port))
            .map_err(|error| format!("127.0.0.1:{}: {error}", config.port))?;
        let addr = listener.local_addr().map_err(|error| error.to_string())?;
        let (senders, workers): (Vec<_>, Vec<_>) = (0..config.workers.max(1))
            .map(|index| {
                let (send, streams) = mpsc::unbounded_channel();
                let (tenants, options) = (tenants.clone(), config.serve);
                let worker = std::thread::Builder::new()
                    .name(format!("tenant-host-{index}"))
                    .spawn(move || run_worker(&tenants, options, streams))
                    .expect("a worker thread");
                (send, worker)
            })
            .unzip();
        let stopping = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let stopping = stopping.clone();
            std::thread::spawn(move || accept(&listener, &senders, &stopping))
        };
        Ok(Self {
            addr,
            stopping,
            acceptor: Some(acceptor),
            workers,
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets the connections open finish, and waits for the workers.
    pub fn stop(mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wakes the acceptor out of `accept`.
        drop(TcpStream::connect(self.addr));
        if let Some(acceptor) = self.acceptor.take() {
            acceptor.join().ok();
        }
        for worker in self.workers.drain(..) {
            worker.join().ok();
        }
    }
}

/// Hands each connection to the next worker, until `stopping`.
fn accept(
    listener: &TcpListener,
    workers: &[mpsc::UnboundedSender<TcpStream>],
    stopping: &AtomicBool,
) {
    for (stream, worker) in listener.incoming().zip(workers.iter().cycle()) {
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        if let Ok(stream) = stream {
            worker.send(stream).ok();
        }
    }
}

/// One worker: a `Server` per tenant, and the connections handed to it, on one thread.
fn run_worker(
    tenants: &[Tenant],
    options: ServeOptions,
    mut streams: mpsc::UnboundedReceiver<TcpStream>,
) {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio, async move {
        let mut servers = HashMap::new();
        for tenant in tenants {
            match Server::new(tenant.make_runtime(), options) {
                Ok(server) => {
                    let driven = server.clone();
                    tokio::task::spawn_local(async move { driven.run().await });
                    servers.insert(tenant.name.clone(), server);
                }
                Err(error) => eprintln!("[{}] no runtime: {error}", tenant.name),
            }
        }
        let servers: http::Servers = Rc::new(servers);
        let mut connections = tokio::task::JoinSet::new();
        while let Some(stream) = streams.recv().await {
            while connections.try_join_next().is_some() {}
            let Some(stream) = stream
                .set_nonblocking(true)
                .ok()
                .and_then(|()| tokio::net::TcpStream::from_std(stream).ok())
            else {
                continue;
            };
            let servers = servers.clone();
            connections.spawn_local(async move {
                let service = hyper::service::service_fn(move |request| {
                    http::answer(servers.clone(), request)
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                connection.await.ok();
            });
        }
        while connections.join_next().await.is_some() {}
        servers.values().for_each(Server::close);
    });
}
