//! `import()`: V8's callbacks for it (of any phase V8 may be configured for), and the calls
//! whose graphs are loading, a loop source that settles each once its graph is whole and
//! evaluated. The top of the folder: it names the loading (`graph.rs`), the linking
//! (`callbacks.rs`) and the store.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Context, Poll};

use super::attributes::requested_type;
use super::errors::{exception_of, load_error};
use super::graph::GraphLoad;
use super::loader::ResolutionKind;
use super::map::{private_module, ModuleId, ModuleMap};
use crate::isolate::scripts::is_extension_code;
use crate::JsError;

/// An `import()` whose graph is loading, and the resolver of its promise.
struct DynamicImport {
    load: GraphLoad,
    resolver: v8::Global<v8::PromiseResolver>,
    /// Where `import()` was called: its error, made later with no JavaScript on the stack,
    /// gets these frames.
    importer: Option<v8::Global<v8::StackTrace>>,
}

/// The `import()` calls of one runtime whose graphs are loading: a loop source, found by
/// V8's callback through the isolate's slot.
#[derive(Default)]
pub(crate) struct DynamicImports {
    loading: RefCell<Vec<DynamicImport>>,
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
        Ok(load) => {
            let Some(imports) = scope.get_slot::<Rc<DynamicImports>>().cloned() else {
                return Some(promise);
            };
            let importer = crate::isolate::current_stack::keep(scope)
                .map(|trace| v8::Global::new(scope, trace));
            imports.loading.borrow_mut().push(DynamicImport {
                load,
                resolver: v8::Global::new(scope, resolver),
                importer,
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
) -> Result<GraphLoad, JsError> {
    let map = ModuleMap::of(scope)
        .ok_or_else(|| JsError::exception("TypeError", "this runtime has no module map"))?;
    let module_type = requested_type(&map, scope, import_attributes, 2)
        .map_err(|(class, message)| JsError::exception(class, &message))?;
    let url = map
        .resolve(specifier, referrer, ResolutionKind::DynamicImport)
        .map_err(|error| load_error(&error, referrer))?;
    if !map.may_import(is_ext, &url) {
        return Err(private_module(&url, referrer));
    }
    Ok(GraphLoad::new(
        &map,
        &url,
        module_type,
        ResolutionKind::DynamicImport,
    ))
}

impl DynamicImports {
    /// Loads what `import()` calls asked for; settles each whose graph is whole (its modules
    /// evaluate: JavaScript runs). Returns whether any settled.
    fn poll_imports(
        &self,
        map: &ModuleMap,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> bool {
        // Taken out while polled: evaluation may call `import()` again.
        let mut imports = std::mem::take(&mut *self.loading.borrow_mut());
        let mut settled = false;
        imports.retain_mut(|import| {
            let Poll::Ready(loaded) = import.load.poll(map, scope, cx) else {
                return true;
            };
            settled = true;
            let resolver = v8::Local::new(scope, &import.resolver);
            let outcome = loaded
                .and_then(|id| map.instantiate(scope, id).map(|()| id))
                .and_then(|id| Ok((id, map.evaluate(scope, id)?)));
            match outcome {
                Ok((id, evaluated)) => settle_with_namespace(scope, resolver, map, id, evaluated),
                Err(error) => {
                    let importer = import.importer.as_ref().map(|trace| {
                        let trace = v8::Local::new(scope, trace);
                        crate::isolate::current_stack::read(scope, trace)
                    });
                    reject_from(scope, resolver, &error, importer.as_deref());
                }
            }
            false
        });
        let mut loading = self.loading.borrow_mut();
        imports.append(&mut loading);
        *loading = imports;
        settled
    }

    /// Drops the `import()` calls still loading: their promises stay pending.
    fn drop_all(&self) {
        let dropped = std::mem::take(&mut *self.loading.borrow_mut());
        drop(dropped);
    }
}

impl crate::event_loop::LoopSource for DynamicImports {
    fn poll_source(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        if self.loading.borrow().is_empty() {
            return Ok(false);
        }
        let Some(map) = ModuleMap::of(scope) else {
            return Ok(false);
        };
        Ok(self.poll_imports(&map, scope, cx))
    }

    fn keeps_alive(&self) -> bool {
        !self.loading.borrow().is_empty()
    }

    fn cancel_pending(&self, _scope: &mut v8::PinScope<'_, '_>) {
        self.drop_all();
    }

    fn forget(&self) {
        self.drop_all();
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
    reject_from(scope, resolver, error, None);
}

/// Rejects an `import()` with `error`; one with no frames of its own (a module not found, a
/// loader's refusal) gets the `importer`'s, where `import()` was called.
fn reject_from(
    scope: &mut v8::PinScope<'_, '_>,
    resolver: v8::Local<'_, v8::PromiseResolver>,
    error: &JsError,
    importer: Option<&[crate::JsStackFrame]>,
) {
    if error.is_terminated() {
        return; // nothing runs on: the promise is never looked at
    }
    let exception = exception_of(scope, error);
    if let (Some(frames), Ok(object), true) = (
        importer,
        v8::Local::<v8::Object>::try_from(exception),
        error.frames.is_empty(),
    ) {
        crate::isolate::stack_formatter::give_stack(scope, object, frames);
    }
    let _ = resolver.reject(scope, exception);
}
