//! The runtime around the ops: many runtimes per thread in any order, termination, exceptions
//! kept intact through conversions, ops that are not constructors, shared buffer borrows, and
//! the `Drop` of what a runtime owns.

use crate::common;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use common::{counting_runtime, init_test_flags};
use runtime_core::{
    op, v8, Extension, FromV8, JsErrorKind, OpError, OpState, Runtime, RuntimeOptions,
    TerminationHandle, ToV8,
};

#[op]
fn op_add(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

#[op(nofast)]
fn op_add_nofast(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// Terminates through the runtime's handle, reached in the op state.
#[op(nofast)]
fn op_terminate(state: &OpState) {
    state.borrow::<TerminationHandle>().terminate();
}

/// Terminates through the isolate itself.
#[op]
fn op_terminate_isolate(isolate: &mut v8::Isolate) {
    isolate.terminate_execution();
}

/// A value read through a getter: whatever the getter throws must reach the caller.
struct Getter(f64);

impl<'s> FromV8<'s> for Getter {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        let object = v8::Local::<v8::Object>::try_from(value)
            .map_err(|_| OpError::type_error("expected an object"))?;
        let key = v8::String::new(scope, "x").unwrap();
        let x = object
            .get(scope, key.into())
            .ok_or_else(|| OpError::generic("reading x failed"))?;
        Ok(Getter(x.number_value(scope).unwrap_or(f64::NAN)))
    }
}

#[op]
fn op_read_x(#[from_v8] value: Getter) -> f64 {
    value.0
}

/// Calls `globalThis.callback` while converting the return value.
struct CallsBack;

impl ToV8 for CallsBack {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        call_callback(scope).ok_or_else(|| OpError::generic("callback failed"))
    }
}

fn call_callback<'s>(scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::Value>> {
    let global = scope.get_current_context().global(scope);
    let key = v8::String::new(scope, "callback").unwrap();
    let callback = global.get(scope, key.into())?;
    let callback = v8::Local::<v8::Function>::try_from(callback).ok()?;
    let receiver = v8::undefined(scope).into();
    callback.call(scope, receiver, &[])
}

#[op]
#[to_v8]
fn op_calls_back_on_return() -> CallsBack {
    CallsBack
}

/// Runs `globalThis.callback`; if it threw, returns its own `Err`, which must not replace the
/// exception.
#[op]
fn op_calls_back(scope: &mut v8::PinScope) -> Result<u32, OpError> {
    match call_callback(scope) {
        Some(_) => Ok(1),
        None => Err(OpError::generic("the callback threw")),
    }
}

// Ops that hold the scope and run JavaScript (`globalThis.callback`, which makes garbage and
// collects it) before returning what runtime_core makes from the isolate alone.

#[op]
#[bigint]
fn op_scoped_bigint(scope: &mut v8::PinScope, #[bigint] x: u64) -> u64 {
    call_callback(scope);
    x
}

#[op]
fn op_scoped_text(scope: &mut v8::PinScope, latin1: bool) -> String {
    call_callback(scope);
    String::from(if latin1 { "café" } else { "plain" })
}

#[op]
fn op_scoped_bytestring(scope: &mut v8::PinScope) -> runtime_core::ByteString {
    call_callback(scope);
    runtime_core::ByteString::from(vec![b'c', b'a', b'f', 0xe9])
}

#[op]
fn op_scoped_static(scope: &mut v8::PinScope, pick: u32) -> &'static str {
    call_callback(scope);
    ["zero", "twö", "two"][pick as usize % 3]
}

#[op]
fn op_scoped_external(scope: &mut v8::PinScope) -> *const std::ffi::c_void {
    call_callback(scope);
    (&EXTERNAL_TARGET as *const u8).cast()
}

static EXTERNAL_TARGET: u8 = 0;

#[op]
fn op_same_bytes(#[buffer] a: &[u8], #[buffer] b: &[u8]) -> u32 {
    assert_eq!(a, b);
    u32::from(a.as_ptr() == b.as_ptr()) * 1000 + a.iter().map(|&x| u32::from(x)).sum::<u32>()
}

