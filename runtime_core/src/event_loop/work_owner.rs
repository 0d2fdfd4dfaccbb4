//! Whose behalf the runtime's JavaScript runs on: a host that serves many calls in one
//! runtime starts each on its behalf ([`crate::Runtime::start_call_as`]), and the timers it
//! sets, directly or after an `await`, are that call's work, cancelled with it
//! ([`crate::Runtime::cancel_work_of`]) when the host gives up on it.
//!
//! The owner rides V8's continuation-preserved embedder data: V8 keeps it with every promise
//! reaction made while it is set and puts it back while the reaction runs, so an `await` in
//! the call carries it; a timer keeps it and fires with it.

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
