//! The edge workload's server (`shared/edge-workload/WORKLOAD.md`, versions 2 and 3): hyper
//! 1.x on tokio current-thread runtimes, one thread per worker for HTTP and JavaScript, the
//! workers sharing one address (`SO_REUSEPORT`). `edge-js` serves a version 2 handler (it files
//! each request under a request id and starts the module's `handle(rid)`) or a standard fetch
//! handler (`export default { fetch(request, env, ctx) }`, version 3's `fetch_handler.js`, with
//! runtime_web's `Request` and `Response`), many requests in flight in one runtime, answering
//! each when its promise settles; `edge-floor` answers the same requests from Rust,
//! the floor the JavaScript layer is measured against.
//!
//! Beyond the workload, what a host running tenants' code needs: bodies over
//! [`MAX_BODY`] are 413, too many headers 431 (hyper), a handler that throws 500 (its error and
//! stack on standard error), one that keeps the thread past the request's deadline is
//! terminated by a watchdog, which fails every request in flight in that runtime (503) and
//! replaces the runtime from the startup snapshot; one that waits past it is answered 504
//! alone; SIGINT stops accepting and lets the connections in flight finish.

pub mod fetch_mode;
mod handoff;
pub mod js_worker;
pub mod ops;
mod polling;

use std::cell::Cell;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::http::request::Parts;
use hyper::{Request, Response, StatusCode};
use js_worker::{Handler, Worker};

/// The largest request body the server takes, collected or streamed to a standard handler
/// (one that says it is larger: 413; a streamed one that turns out larger fails the
/// handler's read).
pub const MAX_BODY: usize = 16 << 20;

/// How the server is run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The handler module (`edge-js`).
    pub handler: Option<PathBuf>,
    /// The directory the handler may import from (its own when `None`).
    pub modules: Option<PathBuf>,
    /// 0: any free port.
    pub port: u16,
    /// The server exits by itself after this long.
    pub max_seconds: u64,
    /// A request's deadline: a handler still waiting then is answered 504.
    pub request_timeout: Duration,
    /// How long one entry into JavaScript (a request started, a turn of the event loop) may
    /// run before the runtime is terminated, with every request in flight on it (503). A
    /// deadline of its own: a spinning handler is stopped soon, while a request that waits
    /// may wait as long as `request_timeout` says.
    pub entry_limit: Duration,
    /// Threads, each with its own runtime (and tokio runtime), on one address.
    pub workers: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            handler: None,
            modules: None,
            port: 0,
            max_seconds: 60,
            request_timeout: Duration::from_secs(5),
            entry_limit: Duration::from_secs(5),
            workers: 1,
        }
    }
}

/// Which handler answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The JavaScript handler.
    Js,
    /// The Rust floor.
    Floor,
}

/// `--handler FILE [--modules DIR] --port P --max-seconds N [--request-timeout-ms MS]
/// [--entry-limit-ms MS] [--workers N]`. The entry limit is the request timeout unless given.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Config, String> {
    let mut config = Config::default();
    let mut entry_limit = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--handler" => config.handler = Some(PathBuf::from(value()?)),
            "--modules" => config.modules = Some(PathBuf::from(value()?)),
            "--port" => config.port = value()?.parse().map_err(|_| "--port takes a number")?,
            "--max-seconds" => {
                config.max_seconds = value()?
                    .parse()
                    .map_err(|_| "--max-seconds takes a number")?
            }
            "--request-timeout-ms" => {
                let ms: u64 = value()?
                    .parse()
                    .map_err(|_| "--request-timeout-ms takes a number")?;
                config.request_timeout = Duration::from_millis(ms);
            }
            "--entry-limit-ms" => {
                let ms: u64 = value()?
                    .parse()
                    .map_err(|_| "--entry-limit-ms takes a number")?;
                entry_limit = Some(Duration::from_millis(ms));
            }
            "--workers" => {
                config.workers = value()?
                    .parse()
                    .ok()
                    .filter(|&workers| workers > 0)
                    .ok_or("--workers takes a positive number")?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    config.entry_limit = entry_limit.unwrap_or(config.request_timeout);
    Ok(config)
}

/// A binary's `main`: the arguments parsed, then [`serve`], printing where it listens; errors
/// end the process with a message naming `program`.
pub fn main(program: &str, mode: Mode) {
    let config = parse_args(std::env::args().skip(1)).unwrap_or_else(|message| {
        eprintln!("{program}: {message}");
        std::process::exit(2);
    });
    let served = serve(config, mode, |address| println!("listening on {address}"));
    if let Err(error) = served {
        eprintln!("{program}: {error}");
        std::process::exit(1);
    }
}

pub(crate) type Reply = Response<fetch_mode::ReplyBody>;

pub(crate) fn reply(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Reply {
    let mut response = Response::new(Either::Left(Full::new(body.into())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// Serves until `config.max_seconds` pass or SIGINT, calling `ready` with the address once
/// every worker accepts. Blocks the calling thread; each worker is a thread with its own tokio
/// current-thread runtime (and, for `edge-js`, its own V8 runtime).
pub fn serve(config: Config, mode: Mode, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let handler = match mode {
        Mode::Floor => None,
        Mode::Js => {
            let path = config.handler.as_deref().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "--handler FILE is needed")
            })?;
            let built = Handler::build(path, config.modules.as_deref()).map_err(|error| {
                std::io::Error::other(format!("the handler did not load: {error}"))
            })?;
            Some(built)
        }
    };
    // The first listener picks the port (0: any free one); the others share it.
    let first = listen(SocketAddr::from(([127, 0, 0, 1], config.port)))?;
    let address = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..config.workers.max(1) {
        listeners.push(listen(address)?);
    }
    let (started, starts) = std::sync::mpsc::channel();
    let workers: Vec<_> = listeners
        .into_iter()
        .enumerate()
        .map(|(index, listener)| {
            let (config, handler, started) = (config.clone(), handler.clone(), started.clone());
            std::thread::Builder::new()
                .name(format!("edge-worker-{index}"))
                .spawn(move || run_worker(listener, &config, handler, started))
        })
        .collect::<Result<_, _>>()?;
    drop(started);
    let mut failed = None;
    for _ in 0..workers.len() {
        match starts.recv() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => failed = Some(error),
            Err(_) => failed = Some("a worker ended before it started".to_owned()),
        }
    }
    if failed.is_none() {
        ready(address);
    }
    for worker in workers {
        worker
            .join()
            .map_err(|_| std::io::Error::other("a worker panicked"))??;
    }
    failed.map_or(Ok(()), |error| Err(std::io::Error::other(error)))
}

