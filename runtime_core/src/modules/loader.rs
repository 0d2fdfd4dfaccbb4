//! Where modules come from: a [`ModuleLoader`] resolves specifiers to URLs and loads their
//! source, asynchronously.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// What a module's source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleType {
    /// An ES module.
    JavaScript,
    /// A JSON document: its value is the module's `default` export.
    Json,
}

/// A loaded module: its source and what it is.
#[derive(Clone, Debug)]
pub struct ModuleSource {
    /// The source text (`&'static str` for sources compiled into the host: no copy).
    pub code: Cow<'static, str>,
    /// JavaScript or JSON.
    pub module_type: ModuleType,
}

impl ModuleSource {
    /// A JavaScript module.
    pub fn js(code: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code: code.into(),
            module_type: ModuleType::JavaScript,
        }
    }

    /// A JSON module.
    pub fn json(code: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code: code.into(),
            module_type: ModuleType::Json,
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

/// What [`ModuleLoader::load`] returns.
pub type ModuleLoadFuture = Pin<Box<dyn Future<Output = Result<ModuleSource, ModuleLoadError>>>>;

/// Resolves and loads modules (deno_core's `ModuleLoader`, without its extras).
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

    /// The source of the module at `url` (as `resolve` gave it).
    fn load(&self, url: &str, kind: ResolutionKind) -> ModuleLoadFuture;
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

/// Loads `file:` URLs from the file system: `.json` files as JSON modules, anything else as
/// JavaScript. The default loader; a host running other people's code gives its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsModuleLoader;

impl ModuleLoader for FsModuleLoader {
    fn load(&self, url: &str, _kind: ResolutionKind) -> ModuleLoadFuture {
        let loaded = (|| {
            let parsed =
                url::Url::parse(url).map_err(|error| ModuleLoadError(error.to_string()))?;
            let path = parsed
                .to_file_path()
                .map_err(|()| ModuleLoadError(format!("{url} is not a file: URL")))?;
            let code = std::fs::read_to_string(&path).map_err(|error| {
                ModuleLoadError(format!("cannot read {}: {error}", path.display()))
            })?;
            let json = path.extension().is_some_and(|ext| ext == "json");
            Ok(if json {
                ModuleSource::json(code)
            } else {
                ModuleSource::js(code)
            })
        })();
        Box::pin(std::future::ready(loaded))
    }
}

/// Modules held in memory, by URL: for tests, and for hosts that keep their code elsewhere.
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
    fn load(&self, url: &str, _kind: ResolutionKind) -> ModuleLoadFuture {
        let loaded = self
            .modules
            .get(url)
            .cloned()
            .ok_or_else(|| ModuleLoadError(format!("no module at {url}")));
        Box::pin(std::future::ready(loaded))
    }
}
