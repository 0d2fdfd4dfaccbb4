//! Calls in flight: the promises of calls a host started ([`crate::Runtime::start_call`]) and
//! awaits apart, each through its own [`CallInFlight`] future, while the event loop runs.
//!
//! The first [`SCANNED`] calls in flight are looked at after each turn of the loop (a state
//! read each: no reaction added to the promise, no function made per call, as deno's
//! `watch_promise` makes two), and the value of each that settled is converted in that turn's
//! scope, so the host's future gets an `R`, never a handle. A look costs about a nanosecond,
//! a reaction a few hundred (`cargo xtask bench-ops`, the `rust_start_call_*` rows): but
//! looking at every call each turn made thousands in flight cost their square. So each call beyond the first [`SCANNED`] gets one reaction (`calls.js`: a
//! closure over the call's id, through the `then` captured at start-up), which settles it by
//! id as its microtask runs; a turn costs what settles in it, plus at most [`SCANNED`] looks.
//!
//! A termination settles the calls whose promises settled before it (a later callback of the
//! same turn spun: a settled call keeps its answer) and fails the rest (V8 dropped the
//! microtasks their continuations were queued as); cancelling the runtime's pending work, the
//! loop going idle with calls still pending (nothing can settle them), and the runtime going
//! away fail them too: a host's future always ends.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
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
    /// Its id among the runtime's calls in flight, and where a future dropped before its call
    /// settled leaves it (the runtime then forgets the call's promise); `None` once settled
    /// at its start.
    tracked: Option<(u64, Rc<RefCell<Vec<u64>>>)>,
}

impl<R> Drop for CallInFlight<R> {
    fn drop(&mut self) {
        if let Some((id, dropped)) = &self.tracked {
            if matches!(*self.slot.state.borrow(), SlotState::Waiting(_)) {
                dropped.borrow_mut().push(*id);
            }
        }
    }
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

/// `calls.js`: evaluates to a function that takes `settled(id)` and gives `track(promise, id)`.
const CALLS_JS: &str = include_str!("calls.js");

/// How many calls in flight are looked at after each turn; those beyond get a reaction.
const SCANNED: usize = 64;

/// One runtime's calls in flight.
#[derive(Default)]
pub(crate) struct CallsInFlight {
    /// Looked at after each turn.
    scanned: RefCell<Vec<InFlight>>,
    /// The list being looked at (kept to reuse its memory).
    spare: RefCell<Vec<InFlight>>,
    /// With a reaction each, by id (never reused: ids count up from 1, and 2^53 calls, the
    /// most a JavaScript number counts exactly, take centuries).
    calls: RefCell<HashMap<u64, InFlight>>,
    next_id: Cell<u64>,
    /// The ids of calls whose futures were dropped before they settled.
    dropped: Rc<RefCell<Vec<u64>>>,
    /// `track(promise, id)` of the runtime's context, made with it.
    track: RefCell<Option<v8::Global<v8::Function>>>,
}

impl CallsInFlight {
    /// A call whose function returned `value` (or threw, `Err`): settled now unless `value`
    /// is a pending promise, which is then tracked, marked handled (its rejection is the
    /// host's to see, never an unhandled one).
    pub(crate) fn start<'s, R: for<'r> FromV8<'r> + 'static>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        value: Result<v8::Local<'s, v8::Value>, JsError>,
        event_loop: &super::EventLoop,
    ) -> CallInFlight<R> {
        let slot = Rc::new(CallSlot {
            state: RefCell::new(SlotState::Waiting(None)),
        });
        let mut tracked = None;
        match value.map(|value| v8::Local::<v8::Promise>::try_from(value).map_err(|_| value)) {
            Err(error) => slot.fail(error),
            // Not a promise: the value itself.
            Ok(Err(value)) => slot.settle(scope, Ok(value)),
            Ok(Ok(promise))
                if promise.state() == v8::PromiseState::Pending
                    && self.scanned.borrow().len() < SCANNED =>
            {
                promise.mark_as_handled();
                self.scanned.borrow_mut().push(InFlight {
                    promise: v8::Global::new(scope, promise),
                    call: slot.clone(),
                });
            }
            Ok(Ok(promise)) if promise.state() == v8::PromiseState::Pending => {
                promise.mark_as_handled();
                let id = self.next_id.get() + 1;
                self.next_id.set(id);
                self.calls.borrow_mut().insert(
                    id,
                    InFlight {
                        promise: v8::Global::new(scope, promise),
                        call: slot.clone(),
                    },
                );
                if let Err(error) = self.watch(scope, promise, id) {
                    self.calls.borrow_mut().remove(&id);
                    slot.fail(error);
                } else {
                    tracked = Some((id, self.dropped.clone()));
                }
            }
            Ok(Ok(promise)) => settle_from(scope, &*slot, promise, event_loop),
        }
        self.may_have_settled(event_loop);
        CallInFlight { slot, tracked }
    }

