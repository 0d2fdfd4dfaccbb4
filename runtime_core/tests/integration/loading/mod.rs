//! Loading as a boundary: what a tenant's modules can reach through each loader, `ext:`
//! modules' privacy (`loader_confinement.rs`), import attributes (`import_attributes.rs`),
//! loaders that panic, deep graphs, and what a failed module says (here). Each test names the
//! fault of issue 37 it guards against.

mod import_attributes;
mod loader_confinement;

use crate::common;

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;

use common::{init_test_flags, tokio};
use runtime_core::modules::{
    FsModuleLoader, LoadRequest, ModuleLoadError, ModuleLoadFuture, ModuleLoader, ModuleSource,
    ResolutionKind, StaticModuleLoader,
};
use runtime_core::{op, Extension, ExtensionSource, Runtime, RuntimeOptions};

fn runtime(loader: impl ModuleLoader + 'static) -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    })
}

fn static_loader(modules: &[(&str, ModuleSource)]) -> StaticModuleLoader {
    StaticModuleLoader::new(
        modules
            .iter()
            .map(|(url, source)| (url.to_string(), source.clone())),
    )
}

/// Loads and evaluates `url` as the main module, then reads `globalThis.out`.
fn run_main(rt: &mut Runtime, url: &str) -> Result<String, runtime_core::JsError> {
    let tokio = tokio();
    let id = tokio.block_on(rt.load_main_module(url))?;
    tokio.block_on(rt.mod_evaluate(id))?;
    tokio.block_on(rt.run_event_loop())?;
    rt.execute_script_to_string("<out>", "String(globalThis.out)")
}

/// The lines of outcome `promise` (an expression) fulfils with, once the event loop ran.
fn outcomes_of(rt: &mut Runtime, promise: &str) -> Vec<String> {
    rt.execute_script(
        "<outcomes>",
        &format!(
            "globalThis.out = undefined;
             ({promise}).then((all) => {{ globalThis.out = all.join('\\n'); }});"
        ),
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    rt.execute_script_to_string("<out>", "String(globalThis.out)")
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Each specifier's `import()` outcome from a classic script: `loaded`, or the error's class
/// and message.
fn import_each(rt: &mut Runtime, specifiers: &[&str], options: &str) -> Vec<String> {
    let list = serde_json::to_string(specifiers).unwrap();
    outcomes_of(
        rt,
        &format!(
            "Promise.all({list}.map((s) => import(s, {options}).then(
               () => 'loaded', (e) => e.name + ': ' + e.message)))"
        ),
    )
}

/// A main module whose `importFrom(specifiers, options)` imports each relative to itself.
const IMPORTER_JS: &str = "
globalThis.importFrom = (list, options) => Promise.all(list.map((s) =>
  import(s, options).then(() => 'loaded', (e) => e.name + ': ' + e.message)));
globalThis.out = 'main ran';
";

/// `import()` of each specifier from the main module (see [`IMPORTER_JS`]).
fn import_from(rt: &mut Runtime, specifiers: &[&str], options: &str) -> Vec<String> {
    let list = serde_json::to_string(specifiers).unwrap();
    outcomes_of(rt, &format!("importFrom({list}, {options})"))
}

// ---- 4. a loader that panics fails the import, never the host --------------------------------

/// Panics in the method its name says, for the URL or specifier `boom`.
struct Panicking;

impl ModuleLoader for Panicking {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _: ResolutionKind,
    ) -> Result<String, ModuleLoadError> {
        if specifier.contains("resolve-boom") {
            panic!("boom: resolve-boom");
        }
        runtime_core::modules::resolve_import(specifier, referrer)
    }

    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let url = request.url.clone();
        if url.ends_with("load-boom.js") {
            panic!("boom: load-boom");
        }
        Box::pin(async move {
            match url.as_str() {
                "file:///app/main.js" => Ok(ModuleSource::js(IMPORTER_JS)),
                "file:///app/static.js" => Ok(ModuleSource::js("import './load-boom.js';")),
                "file:///app/ok.js" => Ok(ModuleSource::js("export default 'ok';")),
                _ => panic!("boom: future-boom"),
            }
        })
    }
}

