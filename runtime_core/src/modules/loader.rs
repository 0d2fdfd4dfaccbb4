//! Where modules come from: a [`ModuleLoader`] resolves specifiers to URLs and loads their
//! source, asynchronously, as the type the import asked for.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// What a module is, and what an import asks for (`with { type: "..." }`; no attribute asks
/// for JavaScript). The runtime keeps one module per URL and type, so one file can be both a
/// JavaScript module and a text module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleType {
    /// An ES module: its code runs. What an import without `type` asks for.
    JavaScript,
    /// `type: "json"`: a JSON document, parsed (never run); its value is `default`.
    Json,
    /// `type: "text"`: the source as a string, `default`.
    Text,
    /// `type: "bytes"`: the source as a `Uint8Array`, `default`.
    Bytes,
    /// A type the loader names in [`ModuleLoader::custom_types`]: `default` is its source, a
    /// string (text code) or a `Uint8Array` (bytes).
    Other(Cow<'static, str>),
}

impl ModuleType {
    /// The type an import attribute `type` names (`None`: no attribute, JavaScript).
    pub fn from_attribute(value: Option<&str>) -> Self {
        match value {
            None => Self::JavaScript,
            Some("json") => Self::Json,
            Some("text") => Self::Text,
            Some("bytes") => Self::Bytes,
            Some(other) => Self::Other(Cow::Owned(other.to_owned())),
        }
    }

    /// How an import names it: `"json"`; `None` for JavaScript (no attribute).
    pub fn attribute(&self) -> Option<&str> {
        match self {
            Self::JavaScript => None,
            Self::Json => Some("json"),
            Self::Text => Some("text"),
            Self::Bytes => Some("bytes"),
            Self::Other(name) => Some(name),
        }
    }
}

/// JavaScript hashes as nothing: a key of a URL and a type costs, for the modules nearly all
/// are, what the URL alone does.
impl std::hash::Hash for ModuleType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Self::JavaScript => {}
            Self::Json => state.write_u8(1),
            Self::Text => state.write_u8(2),
            Self::Bytes => state.write_u8(3),
            Self::Other(name) => {
                state.write_u8(4);
                name.hash(state);
            }
        }
    }
}

impl fmt::Display for ModuleType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.attribute() {
            None => f.write_str("JavaScript"),
            Some(name) => write!(f, "\"{name}\""),
        }
    }
}

/// A module's source: text, or bytes (only a `bytes` module, or a custom type, may be bytes
/// that are no UTF-8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleCode {
    /// Text (`&'static str` for sources compiled into the host: no copy).
    Text(Cow<'static, str>),
    /// Bytes.
    Bytes(Cow<'static, [u8]>),
}

impl ModuleCode {
    /// The source as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Text(text) => text.as_bytes(),
            Self::Bytes(bytes) => bytes,
        }
    }

    /// The source as text, if it is UTF-8.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Bytes(bytes) => std::str::from_utf8(bytes).ok(),
        }
    }
}

/// A loaded module: its source and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleSource {
    /// The source.
    pub code: ModuleCode,
    /// What the module is. The runtime refuses a module whose type is not the one the import
    /// asked for (a JSON file imported without `with { type: "json" }`, say).
    pub module_type: ModuleType,
    /// The source map of a JavaScript module compiled from another language (the map's
    /// JSON): error stacks point at the original file, line and column. An inline
    /// `//# sourceMappingURL=data:` comment at the end of the source is read without it.
    pub source_map: Option<Vec<u8>>,
}

impl ModuleSource {
    /// A module of `module_type`.
    pub fn new(module_type: ModuleType, code: ModuleCode) -> Self {
        Self {
            code,
            module_type,
            source_map: None,
        }
    }

    /// This module with its source map (the map's JSON).
    pub fn with_source_map(mut self, json: impl Into<Vec<u8>>) -> Self {
        self.source_map = Some(json.into());
        self
    }

    /// A JavaScript module.
    pub fn js(code: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ModuleType::JavaScript, ModuleCode::Text(code.into()))
    }

    /// A JSON module.
    pub fn json(code: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ModuleType::Json, ModuleCode::Text(code.into()))
    }

    /// A text module.
    pub fn text(code: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ModuleType::Text, ModuleCode::Text(code.into()))
    }

    /// A bytes module.
    pub fn bytes(code: impl Into<Cow<'static, [u8]>>) -> Self {
        Self::new(ModuleType::Bytes, ModuleCode::Bytes(code.into()))
    }

    /// This module's source as `module_type`, for an import of that type: a `text`, `bytes` or
    /// custom import takes any module's source as it is; JavaScript and JSON only a module
    /// that is one (`None`). The runtime applies it to what a loader returns.
    pub(crate) fn into_type(self, module_type: &ModuleType) -> Option<Self> {
        match module_type {
            ModuleType::Text | ModuleType::Bytes | ModuleType::Other(_) => {
                Some(Self::new(module_type.clone(), self.code))
            }
            ModuleType::JavaScript | ModuleType::Json => {
                (self.module_type == *module_type).then_some(self)
            }
        }
    }
}

