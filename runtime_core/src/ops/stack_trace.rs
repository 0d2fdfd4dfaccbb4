//! JavaScript stacks of op calls, for ops marked `#[op(stack_trace)]`: when
//! `RuntimeOptions::op_stack_trace_callback` is set, each call of such an op captures the
//! stack first and hands it to the callback (to learn where a resource was opened, say).
//! Unset, those ops run exactly as others: nothing is captured and their fast path stays.
//! The frames are an error's frames ([`JsStackFrame`]), source-mapped as an error's are.

use std::rc::Rc;

use crate::isolate::source_maps::SourceMaps;
use crate::{JsStackFrame, OpDecl};

/// Told of every call of an op marked `#[op(stack_trace)]`, with the JavaScript stack that
/// made it, innermost frame first (at most 16 frames).
pub type OpStackTraceFn = Rc<dyn Fn(&OpDecl, &[JsStackFrame])>;

/// The most frames captured per call.
const STACK_TRACE_FRAMES: usize = 16;

/// The current JavaScript stack, source-mapped.
pub(crate) fn capture(scope: &mut v8::PinScope<'_, '_>) -> Vec<JsStackFrame> {
    let Some(trace) = v8::StackTrace::current_stack_trace(scope, STACK_TRACE_FRAMES) else {
        return Vec::new();
    };
    let text = |scope: &mut v8::PinScope<'_, '_>, name: Option<v8::Local<'_, v8::String>>| {
        name.map(|name| name.to_rust_string_lossy(scope))
            .filter(|name| !name.is_empty())
    };
    let mut frames = Vec::with_capacity(trace.get_frame_count());
    for index in 0..trace.get_frame_count() {
        let Some(frame) = trace.get_frame(scope, index) else {
            continue;
        };
        frames.push(JsStackFrame {
            function_name: text(scope, frame.get_function_name(scope)),
            file_name: text(scope, frame.get_script_name(scope)),
            line_number: u32::try_from(frame.get_line_number()).ok(),
            column_number: u32::try_from(frame.get_column()).ok(),
            is_async: false,
            is_constructor: frame.is_constructor(),
        });
    }
    SourceMaps::apply(scope, &mut frames);
    frames
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
