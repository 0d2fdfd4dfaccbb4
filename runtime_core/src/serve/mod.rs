//! Serving many calls as API: a [`Server`] owns a runtime and serves calls to one of its
//! functions (a module's export, say), many in flight together, each answered when it settles.
//! What every host that serves requests needs, and what it would otherwise rebuild worse:
//!
//! - **A limit per entry into JavaScript** (`entry_limit`): a call whose JavaScript keeps the
//!   thread (a loop) is terminated by a watchdog thread, which a loop V8 runs cannot starve.
//!   Termination stops the whole runtime: every call in flight fails with
//!   [`ServeError::Terminated`], which names the call whose entry ran too long (or says it
//!   was a turn of the event loop), and the runtime is **replaced** (the host's `make`: from a
//!   startup snapshot, typically) before the next call.
//! - **A limit per call** (`call_timeout`): a call that waits too long is answered
//!   [`ServeError::TimedOut`], and its timers are cancelled (those it set, directly or after
//!   an `await`, and those their callbacks set: [`Runtime::cancel_work_of`]), as are a call's
//!   whose answer the host stopped awaiting (its client went away). Its ops run to their end,
//!   their results dropped.
//! - **Backpressure** (`max_in_flight`): past it a call is refused at once
//!   ([`ServeError::Overloaded`]), nothing run.
//! - **Metrics** ([`ServeMetrics`]): calls, outcomes, terminations, replacements, time in
//!   JavaScript.
//!
//! A server lives on one thread (a runtime does): the host runs [`Server::run`] (which drives
//! the event loop) beside the calls, on a tokio `LocalSet` or any single-threaded executor
//! with tokio's timers.

mod watchdog;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use crate::{CallInFlight, FromV8, JsArgs, JsError, Runtime};
use watchdog::Watchdog;

/// What a server makes a runtime with, and the function it serves: called once at
/// [`Server::new`] and after every termination.
pub type MakeRuntime = Box<dyn Fn() -> Result<(Runtime, v8::Global<v8::Function>), JsError>>;

/// A server's limits.
#[derive(Clone, Copy, Debug)]
pub struct ServeOptions {
    /// Calls in flight at most; more are refused at once.
    pub max_in_flight: usize,
    /// How long a call may take, from its start to its answer.
    pub call_timeout: Duration,
    /// How long one entry into JavaScript (a call's start, a turn of the loop) may keep the
    /// thread before the runtime is terminated.
    pub entry_limit: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_in_flight: 1024,
            call_timeout: Duration::from_secs(30),
            entry_limit: Duration::from_secs(1),
        }
    }
}

/// Why a call got no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServeError {
    /// `max_in_flight` calls were in flight: refused, nothing ran.
    Overloaded,
    /// It did not settle within `call_timeout`.
    TimedOut,
    /// The runtime was terminated while the call was in flight, and replaced. `by`: the call
    /// whose entry passed `entry_limit` (this one's own id, or another's), `None` when it was
    /// a turn of the event loop or the runtime's memory; `error` says how it stopped.
    Terminated {
        /// The call (its [`Server::call`] id) that ran too long, if one did.
        by: Option<u64>,
        /// The termination, as the runtime reported it.
        error: Box<JsError>,
    },
    /// It threw or rejected, or its result did not convert.
    Failed(Box<JsError>),
    /// There is no runtime: making one failed, with this error.
    NoRuntime(Box<JsError>),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Overloaded => write!(f, "refused: the server has its most calls in flight"),
            ServeError::TimedOut => write!(f, "the call did not settle in time"),
            ServeError::Terminated {
                by: Some(by),
                error,
            } => write!(
                f,
                "the runtime was terminated while the call was in flight: call {by} ran too \
                 long ({error})"
            ),
            ServeError::Terminated { by: None, error } => write!(
                f,
                "the runtime was terminated while the call was in flight, in a turn of its \
                 event loop ({error})"
            ),
            ServeError::Failed(error) => write!(f, "{error}"),
            ServeError::NoRuntime(error) => write!(f, "no runtime: {error}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// What a server did, since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeMetrics {
    /// Calls asked for.
    pub calls: u64,
    /// Calls answered with a value.
    pub settled: u64,
    /// Calls that threw or rejected.
    pub failed: u64,
    /// Calls past `call_timeout`.
    pub timed_out: u64,
    /// Calls refused for `max_in_flight`.
    pub overloaded: u64,
    /// Timers of calls given up on (timed out, or their answer dropped), cancelled.
    pub timers_cancelled: u64,
    /// Terminations of the runtime.
    pub terminations: u64,
    /// Runtimes made after a termination.
    pub replacements: u64,
    /// The longest a replacement took to make.
    pub slowest_replacement: Duration,
    /// Time spent inside JavaScript (calls' starts and the loop's turns).
    pub time_in_js: Duration,
}

