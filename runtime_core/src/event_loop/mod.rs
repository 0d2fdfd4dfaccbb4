//! The event loop of async ops: the futures of ops still running, polled when their wakers
//! say so (never busy-polled), and settled in batches, one microtask checkpoint per batch.
//!
//! It is executor-agnostic: [`crate::Runtime::poll_event_loop`] is a plain `poll`, so the loop runs
//! inside whatever drives it; ops that use tokio (`tokio::time`, `tokio::net`, ...) need it
//! driven inside a tokio runtime (a current-thread one: the op futures are `!Send` and are
//! polled here, on the isolate's thread).

use std::alloc::Layout;
use std::cell::RefCell;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

use crate::JsError;

pub(crate) mod async_wrap;
pub(crate) mod calls;
mod pending;
mod pool;
mod rejections;
#[cfg(all(feature = "tokio", target_os = "linux"))]
mod timer_fd;
pub(crate) mod timer_heap;
pub(crate) mod work_owner;

pub(crate) use pool::{BoxedOp, OpMemory, OpPool};
pub(crate) use rejections::promise_reject_callback;

/// When an async op's future is first polled and its promise settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncMode {
    /// Polled during the call; a ready outcome settles the promise before the call returns
    /// (no event-loop round trip). The default: best for ops that often finish at once.
    Eager,
    /// First polled by the event loop (`#[op(async(lazy))]`): for ops that never finish at
    /// once, saving a useless poll.
    Lazy,
    /// Polled during the call, but settled on the next turn of the event loop
    /// (`#[op(async(deferred))]`): the caller's code after the call runs first, as if the op
    /// were truly asynchronous.
    Deferred,
}

/// An async op after its call: its future and the resolver of its promise.
pub(crate) trait PendingOp {
    /// Polls the op's future; `Ready` once its outcome is known.
    fn poll_op(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()>;
    /// The outcome (the future is done): `Ok` resolves, `Err` rejects. Making it may run
    /// JavaScript (a `ToV8` conversion), which may throw.
    fn take_outcome<'s>(
        self: Pin<&mut Self>,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, v8::Local<'s, v8::Value>>;
    /// The outcome, if making it needs no V8: `undefined` (`Ok`) or an error; else `None`, and
    /// it stays for [`PendingOp::take_outcome`].
    fn take_plain_outcome(self: Pin<&mut Self>) -> Option<Result<(), crate::OpError>>;
    /// The op's name, for reports.
    fn op_name(&self) -> &'static str;
    /// Keeps the resolver of its promise (when it goes pending).
    fn keep_resolver(self: Pin<&mut Self>, resolver: v8::Global<v8::PromiseResolver>);
    /// The resolver of its promise, to settle it.
    fn take_resolver(self: Pin<&mut Self>) -> Option<v8::Global<v8::PromiseResolver>>;
}

/// An async op after the first part of its call (see [`EventLoop::start`]).
pub(crate) enum Started {
    /// Done during the call, with an outcome that needs no V8 to make: `undefined` or an
    /// error. Nothing is left of the op.
    Plain(Result<(), crate::OpError>),
    /// Still to settle: the op, and whether it is done.
    Boxed(BoxedOp, bool),
}

/// Work the event loop drives besides ops (dynamic imports, timers, a host's own queue):
/// polled at the start of every turn, keeping the loop alive while it waits on something. An
/// extension adds one with [`Extension::loop_source`](crate::Extension::loop_source); it
/// keeps its JavaScript callbacks as handles (a [`GlobalScript`](crate::GlobalScript)'s
/// `keep` is the place to take them) and wakes the loop with the waker of `cx`.
pub trait LoopSource {
    /// Does what is ready, which may run JavaScript; whether it ran any. `Err` with an
    /// exception nothing caught (a timer's callback threw) or the termination.
    fn poll_source(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError>;
    /// Whether it waits on something that keeps the loop alive.
    fn keeps_alive(&self) -> bool;
    /// Whether it holds work a snapshot cannot carry (an unref'd timer too).
    fn has_pending(&self) -> bool {
        self.keeps_alive()
    }
    /// Cancels everything it waits on (`Runtime::cancel_pending_work`): none of it runs later.
    fn cancel_pending(&self, _scope: &mut v8::PinScope<'_, '_>) {}
    /// Drops the handles it keeps (before a snapshot is made, which may hold none).
    fn forget(&self) {}
}

/// How many of V8's tasks a turn runs at most (one may post another).
const MAX_V8_TASKS: usize = 64;

/// One runtime's pending ops and unhandled rejections.
#[derive(Default)]
pub(crate) struct EventLoop {
    /// Ops whose futures are not done.
    pending: RefCell<pending::PendingOps>,
    /// Ops done but settled on the next turn (`#[op(async(deferred))]`).
    ready: RefCell<Vec<BoxedOp>>,
    /// The batch being settled (kept to reuse its memory).
    batch: RefCell<Vec<BoxedOp>>,
    /// The async-op claim protocol's state (see [`async_wrap`]).
    pub(crate) claims: async_wrap::Claims,
    /// The waker of the last poll of the loop: woken when an op is added.
    waker: RefCell<Option<Waker>>,
    /// Promises rejected with no handler (yet), with their values.
    unhandled: RefCell<rejections::UnhandledRejections>,
    /// The runtime's: a turn whose JavaScript it stopped ends the loop.
    termination: Option<crate::TerminationHandle>,
    /// Dynamic imports, timers.
    sources: RefCell<Vec<std::rc::Rc<dyn LoopSource>>>,
    /// Calls the host started and awaits apart (`Runtime::start_call`).
    pub(crate) calls: calls::CallsInFlight,
    /// The tasks V8 posts to the isolate's thread, which each turn runs.
    tasks: std::cell::OnceCell<std::sync::Arc<crate::isolate::tasks::IsolateTasks>>,
    /// Memory for ops. Declared last: dropped after every op above has given its back.
    pub(crate) pool: OpPool,
}

impl EventLoop {
    pub(crate) fn new(termination: crate::TerminationHandle) -> Self {
        Self {
            termination: Some(termination),
            ..Self::default()
        }
    }