    /// Adds the reaction that settles call `id` to `promise`.
    fn watch<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        promise: v8::Local<'s, v8::Promise>,
        id: u64,
    ) -> Result<(), JsError> {
        let track = self
            .track
            .borrow()
            .as_ref()
            .map(|track| v8::Local::new(scope, track))
            .ok_or_else(|| JsError::host("Error", "the runtime has no context"))?;
        // Adding a reaction reads the promise's `constructor` (its species), which a script
        // may have made a getter that throws.
        v8::tc_scope!(let try_catch, scope);
        let receiver = v8::undefined(try_catch).into();
        let id = v8::Number::new(try_catch, id as f64).into();
        if track
            .call(try_catch, receiver, &[promise.into(), id])
            .is_some()
        {
            return Ok(());
        }
        Err(match try_catch.exception() {
            Some(exception) if !try_catch.has_terminated() => {
                JsError::from_exception(try_catch, exception)
            }
            _ => JsError::terminated_in(try_catch),
        })
    }

    /// JavaScript ran outside the loop (a call, a script) and may have settled a call in
    /// flight (or queued its reaction): the loop looks on its next turn.
    pub(crate) fn may_have_settled(&self, event_loop: &super::EventLoop) {
        if !self.is_empty() {
            event_loop.wake();
        }
    }

    /// Whether no call is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.scanned.borrow().is_empty() && self.calls.borrow().is_empty()
    }

    /// After a turn: settles the looked-at calls whose promises settled, and forgets those
    /// whose futures were dropped.
    pub(crate) fn settle_ready(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        event_loop: &super::EventLoop,
    ) {
        self.forget_dropped();
        if self.scanned.borrow().is_empty() {
            return;
        }
        let mut calls = std::mem::replace(
            &mut *self.scanned.borrow_mut(),
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
        let mut current = self.scanned.borrow_mut();
        calls.append(&mut current);
        let emptied = std::mem::replace(&mut *current, calls);
        *self.spare.borrow_mut() = emptied;
    }

    /// Settles call `id`, whose promise settled (its reaction ran).
    fn settled(&self, scope: &mut v8::PinScope<'_, '_>, id: u64, event_loop: &super::EventLoop) {
        // Converting may run JavaScript: nothing is borrowed meanwhile.
        let Some(entry) = self.calls.borrow_mut().remove(&id) else {
            return;
        };
        let promise = v8::Local::new(scope, &entry.promise);
        // Only the reaction calls this, once its promise settled; never read a pending one's
        // result (V8 ends the process).
        if promise.state() == v8::PromiseState::Pending {
            self.calls.borrow_mut().insert(id, entry);
            return;
        }
        settle_from(scope, &*entry.call, promise, event_loop);
    }

    /// Makes the context's `track`: when the context is made, before any script runs (what it
    /// captures is the context's own).
    pub(crate) fn install(&self, scope: &mut v8::PinScope<'_, '_>, event_loop: &super::EventLoop) {
        let track = make_track(scope, event_loop).expect("the calls' tracker evaluates");
        *self.track.borrow_mut() = Some(v8::Global::new(scope, track));
    }

    /// The context's `track`, restored from a snapshot.
    pub(crate) fn set_track(&self, track: v8::Global<v8::Function>) {
        *self.track.borrow_mut() = Some(track);
    }

    /// The context's `track` (kept in a snapshot).
    pub(crate) fn track(&self) -> Option<v8::Global<v8::Function>> {
        self.track.borrow().clone()
    }

    /// Forgets the watched calls whose futures were dropped before they settled (their
    /// outcomes go nowhere).
    fn forget_dropped(&self) {
        let dropped = std::mem::take(&mut *self.dropped.borrow_mut());
        if dropped.is_empty() {
            return;
        }
        let mut calls = self.calls.borrow_mut();
        for id in dropped {
            calls.remove(&id);
        }
    }

    /// After a termination: settles the calls whose promises settled before it (their
    /// reactions may not have run: V8 dropped the microtasks), and fails the rest with
    /// `error`.
    pub(crate) fn settle_or_fail(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        error: &JsError,
        event_loop: &super::EventLoop,
    ) {
        let scanned = std::mem::take(&mut *self.scanned.borrow_mut());
        let watched = std::mem::take(&mut *self.calls.borrow_mut());
        for entry in scanned.into_iter().chain(watched.into_values()) {
            let promise = v8::Local::new(scope, &entry.promise);
            if promise.state() == v8::PromiseState::Pending {
                entry.call.fail(error.clone());
            } else {
                settle_from(scope, &*entry.call, promise, event_loop);
            }
        }
    }

    /// Fails every call in flight with `error`.
    pub(crate) fn fail_all(&self, error: &JsError) {
        let scanned = std::mem::take(&mut *self.scanned.borrow_mut());
        let watched = std::mem::take(&mut *self.calls.borrow_mut());
        for entry in scanned.into_iter().chain(watched.into_values()) {
            entry.call.fail(error.clone());
        }
    }

    /// Drops the handles kept in the context (before it goes, or is saved in a snapshot).
    pub(crate) fn clear_handles(&self) {
        drop(self.track.take());
    }
}

