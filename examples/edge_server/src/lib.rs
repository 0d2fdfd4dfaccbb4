//! The edge workload's server (`shared/edge-workload/WORKLOAD.md`): hyper 1.x on a tokio
//! current-thread runtime, one thread for HTTP and JavaScript. `edge-js` files each request
//! under a request id and calls the handler module's `handle(rid)`, one request at a time,
//! driving the event loop until its promise settles; `edge-floor` answers the same requests
//! from Rust, the floor the JavaScript layer is measured against.
//!
//! Beyond the workload, what a host running tenants' code needs: bodies over
//! [`MAX_BODY`] are 413, too many headers 431 (hyper), a handler that throws 500 (its error and
//! stack on standard error), one that loops is terminated at the request's deadline by a
//! watchdog (503), one that never settles times out (504); SIGINT stops accepting and lets the
//! connections in flight finish.

pub mod ops;

use std::cell::Cell;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::http::request::Parts;
use hyper::{Request, Response, StatusCode};
use runtime_core::{JsError, Runtime, RuntimeOptions, TerminationHandle};
use tokio::sync::{mpsc, oneshot};

/// How much later than a request's deadline the watchdog terminates a handler that keeps the
/// thread.
const WATCHDOG_MARGIN: Duration = Duration::from_millis(50);

/// The largest request body the server collects (larger: 413).
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
    /// A request's deadline: a handler still running then is terminated (503), one still
    /// waiting is answered 504.
    pub request_timeout: Duration,
}

/// Which handler answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The JavaScript handler.
    Js,
    /// The Rust floor.
    Floor,
}

/// `--handler FILE [--modules DIR] --port P --max-seconds N [--request-timeout-ms MS]`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Config, String> {
    let mut config = Config {
        handler: None,
        modules: None,
        port: 0,
        max_seconds: 60,
        request_timeout: Duration::from_secs(5),
    };
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
            other => return Err(format!("unknown argument {other}")),
        }
    }
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

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Reply {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A request for the JavaScript task: its head, its body, where the response goes.
type Job = (Parts, Bytes, oneshot::Sender<Reply>);

/// Serves until `config.max_seconds` pass or SIGINT, calling `ready` with the address once it
/// accepts. Blocks the calling thread (a tokio current-thread runtime of its own).
pub fn serve(config: Config, mode: Mode, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio, async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port)).await?;
        let jobs = match mode {
            Mode::Floor => None,
            Mode::Js => {
                let handler = config.handler.clone().ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "--handler FILE is needed",
                    )
                })?;
                let (sender, receiver) = mpsc::unbounded_channel::<Job>();
                let modules = config.modules.as_deref();
                let runtime = js_runtime(&handler, modules).await.map_err(|error| {
                    std::io::Error::other(format!("the handler did not load: {error}"))
                })?;
                tokio::task::spawn_local(js_task(runtime, receiver, config.request_timeout));
                Some(sender)
            }
        };
        ready(listener.local_addr()?);
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
            let jobs = jobs.clone();
            let connections = connections.clone();
            connections.set(connections.get() + 1);
            tokio::task::spawn_local(async move {
                let service = hyper::service::service_fn(move |request| {
                    let jobs = jobs.clone();
                    async move { Ok::<_, Infallible>(answer(request, jobs).await) }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .keep_alive(true)
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
        Ok(())
    })
}

/// One request: its body collected (bounded), then answered by the floor or the JS task.
async fn answer(request: Request<Incoming>, jobs: Option<mpsc::UnboundedSender<Job>>) -> Reply {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return reply(
                StatusCode::PAYLOAD_TOO_LARGE,
                "text/plain",
                "body too large",
            )
        }
    };
    let Some(jobs) = jobs else {
        return floor(&parts, body);
    };
    let (sender, receiver) = oneshot::channel();
    if jobs.send((parts, body, sender)).is_err() {
        return reply(
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain",
            "shutting down",
        );
    }
    receiver.await.unwrap_or_else(|_| {
        reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain",
            "the handler task ended",
        )
    })
}

/// The Rust floor: the handler's behaviour, without JavaScript.
fn floor(parts: &Parts, body: Bytes) -> Reply {
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
        _ => reply(StatusCode::NOT_FOUND, "text/plain", "not found"),
    }
}

/// The runtime with the workload's ops, the handler loaded as an ES module.
async fn js_runtime(
    handler: &std::path::Path,
    modules: Option<&std::path::Path>,
) -> Result<(Runtime, v8::Global<v8::Function>), String> {
    let path = std::fs::canonicalize(handler)
        .map_err(|error| format!("{}: {error}", handler.display()))?;
    // The handler's directory (or the one given) is all it can import from.
    let directory = modules.unwrap_or_else(|| path.parent().unwrap_or(&path));
    let loader = runtime_core::modules::FsModuleLoader::new(directory)
        .map_err(|error| format!("{}: {error}", directory.display()))?;
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![ops::extension()],
        module_loader: Some(std::rc::Rc::new(loader)),
        ..Default::default()
    });
    let url = format!("file://{}", path.display());
    let loaded = async {
        let module = runtime.load_main_module(&url).await?;
        runtime.mod_evaluate(module).await?;
        runtime.module_function(module, "handle")
    };
    let handle = loaded
        .await
        .map_err(|error: JsError| format!("{error}\n{}", error.stack.as_deref().unwrap_or("")))?;
    Ok((runtime, handle))
}