    /// Whether a termination is requested (and not yet spent): one flag's load.
    #[inline]
    pub(crate) fn termination_requested(&self) -> bool {
        self.termination
            .as_ref()
            .is_some_and(crate::TerminationHandle::is_requested)
    }

    /// Whether the turn's JavaScript was (or is being) terminated: V8 then dropped the
    /// microtask queue, so continuations were lost and the loop must not say it finished.
    pub(crate) fn terminating(&self, scope: &v8::Isolate) -> bool {
        self.termination_requested() || scope.is_execution_terminating()
    }

    /// Places `op` (in `memory` its op kept, or the pool's) and polls it during its call unless
    /// it is lazy. Done with a plain outcome and eager, it is dropped at once and its memory
    /// kept for the op's next call: no pool search, no allocation.
    ///
    /// `write` builds the op in its place: an op built on the stack and copied there was read
    /// back in 8-byte words over its 1-byte fields' fresh stores, which the CPU cannot forward
    /// (`perf annotate`: half of `op_async_void`'s own samples on that load).
    ///
    /// # Safety
    /// `write` must initialize the whole `T` at the pointer it is given.
    #[ops_macro::inline_hot]
    pub(crate) unsafe fn start<T: PendingOp + 'static>(
        &self,
        memory: &OpMemory,
        write: impl FnOnce(NonNull<T>),
        mode: AsyncMode,
    ) -> Started {
        let layout = Layout::new::<T>();
        let place = memory
            .take(layout)
            .unwrap_or_else(|| self.pool.take(layout))
            .cast::<T>();
        // (Memory of `T`'s layout, unused; initialized by `write`, as the caller promises.)
        write(place);
        // Owned from here on, so that an unwind drops it (and returns its memory).
        let op = BoxedOp {
            op: place,
            layout,
            pool: &self.pool,
        };
        // SAFETY: the op stays at `place` until it is dropped, below or by `op`; nothing else
        // reaches it meanwhile. (Polled through its own type: no dynamic call.)
        let mut pinned = unsafe { Pin::new_unchecked(&mut *place.as_ptr()) };
        let ready = mode != AsyncMode::Lazy && self.poll_during_call(pinned.as_mut()).is_ready();
        if ready && mode == AsyncMode::Eager {
            if let Some(outcome) = pinned.as_mut().take_plain_outcome() {
                let op = std::mem::ManuallyDrop::new(op);
                // SAFETY: dropped once, here (`op` never drops it); its memory is then free,
                // and `memory` keeps it. (A panicking `Drop` leaks the memory, no more.)
                unsafe { std::ptr::drop_in_place(place.as_ptr()) };
                memory.keep(op.layout, place.cast(), &self.pool);
                return Started::Plain(outcome);
            }
        }
        Started::Boxed(op, ready)
    }

