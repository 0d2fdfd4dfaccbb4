//! The modules of one runtime: one per URL and type (so cycles and diamonds evaluate once,
//! and a file can be a JavaScript module and a text module both), each with what its imports
//! resolved to: a store, which names no module of its own folder but the loader's types and
//! errors. Loading graphs into it is `graph.rs`'s; V8's callbacks, which find the map through
//! the isolate's slot ([`ModuleMap::of`]), are `callbacks.rs`'s, `synthetic.rs`'s and
//! `dynamic_import.rs`'s.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::num::NonZeroI32;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::errors::caught;
use super::loader::{ModuleLoadError, ModuleLoader, ModuleSource, ModuleType, ResolutionKind};
use crate::JsError;

/// A module of a runtime, as its loads return it. An id of another runtime, or one no load
/// returned, is an error wherever it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId {
    /// Which runtime's map (unique in the process).
    map: u32,
    index: u32,
}

/// The scheme of modules shipped by extensions (`ext:name/file.js`), served from memory.
pub(crate) const EXT_SCHEME: &str = "ext:";

/// The module exporting the ops.
pub(crate) const OPS_MODULE: &str = "ext:core/ops";

/// A module and its key.
pub(crate) struct Record {
    pub(crate) url: String,
    pub(crate) module_type: ModuleType,
    pub(crate) module: v8::Global<v8::Module>,
    /// Each import's specifier and type, and the URL it resolved to.
    pub(crate) imports: Vec<Import>,
    /// A synthetic module's value (JSON, text, bytes), until its evaluation exports it as
    /// `default`.
    pub(crate) default: Option<v8::Global<v8::Value>>,
    pub(crate) main: bool,
}

/// An import of a module: its specifier and type, and the URL it resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Import {
    pub(crate) specifier: String,
    pub(crate) module_type: ModuleType,
    pub(crate) url: String,
}

/// One runtime's modules (the isolate's slot holds it).
pub(crate) struct ModuleMap {
    /// Unique in the process: a `ModuleId` says which map it is of.
    tag: u32,
    pub(crate) loader: Rc<dyn ModuleLoader>,
    pub(crate) records: RefCell<Vec<Record>>,
    /// The JavaScript modules by URL (most modules: no key of two parts to make and hash).
    by_url: RefCell<HashMap<String, u32>>,
    /// The other modules (JSON, text, bytes) by URL and type.
    by_url_and_type: RefCell<HashMap<(String, ModuleType), u32>>,
    by_hash: RefCell<HashMap<NonZeroI32, Vec<u32>>>,
    /// Extension modules by specifier.
    ext: RefCell<HashMap<String, ModuleSource>>,
    /// The extension modules any module may import (the others only `ext:` modules may).
    public: RefCell<HashSet<String>>,
    /// The ops object, which `ext:core/ops` exports from.
    pub(crate) ops_object: RefCell<Option<v8::Global<v8::Object>>>,
    /// The names `ext:core/ops` exports, until it is first imported and made.
    pub(crate) ops_exports: RefCell<Vec<&'static str>>,
}

impl ModuleMap {
    /// The runtime's map, from the isolate's slot (where V8's callbacks find it).
    pub(crate) fn of(isolate: &v8::Isolate) -> Option<Rc<ModuleMap>> {
        isolate.get_slot::<Rc<ModuleMap>>().cloned()
    }

    pub(crate) fn new(loader: Rc<dyn ModuleLoader>) -> Self {
        static TAGS: AtomicU32 = AtomicU32::new(0);
        Self {
            tag: TAGS.fetch_add(1, Ordering::Relaxed),
            loader,
            records: RefCell::default(),
            by_url: RefCell::default(),
            by_url_and_type: RefCell::default(),
            by_hash: RefCell::default(),
            ext: RefCell::default(),
            public: RefCell::default(),
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

    /// Adds an extension's module; `public`: any module may import it, not only `ext:` ones.
    pub(crate) fn add_ext_module(&self, specifier: String, source: ModuleSource, public: bool) {
        if public {
            self.public.borrow_mut().insert(specifier.clone());
        }
        self.ext.borrow_mut().insert(specifier, source);
    }

    /// The extension module `url`, if one ships it.
    pub(crate) fn ext_source(&self, url: &str) -> Option<ModuleSource> {
        self.ext.borrow().get(url).cloned()
    }

    /// Whether a module at `importer` may import `url`: an `ext:` module only from another
    /// `ext:` module, unless its extension made it public (`ext:core/ops` never is).
    pub(crate) fn may_import(&self, importer_is_ext: bool, url: &str) -> bool {
        !url.starts_with(EXT_SCHEME) || importer_is_ext || self.public.borrow().contains(url)
    }

    /// The id of the module of `url` and `module_type`, if compiled.
    pub(crate) fn id(&self, url: &str, module_type: &ModuleType) -> Option<ModuleId> {
        let index = match module_type {
            ModuleType::JavaScript => self.by_url.borrow().get(url).copied(),
            other => self
                .by_url_and_type
                .borrow()
                .get(&(url.to_owned(), other.clone()))
                .copied(),
        };
        index.map(|index| self.id_of(index))
    }

    fn id_of(&self, index: u32) -> ModuleId {
        ModuleId {
            map: self.tag,
            index,
        }
    }

    /// The index of `id` in this map, if it is one of this map's modules.
    pub(crate) fn index(&self, id: ModuleId) -> Result<usize, JsError> {
        let index = id.index as usize;
        if id.map != self.tag || index >= self.records.borrow().len() {
            return Err(JsError::exception(
                "TypeError",
                &format!("{id:?} is no module of this runtime"),
            ));
        }
        Ok(index)
    }

    pub(crate) fn module<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        id: ModuleId,
    ) -> Result<v8::Local<'s, v8::Module>, JsError> {
        let index = self.index(id)?;
        Ok(v8::Local::new(scope, &self.records.borrow()[index].module))
    }

