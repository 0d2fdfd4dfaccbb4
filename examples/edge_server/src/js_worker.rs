//! One worker's JavaScript, served by `runtime_core::serve::Server`: a runtime made from the
//! startup snapshot (the handler module loaded and evaluated at build time), many requests in
//! flight in it, an entry limit that terminates a handler keeping the thread, and the runtime
//! replaced after a termination. What is left here is the HTTP side: for a version 2 handler
//! (`handle(rid)` over the workload's ops), filing a request in the op state of the runtime
//! its call starts in; for a standard fetch handler (`fetch_mode.rs`), its arguments; and the
//! status of each outcome.
//!
//! Connection tasks hand their requests to one task that starts them (`Server::start_with`)
//! and hands back each call, polled once on the connection task's behalf (`handoff.rs`), which
//! the connection task awaits; `Worker::drive` runs the server's event loop in the
//! `LocalSet`'s own future, so that a due timer waits no longer than one tick. The hop is
//! worth its queue: the starting task takes every request queued since it last ran in one
//! go, so V8's code and data stay warm across them, and the loop then settles their ops in one
//! turn.
//! (Connection tasks starting their calls themselves, each between its own hyper and socket
//! work, cost about half again as much CPU per `/hello` request: BENCHMARKS.md.)

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use runtime_core::modules::FsModuleLoader;
use runtime_core::serve::{MakeRuntime, ServeError, ServeMetrics, ServeOptions, Server};
use runtime_core::{v8, JsError, OpState, Runtime, RuntimeOptions, SnapshotBuilder};

use crate::handoff::Handoff;
use crate::polling::{AbortOnDrop, Answering, LoopWaker};
use crate::{fetch_mode, ops, reply, Reply};

/// Where the handler is and what it may import: shared by every worker.
#[derive(Clone, Debug)]
pub struct Handler {
    /// The handler module's `file://` URL.
    url: String,
    /// The directory its imports are confined to.
    directory: PathBuf,
    /// The startup snapshot: the handler loaded and evaluated.
    snapshot: &'static [u8],
    /// Which kind of handler the module is.
    kind: HandlerKind,
}

/// A version 2 handler exports `handle(rid)`; a standard one's default export has `fetch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// `handle(rid)` over the workload's ops.
    Ops,
    /// `export default { fetch(request, env, ctx) }`.
    Fetch,
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
        let kind = tokio
            .block_on(async {
                let module = builder.load_main_module(&url).await?;
                builder.mod_evaluate(module).await?;
                if builder.module_function(module, "handle").is_ok() {
                    return Ok(HandlerKind::Ops);
                }
                runtime_web::fetch_handler::bind(&mut builder, module).map(|_| HandlerKind::Fetch)
            })
            .map_err(described)?;
        let snapshot = builder.build().map_err(described)?;
        Ok(Self {
            url,
            directory,
            snapshot: Box::leak(snapshot.into_boxed_slice()),
            kind,
        })
    }

    /// Which kind of handler it is.
    pub fn kind(&self) -> HandlerKind {
        self.kind
    }

    /// A runtime from the snapshot, and its `handle`.
    fn start(&self) -> Result<(Runtime, v8::Global<v8::Function>), String> {
        let mut runtime =
            Runtime::try_new(options(&self.directory, Some(self.snapshot))?).map_err(described)?;
        // The module is in the snapshot's map: found there at once, not loaded or evaluated
        // again (so a replacement is made without awaiting anything).
        let module = runtime.loaded_module(&self.url).map_err(described)?;
        let handle = match self.kind {
            HandlerKind::Ops => runtime.module_function(module, "handle"),
            HandlerKind::Fetch => runtime_web::fetch_handler::bind(&mut runtime, module),
        }
        .map_err(described)?;
        Ok((runtime, handle))
    }
}

/// A `JsError` with its stack, for a message.
fn described(error: JsError) -> String {
    format!("{error}\n{}", error.stack.as_deref().unwrap_or(""))
}

