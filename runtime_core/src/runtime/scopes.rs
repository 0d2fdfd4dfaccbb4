//! Entering a runtime: every call into its isolate goes through `Runtime::with_scope_spent`
//! (the tokio runtime entered, the isolate entered, a handle scope in its context, and after
//! `f` the heap's loan taken back and a termination request spent), and the public forms
//! over it.

use super::{EnteredIsolate, Runtime};
use crate::JsError;

impl Runtime {
    /// As [`Runtime::with_scope`] for `f` that returns a `Result`: a termination spent as it
    /// returned (one that stopped the script's microtasks, after its value) is the `Err`.
    pub(super) fn with_scope_checked<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> Result<R, JsError>,
    ) -> Result<R, JsError> {
        match self.with_scope_spent(f) {
            (Err(error), _) | (Ok(_), Some(error)) => Err(error),
            (Ok(value), None) => Ok(value),
        }
    }

    /// Calls `f` with a handle scope entered in this runtime's context.
    ///
    /// A termination requested while `f` ran is spent when it returns: the next call runs
    /// normally. (Ops cannot reach their `Runtime`, so this is always the outermost call into
    /// this runtime's isolate.)
    pub fn with_scope<R>(&mut self, f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> R) -> R {
        self.with_scope_spent(f).0
    }

    /// As [`Runtime::with_scope`], and the error of a termination request spent (it stopped
    /// `f`'s JavaScript, or came while `f` ran).
    pub(crate) fn with_scope_spent<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> R,
    ) -> (R, Option<JsError>) {
        // Only when the caller is in no tokio runtime: a host driving the loop in another
        // runtime than the one this was made in means that one.
        #[cfg(feature = "tokio")]
        let _entered = self
            .tokio
            .as_ref()
            .filter(|_| tokio::runtime::Handle::try_current().is_err())
            .map(tokio::runtime::Handle::enter);
        let termination = &self.termination;
        let mut isolate = EnteredIsolate::new(&mut self.inner.isolate);
        termination.stop_pending(&mut isolate);
        let result = {
            v8::scope!(let scope, &mut *isolate);
            let context = v8::Local::new(scope, &*self.inner.context);
            let scope = &mut v8::ContextScope::new(scope, context);
            f(scope)
        };
        // The heap's loan back first: the collection that takes it may find the runtime still
        // over its memory budget, and that request is this call's too.
        self.near_heap_limit.restore(&mut isolate);
        // The error of a request spent now (out of memory, if that is why).
        let spent = termination.spend(&mut isolate);
        if let Some(error) = &spent {
            // V8 dropped the microtasks the calls in flight wait in.
            self.inner.event_loop.calls.fail_all(error);
        }
        (result, spent)
    }

    /// As [`Runtime::with_scope`], under a `TryCatch`: `f` returns `None` when a V8 call it
    /// made failed, and the exception (or the termination) is the `Err`. An exception caught
    /// while `f` still returned a value is an `Err` too: nothing thrown is lost.
    pub fn try_with_scope<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> Option<R>,
    ) -> Result<R, JsError> {
        let (result, spent) = self.with_scope_spent(|scope| {
            v8::tc_scope!(let try_catch, scope);
            let result = f(try_catch);
            // One V8 call when nothing went wrong.
            if result.is_some() && !try_catch.has_caught() {
                return Ok(result);
            }
            if try_catch.has_terminated() || try_catch.is_execution_terminating() {
                return Err(JsError::terminated_in(try_catch));
            }
            if let Some(exception) = try_catch.exception() {
                return Err(JsError::from_exception(try_catch, exception));
            }
            Err(JsError::host("Error", "a V8 call failed without throwing"))
        });
        match (result, spent) {
            (Err(error), _) | (Ok(_), Some(error)) => Err(error),
            (Ok(value), None) => Ok(value.expect("checked to be some")),
        }
    }
}