    /// Polls `op` once during its call, with the loop's waker (so a wake before the loop polls
    /// the op again is not lost), or none yet. The waker is lent, not cloned: no reference
    /// count is touched per call (an op's poll cannot reach the loop).
    #[ops_macro::inline_hot]
    fn poll_during_call<T: PendingOp + ?Sized>(&self, op: Pin<&mut T>) -> Poll<()> {
        let waker = self.waker.borrow();
        let waker = waker.as_ref().unwrap_or(Waker::noop());
        op.poll_op(&mut Context::from_waker(waker))
    }

    /// Adds a source the loop polls every turn.
    pub(crate) fn add_source(&self, source: std::rc::Rc<dyn LoopSource>) {
        self.sources.borrow_mut().push(source);
    }

    /// Whether a source holds work a snapshot cannot carry.
    pub(crate) fn sources_pending(&self) -> bool {
        self.sources
            .borrow()
            .iter()
            .any(|source| source.has_pending())
    }

    /// Cancels what every source waits on.
    pub(crate) fn cancel_sources(&self, scope: &mut v8::PinScope<'_, '_>) {
        let sources = self.sources.borrow().clone();
        for source in sources {
            source.cancel_pending(scope);
        }
    }

    /// Drops the handles every source keeps.
    pub(crate) fn forget_sources(&self) {
        for source in self.sources.borrow().iter() {
            source.forget();
        }
    }

    pub(crate) fn wake(&self) {
        if let Some(waker) = &*self.waker.borrow() {
            waker.wake_by_ref();
        }
    }

    /// Adds an op whose future is not done.
    #[inline]
    fn push_pending(&self, op: BoxedOp) {
        self.pending.borrow_mut().push(op);
        self.wake();
    }

    /// Adds an op to settle on the next turn.
    #[inline]
    fn push_ready(&self, op: BoxedOp) {
        self.ready.borrow_mut().push(op);
        self.wake();
    }

    /// Adds an op, done (deferred) or not (inlined into the claim protocol's steps, in
    /// `async_wrap.rs`, as it was when they were written here).
    #[inline]
    pub(crate) fn push(&self, op: BoxedOp, ready: bool) {
        if ready {
            self.push_ready(op);
        } else {
            self.push_pending(op);
        }
    }

    /// Whether the loop has nothing left to do: no op pending or waiting to be settled, no
    /// source keeping it alive, and no task V8 queued (its turn runs it). A task V8 delayed
    /// (a timed `Atomics.waitAsync`) keeps nothing alive: it runs if the loop still runs
    /// when its time comes.
    pub(crate) fn is_idle(&self) -> bool {
        !self.tasks.get().is_some_and(|tasks| tasks.has_queued()) && self.ops_idle()
    }

    /// Whether no op is pending or waiting to be settled and no source keeps the loop alive
    /// (what a snapshot needs: V8's own tasks are V8's).
    pub(crate) fn ops_idle(&self) -> bool {
        self.pending.borrow().is_empty()
            && self.ready.borrow().is_empty()
            && self.claims.nothing_left()
            && !self
                .sources
                .borrow()
                .iter()
                .any(|source| source.keeps_alive())
    }

    /// Drops every op pending or waiting to be settled (their futures' `Drop` runs; their
    /// promises never settle) and the unhandled rejections not yet reported.
    pub(crate) fn cancel_pending(&self) {
        self.claims.cancel();
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        drop(pending);
        let ready = std::mem::take(&mut *self.ready.borrow_mut());
        drop(ready);
        self.unhandled.borrow_mut().clear();
    }

