//! Loading a module graph: the sources in flight, each compiled as it arrives (JavaScript,
//! or a synthetic module of a JSON, text or bytes value), its imports resolved, checked and
//! asked for in turn. The walk keeps its own stack: a graph of any depth loads.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;

use super::errors::{caught, load_error, refused, too_long};
use super::loader::{
    LoadRequest, ModuleCode, ModuleLoadError, ModuleSource, ModuleType, ResolutionKind,
};
use super::map::{loader_panicked, private_module, Import, ModuleId, ModuleMap};
use super::map::{EXT_SCHEME, OPS_MODULE};
use crate::JsError;

/// A module's key: its URL and type.
type Key = (String, ModuleType);

type SourceFuture = Pin<Box<dyn Future<Output = (Key, Result<ModuleSource, ModuleLoadError>)>>>;

/// A module graph being loaded.
pub(crate) struct GraphLoad {
    root: Key,
    kind: ResolutionKind,
    in_flight: FuturesUnordered<SourceFuture>,
    /// Each module asked for, and which module imported it (for errors; `None`: the root).
    requested: HashMap<Key, Option<ModuleId>>,
}

impl GraphLoad {
    pub(crate) fn new(
        map: &ModuleMap,
        url: &str,
        module_type: ModuleType,
        kind: ResolutionKind,
    ) -> Self {
        let root = (url.to_owned(), module_type);
        let mut load = Self {
            root: root.clone(),
            kind,
            in_flight: FuturesUnordered::new(),
            requested: HashMap::new(),
        };
        load.request(map, vec![(root, None)]);
        load
    }

    /// Asks for each module of `wanted` and, through what they import, for their whole
    /// graphs. A module compiled already (by another load, or by one that failed part-way)
    /// may still miss imports: they are asked for too.
    fn request(&mut self, map: &ModuleMap, mut wanted: Vec<(Key, Option<ModuleId>)>) {
        while let Some((key, importer)) = wanted.pop() {
            if self.requested.contains_key(&key) {
                continue;
            }
            match map.id(&key.0, &key.1) {
                Some(id) => imports_of(map, id, &mut wanted),
                None => self.in_flight.push(load_source(map, &key, self.kind)),
            }
            self.requested.insert(key, importer);
        }
    }

    /// Compiles what arrived; `Ready(Ok)` once the whole graph is compiled.
    pub(crate) fn poll(
        &mut self,
        map: &ModuleMap,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<ModuleId, JsError>> {
        loop {
            let (key, loaded) = match self.in_flight.poll_next_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => {
                    let (url, module_type) = &self.root;
                    return Poll::Ready(map.id(url, module_type).ok_or_else(|| {
                        JsError::exception("Error", &format!("{url} was not loaded"))
                    }));
                }
                Poll::Ready(Some(arrived)) => arrived,
            };
            // The importer's URL, for errors only (made then).
            let importer = || {
                self.requested
                    .get(&key)
                    .copied()
                    .flatten()
                    .map_or_else(String::new, |id| map.url(id))
            };
            let source = match loaded {
                Ok(source) => source,
                Err(error) => return Poll::Ready(Err(load_error(&error, &importer()))),
            };
            // Compiled meanwhile (by another load): its graph is asked for all the same.
            let id = match map.id(&key.0, &key.1) {
                Some(id) => id,
                None => match compile(map, scope, &key, source, importer) {
                    Ok(id) => id,
                    Err(error) => return Poll::Ready(Err(error)),
                },
            };
            let mut wanted = Vec::new();
            imports_of(map, id, &mut wanted);
            self.request(map, wanted);
        }
    }
}

/// Adds what `id` imports to `wanted`.
fn imports_of(map: &ModuleMap, id: ModuleId, wanted: &mut Vec<(Key, Option<ModuleId>)>) {
    let records = map.records.borrow();
    let Some(record) = map.index(id).ok().and_then(|index| records.get(index)) else {
        return;
    };
    wanted.extend(
        record
            .imports
            .iter()
            .map(|import| ((import.url.clone(), import.module_type.clone()), Some(id))),
    );
}