use runtime_core::v8;

/// Terminates the handler when a request's deadline passes (a loop V8 runs does not yield to
/// tokio's timers): a thread that looks every few milliseconds. The deadline is an atomic
/// (nanoseconds since `start`, 0 when disarmed): arming and disarming cost a store each.
struct Watchdog {
    start: Instant,
    deadline: Arc<AtomicU64>,
    /// Set once the watchdog's `terminate()` returned.
    fired: Arc<AtomicBool>,
}

impl Watchdog {
    fn new(termination: TerminationHandle) -> Self {
        let start = Instant::now();
        let deadline = Arc::new(AtomicU64::new(0));
        let fired = Arc::new(AtomicBool::new(false));
        let watched = Arc::downgrade(&deadline);
        let fired_here = fired.clone();
        std::thread::spawn(move || {
            while let Some(deadline) = watched.upgrade() {
                let at = deadline.load(Ordering::Acquire);
                let now = start.elapsed().as_nanos() as u64;
                // Taken (set to 0) before terminating: a request the worker disarmed first is
                // never terminated.
                if at != 0
                    && now >= at
                    && deadline
                        .compare_exchange(at, 0, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    termination.terminate();
                    fired_here.store(true, Ordering::Release);
                }
                drop(deadline);
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Self {
            start,
            deadline,
            fired,
        }
    }

    fn arm(&self, timeout: Duration) {
        let at = (self.start.elapsed() + timeout).as_nanos().max(1) as u64;
        self.deadline.store(at, Ordering::Release);
    }

    /// Disarms. If the watchdog took the deadline first, waits until its termination was
    /// requested and returns `true`: the caller spends it (the call may have already).
    fn disarm(&self) -> bool {
        if self.deadline.swap(0, Ordering::AcqRel) != 0 {
            return false;
        }
        while !self.fired.swap(false, Ordering::AcqRel) {
            std::thread::yield_now();
        }
        true
    }
}

/// The task that owns the runtime: one request at a time, in arrival order.
async fn js_task(
    (mut runtime, handle): (Runtime, v8::Global<v8::Function>),
    mut jobs: mpsc::UnboundedReceiver<Job>,
    timeout: Duration,
) {
    let watchdog = Watchdog::new(runtime.termination_handle());
    let state = runtime.op_state();
    let mut rid: u32 = 0;
    while let Some((parts, body, sender)) = jobs.recv().await {
        rid = if rid >= (1 << 30) { 1 } else { rid + 1 };
        state.borrow_mut().borrow_mut::<ops::Exchanges>().insert(
            rid,
            ops::Exchange {
                parts,
                body: Some(body),
                response: ops::Response::default(),
            },
        );
        // The watchdog's deadline comes a little after tokio's: a handler that waits is
        // answered 504 by the timeout; only one that keeps the thread (which the timeout
        // cannot interrupt) is terminated (503).
        watchdog.arm(timeout + WATCHDOG_MARGIN);
        let outcome =
            tokio::time::timeout(timeout, runtime.call_and_await::<()>(&handle, (rid,))).await;
        if watchdog.disarm() {
            // The watchdog terminated this request: a request no call spent (it came as the
            // call ended) is withdrawn here, not left to stop the next request.
            runtime.termination_handle().cancel();
        }
        if outcome.is_err() {
            // Abandoned at its deadline: nothing it left (timers, ops) runs on into the next.
            runtime.cancel_pending_work();
        }
        let exchange = state
            .borrow_mut()
            .borrow_mut::<ops::Exchanges>()
            .remove(rid);
        let sent = exchange.and_then(|exchange| {
            let (status, body) = exchange.response.sent?;
            Some((status, exchange.response.headers, body))
        });
        let response = match (outcome, sent) {
            (Ok(Ok(())), Some((status, headers, body))) => {
                let mut response = Response::new(Full::new(body));
                *response.status_mut() =
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                *response.headers_mut() = headers;
                response
            }
            (Ok(Ok(())), None) => {
                eprintln!("edge-js: request {rid}: the handler sent no response");
                reply(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "text/plain",
                    "no response",
                )
            }
            (Ok(Err(error)), _) if error.is_terminated() => {
                eprintln!("edge-js: request {rid}: the handler ran past its deadline: {error}");
                reply(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "text/plain",
                    "the handler ran too long",
                )
            }
            (Ok(Err(error)), _) => {
                let stack = error.stack.as_deref().unwrap_or("");
                eprintln!("edge-js: request {rid}: the handler failed: {error}\n{stack}");
                reply(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "text/plain",
                    "the handler failed",
                )
            }
            (Err(_), _) => {
                eprintln!("edge-js: request {rid}: the handler did not settle in time");
                reply(
                    StatusCode::GATEWAY_TIMEOUT,
                    "text/plain",
                    "the handler timed out",
                )
            }
        };
        let _ = sender.send(response);
    }
}