fn extension() -> Extension {
    Extension::new("robustness").ops(&[
        op_add::DECL,
        op_add_nofast::DECL,
        op_terminate::DECL,
        op_terminate_isolate::DECL,
        op_read_x::DECL,
        op_calls_back_on_return::DECL,
        op_calls_back::DECL,
        op_same_bytes::DECL,
        op_scoped_bigint::DECL,
        op_scoped_text::DECL,
        op_scoped_bytestring::DECL,
        op_scoped_static::DECL,
        op_scoped_external::DECL,
    ])
}

fn runtime() -> Runtime {
    counting_runtime(vec![extension()])
}

fn run(runtime: &mut Runtime, source: &str) -> String {
    runtime
        .execute_script_to_string("test.js", source)
        .unwrap_or_else(|err| panic!("{source}: {err}"))
}

// ---- many runtimes on one thread --------------------------------------------------------------

/// Every `Runtime` method, once, checking the runtime is the one it claims to be.
fn use_every_api(runtime: &mut Runtime, id: u32) {
    assert_eq!(
        run(
            runtime,
            &format!("globalThis.id ??= {id}; ops.op_add(id, 0)")
        ),
        id.to_string()
    );
    let value = runtime.execute_script("id.js", "id").unwrap();
    let read = runtime.with_scope(|scope| v8::Local::new(scope, &value).uint32_value(scope));
    assert_eq!(read, Some(id));
    runtime.isolate().low_memory_notification();
    assert!(runtime.op_call_counts("op_add").unwrap().slow >= 1);
    runtime.reset_op_call_counts();
    assert!(runtime.op_decl("op_add").is_some());
    assert!(runtime.op_state().borrow().has::<TerminationHandle>());
}

/// A small deterministic generator, so that a failing interleaving can be replayed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn an_older_runtime_works_after_a_newer_one_is_made() {
    let mut first = runtime();
    let mut second = runtime();
    use_every_api(&mut first, 1);
    use_every_api(&mut second, 2);
    use_every_api(&mut first, 1);
    drop(first); // not in reverse order of creation
    use_every_api(&mut second, 2);
    let mut third = runtime();
    use_every_api(&mut third, 3);
    drop(second);
    use_every_api(&mut third, 3);
}

#[test]
fn many_runtimes_per_thread_in_any_interleaving_and_drop_order() {
    let mut rng = Lcg(0x5eed);
    for round in 0..4 {
        let mut runtimes: Vec<(u32, Runtime)> = (0..5).map(|id| (id, runtime())).collect();
        let mut next_id = 5;
        for _ in 0..40 {
            match rng.below(6) {
                0 if runtimes.len() > 1 => {
                    let index = rng.below(runtimes.len());
                    runtimes.swap_remove(index);
                }
                1 => {
                    runtimes.push((next_id, runtime()));
                    next_id += 1;
                }
                _ => {
                    let index = rng.below(runtimes.len());
                    let (id, runtime) = &mut runtimes[index];
                    use_every_api(runtime, *id);
                }
            }
        }
        // Dropped in the vector's order, whatever the order of creation was.
        assert!(!runtimes.is_empty(), "round {round}");
    }
}

#[test]
fn a_runtime_used_from_inside_another_runtimes_op() {
    thread_local! {
        static INNER: RefCell<Option<Runtime>> = const { RefCell::new(None) };
    }
    #[op]
    fn op_ask_inner(x: i32) -> i32 {
        INNER.with(|inner| {
            let mut inner = inner.borrow_mut();
            let inner = inner.as_mut().expect("the inner runtime is set");
            run(inner, &format!("ops.op_add({x}, 1000)"))
                .parse()
                .unwrap()
        })
    }
    let mut outer = counting_runtime(vec![Extension::new("outer").ops(&[op_ask_inner::DECL])]);
    INNER.with(|inner| *inner.borrow_mut() = Some(runtime()));
    assert_eq!(
        run(&mut outer, "ops.op_ask_inner(1) + ops.op_ask_inner(2)"),
        "2003"
    );
    // The inner runtime goes first, then the outer one: neither order of creation.
    INNER.with(|inner| inner.borrow_mut().take());
    assert_eq!(run(&mut outer, "1 + 1"), "2");
}

