//! The runtime end to end: scripts and their errors, extensions and the ops object, op state,
//! call counters on a real hot loop, panics, and the declarations `#[op]` generates.

// The testdata files hold ops that only the agreement test registers.
#![allow(dead_code)]

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{counting_runtime, init_test_flags};
use runtime_core::{op, v8, Extension, OpCallCounts, OpState, Runtime, RuntimeOptions};

include!("../../../testdata/ops/numbers.rs");
include!("../../../testdata/ops/state.rs");

fn all_ops() -> Extension {
    Extension::new("test")
        .ops(&[
            op_void::DECL,
            op_void_nofast::DECL,
            op_u32::DECL,
            op_u32_nofast::DECL,
            op_add_i32::DECL,
            op_square_f64::DECL,
            op_tally_add::DECL,
            op_tally_get::DECL,
            op_tally_reset::DECL,
            op_scope_number_plus_one::DECL,
            op_panic::DECL,
        ])
        .state(|state| {
            state.put(Tally(100));
        })
}

#[test]
fn scripts_return_their_completion_value() {
    let mut runtime = counting_runtime(vec![]);
    assert_eq!(
        runtime
            .execute_script_to_string("a.js", "[1, 2].map(x => x * 2).join()")
            .unwrap(),
        "2,4"
    );
    let value = runtime.execute_script("b.js", "40 + 2").unwrap();
    let number = runtime.with_scope(|scope| v8::Local::new(scope, &value).number_value(scope));
    assert_eq!(number, Some(42.0));
}

#[test]
fn script_errors_carry_class_message_and_stack() {
    let mut runtime = counting_runtime(vec![]);
    let err = runtime
        .execute_script(
            "thrower.js",
            "function f() { throw new RangeError('too far'); }\nf();",
        )
        .unwrap_err();
    assert_eq!(err.class_name, "RangeError");
    assert_eq!(err.message, "too far");
    let stack = err.stack.as_deref().unwrap();
    assert!(stack.contains("at f (thrower.js:1:"), "{stack}");
    assert_eq!(
        err.to_string(),
        "Uncaught RangeError: too far\n    at f (thrower.js:1:22)\n    at thrower.js:2:1"
    );

    let err = runtime.execute_script("syntax.js", "let = ;").unwrap_err();
    assert_eq!(err.class_name, "SyntaxError");

    let err = runtime
        .execute_script("string.js", "throw 'plain'")
        .unwrap_err();
    assert_eq!(
        (err.class_name.as_str(), err.message.as_str(), err.stack),
        ("", "plain", None)
    );

    let err = runtime
        .execute_script(
            "custom.js",
            "class DbError extends Error { name = 'DbError' }; throw new DbError('gone')",
        )
        .unwrap_err();
    assert_eq!(
        (err.class_name.as_str(), err.message.as_str()),
        ("DbError", "gone")
    );
}

#[test]
fn ops_are_installed_on_a_configurable_object_with_name_and_length() {
    init_test_flags();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![all_ops()],
        ops_object_name: "native",
        ..Default::default()
    });
    let described = runtime
        .execute_script_to_string(
            "names.js",
            "[typeof globalThis.ops, native.op_add_i32.name, native.op_add_i32.length, \
              native.op_tally_add.length, native.op_scope_number_plus_one.length, native.op_add_i32(2, 3)].join()",
        )
        .unwrap();
    assert_eq!(described, "undefined,op_add_i32,2,1,1,5");
    let err = runtime
        .execute_script("new.js", "new native.op_void()")
        .unwrap_err();
    assert_eq!(err.class_name, "TypeError");
}

/// Each op's function is made when first read, then is a plain property of the ops object:
/// every op is `in` it and listed by `for...in` before, a read at a site with feedback and
/// from optimized code gives the same function each time, and a script's own value or
/// `delete` after the first read is what stays; the prototype that makes ops stays put, and a
/// frozen ops object still gives each op, the same function at every read.
/// (`Object.keys` lists the ops read so far.)
#[test]
fn ops_are_made_when_first_read_and_behave_as_plain_properties() {
    init_test_flags();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![all_ops()],
        ..Default::default()
    });
    let described = runtime
        .execute_script_to_string(
            "lazy.js",
            "const listed = [];
             for (const key in ops) if (!key.startsWith('op_timer')) listed.push(key);
             const found = 'op_u32' in ops && !Object.hasOwn(ops, 'op_u32');
             function read() { return ops.op_add_i32; }
             %PrepareFunctionForOptimization(read);
             const first = read();
             const second = read();
             %OptimizeFunctionOnNextCall(read);
             const optimized = read();
             const inherited = Object.create(ops).op_square_f64;
             ops.op_void;
             ops.op_void = 7;
             ops.op_void_nofast;
             delete ops.op_void_nofast;
             const descriptor = Object.getOwnPropertyDescriptor(ops, 'op_add_i32');
             [listed.sort().join(), found, typeof first, first === second && second === optimized,
              first(2, 3), inherited === ops.op_square_f64 && Object.hasOwn(ops, 'op_square_f64'),
              ops.op_void, 'op_void_nofast' in ops, String(ops.op_void_nofast),
              descriptor.writable && descriptor.enumerable && descriptor.configurable,
              Object.keys(ops).sort().join(),
              ops.constructor === Object,
              (() => { try { Object.setPrototypeOf(ops, null); } catch (e) { return e.name; } })(),
              Object.freeze(ops) && typeof ops.op_tally_get === 'function' &&
                ops.op_tally_get === ops.op_tally_get].join(' ')",
        )
        .unwrap();
    assert_eq!(
        described,
        "op_add_i32,op_panic,op_scope_number_plus_one,op_square_f64,op_tally_add,op_tally_get,\
         op_tally_reset,op_u32,op_u32_nofast,op_void,op_void_nofast \
         true function true 5 true 7 false undefined true \
         op_add_i32,op_square_f64,op_void true TypeError true"
    );
}