/// The source of `key`: an extension's, or the loader's (whose panics, in `load` or in its
/// future, fail this module only).
fn load_source(map: &ModuleMap, key: &Key, kind: ResolutionKind) -> SourceFuture {
    let key = key.clone();
    let (url, module_type) = &key;
    if url.starts_with(EXT_SCHEME) {
        let source = if url == OPS_MODULE {
            // Its source is the ops object: `compile` makes it.
            Ok(ModuleSource::js(""))
        } else {
            map.ext_source(url)
                .ok_or_else(|| ModuleLoadError(format!("no extension ships {url}")))
        };
        return Box::pin(std::future::ready((key, source)));
    }
    let request = LoadRequest {
        url: url.clone(),
        module_type: module_type.clone(),
        kind,
    };
    let loader = &map.loader;
    let load = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.load(&request)));
    let load = match load {
        Ok(load) => load,
        Err(payload) => {
            let error = loader_panicked("load", &*payload);
            return Box::pin(std::future::ready((key, Err(error))));
        }
    };
    Box::pin(async move {
        let loaded = std::panic::AssertUnwindSafe(load).catch_unwind().await;
        let loaded =
            loaded.unwrap_or_else(|payload| Err(loader_panicked("load future", &*payload)));
        (key, loaded)
    })
}

/// Compiles `source` as the module `key` and resolves its imports.
fn compile(
    map: &ModuleMap,
    scope: &mut v8::PinScope<'_, '_>,
    key: &Key,
    source: ModuleSource,
    importer: impl FnOnce() -> String,
) -> Result<ModuleId, JsError> {
    let (url, module_type) = key;
    let actual = source.module_type.clone();
    let Some(source) = source.into_type(module_type) else {
        return Err(refused(
            "TypeError",
            &mismatch(url, &actual, module_type),
            &importer(),
        ));
    };
    if url == OPS_MODULE {
        return Ok(make_ops_module(map, scope));
    }
    match (module_type, &source.code) {
        (ModuleType::JavaScript, _) => {
            compile_javascript(map, scope, url, &source.code, source.source_map)
        }
        (ModuleType::Json, code) => {
            let text = utf8(code, url)?;
            let code = v8::String::new(scope, text).ok_or_else(|| too_long(url))?;
            v8::tc_scope!(let try_catch, scope);
            let Some(value) = v8::json::parse(try_catch, code) else {
                return Err(caught!(try_catch, url));
            };
            register_synthetic(map, try_catch, key, value)
        }
        (ModuleType::Text, code) => {
            let text = utf8(code, url)?;
            let value = v8::String::new(scope, text).ok_or_else(|| too_long(url))?;
            register_synthetic(map, scope, key, value.into())
        }
        (ModuleType::Bytes, code) => {
            let value = bytes_value(scope, code.as_bytes(), url)?;
            register_synthetic(map, scope, key, value)
        }
        // A loader's own type: as its code is, text or bytes.
        (ModuleType::Other(_), ModuleCode::Text(text)) => {
            let value = v8::String::new(scope, text).ok_or_else(|| too_long(url))?;
            register_synthetic(map, scope, key, value.into())
        }
        (ModuleType::Other(_), ModuleCode::Bytes(bytes)) => {
            let value = bytes_value(scope, bytes, url)?;
            register_synthetic(map, scope, key, value)
        }
    }
}

/// A `Uint8Array` of a copy of `bytes`, in a store of Rust's (V8 counts it as external memory,
/// as the runtime's memory budget does: `v8::ArrayBuffer::new` would end the process if the
/// budget refused it).
fn bytes_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: &[u8],
    url: &str,
) -> Result<v8::Local<'s, v8::Value>, JsError> {
    let store = v8::ArrayBuffer::new_backing_store_from_vec(bytes.to_vec()).make_shared();
    let buffer = v8::ArrayBuffer::with_backing_store(scope, &store);
    let array = v8::Uint8Array::new(scope, buffer, 0, bytes.len()).ok_or_else(|| too_long(url))?;
    Ok(array.into())
}

/// Why a module of `actual` type does not serve an import of `wanted`.
fn mismatch(url: &str, actual: &ModuleType, wanted: &ModuleType) -> String {
    match (actual, wanted) {
        (ModuleType::Json, ModuleType::JavaScript) => {
            format!("{url} is a JSON module: import it with {{ type: \"json\" }}")
        }
        (ModuleType::JavaScript, ModuleType::Json) => format!(
            "{url} is a JavaScript module, imported with {{ type: \"json\" }} (a JSON import \
             never runs code)"
        ),
        _ => format!("{url} is a {actual} module, imported as {wanted}"),
    }
}

