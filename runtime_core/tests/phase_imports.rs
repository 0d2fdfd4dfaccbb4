//! V8's source-phase and deferred imports, enabled by flags a host may set: each form is a
//! catchable error, never a V8 check that stops the process (issue 37, 11). A test binary of
//! its own: the flags are the process's.

use std::rc::Rc;

use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{Runtime, RuntimeOptions};

#[test]
fn source_and_deferred_imports_are_errors_not_aborts() {
    runtime_core::set_v8_flags(&["--js-source-phase-imports", "--js-defer-import-eval"])
        .expect("flags are set before the first runtime");
    let loader = StaticModuleLoader::new([
        (
            "file:///app/main.js".to_owned(),
            ModuleSource::js(
                "const outcome = (p) => p.then(() => 'loaded', (e) => e.name + ': ' + e.message);
                 globalThis.out = Promise.all([
                   outcome(import.defer('./a.js')),
                   outcome(import.source('./a.js')),
                   outcome(import('./a.js')),
                 ]).then((all) => { globalThis.out = all.join('|'); });",
            ),
        ),
        (
            "file:///app/a.js".to_owned(),
            ModuleSource::js("export const a = 1;"),
        ),
        (
            "file:///app/source.js".to_owned(),
            ModuleSource::js("import source a from './a.js';"),
        ),
        (
            "file:///app/defer.js".to_owned(),
            ModuleSource::js("import defer * as a from './a.js'; globalThis.deferred = a.a;"),
        ),
    ]);
    let mut rt = Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let main = tokio
        .block_on(rt.load_main_module("file:///app/main.js"))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(main)).unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    let out = rt.execute_script_to_string("o.js", "out").unwrap();
    let unsupported = "SyntaxError: source and deferred imports are not supported";
    assert_eq!(out, format!("{unsupported}|{unsupported}|loaded"));
    for static_form in ["file:///app/source.js", "file:///app/defer.js"] {
        let err = tokio
            .block_on(rt.load_side_module(static_form))
            .unwrap_err();
        assert_eq!(err.class_name, "SyntaxError", "{static_form}: {err}");
    }
}
