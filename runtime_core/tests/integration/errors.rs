//! `Result` returns and panics: `Err` throws the class, message and properties its error type
//! gives, on the slow path and straight from a fast call (V8 152 allows a fast call to throw);
//! panics are caught at the op boundary on both paths and the runtime keeps working.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use crate::common;

use std::borrow::Cow;

use common::{call_both_ways, counting_runtime, DESCRIBE_JS};
use runtime_core::{op, ErrorProperty, Extension, JsErrorClass, OpError, Runtime};

include!("../../../testdata/ops/errors.rs");

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![Extension::new("errors").ops(&[
        op_checked_div::DECL,
        op_lookup::DECL,
        op_io_failure::DECL,
        op_panic_fast::DECL,
    ])]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    runtime
        .execute_script(
            "inspect.js",
            "globalThis.inspect = (f) => { try { return 'ok ' + describe(f()); }
               catch (e) { return [e instanceof Error, e.name, e.message, e.code, e.errno].join('|'); } };",
        )
        .unwrap();
    runtime
}

#[test]
fn err_throws_the_same_on_both_paths() {
    let mut runtime = runtime();
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_checked_div", "8, 2", "7, 0");
    assert_eq!(
        (slow.as_str(), fast.as_str(), path),
        (
            "throws RangeError: division by zero",
            "throws RangeError: division by zero",
            "fast"
        )
    );
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_checked_div", "8, 2", "-7, 2");
    assert_eq!(
        (slow.as_str(), fast.as_str(), path),
        ("number -3", "number -3", "fast")
    );
}

#[test]
fn embedder_error_classes_carry_their_name_and_properties() {
    let mut runtime = runtime();
    // Unoptimized, then from an optimized caller (the fast path throws itself).
    let script = "function look(p) {
          try { return 'ok number ' + ops.op_lookup(p); }
          catch (e) { return [e instanceof Error, e.name, e.message, e.code, e.errno].join('|'); }
        }
        const slow = look('/nope');
        %PrepareFunctionForOptimization(look); look('/etc/hostname'); look('/etc/hostname');
        %OptimizeFunctionOnNextCall(look); look('/etc/hostname');
        globalThis.slow = slow;";
    runtime.execute_script("lookup.js", script).unwrap();
    // The optimized caller: the fast function throws itself (V8 may then deoptimize the
    // caller, so the call after it can be slow again: same results either way).
    runtime.reset_op_call_counts();
    let fast = runtime
        .execute_script_to_string("fast.js", "look('/nope')")
        .unwrap();
    let counts = runtime.op_call_counts("op_lookup").unwrap();
    assert_eq!(
        (counts.fast, counts.slow),
        (1, 0),
        "the throwing call ran on the fast path"
    );
    let slow = runtime.execute_script_to_string("slow.js", "slow").unwrap();
    assert_eq!(slow, "true|NotFound|no such file: /nope|ENOENT|-2");
    assert_eq!(fast, slow);
    let after = runtime
        .execute_script_to_string("after.js", "look('/etc/hostname')")
        .unwrap();
    assert_eq!(after, "ok number 1");

    let io = runtime
        .execute_script_to_string("io.js", "inspect(() => ops.op_io_failure(true))")
        .unwrap();
    assert_eq!(io, "true|Error|not allowed|PermissionDenied|");
    let ok = runtime
        .execute_script_to_string("io.js", "inspect(() => ops.op_io_failure(false))")
        .unwrap();
    assert_eq!(ok, "ok undefined undefined");
}

#[test]
fn panics_on_the_fast_path_are_caught_too() {
    common::quiet_expected_panics("op_panic_fast was given");
    let mut runtime = runtime();
    let script = "function call(x) { return ops.op_panic_fast(x); }
        %PrepareFunctionForOptimization(call); call(0); call(0); %OptimizeFunctionOnNextCall(call); call(0);
        let caught = 0, last;
        for (let i = 1; i <= 1000; i++) { try { call(i); } catch (e) { caught++; last = e; } }
        [caught, last.name, last.message, call(0)].join('|')";
    runtime.reset_op_call_counts();
    let result = runtime
        .execute_script_to_string("panics.js", script)
        .unwrap();
    assert_eq!(
        result,
        "1000|Error|op_panic_fast panicked: op_panic_fast was given 1000|0"
    );
    let counts = runtime.op_call_counts("op_panic_fast").unwrap();
    assert!(
        counts.fast >= 1000,
        "the panics happened in fast calls: {counts:?}"
    );
}