fn utf8<'c>(code: &'c ModuleCode, url: &str) -> Result<&'c str, JsError> {
    code.as_text()
        .ok_or_else(|| JsError::exception("TypeError", &format!("{url}: the source is not UTF-8")))
}

fn compile_javascript(
    map: &ModuleMap,
    scope: &mut v8::PinScope<'_, '_>,
    url: &str,
    code: &ModuleCode,
    source_map: Option<Vec<u8>>,
) -> Result<ModuleId, JsError> {
    let is_ext = url.starts_with(EXT_SCHEME);
    let name = v8::String::new(scope, url).ok_or_else(|| too_long(url))?;
    let text = utf8(code, url)?;
    {
        use crate::isolate::source_maps::SourceMaps;
        match source_map {
            Some(json) => SourceMaps::add(scope, url, json),
            None => SourceMaps::add_inline(scope, url, text),
        }
    }
    let code = v8::String::new(scope, text).ok_or_else(|| too_long(url))?;
    v8::tc_scope!(let scope, scope);
    let options = is_ext.then(|| crate::isolate::scripts::extension_options(scope));
    let origin = module_origin(scope, name, options);
    let mut source = v8::script_compiler::Source::new(code, Some(&origin));
    let Some(module) = v8::script_compiler::compile_module(scope, &mut source) else {
        return Err(caught!(scope, url));
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
        if request.get_phase() != v8::ModuleImportPhase::kEvaluation {
            return Err(refused(
                "SyntaxError",
                &format!("{url}: source and deferred imports are not supported"),
                "",
            ));
        }
        let attributes = request.get_import_attributes();
        let module_type = super::attributes::requested_type(map, scope, attributes, 3)
            .map_err(|(class, message)| refused(class, &format!("{url}: {message}"), ""))?;
        let resolved = map
            .resolve(&specifier, url, ResolutionKind::Import)
            .map_err(|error| load_error(&error, url))?;
        if !map.may_import(is_ext, &resolved) {
            return Err(private_module(&resolved, url));
        }
        imports.push(Import {
            specifier,
            module_type,
            url: resolved,
        });
    }
    Ok(map.register(scope, url, ModuleType::JavaScript, module, imports, None))
}

/// Registers a synthetic module whose `default` is `value`.
fn register_synthetic(
    map: &ModuleMap,
    scope: &mut v8::PinScope<'_, '_>,
    key: &Key,
    value: v8::Local<'_, v8::Value>,
) -> Result<ModuleId, JsError> {
    let name = v8::String::new(scope, &key.0).ok_or_else(|| too_long(&key.0))?;
    let default = v8::String::new(scope, "default").expect("a short string");
    let module = v8::Module::create_synthetic_module(
        scope,
        name,
        &[default],
        super::synthetic::default_evaluation_steps,
    );
    let value = Some(v8::Global::new(scope, value));
    Ok(map.register(scope, &key.0, key.1.clone(), module, Vec::new(), value))
}

/// Makes and registers `ext:core/ops` (see [`ModuleMap::set_ops_module`]).
fn make_ops_module(map: &ModuleMap, scope: &mut v8::PinScope<'_, '_>) -> ModuleId {
    let names: Vec<v8::Local<v8::String>> = map
        .ops_exports
        .borrow()
        .iter()
        .filter_map(|name| {
            v8::String::new_from_utf8(scope, name.as_bytes(), v8::NewStringType::Internalized)
        })
        .collect();
    let name = v8::String::new(scope, OPS_MODULE).expect("a short string");
    let module = v8::Module::create_synthetic_module(
        scope,
        name,
        &names,
        super::synthetic::ops_evaluation_steps,
    );
    map.register(
        scope,
        OPS_MODULE,
        ModuleType::JavaScript,
        module,
        Vec::new(),
        None,
    )
}

fn module_origin<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: v8::Local<'s, v8::String>,
    host_defined_options: Option<v8::Local<'s, v8::Data>>,
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
        host_defined_options,
    )
}