    /// The URL of `id` (valid).
    pub(crate) fn url(&self, id: ModuleId) -> String {
        self.records.borrow()[id.index as usize].url.clone()
    }

    pub(crate) fn set_main(&self, id: ModuleId) {
        self.records.borrow_mut()[id.index as usize].main = true;
    }

    /// `specifier` imported from `referrer`, as a URL (extension specifiers as they are). A
    /// loader that panics fails the resolution.
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
        let loader = &self.loader;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            loader.resolve(specifier, referrer, kind)
        }))
        .unwrap_or_else(|payload| Err(loader_panicked("resolve", &*payload)))
    }

    /// Whether `module_type` is one an import may ask for.
    pub(crate) fn knows_type(&self, module_type: &ModuleType) -> bool {
        match module_type {
            ModuleType::Other(name) => {
                let loader = &self.loader;
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    loader.custom_types().contains(&&**name)
                }))
                .unwrap_or(false)
            }
            _ => true,
        }
    }

    pub(crate) fn register(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        url: &str,
        module_type: ModuleType,
        module: v8::Local<'_, v8::Module>,
        imports: Vec<Import>,
        default: Option<v8::Global<v8::Value>>,
    ) -> ModuleId {
        let index = u32::try_from(self.records.borrow().len()).expect("fewer than 2^32 modules");
        self.by_hash
            .borrow_mut()
            .entry(module.get_identity_hash())
            .or_default()
            .push(index);
        match &module_type {
            ModuleType::JavaScript => self.by_url.borrow_mut().insert(url.to_owned(), index),
            other => self
                .by_url_and_type
                .borrow_mut()
                .insert((url.to_owned(), other.clone()), index),
        };
        self.records.borrow_mut().push(Record {
            url: url.to_owned(),
            module_type,
            module: v8::Global::new(scope, module),
            imports,
            default,
            main: false,
        });
        self.id_of(index)
    }

    /// The record of `module`, by its identity hash.
    pub(crate) fn find(&self, module: v8::Local<'_, v8::Module>) -> Option<usize> {
        let records = self.records.borrow();
        self.by_hash
            .borrow()
            .get(&module.get_identity_hash())?
            .iter()
            .map(|&index| index as usize)
            .find(|&index| records[index].module == module)
    }

    /// Starts evaluating `id` (instantiated): the promise of its evaluation (top-level await).
    pub(crate) fn evaluate<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        id: ModuleId,
    ) -> Result<v8::Local<'s, v8::Value>, JsError> {
        let module = self.module(scope, id)?;
        v8::tc_scope!(let try_catch, scope);
        match module.evaluate(try_catch) {
            Some(promise) => Ok(promise),
            None => Err(caught!(try_catch, &self.url(id))),
        }
    }

    /// For a snapshot: each record, its module handed to `keep` (which returns the index
    /// it is kept at); refused while a synthetic module has not been evaluated (an `import()`
    /// still loading is a pending loop source, refused before).
    pub(crate) fn snapshot_records<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        mut keep: impl FnMut(&mut v8::PinScope<'s, '_>, v8::Local<'s, v8::Module>) -> usize,
    ) -> Result<Vec<ModuleRecord>, JsError> {
        let records = self.records.borrow();
        let mut kept = Vec::with_capacity(records.len());
        for record in records.iter() {
            if record.default.is_some() {
                return Err(JsError::exception(
                    "Error",
                    &format!(
                        "cannot snapshot {}: a {} module not evaluated",
                        record.url, record.module_type
                    ),
                ));
            }
            let module = v8::Local::new(scope, &record.module);
            kept.push(ModuleRecord {
                url: record.url.clone(),
                module_type: record.module_type.clone(),
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
        let id = self.register(
            scope,
            &record.url,
            record.module_type.clone(),
            module,
            record.imports.clone(),
            None,
        );
        self.records.borrow_mut()[id.index as usize].main = record.main;
    }

    /// The ops object.
    pub(crate) fn ops_object(&self) -> Option<v8::Global<v8::Object>> {
        self.ops_object.borrow().clone()
    }

    /// Drops every pending load and handle (the runtime goes).
    pub(crate) fn clear(&self) {
        self.records.borrow_mut().clear();
        self.by_url.borrow_mut().clear();
        self.by_url_and_type.borrow_mut().clear();
        self.by_hash.borrow_mut().clear();
        self.ops_object.borrow_mut().take();
    }
}

/// The error of a loader method that panicked.
pub(crate) fn loader_panicked(
    method: &str,
    payload: &(dyn std::any::Any + Send),
) -> ModuleLoadError {
    ModuleLoadError(format!(
        "the module loader's {method} panicked: {}",
        crate::errors::throw::panic_text(payload)
    ))
}

/// The error of a module an import may not reach.
pub(crate) fn private_module(url: &str, importer: &str) -> JsError {
    super::errors::refused(
        "TypeError",
        &format!("{url} is private to the extensions' modules"),
        importer,
    )
}

/// Whether `name` can be exported by name (an op or a class; not `new Foo`).
fn is_export_name(name: &str) -> bool {
    // Bytes, not chars: a non-ASCII byte fails either way, and this runs once per op per
    // runtime made.
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte == b'_' || byte == b'$' || byte.is_ascii_alphanumeric())
}

/// A module of the snapshotted map.
pub(crate) struct ModuleRecord {
    pub(crate) url: String,
    pub(crate) module_type: ModuleType,
    pub(crate) imports: Vec<Import>,
    pub(crate) main: bool,
    /// Context data index of the module.
    pub(crate) module: usize,
}
