//! What a host does on its first day: call JavaScript from Rust (values in and out through
//! `ToV8`/`FromV8`, throws and terminations as `JsError`s) and ship JavaScript with an
//! extension. Its modules are `embedding_modules.rs`'s, its timers `timers.rs`'s, its typed
//! handler `typescript.rs`'s; the ops and helpers here serve those too.

use crate::common;

use std::rc::Rc;
use std::time::Duration;

use common::{init_test_flags, tokio};
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
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

pub(super) fn runtime_with(modules: &[(&str, ModuleSource)]) -> Runtime {
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

pub(super) fn evaluated(runtime: &Runtime) -> Vec<String> {
    runtime.op_state().borrow().borrow::<Vec<String>>().clone()
}

#[derive(ToV8)]
pub(super) struct Request {
    method: String,
    path: String,
}

#[derive(FromV8, Debug, PartialEq)]
pub(super) struct Response {
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

/// A module the host makes per tenant (`Extension::esm_module`), its source no `'static`: each
/// runtime runs its own.
#[test]
fn an_extension_ships_a_module_made_at_run_time() {
    for tenant in ["alpha", "beta"] {
        let config = format!("export const tenant = {tenant:?};");
        let extension = Extension::new("tenant")
            .esm_module("ext:tenant/config.js", config)
            .esm_module(
                "ext:tenant/main.js",
                String::from(
                    "import { tenant } from 'ext:tenant/config.js'; globalThis.out = tenant;",
                ),
            )
            .esm_entry_point("ext:tenant/main.js");
        let mut rt = Runtime::new(RuntimeOptions {
            extensions: vec![extension],
            ..Default::default()
        });
        assert_eq!(rt.execute_script_to_string("o.js", "out").unwrap(), tenant);
        // Private: user code cannot import it.
        rt.execute_script(
            "i.js",
            "import('ext:tenant/config.js').then(() => globalThis.seen = 'imported', (e) => globalThis.seen = e.message)",
        )
        .unwrap();
        tokio().block_on(rt.run_event_loop()).unwrap();
        let seen = rt.execute_script_to_string("s.js", "seen").unwrap();
        assert_ne!(seen, "imported");
    }
}
