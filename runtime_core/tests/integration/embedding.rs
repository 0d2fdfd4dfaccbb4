//! What a host does on its first day: call JavaScript from Rust (values in and out through
//! `ToV8`/`FromV8`, throws and terminations as `JsError`s), load ES modules through a loader
//! (static and dynamic imports, `import.meta`, JSON, cycles and diamonds, top-level await,
//! errors naming module and line), ship JavaScript with an extension, and timers on the loop.

use crate::common;

use std::rc::Rc;
use std::time::Duration;

use common::{init_test_flags, tokio};
use runtime_core::modules::{FsModuleLoader, ModuleSource, StaticModuleLoader};
use runtime_core::{
    op, Extension, ExtensionSource, FromV8, JsErrorKind, OpState, Runtime, RuntimeOptions, ToV8,
};

#[op]
async fn op_sleep(ms: u32) {
    tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
}

#[op]
fn op_double(x: u32) -> u32 {
    x * 2
}

/// Counts evaluations of modules that call it.
#[op]
fn op_evaluated(state: &mut OpState, #[string] name: String) {
    state.borrow_mut::<Vec<String>>().push(name);
}

/// deno's `#[op2(async)]` on a `fn` returning a future.
#[allow(clippy::manual_async_fn)] // the form under test
#[op(async)]
fn op_async_form(x: u32) -> impl std::future::Future<Output = u32> {
    async move { x + 1 }
}

/// deno's `#[meta]` on an async op: accepted, and ignored (no op sanitizer here).
#[op(async)]
#[meta(
    sanitizer_details = "read from a Blob or File",
    sanitizer_fix = "await the read"
)]
async fn op_with_meta() -> u32 {
    5
}

/// deno's `required(n)`: fewer arguments are a `TypeError`, though the rest are optional.
#[op(required(2))]
fn op_required_two(a: u32, b: Option<u32>, c: Option<u32>) -> u32 {
    a + b.unwrap_or(0) + c.unwrap_or(0)
}

/// `_` arguments: errors name them by position.
#[op]
fn op_unnamed(_: u32, #[string] _: String, b: u32) -> u32 {
    b
}

/// A class whose method requires its argument (deno's object_wrap `#[required(1)]`).
pub struct Counter {
    count: std::cell::Cell<u32>,
}

#[op]
impl Counter {
    #[constructor]
    fn new() -> Counter {
        Counter {
            count: std::cell::Cell::new(0),
        }
    }

    #[required(1)]
    fn add(&self, by: Option<u32>) -> u32 {
        self.count.set(self.count.get() + by.unwrap_or(0));
        self.count.get()
    }
}

/// An async op whose result is a class instance (deno's async `#[cppgc]` returns).
#[op]
#[cppgc]
async fn op_counter_later(start: u32) -> Counter {
    tokio::task::yield_now().await;
    Counter {
        count: std::cell::Cell::new(start),
    }
}

/// deno's typed and ArrayBuffer pointers.
#[op(fast)]
fn op_typed_ptr_first(#[buffer] values: *const u32, len: u32) -> u32 {
    if values.is_null() || len == 0 {
        return 0;
    }
    // SAFETY: JavaScript passed a Uint32Array of at least `len` elements (the test does).
    unsafe { *values }
}

#[op(fast)]
fn op_arraybuffer_ptr_fill(#[arraybuffer] bytes: *mut u8, len: u32) {
    if !bytes.is_null() {
        // SAFETY: JavaScript passed an ArrayBuffer of at least `len` bytes (the test does).
        unsafe { std::ptr::write_bytes(bytes, 7, len as usize) };
    }
}

fn extension() -> Extension {
    Extension::new("embedding")
        .ops(&[
            op_sleep::DECL,
            op_double::DECL,
            op_evaluated::DECL,
            op_async_form::DECL,
            op_required_two::DECL,
            op_unnamed::DECL,
            op_with_meta::DECL,
            op_counter_later::DECL,
            op_typed_ptr_first::DECL,
            op_arraybuffer_ptr_fill::DECL,
        ])
        .classes(&[Counter::CLASS])
        .state(|state| {
            state.put(Vec::<String>::new());
        })
}

fn runtime_with(modules: &[(&str, ModuleSource)]) -> Runtime {
    init_test_flags();
    let loader = StaticModuleLoader::new(
        modules
            .iter()
            .map(|(url, source)| (url.to_string(), source.clone())),
    );
    Runtime::new(RuntimeOptions {
        extensions: vec![extension()],
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    })
}

fn evaluated(runtime: &Runtime) -> Vec<String> {
    runtime.op_state().borrow().borrow::<Vec<String>>().clone()
}