impl Drop for CallsInFlight {
    fn drop(&mut self) {
        self.fail_all(&JsError::host(
            "Error",
            "the runtime was dropped with the call in flight",
        ));
    }
}

/// Runs [`CALLS_JS`] in the current context with a `settled` function whose data is
/// `event_loop`: the context's `track`.
fn make_track<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    event_loop: &super::EventLoop,
) -> Option<v8::Local<'s, v8::Function>> {
    let factory = crate::isolate::scripts::run_builtin_script(scope, "<calls>", CALLS_JS).ok()?;
    let factory = v8::Local::<v8::Function>::try_from(factory).ok()?;
    let data = event_loop.as_function_data(scope);
    let settled = v8::FunctionTemplate::builder(settled_callback)
        .data(data.into())
        .length(1)
        .constructor_behavior(v8::ConstructorBehavior::Throw)
        .build(scope)
        .get_function(scope)?;
    let receiver = v8::undefined(scope).into();
    let track = factory.call(scope, receiver, &[settled.into()])?;
    v8::Local::<v8::Function>::try_from(track).ok()
}

/// `settled(id)` of `calls.js`: call `id`'s promise settled. Its data is the runtime's
/// `EventLoop`.
pub(crate) fn settled_callback(
    scope: &mut v8::PinScope<'_, '_>,
    args: v8::FunctionCallbackArguments<'_>,
    _rv: v8::ReturnValue<'_, v8::Value>,
) {
    // SAFETY: `make_track` makes this function with `as_function_data`.
    let Some(event_loop) = (unsafe { super::EventLoop::of_function_data(args.data()) }) else {
        return;
    };
    let Some(id) = args.get(0).number_value(scope) else {
        return;
    };
    event_loop.calls.settled(scope, id as u64, event_loop);
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
