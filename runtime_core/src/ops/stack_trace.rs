//! JavaScript stacks of op calls, for ops marked `#[op(stack_trace)]`: when
//! `RuntimeOptions::op_stack_trace_callback` is set, each call of such an op captures the
//! stack first and hands it to the callback (to learn where a resource was opened, say).
//! Unset, those ops run exactly as others: nothing is captured and their fast path stays.

use std::rc::Rc;

use crate::OpDecl;

/// One frame of a captured stack, innermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackFrame {
    /// The function's name (empty for anonymous functions and top-level code).
    pub function: String,
    /// The script's name.
    pub script: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// Told of every call of an op marked `#[op(stack_trace)]`, with the JavaScript stack that
/// made it.
pub type OpStackTraceFn = Rc<dyn Fn(&OpDecl, &[StackFrame])>;

/// The most frames captured per call.
pub const STACK_TRACE_FRAMES: usize = 16;

/// The current JavaScript stack.
pub(crate) fn capture(scope: &mut v8::PinScope<'_, '_>) -> Vec<StackFrame> {
    let Some(trace) = v8::StackTrace::current_stack_trace(scope, STACK_TRACE_FRAMES) else {
        return Vec::new();
    };
    (0..trace.get_frame_count())
        .filter_map(|index| trace.get_frame(scope, index))
        .map(|frame| StackFrame {
            function: frame
                .get_function_name(scope)
                .map(|name| name.to_rust_string_lossy(scope))
                .unwrap_or_default(),
            script: frame
                .get_script_name(scope)
                .map(|name| name.to_rust_string_lossy(scope))
                .unwrap_or_default(),
            line: frame.get_line_number(),
            column: frame.get_column(),
        })
        .collect()
}

/// Hands the JavaScript stack of this call to an op's stack trace callback.
#[cold]
#[inline(never)]
pub(crate) fn report_stack(
    info: &v8::FunctionCallbackInfo,
    decl: &OpDecl,
    callback: &crate::OpStackTraceFn,
) {
    let frames = {
        // SAFETY: the call's `FunctionCallbackInfo`, inside its callback.
        v8::callback_scope!(unsafe scope, info);
        v8::scope!(let scope, scope);
        capture(scope)
    };
    callback(decl, &frames);
}
