//! The `FunctionTemplate` an op is installed from, with the variants of its functions the
//! runtime's options pick.

use std::ffi::c_void;

use super::OpCtx;

/// The function template of an op: its slow and (where it has one) fast path, the variants
/// chosen by what the runtime asked for (metrics, stack traces). A class member's takes the
/// class's `signature`, so that V8 checks the receiver.
pub(crate) fn op_template<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    op_ctx: &OpCtx,
    signature: Option<v8::Local<'s, v8::Signature>>,
) -> v8::Local<'s, v8::FunctionTemplate> {
    let decl = op_ctx.decl;
    // The op context lives in `Runtime::op_ctxs`, which outlives the isolate.
    let data = v8::External::new(scope, op_ctx as *const OpCtx as *mut c_void);
    let side_effects = if decl.flags.no_side_effects {
        v8::SideEffectType::HasNoSideEffect
    } else {
        v8::SideEffectType::HasSideEffect
    };
    // Capturing a stack allocates on the V8 heap, which a fast call must not: a traced op goes
    // through the metered slow variant, which captures first.
    let traced = op_ctx.stack_trace.is_some();
    let metered = op_ctx.metrics.is_some() || traced;
    let slow_fn = if metered {
        decl.slow_fn_metered()
    } else {
        decl.slow_fn
    };
    let mut builder = v8::FunctionTemplate::builder_raw(slow_fn)
        .data(data.into())
        .length(decl.arity() as i32)
        .side_effect_type(side_effects)
        // An op is a function, not a class: `new ops.op_x()` throws a `TypeError`, whichever
        // path the op has (`build_fast` does the same for ops with a fast path).
        .constructor_behavior(v8::ConstructorBehavior::Throw);
    if let Some(signature) = signature {
        builder = builder.signature(signature);
    }
    match &decl.fast_fn {
        Some(fast_fn) if !traced => {
            let c_function = if metered {
                &fast_fn.metered
            } else {
                &fast_fn.plain
            };
            builder.build_fast(scope, std::slice::from_ref(c_function))
        }
        Some(_) | None => builder.build(scope),
    }
}