#[test]
fn declarations_say_arity_fast_path_and_flags() {
    assert_eq!(op_add_i32::DECL.name(), "op_add_i32");
    assert_eq!(op_add_i32::DECL.arg_names(), &["a", "b"]);
    assert!(op_add_i32::DECL.has_fast_path());
    assert!(!op_void_nofast::DECL.has_fast_path());
    assert!(!op_u32_nofast::DECL.has_fast_path());
    // The scope is not a JavaScript argument, and an op that takes it cannot be fast.
    assert_eq!(op_scope_number_plus_one::DECL.arity(), 1);
    assert!(!op_scope_number_plus_one::DECL.has_fast_path());
    assert_eq!(op_tally_add::DECL.arg_names(), &["by"]);
    assert!(op_tally_add::DECL.has_fast_path());
    assert!(op_square_f64::DECL.no_side_effects());
    assert!(!op_square_f64::DECL.is_async());
    assert!(!op_add_i32::DECL.no_side_effects());
    // The function itself is untouched and callable from Rust.
    assert_eq!(op_add_i32(i32::MAX, 1), i32::MIN);
}

/// A plain hot loop, no natives syntax: V8 tiers the caller up by itself (compiling in the
/// background, so how soon varies) and the fast counter rises; once the function is optimized,
/// its calls are fast. The nofast twin never leaves the slow path.
#[test]
fn hot_loop_reaches_the_fast_path() {
    let mut runtime = counting_runtime(vec![all_ops()]);
    let define = "globalThis.hot = function (n) {
          let sum = 0;
          for (let i = 0; i < n; i++) sum += ops.op_u32(i) + ops.op_u32_nofast(i);
          return sum;
        }";
    runtime.execute_script("define.js", define).unwrap();
    let sum = runtime
        .execute_script_to_string("loop.js", "hot(100000)")
        .unwrap();
    assert_eq!(sum, (2 * (0..100000u64).sum::<u64>()).to_string());
    let first = runtime.op_call_counts("op_u32").unwrap();
    assert_eq!(first.fast + first.slow, 100_000);
    // Usually `first.fast` is already in the tens of thousands; on a loaded machine the
    // background compiler may finish only after the loop, so the rounds below decide.

    // By now `hot` is optimized (rounds give the background compiler time if it needs more).
    // A call may enter it in a lower tier and switch at the loop's back edge (on-stack
    // replacement), so the first iteration or so can still be slow.
    let mut rounds = 0;
    let last = loop {
        runtime.reset_op_call_counts();
        runtime.execute_script("again.js", "hot(100000)").unwrap();
        let counts = runtime.op_call_counts("op_u32").unwrap();
        rounds += 1;
        if counts.fast >= 99_990 || rounds == 10 {
            break counts;
        }
    };
    assert_eq!(last.fast + last.slow, 100_000);
    assert!(
        last.fast >= 99_990,
        "after {rounds} rounds: {last:?} (first loop: {first:?})"
    );
    let nofast = runtime.op_call_counts("op_u32_nofast").unwrap();
    assert_eq!(
        nofast,
        OpCallCounts {
            fast: 0,
            slow: 100_000
        }
    );
    assert_eq!(runtime.op_call_counts("op_missing"), None);
}

#[test]
fn counters_off_count_nothing_and_calls_still_work() {
    init_test_flags();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![all_ops()],
        ..Default::default()
    });
    let source = "let sum = 0; for (let i = 0; i < 20000; i++) sum += ops.op_u32(1); sum";
    assert_eq!(
        runtime.execute_script_to_string("loop.js", source).unwrap(),
        "20000"
    );
    assert_eq!(
        runtime.op_call_counts("op_u32"),
        Some(OpCallCounts::default())
    );
}

