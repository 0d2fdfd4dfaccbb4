//! JavaScript stacks of op calls, for ops marked `#[op(stack_trace)]`: when
//! `RuntimeOptions::op_stack_trace_callback` is set, each call of such an op captures the
//! stack first and hands it to the callback (to learn where a resource was opened, say).
//! Unset, those ops run exactly as others: nothing is captured and their fast path stays.
//! The frames are an error's frames ([`JsStackFrame`]), source-mapped as an error's are.

use std::rc::Rc;

use crate::isolate::current_stack::capture;
use crate::{JsStackFrame, OpDecl};

/// Told of every call of an op marked `#[op(stack_trace)]`, with the JavaScript stack that
/// made it, innermost frame first (at most 16 frames).
pub type OpStackTraceFn = Rc<dyn Fn(&OpDecl, &[JsStackFrame])>;

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