/// Runs `source` in a fresh context of a raw isolate (one the embedder made, not a runtime).
fn run_raw(raw: &mut runtime_core::v8::OwnedIsolate, source: &str) -> String {
    runtime_core::v8::scope!(let scope, raw);
    let context = runtime_core::v8::Context::new(scope, Default::default());
    let scope = &mut runtime_core::v8::ContextScope::new(scope, context);
    let source = runtime_core::v8::String::new(scope, source).unwrap();
    let script = runtime_core::v8::Script::compile(scope, source, None).unwrap();
    let value = script.run(scope).unwrap();
    value.to_rust_string_lossy(scope)
}

/// A runtime's isolate stays entered between calls; an isolate the embedder makes after a call
/// is entered above it, and everything still works in either order of dropping.
#[test]
fn a_raw_isolate_made_between_calls() {
    let mut a = runtime();
    assert_eq!(run(&mut a, "1 + 1"), "2");
    let mut raw = runtime_core::v8::Isolate::new(Default::default());
    assert_eq!(run_raw(&mut raw, "6 * 7"), "42");
    // A call into the runtime while the raw isolate is entered above it.
    assert_eq!(run(&mut a, "2 + 2"), "4");
    assert_eq!(run_raw(&mut raw, "6 * 8"), "48");
    drop(raw);
    assert_eq!(run(&mut a, "3 + 3"), "6");
    let mut b = runtime();
    assert_eq!(run(&mut b, "4 + 4"), "8");
    drop(a);
    assert_eq!(run(&mut b, "5 + 5"), "10");
}

/// A runtime left entered, a raw isolate entered above it, then a call into the runtime whose
/// op calls into another runtime: the nested call must not take the running call's entry.
#[test]
fn a_nested_call_while_a_raw_isolate_is_entered() {
    thread_local! {
        static INNER: RefCell<Option<Runtime>> = const { RefCell::new(None) };
    }
    #[op]
    fn op_ask_other(x: i32) -> i32 {
        INNER.with(|inner| {
            let mut inner = inner.borrow_mut();
            let inner = inner.as_mut().expect("the inner runtime is set");
            run(inner, &format!("{x} + 1000")).parse().unwrap()
        })
    }
    let mut outer = counting_runtime(vec![Extension::new("outer").ops(&[op_ask_other::DECL])]);
    INNER.with(|inner| *inner.borrow_mut() = Some(runtime()));
    assert_eq!(run(&mut outer, "ops.op_ask_other(1)"), "1001");
    let raw = runtime_core::v8::Isolate::new(Default::default());
    assert_eq!(
        run(&mut outer, "ops.op_ask_other(2) + ops.op_ask_other(3)"),
        "2005"
    );
    drop(raw);
    assert_eq!(run(&mut outer, "ops.op_ask_other(4)"), "1004");
    INNER.with(|inner| inner.borrow_mut().take());
    assert_eq!(run(&mut outer, "1 + 1"), "2");
}

/// A raw isolate the embedder made first, then a call into a runtime: the runtime's isolate is
/// never left entered above it, so the raw isolate stays usable and drops in its own time.
#[test]
fn a_call_made_above_a_raw_isolate_leaves_it_current() {
    let mut a = runtime();
    let mut raw = runtime_core::v8::Isolate::new(Default::default());
    assert_eq!(run(&mut a, "1 + 1"), "2");
    assert_eq!(run_raw(&mut raw, "6 * 7"), "42");
    drop(raw);
    assert_eq!(run(&mut a, "2 + 2"), "4");
}