#[test]
fn ops_share_the_runtime_op_state() {
    let mut runtime = counting_runtime(vec![all_ops()]);
    let result = runtime
        .execute_script_to_string(
            "state.js",
            "[ops.op_tally_get(), ops.op_tally_add(5), ops.op_tally_get()].join()",
        )
        .unwrap();
    assert_eq!(result, "100,105,105");
    runtime
        .execute_script("reset.js", "ops.op_tally_reset()")
        .unwrap();
    assert_eq!(runtime.op_state().borrow().borrow::<Tally>().0, 0);

    // The embedder holding the state exclusively: the op throws instead of panicking.
    let state = runtime.op_state();
    let guard = state.borrow_mut();
    let err = runtime
        .execute_script("busy.js", "ops.op_tally_get()")
        .unwrap_err();
    assert_eq!(
        err.message,
        "op_tally_get: OpState is borrowed mutably elsewhere"
    );
    drop(guard);
    assert_eq!(
        runtime
            .execute_script_to_string("free.js", "ops.op_tally_get()")
            .unwrap(),
        "0"
    );
}

#[test]
fn scope_ops_run_on_the_slow_path() {
    let mut runtime = counting_runtime(vec![all_ops()]);
    let source =
        "let sum = 0; for (let i = 0; i < 20000; i++) sum += ops.op_scope_number_plus_one(1); sum";
    assert_eq!(
        runtime
            .execute_script_to_string("scope.js", source)
            .unwrap(),
        "40000"
    );
    assert_eq!(
        runtime.op_call_counts("op_scope_number_plus_one"),
        Some(OpCallCounts {
            fast: 0,
            slow: 20000
        })
    );
}

#[test]
fn panics_become_errors_and_the_runtime_keeps_working() {
    common::quiet_expected_panics("op_panic was given");
    let mut runtime = counting_runtime(vec![all_ops()]);
    let source = "let caught = 0, last;
        for (let i = 1; i <= 1000; i++) {
          try { ops.op_panic(i); } catch (e) { caught++; last = e; }
        }
        [caught, last.name, last.message].join('|')";
    let result = runtime
        .execute_script_to_string("panic.js", source)
        .unwrap();
    assert_eq!(
        result,
        "1000|Error|op_panic panicked: op_panic was given 1000"
    );
    let after = runtime
        .execute_script_to_string(
            "after.js",
            "[ops.op_panic(0), ops.op_add_i32(20, 22)].join()",
        )
        .unwrap();
    assert_eq!(after, "0,42");
}

#[test]
#[should_panic(expected = "op `op_void` (extension `again`) is registered twice")]
fn duplicate_op_names_are_refused() {
    counting_runtime(vec![
        Extension::new("first").ops(&[op_void::DECL]),
        Extension::new("again").ops(&[op_void::DECL]),
    ]);
}

#[test]
fn flags_cannot_change_after_v8_started() {
    counting_runtime(vec![]);
    let err = runtime_core::set_v8_flags(&["--no-opt"]).unwrap_err();
    assert_eq!(err.flags, vec!["--no-opt".to_owned()]);
}

#[test]
fn runtimes_on_many_threads() {
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let mut runtime = counting_runtime(vec![all_ops()]);
                runtime
                    .execute_script_to_string("t.js", &format!("ops.op_add_i32({i}, 1)"))
                    .unwrap()
            })
        })
        .collect();
    let results: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(results, ["1", "2", "3", "4"]);
}

/// A host's global install script: what its extensions share, and what a mistake in one is.
#[op(fast)]
fn op_secret() -> u32 {
    7
}

#[test]
fn install_scripts_share_internals_no_other_code_reaches() {
    use runtime_core::GlobalScript;
    let first = Extension::new("first")
        .internal_ops(&[op_secret::DECL])
        .global(GlobalScript::new(
            "<first>",
            "(function ({ op_secret }, internals) { internals.secret = () => op_secret(); })",
        ));
    let second = Extension::new("second").global(GlobalScript::new(
        "<second>",
        "(function (_ops, internals) { \
           Object.defineProperty(globalThis, 'shared', { value: internals.secret(), configurable: true }); \
           Object.defineProperty(globalThis, 'prototypeOfInternals', { value: Object.getPrototypeOf(internals), configurable: true }); \
         })",
    ));
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![first, second],
        ..Default::default()
    });
    assert_eq!(
        runtime
            .execute_script_to_string(
                "<test>",
                "[shared, prototypeOfInternals, typeof ops.op_secret, typeof internals]"
            )
            .unwrap(),
        "7,,undefined,undefined"
    );
}

#[test]
fn an_install_script_that_throws_is_an_error_of_the_runtimes_creation() {
    use runtime_core::GlobalScript;
    // Before the fix: a panic ("installing a global in a new context cannot throw").
    for (script, message) in [
        (
            "(function () { throw new RangeError('bad host script'); })",
            "RangeError: bad host script",
        ),
        ("42", "the install script does not evaluate to a function"),
        ("(function (", "SyntaxError"),
    ] {
        let broken = Extension::new("broken").global(GlobalScript::new("<broken>", script));
        let error = Runtime::try_new(RuntimeOptions {
            extensions: vec![broken],
            ..Default::default()
        })
        .err()
        .unwrap_or_else(|| panic!("{script} made a runtime"));
        assert!(error.to_string().contains(message), "{script}: {error}");
    }
}