#[derive(ToV8)]
struct Request {
    method: String,
    path: String,
}

#[derive(FromV8, Debug, PartialEq)]
struct Response {
    status: u16,
    body: String,
}

// ---- calling into JavaScript -------------------------------------------------------------

#[test]
fn call_a_global_function_with_derived_values() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "handler.js",
        "globalThis.handle = (req) => ({ status: req.path === '/' ? 200 : 404, body: req.method + ' ' + req.path });
         globalThis.add = (a, b) => a + b;",
    )
    .unwrap();
    let handle = rt.global_function("handle").unwrap();
    let response: Response = rt
        .call(
            &handle,
            (Request {
                method: "GET".into(),
                path: "/".into(),
            },),
        )
        .unwrap();
    assert_eq!(
        response,
        Response {
            status: 200,
            body: "GET /".into()
        }
    );
    let add = rt.global_function("add").unwrap();
    assert_eq!(rt.call::<f64>(&add, (40, 2)).unwrap(), 42.0);
    let err = rt.global_function("missing").unwrap_err();
    assert_eq!(err.class_name, "TypeError");
}

#[test]
fn a_throw_comes_back_with_its_message_and_stack() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "thrower.js",
        "function fail(why) {\n  throw new RangeError('bad: ' + why);\n}\nglobalThis.fail = fail;",
    )
    .unwrap();
    let fail = rt.global_function("fail").unwrap();
    let err = rt.call::<()>(&fail, ("input",)).unwrap_err();
    assert_eq!(err.kind, JsErrorKind::Exception);
    assert_eq!(
        (err.class_name.as_str(), err.message.as_str()),
        ("RangeError", "bad: input")
    );
    assert!(
        err.stack.unwrap().contains("thrower.js:2"),
        "the stack names the line"
    );
    // A result that does not convert is an error too, not a lost value.
    let add = {
        rt.execute_script("s.js", "globalThis.text = () => 'x'")
            .unwrap();
        rt.global_function("text").unwrap()
    };
    let err = rt.call::<Response>(&add, ()).unwrap_err();
    assert!(err.message.starts_with("the result:"), "{err}");
}

#[test]
fn a_terminated_call_is_terminated_and_the_runtime_goes_on() {
    let mut rt = runtime_with(&[]);
    rt.execute_script("spin.js", "globalThis.spin = () => { for (;;) {} }")
        .unwrap();
    let spin = rt.global_function("spin").unwrap();
    let handle = rt.termination_handle();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        handle.terminate();
    });
    let err = rt.call::<()>(&spin, ()).unwrap_err();
    watchdog.join().unwrap();
    assert_eq!(err.kind, JsErrorKind::Terminated);
    assert_eq!(rt.execute_script_to_string("one.js", "1 + 1").unwrap(), "2");
}

#[test]
fn call_and_await_drives_the_loop_through_ops_and_timers() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "async.js",
        "globalThis.handle = async (req) => {
           await ops.op_sleep(5);
           await new Promise((resolve) => setTimeout(resolve, 5));
           return { status: 201, body: req.path };
         };
         globalThis.reject = async () => { await ops.op_sleep(1); throw new TypeError('later'); };",
    )
    .unwrap();
    let handle = rt.global_function("handle").unwrap();
    let reject = rt.global_function("reject").unwrap();
    let tokio = tokio();
    let response: Response = tokio
        .block_on(rt.call_and_await(
            &handle,
            (Request {
                method: "POST".into(),
                path: "/x".into(),
            },),
        ))
        .unwrap();
    assert_eq!(response.status, 201);
    let err = tokio
        .block_on(rt.call_and_await::<()>(&reject, ()))
        .unwrap_err();
    assert_eq!(
        (err.class_name.as_str(), err.message.as_str()),
        ("TypeError", "later")
    );
}

#[test]
fn try_with_scope_returns_what_threw() {
    let mut rt = runtime_with(&[]);
    let err = rt
        .try_with_scope(|scope| {
            let source = runtime_core::v8::String::new(scope, "throw new Error('inside')")?;
            let script = runtime_core::v8::Script::compile(scope, source, None)?;
            script.run(scope).map(drop)
        })
        .unwrap_err();
    assert_eq!(err.message, "inside");
}

// ---- modules -----------------------------------------------------------------------------

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
    let dir = std::env::temp_dir().join(format!("opwire-modules-{}", std::process::id()));
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

// ---- extensions' JavaScript ----------------------------------------------------------------