/// A runtime's drop that runs user code calling into another runtime (an op future's `Drop`
/// here) leaves the dropped isolate current when it is disposed.
#[test]
fn a_call_into_another_runtime_during_a_drop() {
    thread_local! {
        static OTHER: RefCell<Option<Runtime>> = const { RefCell::new(None) };
    }
    struct CallsOtherOnDrop;
    impl Drop for CallsOtherOnDrop {
        fn drop(&mut self) {
            OTHER.with(|other| {
                if let Some(other) = other.borrow_mut().as_mut() {
                    assert_eq!(run(other, "20 + 1"), "21");
                }
            });
        }
    }
    #[op]
    async fn op_pending_forever() {
        let _guard = CallsOtherOnDrop;
        std::future::pending::<()>().await;
    }
    OTHER.with(|other| *other.borrow_mut() = Some(runtime()));
    let mut a = counting_runtime(vec![
        Extension::new("pending").ops(&[op_pending_forever::DECL])
    ]);
    run(&mut a, "ops.op_pending_forever(); 'started'");
    drop(a);
    OTHER.with(|other| {
        let mut other = other.borrow_mut().take().expect("still there");
        assert_eq!(run(&mut other, "1 + 2"), "3");
    });
}

/// The one order V8's entry stack cannot serve: a runtime dropped while an isolate entered
/// after its last call is still entered. Its isolate is leaked, not disposed under the other
/// one; nothing crashes, and runtimes made afterwards work.
#[test]
fn a_runtime_dropped_under_a_raw_isolate_is_leaked_safely() {
    let mut a = runtime();
    assert_eq!(run(&mut a, "1 + 1"), "2");
    let raw = runtime_core::v8::Isolate::new(Default::default());
    drop(a);
    drop(raw);
    let mut c = runtime();
    assert_eq!(run(&mut c, "7 + 7"), "14");
}

#[test]
fn runtimes_on_many_threads_each_with_several() {
    let threads: Vec<_> = (0..4)
        .map(|thread| {
            std::thread::spawn(move || {
                let mut a = runtime();
                let mut b = runtime();
                for i in 0..20 {
                    use_every_api(&mut a, thread * 10);
                    use_every_api(&mut b, thread * 10 + 1);
                    if i == 10 {
                        a = runtime(); // the first one goes while the second lives
                    }
                }
                thread
            })
        })
        .collect();
    for (index, thread) in threads.into_iter().enumerate() {
        assert_eq!(thread.join().unwrap(), index as u32);
    }
}

// ---- termination ------------------------------------------------------------------------------

#[test]
fn a_watchdog_stops_a_runaway_loop_and_the_runtime_goes_on() {
    let mut runtime = runtime();
    for _ in 0..3 {
        let handle = runtime.termination_handle();
        let watchdog = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            assert!(handle.terminate());
        });
        let err = runtime
            .execute_script("spin.js", "globalThis.spins = 0; while (true) { spins++; }")
            .unwrap_err();
        watchdog.join().unwrap();
        assert_eq!(err.kind, JsErrorKind::Terminated);
        assert!(err.is_terminated());
        // Where it spun (before: no frames, no location).
        let location = err.location.as_deref().map(ToString::to_string);
        assert!(
            location
                .as_deref()
                .is_some_and(|at| at.starts_with("spin.js:1:")),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("execution terminated\n    at spin.js:1:"),
            "{err}"
        );
        assert!(!runtime.termination_handle().is_requested());
        // Usable afterwards: the next script runs to the end.
        assert_eq!(run(&mut runtime, "spins > 0 && ops.op_add(1, 1)"), "2");
    }
}

