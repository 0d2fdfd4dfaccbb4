//! ES modules: a [`ModuleLoader`] resolves and loads them ([`NoModuleLoader`] unless the host
//! gives one: a runtime loads nothing it was not given), a runtime compiles each URL and type
//! once (cycles and diamonds evaluate once), links and evaluates them, drives the event loop
//! through top-level `await`, and serves `import()`, `import.meta.url` / `.main` /
//! `.resolve()`, import attributes (`with { type: "json" | "text" | "bytes" }`, or a type the
//! loader names) and the extensions' modules (`ext:name/file.js`, private to other `ext:`
//! modules unless their extension makes them public). The methods on `Runtime` that do so are
//! `crate::runtime`'s (`loading.rs`).
//!
//! Here: the loader trait and the in-memory loaders (`loader.rs`), the confined file-system
//! loader (`fs_loader.rs`, reading on `blocking.rs`'s threads), the map of a runtime's modules,
//! a store (`map.rs`), loading a graph into it (`graph.rs`, with `attributes.rs` and the
//! synthetic modules' `synthetic.rs`), linking and `import.meta` (`callbacks.rs`), `import()`
//! (`dynamic_import.rs`), and what a failed module says (`errors.rs`). Arrows point one way:
//! `import()` → loading → linking → the store.

mod attributes;
mod blocking;
pub(crate) mod callbacks;
pub(crate) mod dynamic_import;
mod errors;
mod fs_loader;
pub(crate) mod graph;
pub(crate) mod loader;
pub(crate) mod map;
pub(crate) mod synthetic;
#[cfg(feature = "typescript")]
mod transpile;

pub use fs_loader::{FsModuleLoader, DEFAULT_MAX_MODULE_SIZE};
pub use loader::{
    resolve_import, LoadRequest, ModuleCode, ModuleLoadError, ModuleLoadFuture, ModuleLoader,
    ModuleSource, ModuleType, NoModuleLoader, ResolutionKind, StaticModuleLoader,
};
pub use map::ModuleId;
