//! One worker's JavaScript: a runtime made from the startup snapshot (the handler module loaded
//! and evaluated at build time), many requests in flight in it, and its replacement when a
//! handler is terminated.
//!
//! Connection tasks hand their requests to one task that starts them (files each, starts
//! `handle(rid)` with `Runtime::start_call`) and hands back each call's future, which the
//! connection task awaits; another task drives the event loop. The hop is worth its channel:
//! the starting task takes every request queued since it last ran in one go, so V8's code and
//! data stay warm across them, and the loop then settles their ops in one turn. (Connection
//! tasks starting their calls themselves, each between its own hyper and socket work, cost
//! about half again as much CPU per `/hello` request: BENCHMARKS.md.) The runtime
//! lives in an `Rc` on the worker's thread; a borrow of it never spans an `await`.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use runtime_core::modules::FsModuleLoader;
use runtime_core::{
    v8, CallInFlight, JsError, OpState, Runtime, RuntimeOptions, SnapshotBuilder, TerminationHandle,
};
use tokio::sync::{mpsc, oneshot};

use crate::{ops, reply, Reply};

/// Where the handler is and what it may import: shared by every worker.
#[derive(Clone, Debug)]
pub struct Handler {
    /// The handler module's `file://` URL.
    url: String,
    /// The directory its imports are confined to.
    directory: PathBuf,
    /// The startup snapshot: the handler loaded and evaluated.
    snapshot: &'static [u8],
}

impl Handler {
    /// Loads and evaluates the handler in a snapshot builder: every runtime (one per worker,
    /// and each replacement) starts from that heap instead of loading it again.
    pub fn build(handler: &Path, modules: Option<&Path>) -> Result<Self, String> {
        let path = std::fs::canonicalize(handler)
            .map_err(|error| format!("{}: {error}", handler.display()))?;
        // The handler's directory (or the one given) is all it can import from.
        let directory = modules
            .map(Path::to_path_buf)
            .unwrap_or_else(|| path.parent().unwrap_or(&path).to_path_buf());
        let url = format!("file://{}", path.display());
        let mut builder = SnapshotBuilder::new(options(&directory, None)?).map_err(described)?;
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        tokio
            .block_on(async {
                let module = builder.load_main_module(&url).await?;
                builder.mod_evaluate(module).await?;
                builder.module_function(module, "handle").map(drop)
            })
            .map_err(described)?;
        let snapshot = builder.build().map_err(described)?;
        Ok(Self {
            url,
            directory,
            snapshot: Box::leak(snapshot.into_boxed_slice()),
        })
    }

    /// A runtime from the snapshot, and its `handle`.
    fn start(&self) -> Result<(Runtime, v8::Global<v8::Function>), String> {
        let mut runtime =
            Runtime::try_new(options(&self.directory, Some(self.snapshot))?).map_err(described)?;
        // The module is in the snapshot's map: found there at once, not loaded or evaluated
        // again (so a replacement is made without awaiting anything).
        let module = ready_now(runtime.load_main_module(&self.url))
            .ok_or("the handler module was not in the snapshot")?
            .map_err(described)?;
        let handle = runtime
            .module_function(module, "handle")
            .map_err(described)?;
        Ok((runtime, handle))
    }
}

/// A `JsError` with its stack, for a message.
fn described(error: JsError) -> String {
    format!("{error}\n{}", error.stack.as_deref().unwrap_or(""))
}

