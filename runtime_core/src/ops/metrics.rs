//! Op metrics: an observer per op, told of each call's dispatch and outcome. An op without one
//! runs a variant of its functions that does no metrics work at all (chosen at registration).

use std::rc::Rc;

use crate::ops::OpCtx;
use crate::OpDecl;

/// What happened to an op call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpMetricsEvent {
    /// The call started (before its arguments are converted).
    Dispatched,
    /// It returned normally.
    Completed,
    /// It threw: a bad argument, an `Err`, a panic, or an exception from JavaScript it ran.
    Error,
}

/// Which path the call took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpMetricsSource {
    /// The `FunctionCallback`.
    Slow,
    /// The V8 Fast API function.
    Fast,
}

/// An op's metrics observer. It runs inside the call, where unwinding cannot cross into V8:
/// it must not panic (a panic there aborts).
pub type OpMetricsFn = Rc<dyn Fn(&OpCtx, OpMetricsEvent, OpMetricsSource)>;

/// Chooses each op's observer when a runtime is made (`None`: the op pays nothing).
pub type OpMetricsFactoryFn = Box<dyn Fn(&OpDecl) -> Option<OpMetricsFn>>;

impl OpCtx {
    /// Runs `call` between the dispatch and outcome events (`None`: it threw).
    #[ops_macro::inline_hot]
    pub(crate) fn metered<R>(
        &self,
        source: OpMetricsSource,
        call: impl FnOnce() -> Option<R>,
    ) -> Option<R> {
        let Some(metrics) = &self.metrics else {
            return call();
        };
        metrics(self, OpMetricsEvent::Dispatched, source);
        let result = call();
        let outcome = if result.is_some() {
            OpMetricsEvent::Completed
        } else {
            OpMetricsEvent::Error
        };
        metrics(self, outcome, source);
        result
    }
}

/// The observer behind `RuntimeOptions::op_call_counters`: counts dispatches per path.
pub(crate) fn call_counter() -> OpMetricsFn {
    Rc::new(|op_ctx, event, source| {
        if event == OpMetricsEvent::Dispatched {
            let cell = match source {
                OpMetricsSource::Fast => &op_ctx.fast_calls,
                OpMetricsSource::Slow => &op_ctx.slow_calls,
            };
            cell.set(cell.get() + 1);
        }
    })
}

/// Both observers, in order.
pub(crate) fn both(first: OpMetricsFn, second: OpMetricsFn) -> OpMetricsFn {
    Rc::new(move |op_ctx, event, source| {
        first(op_ctx, event, source);
        second(op_ctx, event, source);
    })
}

/// The `FunctionCallback` of every op with a metrics observer or a stack trace callback:
/// the stack reported first, then the op's own callback between the dispatch and outcome
/// events. One function for all ops, so each op's body is compiled once. Whether the call
/// threw is what its slow call noted (`run_guarded`, on its cold paths): that the call with
/// this very `FunctionCallbackInfo` did not complete (a call nested in it has its own).
///
/// # Safety
/// V8 calls it with a `FunctionCallbackInfo` whose data is the op's context (`Runtime`
/// registers it so).
pub(crate) unsafe extern "C" fn metered_slow_fn(info: *const v8::FunctionCallbackInfo) {
    // SAFETY: V8 keeps `info` alive for the duration of the callback; its data is the op's
    // context (see `ops::template::op_template`).
    let op_ctx = unsafe {
        super::op_ctx_from_data(
            v8::FunctionCallbackArguments::from_function_callback_info(&*info).data(),
        )
    };
    if let Some(callback) = &op_ctx.stack_trace {
        // SAFETY: as above.
        super::stack_trace::report_stack(unsafe { &*info }, op_ctx.decl, callback);
    }
    op_ctx.metered(OpMetricsSource::Slow, || {
        SLOW_CALL_THREW.set(std::ptr::null());
        // SAFETY: the op's own callback, with the info of its own call.
        unsafe { (op_ctx.decl.slow_fn)(info) };
        let threw = std::ptr::eq(SLOW_CALL_THREW.replace(std::ptr::null()), info);
        (!threw).then_some(())
    });
}

thread_local! {
    /// The info of the last slow call that threw (see `run_guarded`).
    static SLOW_CALL_THREW: std::cell::Cell<*const v8::FunctionCallbackInfo> =
        const { std::cell::Cell::new(std::ptr::null()) };
}

#[cold]
#[inline(never)]
pub(crate) fn note_slow_call_threw(info: &v8::FunctionCallbackInfo) {
    SLOW_CALL_THREW.set(info);
}

/// The dispatch event of a metered fast call (out of line: one copy for all ops).
#[inline(never)]
pub(crate) fn metered_fast_dispatch(op_ctx: &OpCtx) {
    FAST_CALL_THREW.set(false);
    if let Some(metrics) = &op_ctx.metrics {
        metrics(op_ctx, OpMetricsEvent::Dispatched, OpMetricsSource::Fast);
    }
}

/// The outcome event of a metered fast call: whether `fast_return` noted a throw.
#[inline(never)]
pub(crate) fn metered_fast_outcome(op_ctx: &OpCtx) {
    let outcome = if FAST_CALL_THREW.replace(false) {
        OpMetricsEvent::Error
    } else {
        OpMetricsEvent::Completed
    };
    if let Some(metrics) = &op_ctx.metrics {
        metrics(op_ctx, outcome, OpMetricsSource::Fast);
    }
}

thread_local! {
    /// Set by a fast function that threw (see `fast_return`); read by `metered_fast_end`.
    static FAST_CALL_THREW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cold]
#[inline(never)]
pub(crate) fn note_fast_call_threw() {
    FAST_CALL_THREW.set(true);
}
