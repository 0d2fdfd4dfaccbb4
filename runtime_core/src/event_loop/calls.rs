//! Calls in flight: the promises of calls a host started ([`crate::Runtime::start_call`]) and
//! awaits apart, each through its own [`CallInFlight`] future, while the event loop runs.
//!
//! The loop looks at the promises still pending after each of its turns (a state read each:
//! no reaction added to the promise, no function made per call, as deno's `watch_promise`
//! makes two) and converts the value of each that settled in that turn's scope, so the host's
//! future gets an `R`, never a handle. Any termination the runtime reports fails every call
//! in flight (V8 dropped the microtasks their continuations were queued as); so does
//! cancelling the runtime's pending work, the loop going idle with calls still pending
//! (nothing can settle them), and the runtime going away: a host's future always ends.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::{FromV8, JsError};

/// What a call in flight is to the loop, whatever its result type.
trait SettleCall {
    /// Keeps the call's outcome (converting a value to the result type, in `scope`); nothing
    /// if it already has one.
    fn settle<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        outcome: Result<v8::Local<'s, v8::Value>, JsError>,
    );
    /// Keeps `error` as the call's outcome; nothing if it already has one.
    fn fail(&self, error: JsError);
}

/// One call's outcome, shared by the loop and the host's future.
struct CallSlot<R> {
    state: RefCell<SlotState<R>>,
}

enum SlotState<R> {
    /// Not settled: the waker of the future's last poll.
    Waiting(Option<Waker>),
    Settled(Result<R, JsError>),
    /// Taken by the future.
    Taken,
}

impl<R> CallSlot<R> {
    fn keep(&self, outcome: Result<R, JsError>) {
        let waker = {
            let mut state = self.state.borrow_mut();
            let SlotState::Waiting(waker) = &mut *state else {
                return;
            };
            let waker = waker.take();
            *state = SlotState::Settled(outcome);
            waker
        };
        // Outside the borrow: a waker is the host's code.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<R: for<'s> FromV8<'s>> SettleCall for CallSlot<R> {
    fn settle<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        outcome: Result<v8::Local<'s, v8::Value>, JsError>,
    ) {
        if !matches!(*self.state.borrow(), SlotState::Waiting(_)) {
            return;
        }
        let converted = outcome.and_then(|value| {
            // A conversion may run JavaScript (a getter), which may throw: that is its error,
            // and nothing escapes into the loop's turn.
            v8::tc_scope!(let try_catch, scope);
            let converted = R::from_v8(try_catch, value);
            let thrown = try_catch.exception();
            match (converted, thrown) {
                (Ok(value), None) => Ok(value),
                (_, Some(exception)) if !try_catch.has_terminated() => {
                    Err(JsError::from_exception(try_catch, exception))
                }
                (Err(error), _) => Err(JsError::conversion("the result", &error)),
                (Ok(_), Some(_)) => Err(JsError::terminated_in(try_catch)),
            }
        });
        self.keep(converted);
    }

    fn fail(&self, error: JsError) {
        self.keep(Err(error));
    }
}

/// A call started by [`Runtime::start_call`](crate::Runtime::start_call): a future of its
/// result that borrows nothing, so a host keeps many at once and awaits each where it likes
/// (a task per request) while one place drives the runtime's event loop
/// ([`Runtime::poll_event_loop`](crate::Runtime::poll_event_loop) or
/// [`Runtime::run_until`](crate::Runtime::run_until)). It makes progress only while the loop
/// runs. Dropped before it settles, the call is forgotten (its JavaScript runs on; its
/// outcome, a rejection included, goes nowhere).
#[must_use = "a call's outcome is only seen by awaiting its future"]
pub struct CallInFlight<R> {
    slot: Rc<CallSlot<R>>,
}

impl<R> std::fmt::Debug for CallInFlight<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let settled = matches!(*self.slot.state.borrow(), SlotState::Settled(_));
        f.debug_struct("CallInFlight")
            .field("settled", &settled)
            .finish()
    }
}

impl<R> CallInFlight<R> {
    /// Whether the call has settled (its future is ready).
    pub fn is_settled(&self) -> bool {
        matches!(*self.slot.state.borrow(), SlotState::Settled(_))
    }
}

