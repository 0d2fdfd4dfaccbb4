//! What V8 asks of the module map while linking and running modules: to link an import (and
//! linking itself, [`ModuleMap::instantiate`], which hands V8 these callbacks) and to fill
//! `import.meta`. Each finds the map through the isolate's slot. (`import()` is
//! `dynamic_import.rs`'s, synthetic modules' evaluation `synthetic.rs`'s.)

use super::attributes::requested_type;
use super::errors::caught;
use super::loader::ResolutionKind;
use super::map::{ModuleId, ModuleMap};
use crate::JsError;

impl ModuleMap {
    /// Links `id`'s graph; a missing export or module is the `Err`.
    pub(crate) fn instantiate(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        id: ModuleId,
    ) -> Result<(), JsError> {
        let module = self.module(scope, id)?;
        if module.get_status() != v8::ModuleStatus::Uninstantiated {
            return Ok(());
        }
        v8::tc_scope!(let scope, scope);
        let linked = module.instantiate_module2(scope, resolve_callback, resolve_source_callback);
        match linked {
            Some(true) => Ok(()),
            _ => Err(caught!(scope, &self.url(id))),
        }
    }
}

pub(crate) fn throw(scope: &mut v8::PinScope<'_, '_>, class: &str, message: &str) {
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
    let map = ModuleMap::of(scope)?;
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

/// `import.meta`: `url`, `main`, and `resolve(specifier)`.
pub(crate) extern "C" fn import_meta_callback(
    context: v8::Local<'_, v8::Context>,
    module: v8::Local<'_, v8::Module>,
    meta: v8::Local<'_, v8::Object>,
) {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let Some(map) = ModuleMap::of(scope) else {
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
    let Some(map) = ModuleMap::of(scope) else {
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
