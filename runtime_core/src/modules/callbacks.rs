//! What V8 asks of the module map: to link an import, to evaluate a synthetic module, to fill
//! `import.meta`, to serve `import()` (of any phase V8 may be configured for). Each finds the
//! map through the isolate's slot, and none lets a panic of the host's loader out.

use std::rc::Rc;
use std::task::{Context, Poll};

use super::errors::{exception_of, load_error};
use super::graph::GraphLoad;
use super::loader::{ModuleType, ResolutionKind};
use super::map::{private_module, ModuleId, ModuleMap};
use crate::isolate::scripts::is_extension_code;
use crate::JsError;

/// The module type an import's attributes ask for (`stride`: 3 for a module request's
/// key-value-position triples, 2 for `import()`'s pairs): `type` is the one attribute, and
/// its value must name a type this runtime serves. `Err` with the error's class and message.
pub(crate) fn requested_type(
    map: &ModuleMap,
    scope: &mut v8::PinScope<'_, '_>,
    attributes: v8::Local<'_, v8::FixedArray>,
    stride: usize,
) -> Result<ModuleType, (&'static str, String)> {
    // No attributes: JavaScript (nearly every import), without a look at the loader.
    if attributes.length() == 0 {
        return Ok(ModuleType::JavaScript);
    }
    let mut requested = None;
    let text = |scope: &mut v8::PinScope<'_, '_>, index: usize| {
        attributes
            .get(scope, index)
            .and_then(|item| v8::Local::<v8::String>::try_from(item).ok())
            .map(|item| item.to_rust_string_lossy(scope))
    };
    for index in (0..attributes.length()).step_by(stride) {
        let key = text(scope, index).unwrap_or_default();
        if key != "type" {
            return Err((
                "SyntaxError",
                format!("the import attribute \"{key}\" is not supported (only \"type\" is)"),
            ));
        }
        requested = text(scope, index + 1);
    }
    let module_type = ModuleType::from_attribute(requested.as_deref());
    if !map.knows_type(&module_type) {
        return Err((
            "TypeError",
            format!(
                "the module type {module_type} is not supported (JavaScript, \"json\", \
                 \"text\" and \"bytes\" are)"
            ),
        ));
    }
    Ok(module_type)
}

/// The map, from the isolate's slot.
fn map_of(scope: &v8::Isolate) -> Option<Rc<ModuleMap>> {
    scope.get_slot::<Rc<ModuleMap>>().cloned()
}

fn throw(scope: &mut v8::PinScope<'_, '_>, class: &str, message: &str) {
    let error = crate::errors::throw::new_error(scope, class, message);
    scope.throw_exception(error);
}

/// V8's resolve callback: the module an import of `referrer` resolved to.
pub(crate) fn resolve_callback<'s>(
    context: v8::Local<'s, v8::Context>,
    specifier: v8::Local<'s, v8::String>,
    import_attributes: v8::Local<'s, v8::FixedArray>,
    referrer: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Module>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = map_of(scope)?;
    let specifier = specifier.to_rust_string_lossy(scope);
    let module_type = match requested_type(&map, scope, import_attributes, 3) {
        Ok(module_type) => module_type,
        Err((class, message)) => {
            throw(scope, class, &message);
            return None;
        }
    };
    let found = map.find(referrer).and_then(|referrer| {
        let records = map.records.borrow();
        let import = records[referrer]
            .imports
            .iter()
            .find(|import| import.specifier == specifier && import.module_type == module_type)?;
        map.id(&import.url, &module_type)
    });
    match found.and_then(|id| map.module(scope, id).ok()) {
        Some(module) => Some(module),
        None => {
            let message = format!("cannot link the import of \"{specifier}\"");
            throw(scope, "TypeError", &message);
            None
        }
    }
}

/// V8's callback for `import source x from "..."` (with `--js-source-phase-imports`): refused.
pub(crate) fn resolve_source_callback<'s>(
    context: v8::Local<'s, v8::Context>,
    _specifier: v8::Local<'s, v8::String>,
    _import_attributes: v8::Local<'s, v8::FixedArray>,
    _referrer: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Object>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    throw(
        scope,
        "SyntaxError",
        "source phase imports are not supported",
    );
    None
}

/// A synthetic module's evaluation (JSON, text, bytes): its value becomes `default`.
pub(crate) fn default_evaluation_steps<'s>(
    context: v8::Local<'s, v8::Context>,
    module: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Value>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = map_of(scope)?;
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
    let map = map_of(scope)?;
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