#[test]
fn termination_from_an_op_stops_the_script_where_the_op_returns() {
    let mut runtime = runtime();
    let err = runtime
        .execute_script(
            "stop.js",
            "globalThis.before = 1; ops.op_terminate(); globalThis.after = 1;",
        )
        .unwrap_err();
    assert!(err.is_terminated(), "{err:?}");
    // Stopped in the op's caller: the runtime's own interrupt check is not a frame of it.
    let at = err.location.as_deref().map(ToString::to_string);
    assert!(at.is_some_and(|at| at.starts_with("stop.js:1:")), "{err:?}");
    assert_eq!(
        run(&mut runtime, "typeof before + ' ' + typeof after"),
        "number undefined"
    );
    // JavaScript cannot catch it.
    let err = runtime
        .execute_script(
            "catch.js",
            "try { ops.op_terminate(); } catch (e) { globalThis.caught = 1; } globalThis.after2 = 1;",
        )
        .unwrap_err();
    assert!(err.is_terminated());
    assert_eq!(
        run(&mut runtime, "typeof caught + ' ' + typeof after2"),
        "undefined undefined"
    );
}

#[test]
fn termination_through_the_isolate_stops_that_script_not_the_next() {
    let mut runtime = runtime();
    // With a call after the op, V8 checks for the request there.
    let err = runtime
        .execute_script(
            "stop.js",
            "ops.op_terminate_isolate(); (function () {})(); globalThis.after = 1;",
        )
        .unwrap_err();
    assert!(err.is_terminated(), "{err:?}");
    assert_eq!(run(&mut runtime, "typeof after"), "undefined");
    // Without one, the script is still the one reported terminated; the next one runs.
    let err = runtime
        .execute_script("stop.js", "ops.op_terminate_isolate(); 1")
        .unwrap_err();
    assert!(err.is_terminated(), "{err:?}");
    assert_eq!(run(&mut runtime, "ops.op_add(2, 3)"), "5");
}

#[test]
fn a_request_made_between_scripts_stops_the_next_one_only() {
    let mut runtime = runtime();
    assert!(runtime.termination_handle().terminate());
    let err = runtime.execute_script("next.js", "1").unwrap_err();
    assert!(err.is_terminated());
    assert_eq!(run(&mut runtime, "2"), "2");
}

#[test]
fn a_handle_outliving_its_runtime_does_nothing() {
    let handle = runtime().termination_handle();
    assert!(!handle.terminate());
}

// ---- exceptions kept intact -------------------------------------------------------------------

#[test]
fn a_getter_that_throws_during_conversion_keeps_its_exception() {
    let mut runtime = runtime();
    let result = run(
        &mut runtime,
        "class Boom extends Error { name = 'Boom' }
         const hostile = { get x() { throw new Boom('from the getter'); } };
         let out = [];
         for (const call of [() => ops.op_read_x(hostile), () => ops.op_read_x({ x: 2 })]) {
           try { out.push(call()); } catch (e) { out.push(e.name + ': ' + e.message); }
         }
         out.join(' | ')",
    );
    assert_eq!(result, "Boom: from the getter | 2");
}

#[test]
fn a_stack_overflow_during_conversion_stays_a_range_error() {
    let mut runtime = runtime();
    let result = run(
        &mut runtime,
        "const deep = { get x() { return ops.op_read_x(deep); } };
         try { ops.op_read_x(deep); 'no error' } catch (e) { e.constructor.name + ': ' + e.message }",
    );
    assert_eq!(result, "RangeError: Maximum call stack size exceeded");
}

#[test]
fn exceptions_from_return_conversions_and_op_callbacks_win_over_op_errors() {
    let mut runtime = runtime();
    let result = run(
        &mut runtime,
        "globalThis.callback = () => { throw new SyntaxError('from the callback'); };
         let out = [];
         for (const call of [() => ops.op_calls_back_on_return(), () => ops.op_calls_back()]) {
           try { out.push(call()); } catch (e) { out.push(e.name + ': ' + e.message); }
         }
         globalThis.callback = () => 7;
         out.push(ops.op_calls_back_on_return(), ops.op_calls_back());
         out.join(' | ')",
    );
    assert_eq!(
        result,
        "SyntaxError: from the callback | SyntaxError: from the callback | 7 | 1"
    );
}

