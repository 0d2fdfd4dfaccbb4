//! The modules of one runtime: compiled once per URL (so cycles and diamonds evaluate once),
//! each with the URLs its imports resolved to; V8's callbacks (resolve, `import.meta`,
//! `import()`, JSON modules' evaluation) find them here through the isolate's slot.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::num::NonZeroI32;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::loader::{ModuleLoadError, ModuleLoader, ModuleSource, ModuleType, ResolutionKind};
use crate::JsError;

/// The error a `TryCatch` caught: its exception (or termination), its stack sure to name the
/// module and line (a syntax error's names no place: it is added from the message).
macro_rules! caught {
    ($try_catch:expr, $url:expr) => {{
        let try_catch = $try_catch;
        if try_catch.has_terminated() {
            JsError::terminated_in(try_catch)
        } else {
            let exception = try_catch.exception();
            let message = try_catch.message();
            error_at(try_catch, exception, message, $url)
        }
    }};
}

/// A module of the runtime: an index into its map.
pub type ModuleId = usize;

/// The scheme of modules shipped by extensions (`ext:name/file.js`), served from memory.
pub(crate) const EXT_SCHEME: &str = "ext:";

/// The module exporting the ops.
const OPS_MODULE: &str = "ext:core/ops";

struct Record {
    url: String,
    module: v8::Global<v8::Module>,
    /// Each import's specifier and the URL it resolved to.
    imports: Vec<(String, String)>,
    /// A JSON module's value, until its evaluation exports it.
    json: Option<v8::Global<v8::Value>>,
    main: bool,
}

/// One runtime's modules (the isolate's slot holds it).
pub(crate) struct ModuleMap {
    loader: Rc<dyn ModuleLoader>,
    records: RefCell<Vec<Record>>,
    by_url: RefCell<HashMap<String, ModuleId>>,
    by_hash: RefCell<HashMap<NonZeroI32, Vec<ModuleId>>>,
    /// Extension modules by specifier.
    ext: RefCell<HashMap<String, ModuleSource>>,
    /// `import()` calls whose graphs are loading.
    dynamic: RefCell<Vec<DynamicImport>>,
    /// The ops object, which `ext:core/ops` exports from.
    ops_object: RefCell<Option<v8::Global<v8::Object>>>,
    /// The names `ext:core/ops` exports, until it is first imported and made.
    ops_exports: RefCell<Vec<&'static str>>,
}

type SourceFuture = Pin<Box<dyn Future<Output = (String, Result<ModuleSource, ModuleLoadError>)>>>;

/// A module graph being loaded: the sources in flight, compiled as they arrive.
pub(crate) struct GraphLoad {
    root: String,
    kind: ResolutionKind,
    in_flight: FuturesUnordered<SourceFuture>,
    /// Each URL asked for, and by whom (for errors).
    requested: HashMap<String, String>,
}

struct DynamicImport {
    load: GraphLoad,
    resolver: v8::Global<v8::PromiseResolver>,
}

impl ModuleMap {
    pub(crate) fn new(loader: Rc<dyn ModuleLoader>) -> Self {
        Self {
            loader,
            records: RefCell::default(),
            by_url: RefCell::default(),
            by_hash: RefCell::default(),
            ext: RefCell::default(),
            dynamic: RefCell::default(),
            ops_object: RefCell::default(),
            ops_exports: RefCell::default(),
        }
    }

    /// `ext:core/ops`: a module exporting each op and class of the ops object (read when it
    /// is evaluated), for extension glue that hides the object from user code. Made when
    /// first imported: a synthetic module of a thousand exports costs V8 as much as a
    /// thousand ops' names. `names` are the ops' and classes'; those that are no JavaScript
    /// identifier are left out.
    pub(crate) fn set_ops_module(
        &self,
        ops_object: v8::Global<v8::Object>,
        names: impl Iterator<Item = &'static str>,
    ) {
        *self.ops_object.borrow_mut() = Some(ops_object);
        *self.ops_exports.borrow_mut() = names.filter(|name| is_export_name(name)).collect();
    }