/// Serves calls to one function of a runtime it owns; see the [module](self). Cheap to clone
/// (one server, many handles); not `Send`.
#[derive(Clone)]
pub struct Server {
    inner: Rc<Inner>,
}

struct Inner {
    make: MakeRuntime,
    current: RefCell<Option<Current>>,
    options: ServeOptions,
    /// Counts runtimes: a call knows which one it started in.
    generation: Cell<u64>,
    next_id: Cell<u64>,
    in_flight: Cell<usize>,
    metrics: RefCell<ServeMetrics>,
    /// Per generation terminated, the call whose entry ran too long (the last few).
    culprits: RefCell<VecDeque<(u64, Option<u64>)>>,
    /// The waker of [`Server::run`]: woken when a call starts or the runtime is replaced.
    driver: RefCell<Option<Waker>>,
    closed: Cell<bool>,
}

/// The runtime being served.
struct Current {
    runtime: Runtime,
    function: v8::Global<v8::Function>,
    watchdog: Watchdog,
}

impl Current {
    /// What `make` made, with a watchdog of its own allowing each entry `entry_limit`.
    fn new(
        (runtime, function): (Runtime, v8::Global<v8::Function>),
        entry_limit: Duration,
    ) -> Self {
        Self {
            watchdog: Watchdog::new(runtime.termination_handle(), entry_limit),
            runtime,
            function,
        }
    }
}

/// How many terminated generations a server remembers the culprits of.
const CULPRITS_KEPT: usize = 16;

impl Server {
    /// A server of the runtime `make` makes (now, and after each termination).
    pub fn new(make: MakeRuntime, options: ServeOptions) -> Result<Self, JsError> {
        let current = Current::new(make()?, options.entry_limit);
        Ok(Self {
            inner: Rc::new(Inner {
                make,
                current: RefCell::new(Some(current)),
                options,
                generation: Cell::new(0),
                next_id: Cell::new(0),
                in_flight: Cell::new(0),
                metrics: RefCell::new(ServeMetrics::default()),
                culprits: RefCell::new(VecDeque::new()),
                driver: RefCell::new(None),
                closed: Cell::new(false),
            }),
        })
    }

