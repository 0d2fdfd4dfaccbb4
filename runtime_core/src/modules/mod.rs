//! ES modules: a [`ModuleLoader`] resolves and loads them ([`FsModuleLoader`] by default),
//! a runtime compiles each URL once (cycles and diamonds evaluate once), links and evaluates
//! them, drives the event loop through top-level `await`, and serves `import()`,
//! `import.meta.url` / `.main` / `.resolve()`, JSON modules and the extensions' modules
//! (`ext:name/file.js`). The methods on `Runtime` that do so are `crate::runtime`'s
//! (`loading.rs`).

pub(crate) mod loader;
pub(crate) mod map;

pub use loader::{
    resolve_import, FsModuleLoader, ModuleLoadError, ModuleLoadFuture, ModuleLoader, ModuleSource,
    ModuleType, ResolutionKind, StaticModuleLoader,
};
pub use map::ModuleId;
