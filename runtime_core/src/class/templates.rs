//! Each class's `FunctionTemplate`, kept per isolate, and the callbacks a class's function
//! runs when JavaScript calls it: new instances for `#[cppgc]` returns come from here.

use std::any::TypeId;
use std::collections::HashMap;

use super::instance::wrap;
use super::Trace;
use crate::ops::OpCtx;

/// Per isolate: each registered class's template, by Rust type (for `#[cppgc]` returns), and
/// the template of plain wrapper objects (for types that are no class).
#[derive(Default)]
pub(crate) struct ClassTemplates(
    pub(crate) HashMap<TypeId, v8::Global<v8::FunctionTemplate>>,
    pub(crate) Option<v8::Global<v8::FunctionTemplate>>,
);

#[cold]
fn plain_template(scope: &mut v8::PinScope<'_, '_>) -> v8::Global<v8::FunctionTemplate> {
    let template = v8::FunctionTemplate::new(scope, crate::errors::throw::illegal_constructor);
    let global = v8::Global::new(scope, template);
    if scope.get_slot::<ClassTemplates>().is_none() {
        scope.set_slot(ClassTemplates::default());
    }
    let templates = scope.get_slot_mut::<ClassTemplates>().expect("set above");
    templates.1 = Some(global.clone());
    global
}

/// Makes a new instance of `T`'s class around `value` (a plain object with the wrapped value,
/// as deno's, for a type that is not a registered class).
pub(crate) fn new_instance<'s, T: Trace + 'static>(
    scope: &mut v8::PinScope<'s, '_>,
    value: T,
) -> Option<v8::Local<'s, v8::Object>> {
    let template = scope
        .get_slot::<ClassTemplates>()
        .and_then(|templates| templates.0.get(&TypeId::of::<T>()).or(templates.1.as_ref()))
        .cloned();
    let template = match template {
        Some(template) => template,
        None => plain_template(scope),
    };
    let template = v8::Local::new(scope, template);
    // An instance made from the instance template: the constructor does not run.
    let object = template.instance_template(scope).new_instance(scope)?;
    wrap(scope, object, value);
    Some(object)
}

/// A class's `FunctionCallback` when it has a `#[constructor]`: `new` only, as JavaScript
/// classes are.
///
/// # Safety
/// V8 calls it with the class template's data, the constructor's `OpCtx`.
pub(crate) unsafe extern "C" fn constructor_trampoline(info: *const v8::FunctionCallbackInfo) {
    // SAFETY: V8 keeps `info` alive for the callback.
    let info_ref = unsafe { &*info };
    let args = v8::FunctionCallbackArguments::from_function_callback_info(info_ref);
    // SAFETY: the class's template data is its constructor's `OpCtx` (see `class::install`).
    let op_ctx: &OpCtx = unsafe { crate::ops::op_ctx_from_data(args.data()) };
    if args.new_target().is_undefined() {
        // SAFETY: the call's own `FunctionCallbackInfo`, inside its callback.
        v8::callback_scope!(unsafe scope, info_ref);
        let class = op_ctx.decl.name.trim_start_matches("new ");
        let message = format!("Class constructor {class} cannot be invoked without 'new'");
        crate::errors::throw::throw_error_of_class(scope, "TypeError", &message);
        return;
    }
    // As `op_template` picks: the metered variant when the runtime observes the op.
    let slow_fn = if op_ctx.metrics.is_some() || op_ctx.stack_trace.is_some() {
        op_ctx.decl.slow_fn_metered()
    } else {
        op_ctx.decl.slow_fn
    };
    // SAFETY: `info` is V8's live info for this very call (this fn's contract), and its data is
    // the constructor's `OpCtx`, the data `OpDecl::new` requires `slow_fn` (and
    // `metered_slow_fn`) to be called with.
    unsafe { slow_fn(info) };
}