    /// Calls the function with `args` and awaits its value (a promise's, once it settles),
    /// converted to `R`. [`Server::run`] must be running for it to settle.
    pub async fn call<R: for<'s> FromV8<'s> + 'static>(
        &self,
        args: impl JsArgs,
    ) -> Result<R, ServeError> {
        self.start(args)?.await
    }

    /// Starts a call now and returns the future of its answer, which borrows nothing: a host
    /// that starts the calls queued since it last ran in one go keeps V8's code and data warm
    /// across them, and awaits each where it answers. `Err` at once when refused.
    pub fn start<R: for<'s> FromV8<'s> + 'static>(
        &self,
        args: impl JsArgs,
    ) -> Result<ServedCall<R>, ServeError> {
        self.start_with(|_| args)
    }

    /// As [`Server::start`], with `prepare` run on the runtime first, inside the call's entry:
    /// what the call's JavaScript will find (a request filed in its op state), and its
    /// arguments. The runtime it is given is the one the call runs in.
    pub fn start_with<R: for<'s> FromV8<'s> + 'static, A: JsArgs>(
        &self,
        prepare: impl FnOnce(&mut Runtime) -> A,
    ) -> Result<ServedCall<R>, ServeError> {
        let inner = &self.inner;
        inner.count(|metrics| metrics.calls += 1);
        if inner.in_flight.get() >= inner.options.max_in_flight {
            inner.count(|metrics| metrics.overloaded += 1);
            return Err(ServeError::Overloaded);
        }
        inner.ensure_runtime()?;
        let id = inner.next_id.get() + 1;
        inner.next_id.set(id);
        let owner = std::num::NonZeroU64::new(id).expect("ids start at 1");
        let generation = inner.generation.get();
        let call = inner
            .enter(Some(id), |runtime, function| {
                let args = prepare(runtime);
                runtime.start_call_as::<R>(owner, function, args)
            })
            .ok_or_else(|| ServeError::NoRuntime(JsError::host("Error", "no runtime").into()))?;
        // No wake of the driver: what the call waits on (an op, a timer) wakes the loop, as a
        // call started on a bare runtime does; a wake per call would be a turn per call.
        inner.in_flight.set(inner.in_flight.get() + 1);
        Ok(ServedCall {
            call,
            // `None`: a timeout past what the clock can hold is none.
            deadline: tokio::time::Instant::now().checked_add(inner.options.call_timeout),
            timer: None,
            in_flight: InFlight {
                inner: inner.clone(),
                owner,
                generation,
                answered: false,
            },
        })
    }

    /// Drives the runtime's event loop, under the entry limit, until [`Server::close`]: the
    /// calls settle here. A termination in a turn replaces the runtime; a promise rejected with
    /// no handler is logged, and serving goes on.
    pub async fn run(&self) {
        let inner = &self.inner;
        while !inner.closed.get() {
            let generation = inner.generation.get();
            let error = std::future::poll_fn(|cx| {
                if inner.closed.get() {
                    return Poll::Ready(None);
                }
                *inner.driver.borrow_mut() = Some(cx.waker().clone());
                match inner.enter(None, |runtime, _| runtime.poll_event_loop(cx)) {
                    Some(Poll::Ready(Err(error))) => Poll::Ready(Some(error)),
                    // Idle, pending, or no runtime: a call started, an op done, a runtime made
                    // wakes it.
                    _ => Poll::Pending,
                }
            })
            .await;
            match error {
                Some(error) if error.is_terminated() => inner.replace(generation),
                Some(error) => {
                    log::warn!("opwire: a promise was rejected with no handler: {error}")
                }
                None => {}
            }
        }
    }

    /// Ends [`Server::run`]; calls in flight stay until the server is dropped.
    pub fn close(&self) {
        self.inner.closed.set(true);
        self.inner.wake_driver();
    }

    /// What the server did so far.
    pub fn metrics(&self) -> ServeMetrics {
        *self.inner.metrics.borrow()
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight.get()
    }
}

/// A call a [`Server`] started: the future of its answer ([`Server::start`]). `Unpin`: a host
/// may poll it from any task (the one that started it, say, with the waker of the task that
/// awaits it) and move it on.
#[must_use = "a call's answer is only seen by awaiting it"]
pub struct ServedCall<R> {
    call: CallInFlight<R>,
    /// When it times out (never, for `None`).
    deadline: Option<tokio::time::Instant>,
    /// The timer of `deadline`, made the first time the call is not ready when polled: a call
    /// answered at once registers no timer.
    timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    in_flight: InFlight,
}

impl<R> Future for ServedCall<R> {
    type Output = Result<R, ServeError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Self::Output> {
        let this = &mut *self;
        let outcome = match std::pin::Pin::new(&mut this.call).poll(cx) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => {
                let Some(deadline) = this.deadline else {
                    return Poll::Pending;
                };
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => None,
                    Poll::Pending => return Poll::Pending,
                }
            }
        };
        // Settled, failed or terminated: nothing of it is left to cancel.
        this.in_flight.answered = outcome.is_some();
        let inner = &this.in_flight.inner;
        let generation = this.in_flight.generation;
        Poll::Ready(match outcome {
            None => {
                inner.count(|metrics| metrics.timed_out += 1);
                Err(ServeError::TimedOut)
            }
            Some(Ok(value)) => {
                inner.count(|metrics| metrics.settled += 1);
                Ok(value)
            }
            // Terminated, or failed as its runtime was replaced for another's termination.
            Some(Err(error)) if error.is_terminated() || generation != inner.generation.get() => {
                inner.replace(generation);
                Err(ServeError::Terminated {
                    by: inner.culprit(generation),
                    error: error.into(),
                })
            }
            Some(Err(error)) => {
                inner.count(|metrics| metrics.failed += 1);
                Err(ServeError::Failed(error.into()))
            }
        })
    }
}

