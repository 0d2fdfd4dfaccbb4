//! A host's first ES modules: an export called with its object as `this`, graphs with cycles
//! and diamonds evaluated once, top-level await, dynamic imports and JSON, errors naming the
//! module and the line, the file-system loader.

use super::embedding::{evaluated, runtime_with};
use std::rc::Rc;

use crate::common::{self, init_test_flags, tokio};
use runtime_core::modules::{FsModuleLoader, ModuleSource};
use runtime_core::{Runtime, RuntimeOptions};

const BASE: &str = "file:///app/";

#[test]
fn a_module_exports_member_is_called_with_its_object_as_this() {
    // Issue 39: `export default { async onEvent() {} }` took raw rusty_v8 to call.
    let mut rt = runtime_with(&[(
        "file:///plugin.js",
        ModuleSource::js(
            "export default {
               seen: 0,
               async onEvent(n) { await ops.op_async_form(n); return this.seen += n; },
             };
             export const api = { v1: { get(key) { return `${this.name}:${key}`; }, name: 'v1' } };
             export function plain() { return typeof this; }
             export const notAFunction = 3;
             export const getterThrows = { get boom() { throw new RangeError('from a getter'); } };",
        ),
    )]);
    let tokio = tokio();
    let id = tokio
        .block_on(rt.load_main_module("file:///plugin.js"))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(id)).unwrap();
    let on_event = rt.module_method(id, "default.onEvent").unwrap();
    assert_eq!(
        tokio.block_on(rt.call_and_await::<u32>(&on_event, (2,))),
        Ok(2)
    );
    let call = rt.start_call::<u32>(&on_event, (3,));
    assert_eq!(tokio.block_on(rt.run_until(call)), Ok(Ok(5)));
    let get = rt.module_method(id, "api.v1.get").unwrap();
    assert_eq!(rt.call::<String>(&get, ("k",)).unwrap(), "v1:k");
    // A top-level export is read from the namespace; `method` reads from any value kept.
    let plain = rt.module_method(id, "plain").unwrap();
    assert_eq!(rt.call::<String>(&plain, ()).unwrap(), "object");
    let v1 = rt
        .execute_script(
            "v1.js",
            "({ name: 'kept', get(k) { return this.name + k; } })",
        )
        .unwrap();
    let kept = rt.method(&v1, "get").unwrap();
    assert_eq!(rt.call::<String>(&kept, ("!",)).unwrap(), "kept!");
    // What fails says where.
    for (path, message) in [
        ("default.nope", "default.nope is not a function"),
        ("notAFunction", "notAFunction is not a function"),
        (
            "nope.onEvent",
            "nope.onEvent: what holds onEvent is not an object",
        ),
    ] {
        let error = rt.module_method(id, path).unwrap_err();
        assert_eq!(
            (error.class_name.as_str(), error.message.as_str()),
            ("TypeError", message)
        );
    }
    let error = rt.module_method(id, "getterThrows.boom").unwrap_err();
    assert_eq!(
        (error.class_name.as_str(), error.message.as_str()),
        ("RangeError", "from a getter")
    );
}

fn url(path: &str) -> String {
    format!("{BASE}{path}")
}