/// `import.meta`: `url`, `main`, and `resolve(specifier)`.
pub(crate) extern "C" fn import_meta_callback(
    context: v8::Local<'_, v8::Context>,
    module: v8::Local<'_, v8::Module>,
    meta: v8::Local<'_, v8::Object>,
) {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let Some(map) = map_of(scope) else {
        return;
    };
    let Some(index) = map.find(module) else {
        return;
    };
    let (url, main) = {
        let records = map.records.borrow();
        (records[index].url.clone(), records[index].main)
    };
    let set = |scope: &mut v8::PinScope<'_, '_>, key: &str, value: v8::Local<'_, v8::Value>| {
        if let Some(key) = v8::String::new(scope, key) {
            let _ = meta.create_data_property(scope, key.into(), value);
        }
    };
    let Some(url_value) = v8::String::new(scope, &url) else {
        return;
    };
    set(scope, "url", url_value.into());
    let main = v8::Boolean::new(scope, main).into();
    set(scope, "main", main);
    let resolve = v8::Function::builder(import_meta_resolve)
        .data(url_value.into())
        .build(scope);
    if let Some(resolve) = resolve {
        set(scope, "resolve", resolve.into());
    }
}

/// `import.meta.resolve(specifier)`: the URL, as the module's imports would resolve it.
pub(crate) fn import_meta_resolve(
    scope: &mut v8::PinScope<'_, '_>,
    args: v8::FunctionCallbackArguments<'_>,
    mut rv: v8::ReturnValue<'_, v8::Value>,
) {
    let Some(map) = map_of(scope) else {
        return;
    };
    let referrer = args.data().to_rust_string_lossy(scope);
    // `String(specifier)`, whose exception (a symbol, a throwing `toString`) propagates.
    let Some(specifier) = args.get(0).to_string(scope) else {
        return;
    };
    let specifier = specifier.to_rust_string_lossy(scope);
    match map.resolve(&specifier, &referrer, ResolutionKind::DynamicImport) {
        Ok(url) => {
            if let Some(url) = v8::String::new(scope, &url) {
                rv.set(url.into());
            }
        }
        Err(error) => throw(scope, "TypeError", &error.0),
    }
}

/// An `import()` whose graph is loading, and the resolver of its promise.
pub(crate) struct DynamicImport {
    load: GraphLoad,
    resolver: v8::Global<v8::PromiseResolver>,
}

/// `import()`: V8's dynamic import callback.
pub(crate) fn dynamic_import_callback<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    host_defined_options: v8::Local<'s, v8::Data>,
    resource_name: v8::Local<'s, v8::Value>,
    specifier: v8::Local<'s, v8::String>,
    import_attributes: v8::Local<'s, v8::FixedArray>,
) -> Option<v8::Local<'s, v8::Promise>> {
    let resolver = v8::PromiseResolver::new(scope)?;
    let promise = resolver.get_promise(scope);
    let referrer = v8::Local::<v8::String>::try_from(resource_name)
        .map(|name| name.to_rust_string_lossy(scope))
        .unwrap_or_default();
    let is_ext = is_extension_code(scope, host_defined_options);
    let specifier = specifier.to_rust_string_lossy(scope);
    match start_dynamic_import(scope, &specifier, &referrer, is_ext, import_attributes) {
        Ok((map, load)) => {
            map.dynamic.borrow_mut().push(DynamicImport {
                load,
                resolver: v8::Global::new(scope, resolver),
            });
            if let Some(event_loop) = scope.get_slot::<Rc<crate::event_loop::EventLoop>>() {
                event_loop.wake();
            }
        }
        Err(error) => reject_with(scope, resolver, &error),
    }
    Some(promise)
}

/// V8's callback for `import.source()` and `import.defer()` (with the flags that enable
/// them), which would otherwise stop the process: a `SyntaxError`, as for a static import.
pub(crate) fn dynamic_import_with_phase_callback<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    host_defined_options: v8::Local<'s, v8::Data>,
    resource_name: v8::Local<'s, v8::Value>,
    specifier: v8::Local<'s, v8::String>,
    phase: v8::ModuleImportPhase,
    import_attributes: v8::Local<'s, v8::FixedArray>,
) -> Option<v8::Local<'s, v8::Promise>> {
    if phase == v8::ModuleImportPhase::kEvaluation {
        return dynamic_import_callback(
            scope,
            host_defined_options,
            resource_name,
            specifier,
            import_attributes,
        );
    }
    let resolver = v8::PromiseResolver::new(scope)?;
    let promise = resolver.get_promise(scope);
    let error = JsError::exception(
        "SyntaxError",
        "source and deferred imports are not supported",
    );
    reject_with(scope, resolver, &error);
    Some(promise)
}