// ---- ops are not constructors -----------------------------------------------------------------

#[test]
fn no_op_is_a_constructor_on_either_path() {
    let mut runtime = runtime();
    for op in ["op_add", "op_add_nofast", "op_read_x", "op_calls_back"] {
        let result = run(
            &mut runtime,
            &format!(
                "(() => {{
                   const out = [];
                   for (const make of [() => new ops.{op}(1, 2), () => Reflect.construct(ops.{op}, [1, 2])]) {{
                     try {{ make(); out.push('constructed'); }} catch (e) {{ out.push(e.name); }}
                   }}
                   return out.join();
                 }})()"
            ),
        );
        assert_eq!(result, "TypeError,TypeError", "{op}");
    }
    assert_eq!(
        runtime.op_call_counts("op_add_nofast").unwrap().slow,
        0,
        "the op never ran"
    );
}

// ---- shared buffer borrows ----------------------------------------------------------------------

#[test]
fn two_shared_borrows_of_one_buffer_on_both_paths() {
    let mut runtime = runtime();
    run(&mut runtime, common::DESCRIBE_JS);
    let [slow, fast] = common::call_both_ways(
        &mut runtime,
        "op_same_bytes",
        "new Uint8Array(100), new Uint8Array(100)",
        "globalThis.SHARED ??= new Uint8Array(200).fill(1), SHARED",
    );
    // Off the V8 heap (200 bytes), both arguments borrow the same memory, shared.
    assert_eq!(slow.0, "number 1200");
    assert_eq!(fast, ("number 1200".to_owned(), "fast"));
}

// ---- what a runtime owns is dropped -------------------------------------------------------------

struct DropCounter(Rc<Cell<u32>>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

#[test]
fn dropping_a_runtime_drops_its_state_globals_and_unused_initialisers() {
    init_test_flags();
    let drops = Rc::new(Cell::new(0));
    let (in_state, in_unused_init) = (DropCounter(drops.clone()), DropCounter(drops.clone()));
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![
            extension().state(move |state| {
                state.put(in_state);
            }),
            Extension::new("unused"),
        ],
        ..Default::default()
    });
    // A closure captured by an extension that never ran is dropped too.
    let unused = Extension::new("never registered").state(move |state| {
        state.put(in_unused_init);
    });
    drop(unused);
    assert_eq!(drops.get(), 1);
    let global = runtime
        .execute_script("g.js", "({ big: new Uint8Array(1 << 20) })")
        .unwrap();
    let state = runtime.op_state();
    drop(runtime);
    assert_eq!(drops.get(), 1, "the state lives while a handle to it does");
    drop(state);
    assert_eq!(drops.get(), 2);
    drop(global); // a Global outliving its isolate is inert
}

#[test]
fn values_made_from_the_isolate_survive_javascript_and_gc_in_ops_that_hold_the_scope() {
    let mut runtime = runtime();
    let source = r#"
        globalThis.callback = () => {
          const junk = [];
          for (let i = 0; i < 200; i++) junk.push({ i, s: "x" + i });
          if (Math.random() < 0.05) gc();
          return junk.length;
        };
        const seen = new Set();
        for (let i = 0; i < 500; i++) {
          const got = [
            ops.op_scoped_bigint(BigInt(i) << 40n),
            ops.op_scoped_text(i % 2 === 0),
            ops.op_scoped_bytestring(),
            ops.op_scoped_static(i),
            typeof ops.op_scoped_external(),
          ];
          const want = [
            BigInt(i) << 40n,
            i % 2 === 0 ? "café" : "plain",
            "café",
            ["zero", "twö", "two"][i % 3],
            "object",
          ];
          for (let k = 0; k < want.length; k++) {
            if (got[k] !== want[k]) throw new Error(`call ${i}, value ${k}: ${got[k]}`);
          }
          seen.add(got.slice(1).join());
        }
        seen.size
    "#;
    assert_eq!(run(&mut runtime, source), "6");
}