static GREET_JS: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:greet/00_global.js",
    // What user code may do first: neither stands in for an op not read yet, nor breaks
    // `ext:core/ops`.
    "Object.prototype.extend = function () {};
     Object.prototype.op_double = () => 'not the op';
     ((o) => { globalThis.double = (x) => o.op_double(x); })(ops);",
)];

static GREET_ESM: [ExtensionSource; 2] = [
    ExtensionSource::new(
        "ext:greet/mod.js",
        "import { op_double } from 'ext:core/ops';
         import { suffix } from 'ext:greet/util.js';
         export function quadruple(x) { return op_double(op_double(x)); }
         export const name = 'greet' + suffix;",
    ),
    ExtensionSource::new("ext:greet/util.js", "export const suffix = '!';"),
];

static GREET_ENTRY: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:greet/init.js",
    "import { quadruple } from 'ext:greet/mod.js'; globalThis.quadruple = quadruple;",
)];

#[test]
fn an_extension_ships_scripts_and_modules_and_may_hide_the_raw_ops() {
    init_test_flags();
    let esm: &'static [ExtensionSource] = Box::leak(
        GREET_ESM
            .iter()
            .chain(GREET_ENTRY.iter())
            .copied()
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let mut rt = Runtime::new(RuntimeOptions {
        extensions: vec![extension()
            .js(&GREET_JS)
            .esm(esm)
            .esm_public(&["ext:greet/mod.js"])
            .esm_entry_point("ext:greet/init.js")],
        module_loader: Some(Rc::new(StaticModuleLoader::new([(
            "file:///app/user.js".to_owned(),
            ModuleSource::js(
                "import { quadruple, name } from 'ext:greet/mod.js';
                 globalThis.user = [quadruple(3), name, typeof ops, double(5)].join(' ');",
            ),
        )]))),
        expose_ops: false,
        ..Default::default()
    });
    assert_eq!(
        rt.execute_script_to_string("q.js", "quadruple(5)").unwrap(),
        "20"
    );
    let tokio = tokio();
    let id = tokio
        .block_on(rt.load_main_module("file:///app/user.js"))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(id)).unwrap();
    assert_eq!(
        rt.execute_script_to_string("u.js", "user").unwrap(),
        "12 greet! undefined 10"
    );
}

#[test]
fn an_extension_whose_script_throws_fails_try_new() {
    init_test_flags();
    static BAD: [ExtensionSource; 1] = [ExtensionSource::new(
        "ext:bad/boom.js",
        "throw new Error('boom')",
    )];
    let err = Runtime::try_new(RuntimeOptions {
        extensions: vec![Extension::new("bad").js(&BAD)],
        ..Default::default()
    })
    .err()
    .expect("the script throws");
    assert_eq!(err.message, "boom");
}

// ---- timers --------------------------------------------------------------------------------

#[test]
fn timers_fire_in_deadline_order_and_cancel() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "timers.js",
        "globalThis.out = [];
         setTimeout(() => out.push('b'), 20);
         setTimeout(() => out.push('a'), 0);
         setTimeout((x, y) => out.push(x + y), 20, 'c', '!');
         const gone = setTimeout(() => out.push('never'), 1);
         clearTimeout(gone);
         queueMicrotask(() => out.push('micro'));
         let n = 0;
         const every = setInterval(() => { out.push('i' + n); if (++n === 3) clearInterval(every); }, 1);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let out = rt.execute_script_to_string("o.js", "out.join()").unwrap();
    assert!(out.starts_with("micro,a,"), "{out}");
    // Same deadline: creation order. (The interval's ticks may land anywhere on a busy
    // machine.)
    let position = |item: &str| out.split(',').position(|x| x == item);
    assert!(
        position("b").unwrap() + 1 == position("c!").unwrap(),
        "{out}"
    );
    for tick in ["i0", "i1", "i2"] {
        assert!(out.contains(tick), "{out}");
    }
    assert!(!out.contains("never") && !out.contains("i3"), "{out}");
}

#[test]
fn a_hundred_thousand_timers_fire_each_once_in_order_of_delay() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "many.js",
        "globalThis.fired = [];
         const ids = [];
         for (let i = 0; i < 100000; i++) ids.push(setTimeout(() => fired.push(i), i % 10));
         for (let i = 0; i < 100000; i += 4) clearTimeout(ids[i]);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let report = rt
        .execute_script_to_string(
            "check.js",
            "const byDelay = new Map();
             let ordered = true;
             for (const i of fired) {
               const last = byDelay.get(i % 10);
               if (last !== undefined && last > i) ordered = false;
               byDelay.set(i % 10, i);
             }
             [fired.length, new Set(fired).size, fired.some((i) => i % 4 === 0), ordered].join()",
        )
        .unwrap();
    assert_eq!(report, "75000,75000,false,true");
}