/// `op_panic_fast` cannot throw but by panicking, so its plain fast function takes no
/// callback options: the panic is thrown in the isolate the call runs in. (The counted
/// runtime above registers the metered variant, which takes them.)
#[test]
fn panics_in_a_fast_function_without_callback_options_are_caught() {
    common::quiet_expected_panics("op_panic_fast was given");
    common::init_test_flags();
    let mut runtime = Runtime::new(runtime_core::RuntimeOptions {
        extensions: vec![Extension::new("errors").ops(&[op_panic_fast::DECL])],
        ..Default::default()
    });
    let script = "function call(x) { return ops.op_panic_fast(x); }
        %PrepareFunctionForOptimization(call); call(0); call(0); %OptimizeFunctionOnNextCall(call); call(0);
        let caught = 0, last;
        for (let i = 1; i <= 1000; i++) { try { call(i); } catch (e) { caught++; last = e; } }
        [caught, last.name, last.message, last instanceof Error, call(0)].join('|')";
    let result = runtime
        .execute_script_to_string("panics.js", script)
        .unwrap();
    assert_eq!(
        result,
        "1000|Error|op_panic_fast panicked: op_panic_fast was given 1000|true|0"
    );
}

#[test]
fn op_errors_keep_the_concrete_error() {
    let error = OpError::from(NotFound {
        path: "/x".to_owned(),
    });
    assert_eq!(error.class(), "NotFound");
    assert_eq!(error.to_string(), "NotFound: no such file: /x");
    assert_eq!(
        error.downcast_ref::<NotFound>().map(|e| e.path.as_str()),
        Some("/x")
    );
    let mut properties = Vec::new();
    error.properties(&mut |name, value| properties.push(format!("{name}={value:?}")));
    assert_eq!(
        properties,
        ["code=String(\"ENOENT\")", "errno=Number(-2.0)"]
    );
}

/// Issue 38, 12: each panic on the fast path left its error alive until the script ended (V8
/// opens no handle scope for a fast call, and the throw made its handles in the script's):
/// 10^6 panicking calls in one loop held 150 MB of errors. Both fast functions (with and
/// without callback options) are driven, and the heap is measured after a full collection
/// inside the same script, while its handle scope is still open.
#[test]
fn a_panic_on_the_fast_path_keeps_nothing_alive() {
    common::quiet_expected_panics("op_panic_fast was given");
    for counted in [false, true] {
        common::init_test_flags();
        let mut runtime = Runtime::new(runtime_core::RuntimeOptions {
            extensions: vec![Extension::new("errors").ops(&[op_panic_fast::DECL])],
            op_call_counters: counted,
            ..Default::default()
        });
        runtime
            .execute_script(
                "warm.js",
                "function call(x) { return ops.op_panic_fast(x); }
                 %PrepareFunctionForOptimization(call); call(0); call(0);
                 %OptimizeFunctionOnNextCall(call); call(0);",
            )
            .unwrap();
        let before = runtime.isolate().get_heap_statistics().used_heap_size();
        // The loop and the measure share a script: a leak into its scope stays visible.
        runtime
            .execute_script(
                "loop.js",
                "for (let i = 1; i <= 200000; i++) { try { call(i); } catch {} }
                 gc(); globalThis.used = 0;",
            )
            .unwrap();
        let after = runtime.isolate().get_heap_statistics().used_heap_size();
        let grown = after.saturating_sub(before);
        assert!(
            grown < 4 << 20,
            "200,000 caught panics (counted: {counted}) left {grown} bytes of heap"
        );
    }
}