fn options(directory: &Path, snapshot: Option<&'static [u8]>) -> Result<RuntimeOptions, String> {
    let loader = FsModuleLoader::new(directory)
        .map_err(|error| format!("{}: {error}", directory.display()))?;
    // The web platform for a standard handler (and for a version 2 one, which may use it).
    let mut extensions = runtime_web::extensions(runtime_web::Groups::ALL);
    extensions.push(ops::extension());
    Ok(RuntimeOptions {
        extensions,
        module_loader: Some(Rc::new(loader)),
        startup_snapshot: snapshot.map(Into::into),
        // A `setTimeout` fires at its deadline, not on tokio's next millisecond tick after it.
        precise_timers: true,
        ..Default::default()
    })
}

/// One worker's runtime, served by `runtime_core::serve::Server`, and the task that starts the
/// requests the connection tasks hand over.
pub struct Worker {
    server: Server,
    kind: HandlerKind,
    /// A request's deadline, from its arrival: a streamed response body ends there too.
    timeout: Duration,
    rid: Cell<u32>,
    /// Where requests wait to be started.
    requests: Handoff<(Parts, RequestBody), Started>,
}

/// A request's body as its handler takes it.
enum RequestBody {
    /// Collected, for a version 2 handler.
    Ops(Bytes),
    /// As runtime_web takes it, for a standard handler (streamed unless whole already).
    Fetch(runtime_web::fetch_handler::RequestBody),
}

/// A request started: its id, the op state of the runtime it runs in, its call (or why it
/// was refused).
struct Started {
    rid: u32,
    state: Option<Rc<RefCell<OpState>>>,
    call: Call,
}

/// A request's call, by the handler's kind.
enum Call {
    Ops(Answering<()>),
    Fetch(Answering<runtime_web::fetch_handler::Answer>),
}

impl Call {
    /// Whether it has its answer (or was refused): nothing will wake its task for it.
    fn is_answered(&self) -> bool {
        match self {
            Call::Ops(answering) => answering.is_answered(),
            Call::Fetch(answering) => answering.is_answered(),
        }
    }
}

impl Worker {
    /// A worker serving `handler` from its snapshot: a call's entry into JavaScript may last
    /// `entry_limit`, a request `timeout`. It serves while [`Worker::drive`] is polled.
    pub fn start(
        handler: Handler,
        timeout: Duration,
        entry_limit: Duration,
    ) -> Result<Rc<Self>, String> {
        let kind = handler.kind();
        let make: MakeRuntime = Box::new(move || {
            handler
                .start()
                .map_err(|error| JsError::host("Error", &error))
        });
        let server = Server::new(
            make,
            ServeOptions {
                max_in_flight: MAX_IN_FLIGHT,
                call_timeout: timeout,
                entry_limit,
            },
        )
        .map_err(described)?;
        let worker = Rc::new(Self {
            server,
            kind,
            timeout,
            rid: Cell::new(0),
            requests: Handoff::default(),
        });
        Ok(worker)
    }

    /// Drives the worker: starts the requests handed over, in a task of the current
    /// `LocalSet` (which runs it in the tick the requests came in), and runs the server's
    /// event loop here. The host polls this in its `LocalSet`'s own future (`block_on`'s),
    /// which runs after each look at the sockets and timers, not as a task queued behind every
    /// connection woken since: a timer is fired within one tick of the `LocalSet`. The loop is
    /// polled only when it was woken (the `LocalSet`'s future is polled on every tick).
    pub async fn drive(self: &Rc<Self>) {
        let worker = self.clone();
        // Aborted when this future goes: the task holds the worker.
        let _starter = AbortOnDrop(tokio::task::spawn_local(async move {
            worker
                .requests
                .serve(|(parts, body), waker| {
                    let started = worker.start_request(parts, body, waker);
                    let wake = started.call.is_answered();
                    (started, wake)
                })
                .await
        }));
        let mut run = std::pin::pin!(self.server.run());
        let loop_waker = LoopWaker::new();
        let waker = Waker::from(loop_waker.clone());
        std::future::poll_fn(|cx| {
            loop_waker.set_polling(cx.waker());
            if loop_waker.take_woken() {
                return run.as_mut().poll(&mut Context::from_waker(&waker));
            }
            Poll::Pending
        })
        .await;
    }