/// One call in flight, counted down however its future ends (dropped included); its work
/// cancelled unless it was answered (timed out, or dropped unanswered).
struct InFlight {
    inner: Rc<Inner>,
    owner: std::num::NonZeroU64,
    /// The runtime it started in.
    generation: u64,
    answered: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let inner = &self.inner;
        inner.in_flight.set(inner.in_flight.get() - 1);
        if self.answered || inner.generation.get() != self.generation {
            return;
        }
        // (Borrowed only while a server's own code enters the runtime: a future dropped
        // there, as a replacement drops the old runtime's, has nothing to cancel.)
        if let Ok(mut current) = inner.current.try_borrow_mut() {
            if let Some(current) = current.as_mut() {
                let cancelled = current.runtime.cancel_work_of(self.owner);
                inner.count(|metrics| metrics.timers_cancelled += cancelled as u64);
            }
        }
    }
}

impl Inner {
    fn count(&self, change: impl FnOnce(&mut ServeMetrics)) {
        change(&mut self.metrics.borrow_mut());
    }

    /// Runs `f` on the runtime under the watchdog, on behalf of call `by` (`None`: the loop);
    /// `None` when there is no runtime. A termination the watchdog requested is withdrawn if
    /// no call spent it, and its culprit kept.
    fn enter<T>(
        &self,
        by: Option<u64>,
        f: impl FnOnce(&mut Runtime, &v8::Global<v8::Function>) -> T,
    ) -> Option<T> {
        let mut current = self.current.borrow_mut();
        let current = current.as_mut()?;
        let armed = current.watchdog.arm();
        let value = f(&mut current.runtime, &current.function);
        let fired = current.watchdog.disarm();
        let spent = current.watchdog.since(armed);
        self.count(|metrics| metrics.time_in_js += spent);
        if fired {
            current.runtime.termination_handle().cancel();
            let mut culprits = self.culprits.borrow_mut();
            culprits.push_back((self.generation.get(), by));
            if culprits.len() > CULPRITS_KEPT {
                culprits.pop_front();
            }
        }
        Some(value)
    }

    /// The call whose entry ran too long in `generation`, if the watchdog stopped one.
    fn culprit(&self, generation: u64) -> Option<u64> {
        self.culprits
            .borrow()
            .iter()
            .rev()
            .find(|(terminated, _)| *terminated == generation)
            .and_then(|(_, by)| *by)
    }

    /// A runtime, made again if the last making failed.
    fn ensure_runtime(&self) -> Result<(), ServeError> {
        if self.current.borrow().is_some() {
            return Ok(());
        }
        let made = (self.make)().map_err(|error| ServeError::NoRuntime(error.into()))?;
        *self.current.borrow_mut() = Some(Current::new(made, self.options.entry_limit));
        self.wake_driver();
        Ok(())
    }

    /// Replaces the runtime of `generation` (unless a call that saw the same termination did
    /// already). Its calls in flight have failed: the termination failed them all.
    fn replace(&self, generation: u64) {
        if self.generation.get() != generation {
            return;
        }
        self.generation.set(generation + 1);
        self.count(|metrics| metrics.terminations += 1);
        let started = Instant::now();
        let made = match (self.make)() {
            Ok(made) => {
                let took = started.elapsed();
                self.count(|metrics| {
                    metrics.replacements += 1;
                    metrics.slowest_replacement = metrics.slowest_replacement.max(took);
                });
                Some(Current::new(made, self.options.entry_limit))
            }
            Err(error) => {
                log::warn!("opwire: a server's runtime could not be made again: {error}");
                None
            }
        };
        // Dropped outside the borrow: its calls' futures may be dropped with it.
        let old = self.current.replace(made);
        drop(old);
        self.wake_driver();
    }

    fn wake_driver(&self) {
        if let Some(waker) = self.driver.borrow().as_ref() {
            waker.wake_by_ref();
        }
    }
}
