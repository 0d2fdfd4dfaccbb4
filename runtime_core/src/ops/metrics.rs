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
    #[inline(always)]
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