impl<R> Future for CallInFlight<R> {
    type Output = Result<R, JsError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.slot.state.borrow_mut();
        match &mut *state {
            SlotState::Waiting(waker) => {
                if !waker
                    .as_ref()
                    .is_some_and(|kept| kept.will_wake(cx.waker()))
                {
                    *waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
            SlotState::Settled(_) => match std::mem::replace(&mut *state, SlotState::Taken) {
                SlotState::Settled(outcome) => Poll::Ready(outcome),
                _ => unreachable!("matched as settled"),
            },
            SlotState::Taken => panic!("a CallInFlight polled after it was ready"),
        }
    }
}

/// A pending call: its promise, and where its outcome goes.
struct InFlight {
    promise: v8::Global<v8::Promise>,
    call: Rc<dyn SettleCall>,
}

/// One runtime's calls in flight.
#[derive(Default)]
pub(crate) struct CallsInFlight {
    calls: RefCell<Vec<InFlight>>,
    /// The list being looked at (kept to reuse its memory).
    spare: RefCell<Vec<InFlight>>,
}

impl CallsInFlight {
    /// A call whose function returned `value` (or threw, `Err`): settled now unless `value`
    /// is a pending promise, which is then kept, marked handled (its rejection is the host's
    /// to see, never an unhandled one).
    pub(crate) fn start<'s, R: for<'r> FromV8<'r> + 'static>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        value: Result<v8::Local<'s, v8::Value>, JsError>,
        event_loop: &super::EventLoop,
    ) -> CallInFlight<R> {
        let slot = Rc::new(CallSlot {
            state: RefCell::new(SlotState::Waiting(None)),
        });
        match value.map(|value| v8::Local::<v8::Promise>::try_from(value).map_err(|_| value)) {
            Err(error) => slot.fail(error),
            // Not a promise: the value itself.
            Ok(Err(value)) => slot.settle(scope, Ok(value)),
            Ok(Ok(promise)) if promise.state() == v8::PromiseState::Pending => {
                promise.mark_as_handled();
                self.calls.borrow_mut().push(InFlight {
                    promise: v8::Global::new(scope, promise),
                    call: slot.clone(),
                });
            }
            Ok(Ok(promise)) => settle_from(scope, &*slot, promise, event_loop),
        }
        self.may_have_settled(event_loop);
        CallInFlight { slot }
    }

    /// JavaScript ran outside the loop (a call, a script) and may have settled a call in
    /// flight: the loop looks on its next turn.
    pub(crate) fn may_have_settled(&self, event_loop: &super::EventLoop) {
        if !self.calls.borrow().is_empty() {
            event_loop.wake();
        }
    }

    /// Whether no call is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.calls.borrow().is_empty()
    }

    /// Settles the calls whose promises settled (and forgets those whose futures were
    /// dropped).
    pub(crate) fn settle_ready(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        event_loop: &super::EventLoop,
    ) {
        if self.calls.borrow().is_empty() {
            return;
        }
        let mut calls = std::mem::replace(
            &mut *self.calls.borrow_mut(),
            std::mem::take(&mut *self.spare.borrow_mut()),
        );
        // Converting may run JavaScript, which cannot start a call (that takes the runtime),
        // but the list is not borrowed meanwhile.
        calls.retain(|entry| {
            // Only this list holds it: the host dropped its future.
            if Rc::strong_count(&entry.call) == 1 {
                return false;
            }
            let promise = v8::Local::new(scope, &entry.promise);
            if promise.state() == v8::PromiseState::Pending {
                return true;
            }
            settle_from(scope, &*entry.call, promise, event_loop);
            false
        });
        // (Any call added meanwhile goes after the ones kept.)
        let mut current = self.calls.borrow_mut();
        calls.append(&mut current);
        let emptied = std::mem::replace(&mut *current, calls);
        *self.spare.borrow_mut() = emptied;
    }

    /// Fails every call in flight with `error`.
    pub(crate) fn fail_all(&self, error: &JsError) {
        let calls = std::mem::take(&mut *self.calls.borrow_mut());
        for entry in calls {
            entry.call.fail(error.clone());
        }
    }
}

impl Drop for CallsInFlight {
    fn drop(&mut self) {
        self.fail_all(&JsError::exception(
            "Error",
            "the runtime was dropped with the call in flight",
        ));
    }
}

/// Settles `call` from its settled `promise`.
fn settle_from<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    call: &dyn SettleCall,
    promise: v8::Local<'s, v8::Promise>,
    event_loop: &super::EventLoop,
) {
    let result = promise.result(scope);
    if promise.state() == v8::PromiseState::Rejected {
        // Rejected before it was marked handled (during its call): reported to the loop then.
        event_loop.forget_unhandled(promise);
        let error = JsError::from_exception(scope, result);
        call.settle(scope, Err(error));
    } else {
        call.settle(scope, Ok(result));
    }
}