    /// Drops every pending op (their futures' `Drop` runs), and the handles the loop keeps;
    /// fails the calls in flight.
    pub(crate) fn clear(&self) {
        self.calls.fail_all(&JsError::host(
            "Error",
            "the runtime was dropped (or made a snapshot) with the call in flight",
        ));
        self.cancel_pending();
        self.claims.forget();
        self.calls.clear_handles();
    }

    /// One turn: settles every op that is done, in batches, each followed by a microtask
    /// checkpoint, until none is. `Err` with the first unhandled rejection.
    /// `Ok(true)` when it settled any op (so JavaScript ran).
    fn turn(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        // A claim happens in the JavaScript turn of its call: an op still unclaimed now never
        // will be.
        self.run_unclaimed(self.claims.take_unclaimed());
        let mut settled = self.run_v8_tasks(scope);
        if settled && self.terminating(scope) {
            return Err(JsError::terminated_in(scope));
        }
        // The list is borrowed while sources run JavaScript: only `Runtime::new` and
        // `Runtime::inspector`, never in a turn, add to it.
        for source in self.sources.borrow().iter() {
            settled |= source.poll_source(scope, cx)?;
            if self.terminating(scope) {
                return Err(JsError::terminated_in(scope));
            }
        }
        if settled {
            scope.perform_microtask_checkpoint();
            if self.terminating(scope) {
                return Err(JsError::terminated_in(scope));
            }
            self.check_unhandled(scope)?;
        }
        loop {
            let mut batch = std::mem::take(&mut *self.batch.borrow_mut());
            batch.append(&mut self.ready.borrow_mut());
            self.pending.borrow_mut().poll_woken(cx, &mut batch);
            if batch.is_empty() {
                *self.batch.borrow_mut() = batch;
                break;
            }
            // Settling runs JavaScript (then-callbacks run at the checkpoint), which may start
            // more ops: nothing of the loop is borrowed meanwhile.
            self.settle(scope, &mut batch);
            settled = true;
            batch.clear();
            *self.batch.borrow_mut() = batch;
            scope.perform_microtask_checkpoint();
            if self.terminating(scope) {
                return Err(JsError::terminated_in(scope));
            }
            self.check_unhandled(scope)?;
        }
        self.check_unhandled(scope).map(|()| settled)
    }

    /// This loop as the data of a function the runtime makes (`claim`, `settled`): the
    /// loop outlives the isolate (op contexts hold it).
    pub(crate) fn as_function_data<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> v8::Local<'s, v8::External> {
        v8::External::new(scope, self as *const Self as *mut std::ffi::c_void)
    }