    /// What the worker's server did (its replacements among it).
    pub fn metrics(&self) -> ServeMetrics {
        self.server.metrics()
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

    /// Answers one request: filed, `handle(rid)` started, its call awaited until it settles
    /// or the request's deadline passes.
    pub async fn answer(&self, parts: Parts, body: Incoming) -> Reply {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let body = match self.kind {
            HandlerKind::Ops => crate::collect(body).await.map(RequestBody::Ops),
            HandlerKind::Fetch => fetch_mode::request_body(body).map(RequestBody::Fetch),
        };
        let body = match body {
            Ok(body) => body,
            Err(refused) => return refused,
        };
        // A streamed body is read no more once its response is sent (or refused).
        let closer = match &body {
            RequestBody::Fetch(body) => body.closer(),
            RequestBody::Ops(_) => None,
        };
        let Some(Started { rid, state, call }) = self.requests.hand((parts, body)).await else {
            return reply(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "the request was not started",
            );
        };
        match call {
            Call::Ops(call) => {
                let outcome = call.await;
                let exchange = state.and_then(|state| {
                    state
                        .borrow_mut()
                        .borrow_mut::<ops::Exchanges>()
                        .remove(rid)
                });
                respond(rid, outcome, exchange)
            }
            Call::Fetch(call) => match call.await {
                Ok(answer) => fetch_mode::respond(rid, answer, deadline, closer),
                Err(error) => failed(rid, error),
            },
        }
    }

    /// Files a request in the runtime the call will run in and starts `handle(rid)`; or, for a
    /// standard handler, starts `serve(method, url, headers, body)`. The call is polled once
    /// with `waker`, its connection task's.
    fn start_request(&self, parts: Parts, body: RequestBody, waker: &Waker) -> Started {
        let rid = self.next_rid();
        let body =
            match body {
                RequestBody::Fetch(body) => {
                    let call = self.server.start::<runtime_web::fetch_handler::Answer>(
                        fetch_mode::arguments(parts, body),
                    );
                    return Started {
                        rid,
                        state: None,
                        call: Call::Fetch(Answering::new(call, waker)),
                    };
                }
                RequestBody::Ops(body) => body,
            };
        let mut state = None;
        let call = self.server.start_with::<(), _>(|runtime| {
            let op_state = runtime.op_state();
            op_state.borrow_mut().borrow_mut::<ops::Exchanges>().insert(
                rid,
                ops::Exchange {
                    parts,
                    body: Some(body),
                    response: ops::Response::default(),
                },
            );
            state = Some(op_state);
            (rid,)
        });
        Started {
            rid,
            state,
            call: Call::Ops(Answering::new(call, waker)),
        }
    }
}

/// A worker's calls in flight at most: past it a request is answered 503 at once.
const MAX_IN_FLIGHT: usize = 16 * 1024;

/// The response to a request: what the handler sent, or the status of what went wrong.
fn respond(rid: u32, outcome: Result<(), ServeError>, exchange: Option<ops::Exchange>) -> Reply {
    let sent = exchange.and_then(|exchange| {
        let (status, body) = exchange.response.sent?;
        Some((status, exchange.response.headers, body))
    });
    match (outcome, sent) {
        (Ok(()), Some((status, headers, body))) => {
            let mut response = Response::new(Either::Left(Full::new(body)));
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            *response.headers_mut() = headers;
            response
        }
        (Ok(()), None) => {
            eprintln!("edge-js: request {rid}: the handler sent no response");
            reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "no response",
            )
        }
        (Err(error), _) => failed(rid, error),
    }
}

/// The status of a request whose call got no value.
fn failed(rid: u32, error: ServeError) -> Reply {
    match error {
        error @ ServeError::Terminated { .. } => {
            eprintln!("edge-js: request {rid}: {error}");
            reply(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "the handler ran too long",
            )
        }
        ServeError::Failed(error) => {
            let stack = error.stack.as_deref().unwrap_or("");
            eprintln!("edge-js: request {rid}: the handler failed: {error}\n{stack}");
            reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "the handler failed",
            )
        }
        ServeError::TimedOut => {
            eprintln!("edge-js: request {rid}: the handler did not settle in time");
            reply(
                StatusCode::GATEWAY_TIMEOUT,
                "text/plain",
                "the handler timed out",
            )
        }
        error => {
            eprintln!("edge-js: request {rid}: {error}");
            reply(StatusCode::SERVICE_UNAVAILABLE, "text/plain", "unavailable")
        }
    }
}
