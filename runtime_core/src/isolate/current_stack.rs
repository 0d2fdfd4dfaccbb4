//! The JavaScript stack as it is now, as an error's frames: for an op's stack trace callback,
//! for where a terminated script was stopped, and for where an `import()` that failed later
//! was called.

use super::source_maps::SourceMaps;
use crate::JsStackFrame;

/// The most frames read.
const STACK_TRACE_FRAMES: usize = 16;

/// The current JavaScript stack, source-mapped.
pub(crate) fn capture(scope: &mut v8::PinScope<'_, '_>) -> Vec<JsStackFrame> {
    match v8::StackTrace::current_stack_trace(scope, STACK_TRACE_FRAMES) {
        Some(trace) => read(scope, trace),
        None => Vec::new(),
    }
}

/// The current JavaScript stack as V8 keeps it, read later with [`read`] (if ever: reading
/// it costs its strings).
pub(crate) fn keep<'s>(scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::StackTrace>> {
    v8::StackTrace::current_stack_trace(scope, STACK_TRACE_FRAMES)
}

/// A stack V8 kept, as source-mapped frames.
pub(crate) fn read(
    scope: &mut v8::PinScope<'_, '_>,
    trace: v8::Local<'_, v8::StackTrace>,
) -> Vec<JsStackFrame> {
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