    /// The loop a function's data names, as [`EventLoop::as_function_data`] made it.
    ///
    /// # Safety
    /// The function must have been made with [`EventLoop::as_function_data`] as its data.
    pub(crate) unsafe fn of_function_data<'a>(data: v8::Local<'_, v8::Value>) -> Option<&'a Self> {
        let data = v8::Local::<v8::External>::try_from(data).ok()?;
        // SAFETY: the caller vouches that `data` points at a loop, which outlives the isolate.
        Some(unsafe { &*(data.value() as *const Self) })
    }

    /// Runs the tasks V8 posted to the isolate's thread (at most [`MAX_V8_TASKS`] a turn;
    /// the rest wake the next): FinalizationRegistry callbacks, `Atomics.waitAsync`'s
    /// settlements, its own heap work. Nothing else runs them. Whether any ran.
    pub(crate) fn run_v8_tasks(&self, scope: &v8::Isolate) -> bool {
        self.tasks
            .get()
            .is_some_and(|tasks| tasks.run(MAX_V8_TASKS, false, &|| self.terminating(scope)) > 0)
    }

    /// The queue of the isolate's tasks (its posts wake the loop).
    pub(crate) fn set_tasks(&self, tasks: std::sync::Arc<crate::isolate::tasks::IsolateTasks>) {
        let _ = self.tasks.set(tasks);
    }

    /// Before the isolate goes: its tasks are dropped, and those posted later.
    pub(crate) fn close_tasks(&self, isolate: &v8::Isolate) {
        if let Some(tasks) = self.tasks.get() {
            tasks.close(isolate);
        }
    }

    /// Settles a batch under one `TryCatch` (a conversion that runs JavaScript may throw:
    /// that op rejects with the exception). No microtask runs meanwhile: outside JavaScript,
    /// V8 would otherwise run them as each `resolve` returns, and the batch's then-callbacks
    /// run together at the turn's checkpoint instead, as deno's do.
    fn settle(&self, scope: &mut v8::PinScope<'_, '_>, batch: &mut [BoxedOp]) {
        scope.set_microtasks_policy(v8::MicrotasksPolicy::Explicit);
        self.settle_each(scope, batch);
        scope.set_microtasks_policy(v8::MicrotasksPolicy::Auto);
    }

    fn settle_each(&self, scope: &mut v8::PinScope<'_, '_>, batch: &mut [BoxedOp]) {
        v8::tc_scope!(let try_catch, scope);
        for op in batch.iter_mut() {
            let Some(resolver) = op.as_mut().take_resolver() else {
                continue;
            };
            let resolver = v8::Local::new(try_catch, &resolver);
            let outcome = op.as_mut().take_outcome(try_catch);
            let outcome = match try_catch.exception() {
                Some(exception) => Err(exception),
                None => outcome,
            };
            try_catch.reset();
            // `None` only while terminating: nothing more to do then.
            let _ = match outcome {
                Ok(value) => resolver.resolve(try_catch, value),
                Err(error) => resolver.reject(try_catch, error),
            };
        }
    }

    /// The first promise rejected with no handler, as an error.
    fn check_unhandled(&self, scope: &mut v8::PinScope<'_, '_>) -> Result<(), JsError> {
        let Some(first) = self.unhandled.borrow_mut().take_first() else {
            return Ok(());
        };
        let value = v8::Local::new(scope, &first);
        Err(JsError::from_exception(scope, value))
    }

    /// Forgets an unhandled rejection of `promise` (the embedder awaits it itself).
    pub(crate) fn forget_unhandled(&self, promise: v8::Local<'_, v8::Promise>) {
        self.unhandled.borrow_mut().remove(promise);
    }

    /// Keeps the waker of the loop's poll (cloned only when it changes).
    pub(crate) fn set_waker(&self, waker: &Waker) {
        let mut kept = self.waker.borrow_mut();
        if !kept.as_ref().is_some_and(|kept| kept.will_wake(waker)) {
            *kept = Some(waker.clone());
            if let Some(tasks) = self.tasks.get() {
                tasks.set_waker(waker);
            }
        }
    }

    /// One turn, then whether any op is left.
    pub(crate) fn poll(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), JsError>> {
        self.poll_turn(scope, cx).0
    }

    /// As [`EventLoop::poll`], and whether JavaScript ran.
    pub(crate) fn poll_turn(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> (Poll<Result<(), JsError>>, bool) {
        let turned = self.turn(scope, cx);
        match &turned {
            // Their continuations were dropped with the microtasks.
            Err(error) if error.is_terminated() => self.calls.settle_or_fail(scope, error, self),
            _ => self.calls.settle_ready(scope, self),
        }
        match turned {
            Err(error) => (Poll::Ready(Err(error)), true),
            Ok(settled) if self.is_idle() => {
                if !self.calls.is_empty() {
                    self.calls.fail_all(&JsError::host(
                        "Error",
                        "the call's promise is still pending, but no op is: it never settles",
                    ));
                }
                (Poll::Ready(Ok(())), settled)
            }
            Ok(settled) => (Poll::Pending, settled),
        }
    }

    /// The outcome of `value`, if it is not a pending promise.
    pub(crate) fn outcome(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        value: &v8::Global<v8::Value>,
    ) -> Option<Result<v8::Global<v8::Value>, JsError>> {
        let local = v8::Local::new(scope, value);
        let Ok(promise) = v8::Local::<v8::Promise>::try_from(local) else {
            return Some(Ok(value.clone()));
        };
        match promise.state() {
            v8::PromiseState::Pending => None,
            v8::PromiseState::Fulfilled => {
                let result = promise.result(scope);
                Some(Ok(v8::Global::new(scope, result)))
            }
            v8::PromiseState::Rejected => {
                self.forget_unhandled(promise);
                let result = promise.result(scope);
                Some(Err(JsError::from_exception(scope, result)))
            }
        }
    }
}