/// Resolves and checks an `import()`, and starts loading its graph.
fn start_dynamic_import(
    scope: &mut v8::PinScope<'_, '_>,
    specifier: &str,
    referrer: &str,
    is_ext: bool,
    import_attributes: v8::Local<'_, v8::FixedArray>,
) -> Result<(Rc<ModuleMap>, GraphLoad), JsError> {
    let map = map_of(scope)
        .ok_or_else(|| JsError::exception("TypeError", "this runtime has no module map"))?;
    let module_type = requested_type(&map, scope, import_attributes, 2)
        .map_err(|(class, message)| JsError::exception(class, &message))?;
    let url = map
        .resolve(specifier, referrer, ResolutionKind::DynamicImport)
        .map_err(|error| load_error(&error, referrer))?;
    if !map.may_import(is_ext, &url) {
        return Err(private_module(&url, referrer));
    }
    let load = map.start_load(&url, module_type, ResolutionKind::DynamicImport);
    Ok((map, load))
}

impl ModuleMap {
    /// Loads what `import()` calls asked for; settles each whose graph is whole (its modules
    /// evaluate: JavaScript runs). Returns whether any settled.
    fn poll_dynamic_imports(&self, scope: &mut v8::PinScope<'_, '_>, cx: &mut Context<'_>) -> bool {
        // Taken out while polled: evaluation may call `import()` again.
        let mut imports = std::mem::take(&mut *self.dynamic.borrow_mut());
        let mut settled = false;
        imports.retain_mut(|import| {
            let Poll::Ready(loaded) = import.load.poll(self, scope, cx) else {
                return true;
            };
            settled = true;
            let resolver = v8::Local::new(scope, &import.resolver);
            let outcome = loaded
                .and_then(|id| self.instantiate(scope, id).map(|()| id))
                .and_then(|id| Ok((id, self.evaluate(scope, id)?)));
            match outcome {
                Ok((id, evaluated)) => settle_with_namespace(scope, resolver, self, id, evaluated),
                Err(error) => reject_with(scope, resolver, &error),
            }
            false
        });
        let mut dynamic = self.dynamic.borrow_mut();
        imports.append(&mut dynamic);
        *dynamic = imports;
        settled
    }
}

impl crate::event_loop::LoopSource for ModuleMap {
    fn poll_source(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        Ok(!self.dynamic.borrow().is_empty() && self.poll_dynamic_imports(scope, cx))
    }

    fn keeps_alive(&self) -> bool {
        !self.dynamic.borrow().is_empty()
    }

    fn cancel_pending(&self, _scope: &mut v8::PinScope<'_, '_>) {
        self.cancel_dynamic_imports();
    }
}

/// Resolves the import's promise with the namespace once the evaluation's promise fulfils
/// (a `then` whose function returns the namespace: rejections pass through).
fn settle_with_namespace(
    scope: &mut v8::PinScope<'_, '_>,
    resolver: v8::Local<'_, v8::PromiseResolver>,
    map: &ModuleMap,
    id: ModuleId,
    evaluated: v8::Local<'_, v8::Value>,
) {
    let Ok(module) = map.module(scope, id) else {
        return;
    };
    let namespace = module.get_module_namespace();
    let Ok(evaluated) = v8::Local::<v8::Promise>::try_from(evaluated) else {
        let _ = resolver.resolve(scope, namespace);
        return;
    };
    let Some(to_namespace) = v8::Function::builder(to_namespace)
        .data(namespace)
        .build(scope)
    else {
        return;
    };
    if let Some(chained) = evaluated.then(scope, to_namespace) {
        let _ = resolver.resolve(scope, chained.into());
    }
}

/// `() => namespace`, the namespace being the function's data.
pub(crate) fn to_namespace(
    _: &mut v8::PinScope<'_, '_>,
    args: v8::FunctionCallbackArguments<'_>,
    mut rv: v8::ReturnValue<'_, v8::Value>,
) {
    rv.set(args.data());
}

fn reject_with(
    scope: &mut v8::PinScope<'_, '_>,
    resolver: v8::Local<'_, v8::PromiseResolver>,
    error: &JsError,
) {
    if error.is_terminated() {
        return; // nothing runs on: the promise is never looked at
    }
    let exception = exception_of(scope, error);
    let _ = resolver.reject(scope, exception);
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
