//! The synthetic modules' evaluation (JSON, text, bytes, and `ext:core/ops`): V8 calls these
//! steps when such a module evaluates; each finds the map through the isolate's slot.

use super::map::ModuleMap;

/// A synthetic module's evaluation (JSON, text, bytes): its value becomes `default`.
pub(crate) fn default_evaluation_steps<'s>(
    context: v8::Local<'s, v8::Context>,
    module: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Value>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = ModuleMap::of(scope)?;
    let index = map.find(module)?;
    let value = map.records.borrow_mut()[index].default.take()?;
    let value = v8::Local::new(scope, value);
    let default = v8::String::new(scope, "default")?;
    module.set_synthetic_module_export(scope, default, value)?;
    resolved_promise(scope)
}

/// `ext:core/ops`'s evaluation: each export is the ops object's property of its name.
pub(crate) fn ops_evaluation_steps<'s>(
    context: v8::Local<'s, v8::Context>,
    module: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Value>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = ModuleMap::of(scope)?;
    let ops_object = map.ops_object.borrow().clone()?;
    let ops_object = v8::Local::new(scope, ops_object);
    // Each declared export, read from the ops object (which makes it: see
    // `crate::ops::ops_object`); one a script deleted is `undefined`.
    let names = map.ops_exports.borrow().clone();
    for name in names {
        let name =
            v8::String::new_from_utf8(scope, name.as_bytes(), v8::NewStringType::Internalized)?;
        let value = ops_object.get(scope, name.into())?;
        module.set_synthetic_module_export(scope, name, value)?;
    }
    resolved_promise(scope)
}

/// A promise fulfilled with `undefined`: what a synthetic module's evaluation returns.
fn resolved_promise<'s>(scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::Value>> {
    let resolver = v8::PromiseResolver::new(scope)?;
    let undefined = v8::undefined(scope).into();
    resolver.resolve(scope, undefined)?;
    Some(resolver.get_promise(scope).into())
}

/// The synthetic modules' evaluation steps, as the addresses V8 holds (for a snapshot's
/// external references).
pub(crate) fn evaluation_steps_addresses() -> [*mut std::ffi::c_void; 2] {
    use v8::MapFnTo;
    let ops: v8::SyntheticModuleEvaluationSteps<'static> = ops_evaluation_steps.map_fn_to();
    let default: v8::SyntheticModuleEvaluationSteps<'static> = default_evaluation_steps.map_fn_to();
    [
        ops as *mut std::ffi::c_void,
        default as *mut std::ffi::c_void,
    ]
}