#[test]
fn a_module_graph_evaluates_each_module_once_with_cycles_and_diamonds() {
    let mut rt = runtime_with(&[
        (
            "file:///app/main.js",
            ModuleSource::js(
                "import { a } from './a.js';
                 import { b } from './b.js';
                 import { ping } from './cycle_one.js';
                 ops.op_evaluated('main');
                 export const answer = a + b + ping();
                 export function greet(name) { return `hello ${name} from ${import.meta.url}`; }
                 export const meta = { main: import.meta.main, resolved: import.meta.resolve('./x/y.js') };",
            ),
        ),
        (
            "file:///app/a.js",
            ModuleSource::js("import { c } from './shared/c.js'; ops.op_evaluated('a'); export const a = c + 1;"),
        ),
        (
            "file:///app/b.js",
            ModuleSource::js("import { c } from '/app/shared/c.js'; ops.op_evaluated('b'); export const b = c + 2;"),
        ),
        (
            "file:///app/shared/c.js",
            ModuleSource::js("ops.op_evaluated('c'); export const c = 10;"),
        ),
        (
            "file:///app/cycle_one.js",
            ModuleSource::js("import { pong } from './cycle_two.js'; ops.op_evaluated('one'); export function ping() { return pong(); }"),
        ),
        (
            "file:///app/cycle_two.js",
            ModuleSource::js("import { ping } from './cycle_one.js'; ops.op_evaluated('two'); export function pong() { return 100; }"),
        ),
    ]);
    let tokio = tokio();
    let id = tokio
        .block_on(rt.load_main_module(&url("main.js")))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(id)).unwrap();
    let mut order = evaluated(&rt);
    assert_eq!(order.len(), 6, "{order:?}");
    order.sort();
    assert_eq!(order, ["a", "b", "c", "main", "one", "two"]);

    let greet = rt.module_function(id, "greet").unwrap();
    assert_eq!(
        rt.call::<String>(&greet, ("ada",)).unwrap(),
        "hello ada from file:///app/main.js"
    );
    let namespace = rt.get_module_namespace(id).unwrap();
    let (answer, main, resolved) = rt
        .try_with_scope(|scope| {
            let namespace = runtime_core::v8::Local::new(scope, &namespace);
            let read = |scope: &mut runtime_core::v8::PinScope, path: &str| {
                let mut value: runtime_core::v8::Local<runtime_core::v8::Value> = namespace.into();
                for key in path.split('.') {
                    let key = runtime_core::v8::String::new(scope, key).unwrap();
                    let object =
                        runtime_core::v8::Local::<runtime_core::v8::Object>::try_from(value)
                            .unwrap();
                    value = object.get(scope, key.into()).unwrap();
                }
                value.to_rust_string_lossy(scope)
            };
            Some((
                read(scope, "answer"),
                read(scope, "meta.main"),
                read(scope, "meta.resolved"),
            ))
        })
        .unwrap();
    assert_eq!(answer, "123");
    assert_eq!(main, "true");
    assert_eq!(resolved, "file:///app/x/y.js");

    // A side module importing the same modules evaluates only itself.
    rt.op_state()
        .borrow_mut()
        .borrow_mut::<Vec<String>>()
        .clear();
    let side = tokio.block_on(rt.load_side_module(&url("a.js"))).unwrap();
    tokio.block_on(rt.mod_evaluate(side)).unwrap();
    assert!(
        evaluated(&rt).is_empty(),
        "already evaluated: {:?}",
        evaluated(&rt)
    );
}