#[test]
fn a_pending_timer_keeps_the_loop_alive_and_an_unrefd_one_does_not() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "ref.js",
        "globalThis.fired = '';
         unrefTimer(setTimeout(() => { fired += 'unref'; }, 60000));
         setTimeout(() => { fired += 'ref'; }, 30);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "ref");
    // Only the unref'd one is left: the loop is done at once.
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "ref");
}

/// A waker that unparks the thread: an executor of ten lines, with no tokio in it.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}

#[test]
fn timers_work_on_another_executor() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "plain.js",
        "globalThis.fired = 0; setTimeout(() => fired++, 10); setTimeout(() => fired++, 20);",
    )
    .unwrap();
    block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "2");
}

#[test]
fn a_timer_callback_that_throws_ends_the_loop_with_its_error() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "throw.js",
        "setTimeout(() => { throw new TypeError('in a timer'); }, 1);",
    )
    .unwrap();
    let err = tokio().block_on(rt.run_event_loop()).unwrap_err();
    assert_eq!(err.message, "in a timer");
}

// ---- the host's executor -------------------------------------------------------------------

#[test]
fn async_ops_that_use_tokio_work_when_the_host_calls_in_from_outside_it() {
    init_test_flags();
    let tokio = tokio();
    // Made inside the tokio runtime: the runtime keeps its handle.
    let mut rt = {
        let _entered = tokio.enter();
        runtime_with(&[])
    };
    // Called from plain code: the eager poll of `op_sleep` makes a tokio timer.
    let promise = rt
        .execute_script("sleep.js", "ops.op_sleep(5).then(() => 'slept')")
        .unwrap();
    let value = tokio.block_on(rt.resolve(promise)).unwrap();
    let text = rt
        .try_with_scope(|scope| {
            Some(runtime_core::v8::Local::new(scope, &value).to_rust_string_lossy(scope))
        })
        .unwrap();
    assert_eq!(text, "slept");
}

// ---- TypeScript ----------------------------------------------------------------------------

/// Without the compiler, the TypeScript checks have nothing to check with: that is an error
/// that says why, never a silent pass.
#[test]
fn a_compiler_that_cannot_be_installed_is_an_error() {
    let prefix = std::env::temp_dir().join(format!("opwire-no-tsc-{}", std::process::id()));
    let error = common::install_tsc(&prefix, "opwire-no-such-npm").unwrap_err();
    assert!(
        error.contains("npm could not install typescript"),
        "{error}"
    );
    assert!(!prefix.join("node_modules/.bin/tsc").exists());
}

/// A handler typed with the host's derived types and the runtime's globals type-checks with
/// `tsc --strict`; a misuse of either does not.
#[test]
fn a_typed_handler_checks_against_derived_types_and_globals() {
    let Some(tsc) = common::tsc() else { return };
    let rt = runtime_with(&[]);
    let dts = format!(
        "{}\n{}\n{}\n",
        rt.typescript_declarations(),
        <Request as ToV8>::TYPESCRIPT,
        <Response as FromV8>::TYPESCRIPT,
    );
    let handler = "export async function handle(req: Request): Promise<Response> {
  await new Promise<void>((resolve) => setTimeout(resolve, 1));
  const id = setInterval((n: number) => console.log(n), 10, 1);
  clearInterval(id);
  unrefTimer(setTimeout(() => {}, 5));
  queueMicrotask(() => console.error(req.method));
  return { status: ops.op_double(100), body: req.path };
}
";
    if let Err(report) = common::type_check(&tsc, "handler", &dts, handler) {
        panic!("tsc failed:\n{report}\n--- ops.d.ts\n{dts}");
    }
    for wrong in [
        "export function f(req: Request): Response { return { status: '200', body: req.path }; }",
        "export function f(req: Request): Response { return { status: 200, body: req.query }; }",
        "setTimeout((n: number) => {}, 1, 'not a number');",
    ] {
        assert!(
            common::type_check(&tsc, "handler-bad", &dts, wrong).is_err(),
            "tsc accepted: {wrong}"
        );
    }
}