/// Why a module is being resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolutionKind {
    /// The main module, relative to the working directory.
    MainModule,
    /// A static `import`.
    Import,
    /// `import()` (a host may refuse these).
    DynamicImport,
}

/// What [`ModuleLoader::load`] is asked to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadRequest {
    /// The URL, as [`ModuleLoader::resolve`] gave it.
    pub url: String,
    /// What the import asked the module to be.
    pub module_type: ModuleType,
    /// Static, dynamic or main.
    pub kind: ResolutionKind,
}

/// A module that could not be resolved or loaded; becomes a `TypeError` naming the module and
/// its importer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleLoadError(pub String);

impl fmt::Display for ModuleLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModuleLoadError {}

/// What [`ModuleLoader::load`] returns: `Box::pin(async move { .. })` around the loader's own
/// work, or `Box::pin(std::future::ready(result))` for a source at hand. (Boxed so that a
/// loader is a trait object: a runtime holds `Rc<dyn ModuleLoader>`.)
pub type ModuleLoadFuture = Pin<Box<dyn Future<Output = Result<ModuleSource, ModuleLoadError>>>>;

/// Resolves and loads modules (deno_core's `ModuleLoader`, without its extras).
///
/// Everything a script can import comes through here (but `ext:` modules, which extensions
/// ship): a loader for other people's code decides what they may reach. A panic in any of its
/// methods, or in the future `load` returns, fails the import that caused it, never the host.
pub trait ModuleLoader {
    /// The absolute URL `specifier` names, imported from `referrer` (a URL). By default, the
    /// web's rules: `./`, `../` and `/` relative to the referrer, anything else must be an
    /// absolute URL.
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _kind: ResolutionKind,
    ) -> Result<String, ModuleLoadError> {
        resolve_import(specifier, referrer)
    }

    /// The source of a module, typed as what it is (a `.json` file as JSON, say): the runtime
    /// then refuses a JavaScript or JSON module imported as the other, and takes any module's
    /// source as it is for a `text`, `bytes` or custom import. `request` says what the import
    /// asked for, for a loader that serves types differently.
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture;

    /// The import types besides JavaScript, `json`, `text` and `bytes` this loader serves:
    /// an import of any other type is a `TypeError` before anything loads.
    fn custom_types(&self) -> &[&str] {
        &[]
    }
}

/// `specifier` resolved against `referrer` by the web's rules.
pub fn resolve_import(specifier: &str, referrer: &str) -> Result<String, ModuleLoadError> {
    let relative = ["./", "../", "/"]
        .iter()
        .any(|prefix| specifier.starts_with(prefix));
    let resolved = if relative {
        url::Url::parse(referrer).and_then(|base| base.join(specifier))
    } else {
        url::Url::parse(specifier)
    };
    resolved.map(String::from).map_err(|_| {
        ModuleLoadError(format!(
            "cannot resolve \"{specifier}\" from \"{referrer}\": a relative specifier starts \
             with ./, ../ or /"
        ))
    })
}

/// The URL of the working directory (ending in `/`): what a main module is relative to.
pub(crate) fn cwd_url() -> String {
    std::env::current_dir()
        .ok()
        .and_then(|dir| url::Url::from_directory_path(dir).ok())
        .map_or_else(|| "file:///".to_owned(), String::from)
}

/// The loader of a runtime made with none: it loads nothing (deno_core's default). Only
/// the extensions' `ext:` modules can be imported.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoModuleLoader;

impl ModuleLoader for NoModuleLoader {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let refused = ModuleLoadError(format!(
            "{}: this runtime loads no modules (RuntimeOptions::module_loader is None; give it \
             a FsModuleLoader confined to a directory, a StaticModuleLoader, or your own)",
            request.url
        ));
        Box::pin(std::future::ready(Err(refused)))
    }
}

/// Modules held in memory, by URL: for tests, and for hosts that keep their code elsewhere.
/// A script reaches exactly these modules.
#[derive(Clone, Debug, Default)]
pub struct StaticModuleLoader {
    modules: HashMap<String, ModuleSource>,
}

impl StaticModuleLoader {
    /// A loader with these modules.
    pub fn new(modules: impl IntoIterator<Item = (String, ModuleSource)>) -> Self {
        Self {
            modules: modules.into_iter().collect(),
        }
    }

    /// Adds a module.
    pub fn insert(&mut self, url: impl Into<String>, source: ModuleSource) {
        self.modules.insert(url.into(), source);
    }
}

impl ModuleLoader for StaticModuleLoader {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let loaded = match self.modules.get(&request.url) {
            None => Err(ModuleLoadError(format!("no module at {}", request.url))),
            Some(source) => Ok(source.clone()),
        };
        Box::pin(std::future::ready(loaded))
    }
}