#[test]
fn top_level_await_dynamic_imports_and_json_modules() {
    let mut rt = runtime_with(&[
        (
            "file:///app/main.js",
            ModuleSource::js(
                "import config from './config.json' with { type: 'json' };
                 await new Promise((resolve) => setTimeout(resolve, 5));
                 await ops.op_sleep(1);
                 const lazy = await import('./lazy.js');
                 const data = await import('./data.json', { with: { type: 'json' } });
                 globalThis.result = [config.name, lazy.value, data.default.items.length, lazy.meta].join(' ');",
            ),
        ),
        ("file:///app/config.json", ModuleSource::json(r#"{"name": "edge"}"#)),
        ("file:///app/data.json", ModuleSource::json(r#"{"items": [1, 2, 3]}"#)),
        (
            "file:///app/lazy.js",
            ModuleSource::js("export const value = await Promise.resolve(7); export const meta = import.meta.main;"),
        ),
    ]);
    let tokio = tokio();
    let id = tokio
        .block_on(rt.load_main_module(&url("main.js")))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(id)).unwrap();
    assert_eq!(
        rt.execute_script_to_string("r.js", "result").unwrap(),
        "edge 7 3 false"
    );
    // A dynamic import from a classic script, of a module that is not there: a rejection
    // naming it.
    rt.execute_script(
        "script.js",
        "import('file:///app/missing.js').catch((e) => { globalThis.missing = e.name + ': ' + e.message; })",
    )
    .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    let missing = rt.execute_script_to_string("m.js", "missing").unwrap();
    assert!(
        missing.starts_with("TypeError: Module not found"),
        "{missing}"
    );
    assert!(missing.contains("file:///app/missing.js"), "{missing}");
}

#[test]
fn module_errors_name_the_module_and_the_line() {
    let mut rt = runtime_with(&[
        (
            "file:///app/syntax.js",
            ModuleSource::js("export const a = 1;\nexport const = 2;\n"),
        ),
        (
            "file:///app/imports_missing.js",
            ModuleSource::js("import './nowhere.js';"),
        ),
        (
            "file:///app/throws.js",
            ModuleSource::js("export const a = 1;\n\nthrow new Error('at evaluation');\n"),
        ),
        (
            "file:///app/bad_export.js",
            ModuleSource::js("import { nothing } from './syntax_ok.js'; nothing;"),
        ),
        (
            "file:///app/syntax_ok.js",
            ModuleSource::js("export const something = 1;"),
        ),
    ]);
    let tokio = tokio();
    let err = tokio
        .block_on(rt.load_main_module(&url("syntax.js")))
        .unwrap_err();
    assert_eq!(err.class_name, "SyntaxError", "{err}");
    let stack = err.stack.unwrap_or_default();
    assert!(stack.contains("file:///app/syntax.js:2"), "{stack}");

    let err = tokio
        .block_on(rt.load_main_module(&url("imports_missing.js")))
        .unwrap_err();
    assert_eq!(err.class_name, "TypeError");
    assert!(err.message.contains("file:///app/nowhere.js"), "{err}");
    assert!(
        err.message
            .contains("imported from file:///app/imports_missing.js"),
        "{err}"
    );

    let id = tokio
        .block_on(rt.load_main_module(&url("throws.js")))
        .unwrap();
    let err = tokio.block_on(rt.mod_evaluate(id)).unwrap_err();
    assert_eq!(err.message, "at evaluation");
    assert!(err.stack.unwrap().contains("file:///app/throws.js:3"));

    let err = tokio
        .block_on(rt.load_main_module(&url("bad_export.js")))
        .unwrap_err();
    assert_eq!(err.class_name, "SyntaxError", "{err}");
    assert!(err.message.contains("nothing"), "{err}");
}

#[test]
fn the_file_system_loader_loads_the_files_under_its_root() {
    init_test_flags();
    let dir = common::scratch_dir("modules");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("main.js"), "import { x } from './lib/x.js'; import data from './lib/d.json' with { type: 'json' }; globalThis.out = x + data.y;").unwrap();
    std::fs::write(dir.join("lib/x.js"), "export const x = 40;").unwrap();
    std::fs::write(dir.join("lib/d.json"), r#"{"y": 2}"#).unwrap();
    let mut rt = Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(FsModuleLoader::new(&dir).unwrap())),
        ..Default::default()
    });
    let tokio = tokio();
    let main = url::Url::from_file_path(dir.join("main.js")).unwrap();
    let id = tokio.block_on(rt.load_main_module(main.as_str())).unwrap();
    tokio.block_on(rt.mod_evaluate(id)).unwrap();
    assert_eq!(rt.execute_script_to_string("o.js", "out").unwrap(), "42");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_graph_that_failed_part_way_reports_its_missing_module_again() {
    let mut rt = runtime_with(&[
        ("file:///app/a.js", ModuleSource::js("import './c.js';")),
        ("file:///app/c.js", ModuleSource::js("import './d.js';")),
    ]);
    rt.execute_script(
        "imports.js",
        "globalThis.errors = [];
         import('file:///app/a.js').catch((e) => errors.push(e.message))
           .then(() => import('file:///app/c.js')).catch((e) => errors.push(e.message));",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let errors = rt
        .execute_script_to_string("e.js", "errors.join('|')")
        .unwrap();
    assert_eq!(errors.matches("Module not found").count(), 2, "{errors}");
    assert_eq!(errors.matches("file:///app/d.js").count(), 2, "{errors}");
}