/// The output of a future that is ready at its first poll.
fn ready_now<T>(future: impl std::future::Future<Output = T>) -> Option<T> {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

fn options(directory: &Path, snapshot: Option<&'static [u8]>) -> Result<RuntimeOptions, String> {
    let loader = FsModuleLoader::new(directory)
        .map_err(|error| format!("{}: {error}", directory.display()))?;
    Ok(RuntimeOptions {
        extensions: vec![ops::extension()],
        module_loader: Some(Rc::new(loader)),
        startup_snapshot: snapshot.map(Into::into),
        ..Default::default()
    })
}

/// Terminates JavaScript that keeps the thread past a request's deadline (a loop V8 runs does
/// not yield to tokio's timers): armed around each entry into the runtime (a call started, a
/// turn of the loop), checked by a thread every few milliseconds. The deadline is an atomic
/// (nanoseconds since `start`, 0 when disarmed): arming and disarming cost a store each, where
/// `TerminationHandle::terminate_at` takes a process-wide lock and allocates per deadline. A
/// handler that waits instead is answered 504 by its request's own timer, and the others in
/// flight go on.
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

/// One worker's runtime and what serves it.
pub struct Worker {
    handler: Handler,
    runtime: RefCell<Runtime>,
    handle: RefCell<v8::Global<v8::Function>>,
    watchdog: RefCell<Watchdog>,
    /// Counts runtimes: a request knows which one it ran on.
    generation: Cell<u64>,
    rid: Cell<u32>,
    timeout: Duration,
    /// How long one entry into JavaScript may run.
    entry_limit: Duration,
    /// The time each replacement took.
    replacements: RefCell<Vec<Duration>>,
    /// Where requests go to be started.
    requests: mpsc::UnboundedSender<Request>,
}

/// A request for the starting task, and where its started call goes.
type Request = (Parts, Bytes, oneshot::Sender<Started>);

/// A request started: its id, the runtime it runs in (generation and op state), its call.
struct Started {
    rid: u32,
    generation: u64,
    state: Rc<RefCell<OpState>>,
    call: CallInFlight<()>,
}

/// How a request ended on the JavaScript side.
enum Outcome {
    Settled(Result<(), JsError>),
    TimedOut,
}

impl Worker {
    /// A worker with a runtime from `handler`'s snapshot, and the task that drives its event
    /// loop (on the current `LocalSet`).
    pub fn start(
        handler: Handler,
        timeout: Duration,
        entry_limit: Duration,
    ) -> Result<Rc<Self>, String> {
        let (runtime, handle) = handler.start()?;
        let watchdog = Watchdog::new(runtime.termination_handle());
        let (requests, queued) = mpsc::unbounded_channel();
        let worker = Rc::new(Self {
            handler,
            runtime: RefCell::new(runtime),
            handle: RefCell::new(handle),
            watchdog: RefCell::new(watchdog),
            generation: Cell::new(0),
            rid: Cell::new(0),
            timeout,
            entry_limit,
            replacements: RefCell::new(Vec::new()),
            requests,
        });
        tokio::task::spawn_local(drive(worker.clone()));
        tokio::task::spawn_local(start_requests(worker.clone(), queued));
        Ok(worker)
    }

    /// The times the replacements of this worker's runtime took.
    pub fn replacements(&self) -> Vec<Duration> {
        self.replacements.borrow().clone()
    }

    fn next_rid(&self) -> u32 {
        let rid = if self.rid.get() >= (1 << 30) {
            1
        } else {
            self.rid.get() + 1
        };
        self.rid.set(rid);
        rid
    }

    /// Runs `f` on the runtime under the watchdog; a termination it spent or saw replaces the
    /// runtime.
    fn enter<T>(&self, f: impl FnOnce(&mut Runtime) -> T) -> T {
        let mut runtime = self.runtime.borrow_mut();
        let watchdog = self.watchdog.borrow();
        watchdog.arm(self.entry_limit);
        let value = f(&mut runtime);
        if watchdog.disarm() {
            // The watchdog terminated this entry: a request no call spent (it came as the
            // call ended) is withdrawn here, not left to stop the next one.
            runtime.termination_handle().cancel();
        }
        value
    }

    /// Answers one request: filed, `handle(rid)` started, its call awaited until it settles
    /// or the request's deadline passes.
    pub async fn answer(&self, parts: Parts, body: Bytes) -> Reply {
        let (sender, started) = oneshot::channel();
        let started = match self.requests.send((parts, body, sender)) {
            Ok(()) => started.await,
            Err(_) => return reply(StatusCode::SERVICE_UNAVAILABLE, "text/plain", "stopping"),
        };
        match started {
            Ok(started) => self.finish(started).await,
            Err(_) => reply(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "the request was not started",
            ),
        }
    }

    /// Files a request and starts `handle(rid)`.
    fn start_request(&self, parts: Parts, body: Bytes) -> Started {
        let rid = self.next_rid();
        let generation = self.generation.get();
        let (state, call) = self.enter(|runtime| {
            let state = runtime.op_state();
            state.borrow_mut().borrow_mut::<ops::Exchanges>().insert(
                rid,
                ops::Exchange {
                    parts,
                    body: Some(body),
                    response: ops::Response::default(),
                },
            );
            let call = runtime.start_call::<()>(&*self.handle.borrow(), (rid,));
            (state, call)
        });
        Started {
            rid,
            generation,
            state,
            call,
        }
    }

    /// Awaits a started request's call until it settles or the request's deadline passes,
    /// then answers with what the handler sent.
    async fn finish(&self, started: Started) -> Reply {
        let Started {
            rid,
            generation,
            state,
            call,
        } = started;
        let outcome = match tokio::time::timeout(self.timeout, call).await {
            Ok(settled) => Outcome::Settled(settled),
            // The call is dropped: its JavaScript is forgotten, not cancelled (its ops and
            // timers belong to the runtime the other requests share). A request id it uses
            // later is unknown: its ops throw.
            Err(_) => Outcome::TimedOut,
        };
        if matches!(&outcome, Outcome::Settled(Err(error)) if error.is_terminated()) {
            self.replace(generation);
        }
        let exchange = state
            .borrow_mut()
            .borrow_mut::<ops::Exchanges>()
            .remove(rid);
        respond(rid, outcome, exchange)
    }

    /// Replaces the runtime of `generation` (unless a request that saw the same termination
    /// did already) with a new one from the snapshot. Its calls in flight have failed (the
    /// termination failed them all): their requests are answered 503.
    fn replace(&self, generation: u64) {
        if self.generation.get() != generation {
            return;
        }
        let started = Instant::now();
        let (runtime, handle) = match self.handler.start() {
            Ok(made) => made,
            Err(error) => {
                eprintln!("edge-js: the runtime could not be replaced: {error}");
                return;
            }
        };
        *self.watchdog.borrow_mut() = Watchdog::new(runtime.termination_handle());
        *self.handle.borrow_mut() = handle;
        drop(self.runtime.replace(runtime));
        self.generation.set(generation + 1);
        let took = started.elapsed();
        self.replacements.borrow_mut().push(took);
        eprintln!(
            "edge-js: runtime replaced from the snapshot in {:.2} ms",
            took.as_secs_f64() * 1e3
        );
    }
}

/// Starts the requests the connection tasks hand over, every one queued in one go.
async fn start_requests(worker: Rc<Worker>, mut queued: mpsc::UnboundedReceiver<Request>) {
    while let Some((parts, body, sender)) = queued.recv().await {
        // A connection that went away meanwhile drops its call: its JavaScript runs on,
        // answered to nobody.
        let _ = sender.send(worker.start_request(parts, body));
    }
}

/// Drives the worker's event loop for as long as the worker lives: its calls settle here. A
/// termination seen here (a handler past its deadline in a turn) replaces the runtime; a
/// promise rejected with no handler is reported and serving goes on.
async fn drive(worker: Rc<Worker>) {
    loop {
        let generation = worker.generation.get();
        let error = poll_fn(
            |cx| match worker.enter(|runtime| runtime.poll_event_loop(cx)) {
                Poll::Ready(Err(error)) => Poll::Ready(error),
                // Idle: a call started or an op done wakes it.
                _ => Poll::Pending,
            },
        )
        .await;
        if error.is_terminated() {
            worker.replace(generation);
        } else {
            eprintln!("edge-js: a promise was rejected with no handler: {error}");
        }
    }
}

/// The response to a request: what the handler sent, or the status of what went wrong.
fn respond(rid: u32, outcome: Outcome, exchange: Option<ops::Exchange>) -> Reply {
    let sent = exchange.and_then(|exchange| {
        let (status, body) = exchange.response.sent?;
        Some((status, exchange.response.headers, body))
    });
    match (outcome, sent) {
        (Outcome::Settled(Ok(())), Some((status, headers, body))) => {
            let mut response = Response::new(Full::new(body));
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            *response.headers_mut() = headers;
            response
        }
        (Outcome::Settled(Ok(())), None) => {
            eprintln!("edge-js: request {rid}: the handler sent no response");
            reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "no response",
            )
        }
        (Outcome::Settled(Err(error)), _) if error.is_terminated() => {
            eprintln!("edge-js: request {rid}: its runtime was terminated: {error}");
            reply(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "the handler ran too long",
            )
        }
        (Outcome::Settled(Err(error)), _) => {
            let stack = error.stack.as_deref().unwrap_or("");
            eprintln!("edge-js: request {rid}: the handler failed: {error}\n{stack}");
            reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "the handler failed",
            )
        }
        (Outcome::TimedOut, _) => {
            eprintln!("edge-js: request {rid}: the handler did not settle in time");
            reply(
                StatusCode::GATEWAY_TIMEOUT,
                "text/plain",
                "the handler timed out",
            )
        }
    }
}