/// Every declaration file `cargo xtask dts` writes for the repository's own sources passes
/// `tsc --noEmit --strict`.
#[test]
fn every_declaration_file_of_the_repository_type_checks() {
    let Some(tsc) = common::tsc() else { return };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (dirs, files) = ops_macro_backend::DTS_SOURCES;
    let mut sources: Vec<std::path::PathBuf> = files.iter().map(|file| root.join(file)).collect();
    for dir in dirs {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                sources.push(path);
            }
        }
    }
    assert!(sources.len() > 10, "{sources:?}");
    // One `tsc` run: each file's ops in a namespace of their own.
    let mut all = String::new();
    for (index, source) in sources.iter().enumerate() {
        let text = std::fs::read_to_string(source).unwrap();
        let (dts, errors) =
            ops_macro_backend::declarations_of_file(&text, &format!("ops{index}")).unwrap();
        assert!(errors.is_empty(), "{}: {errors:?}", source.display());
        all.push_str(&format!("// {}\n{dts}\n", source.display()));
    }
    if let Err(report) = common::type_check(&tsc, "dts-all", &all, "export {};\n") {
        panic!("tsc failed:\n{report}\n--- d.ts\n{all}");
    }
}

// ---- deno's forms ----------------------------------------------------------------------------

#[test]
fn deno_forms_async_required_and_unnamed_arguments() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "forms.js",
        "globalThis.out = [];
         ops.op_async_form(1).then((v) => out.push('async ' + v));
         ops.op_with_meta().then((v) => out.push('meta ' + v));
         ops.op_counter_later(10).then((c) => out.push((c instanceof ops.Counter) + ' ' + c.add(1)));
         const attempt = (f) => { try { return f(); } catch (e) { return e.name + ': ' + e.message; } };
         out.push(attempt(() => ops.op_required_two(1)));
         out.push(attempt(() => ops.op_required_two(1, 2)));
         function call(a, b) { return ops.op_required_two(a, b); }
         %PrepareFunctionForOptimization(call); call(1, 2); call(1, 2);
         %OptimizeFunctionOnNextCall(call); call(1, 2);
         out.push(attempt(() => ops.op_required_two()));
         out.push(attempt(() => ops.op_unnamed(1, 2, 3)));
         out.push(attempt(() => ops.op_unnamed(1, 's', 3)));
         const counter = new ops.Counter();
         out.push(attempt(() => counter.add()));
         out.push(attempt(() => counter.add(5)));",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out.join('|')")
            .unwrap(),
        "TypeError: op_required_two: 2 arguments required, but only 1 present|3|\
         TypeError: op_required_two: 2 arguments required, but only 0 present|\
         TypeError: op_unnamed: argument 2 must be a string, received a number|3|\
         TypeError: Counter.prototype.add: 1 argument required, but only 0 present|5|async 2|meta 5|true 11"
    );
}

#[test]
fn typed_and_arraybuffer_pointers_on_both_paths() {
    let mut rt = runtime_with(&[]);
    let out = rt
        .execute_script_to_string(
            "pointers.js",
            "const results = [];
             function run() {
               const b = new ArrayBuffer(3);
               ops.op_arraybuffer_ptr_fill(b, 3);
               return ops.op_typed_ptr_first(new Uint32Array([42, 1]), 2) + ':' + new Uint8Array(b).join();
             }
             %PrepareFunctionForOptimization(run); results.push(run()); results.push(run());
             %OptimizeFunctionOnNextCall(run); results.push(run());
             try { ops.op_typed_ptr_first(new Uint8Array(4), 1); } catch (e) { results.push(e.name + ': ' + e.message); }
             results.push(ops.op_typed_ptr_first(new Uint32Array(0), 0));
             results.join('|')",
        )
        .unwrap();
    assert_eq!(
        out,
        "42:7,7,7|42:7,7,7|42:7,7,7|TypeError: op_typed_ptr_first: argument 1 (values) must be a Uint32Array, received an object|0"
    );
}

// ---- from review ---------------------------------------------------------------------------

#[test]
fn a_zero_interval_does_not_starve_other_timers() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "interval.js",
        "globalThis.ticks = 0;
         const every = setInterval(() => { ticks++; });
         setTimeout(() => clearInterval(every), 20);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let ticks: f64 = rt
        .execute_script_to_string("t.js", "ticks")
        .unwrap()
        .parse()
        .unwrap();
    assert!(ticks >= 1.0, "{ticks}");
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

#[test]
fn a_promise_abandoned_by_its_awaiter_does_not_fail_the_next_turn() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "late.js",
        "globalThis.late = async () => { await new Promise((r) => setTimeout(r, 30)); throw new Error('too late'); };",
    )
    .unwrap();
    let late = rt.global_function("late").unwrap();
    let tokio = tokio();
    let timed_out = tokio.block_on(async {
        tokio::time::timeout(Duration::from_millis(5), rt.call_and_await::<()>(&late, ())).await
    });
    assert!(timed_out.is_err(), "the awaiter gave up");
    // The abandoned promise rejects later: it had an awaiter, so it is no unhandled rejection.
    rt.execute_script("next.js", "setTimeout(() => {}, 50)")
        .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
}