/// A listening socket on loopback that other workers' sockets may share (`SO_REUSEPORT`: the
/// kernel spreads connections over them).
fn listen(address: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = socket2::Socket::new(
        socket2::Domain::IPV4,
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&address.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// One worker: its runtime and its connections, until the deadline or SIGINT; says on
/// `started` once it accepts.
fn run_worker(
    listener: std::net::TcpListener,
    config: &Config,
    handler: Option<Handler>,
    started: std::sync::mpsc::Sender<Result<(), String>>,
) -> std::io::Result<()> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio, async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let worker = match handler
            .map(|handler| Worker::start(handler, config.request_timeout, config.entry_limit))
        {
            None => None,
            Some(Ok(worker)) => Some(worker),
            Some(Err(error)) => {
                let _ = started.send(Err(format!("the handler did not start: {error}")));
                return Ok(());
            }
        };
        let _ = started.send(Ok(()));
        let serving = std::pin::pin!(serve_connections(listener, config, worker.clone()));
        match &worker {
            // The worker is driven in this, the `LocalSet`'s own future (see `Worker::drive`).
            Some(worker) => {
                let drive = std::pin::pin!(worker.drive());
                tokio::select! {
                    biased;
                    () = drive => {}
                    () = serving => {}
                }
            }
            None => serving.await,
        }
        if let Some(metrics) = worker
            .map(|worker| worker.metrics())
            .filter(|metrics| metrics.replacements > 0)
        {
            eprintln!(
                "edge-js: {} runtime(s) replaced; the slowest replacement took {:.2} ms",
                metrics.replacements,
                metrics.slowest_replacement.as_secs_f64() * 1e3
            );
        }
        Ok(())
    })
}

/// Accepts and serves connections until the deadline or SIGINT, then lets those in flight
/// finish (for two seconds at most).
async fn serve_connections(
    listener: tokio::net::TcpListener,
    config: &Config,
    worker: Option<Rc<Worker>>,
) {
    let deadline = tokio::time::sleep(Duration::from_secs(config.max_seconds));
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(deadline, interrupted);
    let connections = Rc::new(Cell::new(0usize));
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
            _ = &mut deadline => break,
            _ = &mut interrupted => break,
        };
        stream.set_nodelay(true).ok();
        let worker = worker.clone();
        let connections = connections.clone();
        connections.set(connections.get() + 1);
        tokio::task::spawn_local(async move {
            let service = hyper::service::service_fn(move |request| {
                let worker = worker.clone();
                async move { Ok::<_, Infallible>(answer(request, worker.as_deref()).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                // One buffer a response: the head and a small body in one `write` cost
                // the kernel less than a vectored write of two pieces (a large body is
                // copied once more, which a send of it dwarfs).
                .writev(false)
                .serve_connection(io, service)
                .await;
            connections.set(connections.get() - 1);
        });
    }
    // Stop accepting; let the connections in flight finish (for two seconds at most).
    drop(listener);
    let grace = Instant::now() + Duration::from_secs(2);
    while connections.get() > 0 && Instant::now() < grace {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One request, answered by the JavaScript worker or the floor.
async fn answer(request: Request<Incoming>, worker: Option<&Worker>) -> Reply {
    let (parts, body) = request.into_parts();
    match worker {
        Some(worker) => worker.answer(parts, body).await,
        None => match collect(body).await {
            Ok(body) => floor(&parts, body).await,
            Err(refused) => refused,
        },
    }
}

/// A request's body, collected (413 past [`MAX_BODY`]).
#[allow(clippy::result_large_err)]
pub(crate) async fn collect(body: Incoming) -> Result<Bytes, Reply> {
    match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(_) => Err(reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            "text/plain",
            "body too large",
        )),
    }
}

/// The Rust floor: the handler's behaviour, without JavaScript.
async fn floor(parts: &Parts, body: Bytes) -> Reply {
    match (parts.method.as_str(), parts.uri.path()) {
        ("GET", "/hello") => {
            let id = parts
                .headers
                .get("x-request-id")
                .map_or(&b""[..], HeaderValue::as_bytes);
            let mut out = Vec::with_capacity(6 + id.len());
            out.extend_from_slice(b"hello ");
            out.extend_from_slice(id);
            reply(StatusCode::OK, "text/plain", out)
        }
        ("POST", "/echo") => {
            let mut out = body.to_vec();
            out.reverse();
            reply(StatusCode::OK, "application/octet-stream", out)
        }
        ("GET", path) if path.starts_with("/kv/") => {
            let key = &path["/kv/".len()..];
            if !ops::is_valid_key(key) {
                return reply(StatusCode::BAD_REQUEST, "text/plain", "bad key");
            }
            tokio::time::sleep(ops::KV_LATENCY).await;
            reply(StatusCode::OK, "text/plain", ops::kv_value(key))
        }
        _ => reply(StatusCode::NOT_FOUND, "text/plain", "not found"),
    }
}