#[test]
fn a_panicking_loader_fails_the_import_only() {
    // Issue 37, 4: `load()` or `resolve()` panicking under `import()`, or `resolve()` under
    // `import.meta.resolve`, aborted the process.
    common::quiet_expected_panics("boom: ");
    let mut rt = runtime(Panicking);
    assert_eq!(
        run_main(&mut rt, "file:///app/main.js").unwrap(),
        "main ran"
    );
    let outcomes = import_from(
        &mut rt,
        &[
            "./load-boom.js",
            "./resolve-boom.js",
            "./future-boom.js",
            "./static.js",
            "./ok.js",
        ],
        "{}",
    );
    assert!(
        outcomes[0].contains("the module loader's load panicked: boom: load-boom"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[1].contains("the module loader's resolve panicked: boom: resolve-boom"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[2].contains("the module loader's load future panicked: boom: future-boom"),
        "{outcomes:?}"
    );
    assert!(outcomes[3].contains("load panicked"), "{outcomes:?}");
    assert_eq!(outcomes[4], "loaded");
    let module = tokio()
        .block_on(rt.load_side_module("file:///app/ok.js"))
        .unwrap();
    let namespace = rt.get_module_namespace(module).unwrap();
    drop(namespace);
    // `import.meta.resolve` from a module.
    let inner = static_loader(&[(
        "file:///app/meta.js",
        ModuleSource::js(
            "try { import.meta.resolve('./resolve-boom.js'); } catch (e) { globalThis.out = e.name + ': ' + e.message; }",
        ),
    )]);
    struct MetaPanics(StaticModuleLoader);
    impl ModuleLoader for MetaPanics {
        fn resolve(
            &self,
            specifier: &str,
            referrer: &str,
            kind: ResolutionKind,
        ) -> Result<String, ModuleLoadError> {
            Panicking.resolve(specifier, referrer, kind)
        }
        fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
            self.0.load(request)
        }
    }
    let mut rt = runtime(MetaPanics(inner));
    let out = run_main(&mut rt, "file:///app/meta.js").unwrap();
    assert!(
        out.starts_with("TypeError: the module loader's resolve panicked"),
        "{out}"
    );
}

// ---- 5. graphs of any depth -------------------------------------------------------------------

#[test]
fn a_deep_graph_loads_twice_on_a_small_stack() {
    // Issue 37, 5: loading a chain of 10^4 modules a second time overflowed a 2 MiB stack (the
    // walk over compiled modules recursed). V8 links so deep a chain no better (its own stack
    // limit: a `RangeError`), so both loads fail alike; a chain V8 links loads twice.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let tokio = tokio();
            for (depth, links) in [(10_000, false), (500, true)] {
                let modules = (0..depth).map(|index| {
                    let code = if index + 1 < depth {
                        format!("import './m{}.js'; export const n = {index};", index + 1)
                    } else {
                        "export const n = 'last';".to_owned()
                    };
                    (format!("file:///deep/m{index}.js"), ModuleSource::js(code))
                });
                let mut rt = runtime(StaticModuleLoader::new(modules));
                let first = tokio.block_on(rt.load_side_module("file:///deep/m0.js"));
                let again = tokio.block_on(rt.load_side_module("file:///deep/m0.js"));
                match (first, again) {
                    (Ok(first), Ok(again)) if links => assert_eq!(first, again),
                    (Err(first), Err(again)) if !links => {
                        assert_eq!(first.message, "Maximum call stack size exceeded");
                        assert_eq!(first, again);
                    }
                    other => panic!("depth {depth}: {other:?}"),
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

// ---- 6. every module error names its module ---------------------------------------------------

#[test]
fn module_errors_name_the_module_and_position() {
    // Issue 37, 6: an invalid JSON module said `at undefined:1:2`, a module nested too deeply
    // to parse `at undefined:0:0`.
    let deep = format!(
        "export default {}0{};",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let loader = static_loader(&[
        (
            "file:///app/bad.json",
            ModuleSource::json("{\n  \"a\": ,\n}"),
        ),
        ("file:///app/deep.js", ModuleSource::js(deep)),
        (
            "file:///app/main.js",
            ModuleSource::js("import data from './bad.json' with { type: 'json' };"),
        ),
    ]);
    let mut rt = runtime(loader);
    let tokio = tokio();
    let err = tokio
        .block_on(rt.load_main_module("file:///app/main.js"))
        .unwrap_err();
    let stack = err.stack.clone().unwrap_or_default();
    assert_eq!(err.class_name, "SyntaxError", "{err}");
    assert!(stack.contains("at file:///app/bad.json:2:"), "{stack}");
    assert!(!stack.contains("undefined"), "{stack}");
    let err = tokio
        .block_on(rt.load_side_module("file:///app/deep.js"))
        .unwrap_err();
    let stack = err.stack.clone().unwrap_or_default();
    assert_eq!(err.class_name, "RangeError", "{err}");
    assert!(stack.contains("file:///app/deep.js"), "{stack}");
    assert!(!stack.contains("undefined"), "{stack}");
}

// ---- 7. an unknown module id is an error -----------------------------------------------------

#[test]
fn a_module_id_of_another_runtime_is_an_error() {
    // Issue 37, 7: an id no load returned panicked (index out of bounds).
    let loader = static_loader(&[(
        "file:///app/a.js",
        ModuleSource::js("export const f = () => 1;"),
    )]);
    let mut other = runtime(loader.clone());
    let tokio = tokio();
    let foreign = tokio
        .block_on(other.load_side_module("file:///app/a.js"))
        .unwrap();
    let mut rt = runtime(loader);
    let err = rt.get_module_namespace(foreign).unwrap_err();
    assert!(
        err.message.contains("is no module of this runtime"),
        "{err}"
    );
    assert!(rt.module_function(foreign, "f").is_err());
    assert!(tokio.block_on(rt.mod_evaluate(foreign)).is_err());
    // Its own ids work.
    let own = tokio
        .block_on(rt.load_side_module("file:///app/a.js"))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(own)).unwrap();
    assert!(rt.module_function(own, "f").is_ok());
}