    /// Makes and registers `ext:core/ops` (see [`ModuleMap::set_ops_module`]).
    fn make_ops_module(&self, scope: &mut v8::PinScope<'_, '_>) -> ModuleId {
        let names: Vec<v8::Local<v8::String>> = self
            .ops_exports
            .borrow()
            .iter()
            .filter_map(|name| {
                v8::String::new_from_utf8(scope, name.as_bytes(), v8::NewStringType::Internalized)
            })
            .collect();
        let url = OPS_MODULE;
        let name = v8::String::new(scope, url).expect("a short string");
        let module = v8::Module::create_synthetic_module(scope, name, &names, ops_evaluation_steps);
        self.register(scope, url, module, Vec::new(), None)
    }

    pub(crate) fn add_ext_module(&self, specifier: String, source: ModuleSource) {
        self.ext.borrow_mut().insert(specifier, source);
    }

    pub(crate) fn id(&self, url: &str) -> Option<ModuleId> {
        self.by_url.borrow().get(url).copied()
    }

    pub(crate) fn module<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        id: ModuleId,
    ) -> v8::Local<'s, v8::Module> {
        v8::Local::new(scope, &self.records.borrow()[id].module)
    }

    pub(crate) fn set_main(&self, id: ModuleId) {
        self.records.borrow_mut()[id].main = true;
    }

    /// `specifier` imported from `referrer`, as a URL (extension specifiers as they are).
    pub(crate) fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        kind: ResolutionKind,
    ) -> Result<String, ModuleLoadError> {
        if specifier.starts_with(EXT_SCHEME) {
            return Ok(specifier.to_owned());
        }
        // A classic script's name is no URL: its imports are relative to the working directory.
        let base;
        let referrer = if url::Url::parse(referrer).is_ok() {
            referrer
        } else {
            base = super::loader::cwd_url();
            &base
        };
        self.loader.resolve(specifier, referrer, kind)
    }

    fn load_source(&self, url: &str, kind: ResolutionKind) -> SourceFuture {
        let url = url.to_owned();
        if url == OPS_MODULE {
            // Its source is the ops object: `compile` makes it.
            return Box::pin(std::future::ready((
                url,
                Ok(ModuleSource::js(String::new())),
            )));
        }
        if url.starts_with(EXT_SCHEME) {
            let source = self
                .ext
                .borrow()
                .get(&url)
                .cloned()
                .ok_or_else(|| ModuleLoadError(format!("no extension ships {url}")));
            return Box::pin(std::future::ready((url, source)));
        }
        let load = self.loader.load(&url, kind);
        Box::pin(async move { (url, load.await) })
    }

    /// Compiles `source` as the module at `url` and resolves its imports.
    fn compile(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        url: &str,
        source: ModuleSource,
    ) -> Result<ModuleId, JsError> {
        if url == OPS_MODULE {
            return Ok(self.make_ops_module(scope));
        }
        v8::tc_scope!(let scope, scope);
        let name = v8::String::new(scope, url).ok_or_else(|| too_long(url))?;
        let code = v8::String::new(scope, &source.code).ok_or_else(|| too_long(url))?;
        let (module, json) = match source.module_type {
            ModuleType::JavaScript => {
                let origin = module_origin(scope, name);
                let mut source = v8::script_compiler::Source::new(code, Some(&origin));
                let Some(module) = v8::script_compiler::compile_module(scope, &mut source) else {
                    return Err(caught!(scope, url));
                };
                (module, None)
            }
            ModuleType::Json => {
                let Some(value) = v8::json::parse(scope, code) else {
                    return Err(caught!(scope, url));
                };
                let default = v8::String::new(scope, "default").expect("a short string");
                let module = v8::Module::create_synthetic_module(
                    scope,
                    name,
                    &[default],
                    json_evaluation_steps,
                );
                (module, Some(v8::Global::new(scope, value)))
            }
        };
        let requests = module.get_module_requests();
        let mut imports = Vec::with_capacity(requests.length());
        for index in 0..requests.length() {
            let Some(request) = requests
                .get(scope, index)
                .and_then(|data| v8::Local::<v8::ModuleRequest>::try_from(data).ok())
            else {
                continue;
            };
            let specifier = request.get_specifier().to_rust_string_lossy(scope);
            let resolved = self
                .resolve(&specifier, url, ResolutionKind::Import)
                .map_err(|error| load_error(&error, url))?;
            imports.push((specifier, resolved));
        }
        Ok(self.register(scope, url, module, imports, json))
    }

    fn register(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        url: &str,
        module: v8::Local<'_, v8::Module>,
        imports: Vec<(String, String)>,
        json: Option<v8::Global<v8::Value>>,
    ) -> ModuleId {
        let id = self.records.borrow().len();
        self.by_hash
            .borrow_mut()
            .entry(module.get_identity_hash())
            .or_default()
            .push(id);
        self.by_url.borrow_mut().insert(url.to_owned(), id);
        self.records.borrow_mut().push(Record {
            url: url.to_owned(),
            module: v8::Global::new(scope, module),
            imports,
            json,
            main: false,
        });
        id
    }

    /// The record of `module`, by its identity hash.
    fn find(&self, module: v8::Local<'_, v8::Module>) -> Option<ModuleId> {
        let records = self.records.borrow();
        self.by_hash
            .borrow()
            .get(&module.get_identity_hash())?
            .iter()
            .copied()
            .find(|&id| records[id].module == module)
    }

    /// Links `id`'s graph; a missing export or module is the `Err`.
    pub(crate) fn instantiate(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        id: ModuleId,
    ) -> Result<(), JsError> {
        let module = self.module(scope, id);
        if module.get_status() != v8::ModuleStatus::Uninstantiated {
            return Ok(());
        }
        v8::tc_scope!(let scope, scope);
        match module.instantiate_module(scope, resolve_callback) {
            Some(true) => Ok(()),
            _ => {
                let url = self.records.borrow()[id].url.clone();
                Err(caught!(scope, &url))
            }
        }
    }

    /// Starts evaluating `id` (instantiated): the promise of its evaluation (top-level await).
    pub(crate) fn evaluate<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        id: ModuleId,
    ) -> Result<v8::Local<'s, v8::Value>, JsError> {
        let module = self.module(scope, id);
        v8::tc_scope!(let try_catch, scope);
        let promise = module.evaluate(try_catch);
        match promise {
            Some(promise) => Ok(promise),
            None => {
                let url = self.records.borrow()[id].url.clone();
                Err(caught!(try_catch, &url))
            }
        }
    }

    /// Starts loading the graph of `url`.
    pub(crate) fn start_load(&self, url: &str, kind: ResolutionKind) -> GraphLoad {
        let mut load = GraphLoad {
            root: url.to_owned(),
            kind,
            in_flight: FuturesUnordered::new(),
            requested: HashMap::new(),
        };
        load.request(self, url, "");
        load
    }

    /// Polls `load`: compiles what arrived; `Ready(Ok)` once the whole graph is compiled.
    pub(crate) fn poll_load(
        &self,
        load: &mut GraphLoad,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<ModuleId, JsError>> {
        loop {
            match load.in_flight.poll_next_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => {
                    let id = self.id(&load.root).expect("the root was compiled");
                    return Poll::Ready(Ok(id));
                }
                Poll::Ready(Some((url, loaded))) => {
                    let importer = load.requested.get(&url).cloned().unwrap_or_default();
                    let source = match loaded {
                        Ok(source) => source,
                        Err(error) => return Poll::Ready(Err(load_error(&error, &importer))),
                    };
                    // Compiled meanwhile (by another load): its graph is asked for all the same.
                    let id = match self.id(&url) {
                        Some(id) => id,
                        None => match self.compile(scope, &url, source) {
                            Ok(id) => id,
                            Err(error) => return Poll::Ready(Err(error)),
                        },
                    };
                    load.request_imports(self, id, &url);
                }
            }
        }
    }

    /// `import(specifier)` from `referrer`: its promise, settled as the event loop loads it.
    fn import_dynamically<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        specifier: &str,
        referrer: &str,
    ) -> Option<v8::Local<'s, v8::Promise>> {
        let resolver = v8::PromiseResolver::new(scope)?;
        let promise = resolver.get_promise(scope);
        match self.resolve(specifier, referrer, ResolutionKind::DynamicImport) {
            Ok(url) => {
                let load = self.start_load(&url, ResolutionKind::DynamicImport);
                self.dynamic.borrow_mut().push(DynamicImport {
                    load,
                    resolver: v8::Global::new(scope, resolver),
                });
                if let Some(event_loop) = scope.get_slot::<Rc<crate::event_loop::EventLoop>>() {
                    event_loop.wake();
                }
            }
            Err(error) => {
                let message = load_error(&error, referrer).message;
                let message = v8::String::new(scope, &message)?;
                let exception = v8::Exception::type_error(scope, message);
                resolver.reject(scope, exception)?;
            }
        }
        Some(promise)
    }

    /// Whether `import()` calls are loading.
    pub(crate) fn has_dynamic_imports(&self) -> bool {
        !self.dynamic.borrow().is_empty()
    }

    /// Loads what `import()` calls asked for; settles each whose graph is whole (its modules
    /// evaluate: JavaScript runs). Returns whether any settled.
    pub(crate) fn poll_dynamic_imports(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> bool {
        // Taken out while polled: evaluation may call `import()` again.
        let mut imports = std::mem::take(&mut *self.dynamic.borrow_mut());
        let mut settled = false;
        imports.retain_mut(|import| {
            let Poll::Ready(loaded) = self.poll_load(&mut import.load, scope, cx) else {
                return true;
            };
            settled = true;
            let resolver = v8::Local::new(scope, &import.resolver);
            let outcome = loaded
                .and_then(|id| self.instantiate(scope, id).map(|()| id))
                .and_then(|id| {
                    let evaluated = self.evaluate(scope, id)?;
                    Ok((id, evaluated))
                });
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

    /// For a snapshot: each record, its module handed to `keep` (which returns the index
    /// it is kept at), and the ops object; refused while an import is loading or a JSON
    /// module has not been evaluated.
    pub(crate) fn snapshot_records<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        mut keep: impl FnMut(&mut v8::PinScope<'s, '_>, v8::Local<'s, v8::Module>) -> usize,
    ) -> Result<Vec<ModuleRecord>, JsError> {
        if self.has_dynamic_imports() {
            return Err(JsError::exception(
                "Error",
                "cannot snapshot while an import() is loading",
            ));
        }
        let records = self.records.borrow();
        let mut kept = Vec::with_capacity(records.len());
        for record in records.iter() {
            if record.json.is_some() {
                return Err(JsError::exception(
                    "Error",
                    &format!(
                        "cannot snapshot {}: a JSON module not evaluated",
                        record.url
                    ),
                ));
            }
            let module = v8::Local::new(scope, &record.module);
            kept.push(ModuleRecord {
                url: record.url.clone(),
                imports: record.imports.clone(),
                main: record.main,
                module: keep(scope, module),
            });
        }
        Ok(kept)
    }

    /// Restores a snapshotted record (in the snapshot's order, so ids are kept).
    pub(crate) fn restore_record(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        record: &ModuleRecord,
        module: v8::Local<'_, v8::Module>,
    ) {
        let id = self.register(scope, &record.url, module, record.imports.clone(), None);
        self.records.borrow_mut()[id].main = record.main;
    }

    /// The ops object.
    pub(crate) fn ops_object(&self) -> Option<v8::Global<v8::Object>> {
        self.ops_object.borrow().clone()
    }

    /// Drops every pending load and handle (the runtime goes).
    pub(crate) fn clear(&self) {
        self.dynamic.borrow_mut().clear();
        self.records.borrow_mut().clear();
        self.ops_object.borrow_mut().take();
    }
}

impl GraphLoad {
    /// Asks for `url` and, through what it imports, for its whole graph. A module compiled
    /// already (by another load, or by one that failed part-way) may still miss imports: they
    /// are asked for too.
    fn request(&mut self, map: &ModuleMap, url: &str, importer: &str) {
        if self.requested.contains_key(url) {
            return;
        }
        self.requested.insert(url.to_owned(), importer.to_owned());
        match map.id(url) {
            Some(id) => self.request_imports(map, id, url),
            None => self.in_flight.push(map.load_source(url, self.kind)),
        }
    }

    fn request_imports(&mut self, map: &ModuleMap, id: ModuleId, url: &str) {
        let imports: Vec<String> = map.records.borrow()[id]
            .imports
            .iter()
            .map(|(_, resolved)| resolved.clone())
            .collect();
        for import in imports {
            self.request(map, &import, url);
        }
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
    let namespace = map.module(scope, id).get_module_namespace();
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
    let exception = exception_of(scope, error);
    let _ = resolver.reject(scope, exception);
}

fn module_origin<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: v8::Local<'s, v8::String>,
) -> v8::ScriptOrigin<'s> {
    v8::ScriptOrigin::new(
        scope,
        name.into(),
        0,
        0,
        false,
        0,
        None,
        false,
        false,
        true,
        None,
    )
}

fn too_long(url: &str) -> JsError {
    JsError::exception(
        "RangeError",
        &format!("{url}: the source is too long for a V8 string"),
    )
}

/// A module that could not be resolved or loaded, as deno says it.
fn load_error(error: &ModuleLoadError, importer: &str) -> JsError {
    let message = if importer.is_empty() {
        format!("Module not found: {error}")
    } else {
        format!("Module not found: {error} (imported from {importer})")
    };
    JsError::exception("TypeError", &message)
}

fn error_at(
    scope: &mut v8::PinScope<'_, '_>,
    exception: Option<v8::Local<'_, v8::Value>>,
    message: Option<v8::Local<'_, v8::Message>>,
    url: &str,
) -> JsError {
    let Some(exception) = exception else {
        return JsError::exception("Error", &format!("{url}: failed without an exception"));
    };
    let mut error = JsError::from_exception(scope, exception);
    let located = error
        .stack
        .as_deref()
        .is_some_and(|stack| stack.contains(url));
    if !located {
        let place = message.map(|message| {
            let name = message
                .get_script_resource_name(scope)
                .map_or_else(|| url.to_owned(), |name| name.to_rust_string_lossy(scope));
            let line = message.get_line_number(scope).unwrap_or(0);
            let column = message.get_start_column() + 1;
            format!("{name}:{line}:{column}")
        });
        let place = place.unwrap_or_else(|| url.to_owned());
        let head = match error.stack.take() {
            Some(stack) => stack,
            None if error.class_name.is_empty() => error.message.clone(),
            None => format!("{}: {}", error.class_name, error.message),
        };
        error.stack = Some(format!("{head}\n    at {place}"));
    }
    error
}

/// An exception of `error`'s class and message, made anew (a compile error's own is gone).
fn exception_of<'s>(scope: &mut v8::PinScope<'s, '_>, error: &JsError) -> v8::Local<'s, v8::Value> {
    let message =
        v8::String::new(scope, &error.message).unwrap_or_else(|| v8::String::empty(scope));
    match error.class_name.as_str() {
        "SyntaxError" => v8::Exception::syntax_error(scope, message),
        "TypeError" => v8::Exception::type_error(scope, message),
        "RangeError" => v8::Exception::range_error(scope, message),
        "ReferenceError" => v8::Exception::reference_error(scope, message),
        _ => v8::Exception::error(scope, message),
    }
}

/// V8's resolve callback: the module an import of `referrer` resolved to.
fn resolve_callback<'s>(
    context: v8::Local<'s, v8::Context>,
    specifier: v8::Local<'s, v8::String>,
    _import_attributes: v8::Local<'s, v8::FixedArray>,
    referrer: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Module>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = scope.get_slot::<Rc<ModuleMap>>()?.clone();
    let specifier = specifier.to_rust_string_lossy(scope);
    let found = map.find(referrer).and_then(|referrer| {
        let records = map.records.borrow();
        let (_, url) = records[referrer]
            .imports
            .iter()
            .find(|(imported, _)| *imported == specifier)?;
        map.id(url)
    });
    match found {
        Some(id) => Some(map.module(scope, id)),
        None => {
            let message = format!("cannot link the import of \"{specifier}\"");
            let message = v8::String::new(scope, &message)?;
            let exception = v8::Exception::type_error(scope, message);
            scope.throw_exception(exception);
            None
        }
    }
}

/// A JSON module's evaluation: its value becomes `default`.
fn json_evaluation_steps<'s>(
    context: v8::Local<'s, v8::Context>,
    module: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Value>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = scope.get_slot::<Rc<ModuleMap>>()?.clone();
    let id = map.find(module)?;
    let value = map.records.borrow_mut()[id].json.take()?;
    let value = v8::Local::new(scope, value);
    let default = v8::String::new(scope, "default")?;
    module.set_synthetic_module_export(scope, default, value)?;
    resolved_promise(scope)
}

