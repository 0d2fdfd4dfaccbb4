//! The event loop of async ops: the futures of ops still running, polled when their wakers
//! say so (never busy-polled), and settled in batches, one microtask checkpoint per batch.
//!
//! It is executor-agnostic: [`Runtime::poll_event_loop`] is a plain `poll`, so the loop runs
//! inside whatever drives it; ops that use tokio (`tokio::time`, `tokio::net`, ...) need it
//! driven inside a tokio runtime (a current-thread one: the op futures are `!Send` and are
//! polled here, on the isolate's thread).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use futures_util::stream::{FuturesUnordered, StreamExt};

use crate::{JsError, Runtime};

/// An async op after its call: its future and the promise it settles.
pub(crate) trait PendingOp {
    /// Polls the op's future; `Ready` once its outcome is known.
    fn poll_op(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()>;
    /// Settles the op's promise with its outcome (the future is done).
    fn settle(self: Pin<&mut Self>, scope: &mut v8::PinScope<'_, '_>);
}

/// A boxed pending op.
pub(crate) type BoxedOp = Pin<Box<dyn PendingOp>>;

/// A pending op as a future that yields itself when done, to be settled.
struct Running(Option<BoxedOp>);

impl Future for Running {
    type Output = BoxedOp;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<BoxedOp> {
        let op = self.0.as_mut().expect("a finished op is not polled again");
        match op.as_mut().poll_op(cx) {
            Poll::Ready(()) => Poll::Ready(self.0.take().expect("checked above")),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// One runtime's pending ops and unhandled rejections.
#[derive(Default)]
pub(crate) struct EventLoop {
    /// Ops whose futures are not done.
    pending: RefCell<FuturesUnordered<Running>>,
    /// Ops done but settled on the next turn (`#[op(async(deferred))]`).
    ready: RefCell<Vec<BoxedOp>>,
    /// The batch being settled (kept to reuse its memory).
    batch: RefCell<Vec<BoxedOp>>,
    /// The waker of the last poll of the loop: woken when an op is added.
    waker: RefCell<Option<Waker>>,
    /// Promises rejected with no handler (yet), with their values.
    unhandled: RefCell<Vec<(v8::Global<v8::Promise>, v8::Global<v8::Value>)>>,
}

impl EventLoop {
    /// A waker for an op's first poll during its call: the loop's (so a wake before the loop
    /// polls the op again is not lost), or none yet.
    pub(crate) fn waker(&self) -> Waker {
        self.waker
            .borrow()
            .clone()
            .unwrap_or_else(|| Waker::noop().clone())
    }

    fn wake(&self) {
        if let Some(waker) = &*self.waker.borrow() {
            waker.wake_by_ref();
        }
    }

    /// Adds an op whose future is not done.
    pub(crate) fn push_pending(&self, op: BoxedOp) {
        self.pending.borrow_mut().push(Running(Some(op)));
        self.wake();
    }

    /// Adds an op to settle on the next turn.
    pub(crate) fn push_ready(&self, op: BoxedOp) {
        self.ready.borrow_mut().push(op);
        self.wake();
    }

    /// Whether no op is pending or waiting to be settled.
    pub(crate) fn is_idle(&self) -> bool {
        self.pending.borrow().is_empty() && self.ready.borrow().is_empty()
    }

    /// Drops every pending op (their futures' `Drop` runs).
    pub(crate) fn clear(&self) {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        drop(pending);
        let ready = std::mem::take(&mut *self.ready.borrow_mut());
        drop(ready);
        self.unhandled.borrow_mut().clear();
    }

    /// One turn: settles every op that is done, in batches, each followed by a microtask
    /// checkpoint, until none is. `Err` with the first unhandled rejection.
    fn turn(&self, scope: &mut v8::PinScope<'_, '_>, cx: &mut Context<'_>) -> Result<(), JsError> {
        loop {
            let mut batch = std::mem::take(&mut *self.batch.borrow_mut());
            batch.append(&mut self.ready.borrow_mut());
            while let Poll::Ready(Some(op)) = self.pending.borrow_mut().poll_next_unpin(cx) {
                batch.push(op);
            }
            if batch.is_empty() {
                *self.batch.borrow_mut() = batch;
                break;
            }
            // Settling runs JavaScript (then-callbacks run at the checkpoint), which may start
            // more ops: nothing of the loop is borrowed meanwhile.
            for op in batch.iter_mut() {
                op.as_mut().settle(scope);
            }
            batch.clear();
            *self.batch.borrow_mut() = batch;
            scope.perform_microtask_checkpoint();
            self.check_unhandled(scope)?;
        }
        self.check_unhandled(scope)
    }

    /// The first promise rejected with no handler, as an error.
    fn check_unhandled(&self, scope: &mut v8::PinScope<'_, '_>) -> Result<(), JsError> {
        let first = {
            let mut unhandled = self.unhandled.borrow_mut();
            if unhandled.is_empty() {
                return Ok(());
            }
            unhandled.remove(0)
        };
        let value = v8::Local::new(scope, &first.1);
        Err(JsError::from_exception(scope, value))
    }

    /// Forgets an unhandled rejection of `promise` (the embedder awaits it itself).
    fn forget_unhandled(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        promise: v8::Local<'_, v8::Promise>,
    ) {
        self.unhandled
            .borrow_mut()
            .retain(|(rejected, _)| v8::Local::new(scope, rejected) != promise);
    }
}

/// V8's report of promises rejected without a handler, and of handlers added later.
pub(crate) extern "C" fn promise_reject_callback(message: v8::PromiseRejectMessage) {
    // SAFETY: V8 calls this with a live message, inside the isolate.
    v8::callback_scope!(unsafe scope, &message);
    v8::scope!(let scope, scope);
    let Some(event_loop) = scope.get_slot::<std::rc::Rc<EventLoop>>().cloned() else {
        return;
    };
    let promise = message.get_promise();
    match message.get_event() {
        v8::PromiseRejectEvent::PromiseRejectWithNoHandler => {
            let value = message
                .get_value()
                .unwrap_or_else(|| v8::undefined(scope).into());
            let entry = (
                v8::Global::new(scope, promise),
                v8::Global::new(scope, value),
            );
            event_loop.unhandled.borrow_mut().push(entry);
        }
        v8::PromiseRejectEvent::PromiseHandlerAddedAfterReject => {
            event_loop.forget_unhandled(scope, promise);
        }
        _ => {}
    }
}

impl Runtime {
    /// Runs one turn of the event loop: settles the async ops that are done (their promises'
    /// handlers run), and is `Ready` once no op is pending. `Err` with the first promise
    /// rejected with no handler (its stack kept).
    pub fn poll_event_loop(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), JsError>> {
        let event_loop = self.event_loop.clone();
        *event_loop.waker.borrow_mut() = Some(cx.waker().clone());
        if let Err(error) = self.with_scope(|scope| event_loop.turn(scope, cx)) {
            return Poll::Ready(Err(error));
        }
        if event_loop.is_idle() {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }

    /// Runs the event loop until no op is pending (or a promise is rejected with no handler).
    pub fn run_event_loop(&mut self) -> impl Future<Output = Result<(), JsError>> + '_ {
        std::future::poll_fn(move |cx| self.poll_event_loop(cx))
    }

    /// Awaits a JavaScript value from Rust, driving the event loop: a promise's value once it
    /// is fulfilled (its error if rejected); any other value as is.
    pub fn resolve(
        &mut self,
        value: v8::Global<v8::Value>,
    ) -> impl Future<Output = Result<v8::Global<v8::Value>, JsError>> + '_ {
        std::future::poll_fn(move |cx| {
            if let Some(outcome) = self.promise_outcome(&value) {
                return Poll::Ready(outcome);
            }
            let looped = self.poll_event_loop(cx);
            if let Some(outcome) = self.promise_outcome(&value) {
                return Poll::Ready(outcome);
            }
            match looped {
                Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) => Poll::Ready(Err(JsError::exception(
                    "Error",
                    "the promise is still pending, but no op is: it never settles",
                ))),
                Poll::Pending => Poll::Pending,
            }
        })
    }

    /// The outcome of `value`, if it is not a pending promise.
    fn promise_outcome(
        &mut self,
        value: &v8::Global<v8::Value>,
    ) -> Option<Result<v8::Global<v8::Value>, JsError>> {
        let event_loop = self.event_loop.clone();
        self.with_scope(|scope| {
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
                    event_loop.forget_unhandled(scope, promise);
                    let result = promise.result(scope);
                    Some(Err(JsError::from_exception(scope, result)))
                }
            }
        })
    }
}
