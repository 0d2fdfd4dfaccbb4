//! Whose behalf the runtime's JavaScript runs on: a host that serves many calls in one
//! runtime starts each on its behalf ([`crate::Runtime::start_call_as`]), and the timers it
//! sets, directly or after an `await`, are that call's work, cancelled with it
//! ([`crate::Runtime::cancel_work_of`]) when the host gives up on it.
//!
//! The owner rides V8's continuation-preserved embedder data: V8 keeps it with every promise
//! reaction made while it is set and puts it back while the reaction runs, so an `await` in
//! the call carries it; a timer keeps it and fires with it.

use std::collections::{HashSet, VecDeque};
use std::num::NonZeroU64;

/// A call's id, as the host gave it.
pub(crate) type WorkOwner = NonZeroU64;

/// Runs the script from here on the behalf of `owner`, until [`leave`].
pub(crate) fn enter(scope: &mut v8::PinScope<'_, '_>, owner: WorkOwner) {
    // Exact up to 2^53: a host's call ids do not reach it.
    let data = v8::Number::new(scope, owner.get() as f64);
    scope.set_continuation_preserved_embedder_data(data.into());
}

/// Back to no owner.
pub(crate) fn leave(scope: &mut v8::PinScope<'_, '_>) {
    let none = v8::undefined(scope);
    scope.set_continuation_preserved_embedder_data(none.into());
}

/// The owner the script runs on behalf of now, if any.
pub(crate) fn current(scope: &mut v8::PinScope<'_, '_>) -> Option<WorkOwner> {
    let data = scope.get_continuation_preserved_embedder_data();
    let number = v8::Local::<v8::Number>::try_from(data).ok()?.value();
    // Only `enter` sets it: no script can.
    NonZeroU64::new(number as u64)
}

/// How many abandoned calls [`AbandonedCalls`] remembers: an answer that comes later than
/// this many abandonments after its own is not known for one.
const ABANDONED_KEPT: usize = 1024;

/// The calls whose hosts gave up on them ([`crate::Runtime::cancel_work_of`]: timed out,
/// their clients gone), the latest [`ABANDONED_KEPT`], in the runtime's op state. Their
/// JavaScript runs on; an extension asks [`AbandonedCalls::current`] before it starts work
/// for an answer nobody will take (a response's stream, forwarded to no one).
#[derive(Default)]
pub struct AbandonedCalls {
    order: VecDeque<WorkOwner>,
    kept: HashSet<WorkOwner>,
}

impl AbandonedCalls {
    pub(crate) fn add(&mut self, owner: WorkOwner) {
        if !self.kept.insert(owner) {
            return;
        }
        self.order.push_back(owner);
        if self.order.len() > ABANDONED_KEPT {
            if let Some(oldest) = self.order.pop_front() {
                self.kept.remove(&oldest);
            }
        }
    }

    /// Whether the script runs now on behalf of a call its host gave up on.
    pub fn current(&self, scope: &mut v8::PinScope<'_, '_>) -> bool {
        current(scope).is_some_and(|owner| self.kept.contains(&owner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The latest [`ABANDONED_KEPT`] abandoned calls are kept; an older one is forgotten.
    #[test]
    fn the_latest_abandoned_calls_are_kept() {
        let mut calls = AbandonedCalls::default();
        let owner = |id: u64| WorkOwner::new(id).unwrap();
        for id in 1..=ABANDONED_KEPT as u64 + 1 {
            calls.add(owner(id));
        }
        calls.add(owner(2));
        assert!(!calls.kept.contains(&owner(1)));
        assert!(calls.kept.contains(&owner(2)));
        assert!(calls.kept.contains(&owner(ABANDONED_KEPT as u64 + 1)));
        assert_eq!(calls.order.len(), ABANDONED_KEPT);
    }
}