/// `import.meta`: `url`, `main`, and `resolve(specifier)`.
pub(crate) extern "C" fn import_meta_callback(
    context: v8::Local<'_, v8::Context>,
    module: v8::Local<'_, v8::Module>,
    meta: v8::Local<'_, v8::Object>,
) {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let Some(map) = scope.get_slot::<Rc<ModuleMap>>().cloned() else {
        return;
    };
    let Some(id) = map.find(module) else {
        return;
    };
    let (url, main) = {
        let records = map.records.borrow();
        (records[id].url.clone(), records[id].main)
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

pub(crate) fn import_meta_resolve(
    scope: &mut v8::PinScope<'_, '_>,
    args: v8::FunctionCallbackArguments<'_>,
    mut rv: v8::ReturnValue<'_, v8::Value>,
) {
    let Some(map) = scope.get_slot::<Rc<ModuleMap>>().cloned() else {
        return;
    };
    let referrer = args.data().to_rust_string_lossy(scope);
    let specifier = args.get(0).to_rust_string_lossy(scope);
    match map.resolve(&specifier, &referrer, ResolutionKind::DynamicImport) {
        Ok(url) => {
            if let Some(url) = v8::String::new(scope, &url) {
                rv.set(url.into());
            }
        }
        Err(error) => {
            if let Some(message) = v8::String::new(scope, &error.0) {
                let exception = v8::Exception::type_error(scope, message);
                scope.throw_exception(exception);
            }
        }
    }
}

/// `import()`: V8's dynamic import callback.
pub(crate) fn dynamic_import_callback<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    _host_defined_options: v8::Local<'s, v8::Data>,
    resource_name: v8::Local<'s, v8::Value>,
    specifier: v8::Local<'s, v8::String>,
    _import_attributes: v8::Local<'s, v8::FixedArray>,
) -> Option<v8::Local<'s, v8::Promise>> {
    let map = scope.get_slot::<Rc<ModuleMap>>()?.clone();
    let referrer = resource_name.to_rust_string_lossy(scope);
    let specifier = specifier.to_rust_string_lossy(scope);
    map.import_dynamically(scope, &specifier, &referrer)
}

impl crate::event_loop::LoopSource for ModuleMap {
    fn poll_source(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        Ok(self.has_dynamic_imports() && self.poll_dynamic_imports(scope, cx))
    }

    fn keeps_alive(&self) -> bool {
        self.has_dynamic_imports()
    }
}

/// The synthetic modules' evaluation steps, as the addresses V8 holds (for a snapshot's
/// external references).
pub(crate) fn evaluation_steps_addresses() -> [*mut std::ffi::c_void; 2] {
    use v8::MapFnTo;
    let ops: v8::SyntheticModuleEvaluationSteps<'static> = ops_evaluation_steps.map_fn_to();
    let json: v8::SyntheticModuleEvaluationSteps<'static> = json_evaluation_steps.map_fn_to();
    [ops as *mut std::ffi::c_void, json as *mut std::ffi::c_void]
}

/// Whether `name` can be exported by name (an op or a class; not `new Foo`).
fn is_export_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c == '_' || c == '$' || c.is_ascii_alphanumeric())
}

/// `ext:core/ops`'s evaluation: each export is the ops object's property of its name.
fn ops_evaluation_steps<'s>(
    context: v8::Local<'s, v8::Context>,
    module: v8::Local<'s, v8::Module>,
) -> Option<v8::Local<'s, v8::Value>> {
    // SAFETY: V8 calls this with a live context, inside the isolate.
    v8::callback_scope!(unsafe scope, context);
    let map = scope.get_slot::<Rc<ModuleMap>>()?.clone();
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

/// A module of the snapshotted map.
pub(crate) struct ModuleRecord {
    pub(crate) url: String,
    pub(crate) imports: Vec<(String, String)>,
    pub(crate) main: bool,
    /// Context data index of the module.
    pub(crate) module: usize,
}
