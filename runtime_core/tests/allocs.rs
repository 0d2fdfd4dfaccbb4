//! Allocations per call of the string ops, counted by a counting global allocator in this test
//! binary, in steady state (after warm-up, so the thread's reusable buffers have grown):
//! `&str`, `Cow<str>` and one-byte arguments allocate nothing, at every size, ASCII or not, on
//! both paths; an owned `String` argument allocates exactly once (through serde too);
//! returning a `&'static str` allocates nothing. An `OpError` made from a concrete error is one
//! allocation. Async ops that go pending allocate nothing.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

mod common;

use std::borrow::Cow;

use alloc_counter::{count, CountingAllocator};
use common::counting_runtime;
use runtime_core::{op, v8, ByteString, Extension, JsErrorClass, OpError, Runtime};

include!("../../testdata/ops/strings.rs");

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn extension() -> Extension {
    Extension::new("allocs").ops(&[
        op_str_len::DECL,
        op_cow_hash::DECL,
        op_owned_hash::DECL,
        op_serde_string_hash::DECL,
        op_onebyte_hash::DECL,
        op_static_str::DECL,
    ])
}

/// Allocations per op call when `call` (JavaScript, using `s`, flattened so that V8 can pass
/// it to a fast call: `repeat` makes cons strings) runs in a loop, either
/// optimized (fast path where V8 allows) or never optimized (slow path). The loop's own
/// overhead cancels out: two loop lengths are measured and subtracted.
fn allocs_per_call(
    runtime: &mut Runtime,
    string: &str,
    call: &str,
    optimized: bool,
) -> (f64, String) {
    let (prepare, name) = if optimized {
        ("%PrepareFunctionForOptimization(run); run(3); run(3); %OptimizeFunctionOnNextCall(run); run(3);", "fast")
    } else {
        ("%NeverOptimizeFunction(run); run(3);", "slow")
    };
    runtime
        .execute_script(
            "setup.js",
            &format!(
                "globalThis.s = %FlattenString({string});
                 globalThis.run = function (n) {{ for (let i = 0; i < n; i++) {call}; }};
                 {prepare}"
            ),
        )
        .unwrap();
    runtime.reset_op_call_counts();
    let mut measure = |calls: u32| {
        let script = format!("run({calls})");
        let ((), allocs, _) = count(|| {
            runtime.execute_script("measure.js", &script).unwrap();
        });
        allocs
    };
    let short = measure(10);
    let long = measure(110);
    let per_call = (long as f64 - short as f64) / 100.0;
    (per_call, name.to_owned())
}

fn string_cases() -> Vec<(&'static str, String)> {
    let mut cases = Vec::new();
    for len in [10usize, 1000, 1_000_000] {
        cases.push(("ascii", format!("'x'.repeat({len})")));
        cases.push(("latin1", format!("'é'.repeat({len})")));
        cases.push(("two-byte", format!("'\\u1000'.repeat({len})")));
    }
    cases
}

#[test]
fn borrowed_string_arguments_allocate_nothing() {
    let mut runtime = counting_runtime(vec![extension()]);
    let mut report = Vec::new();
    for (kind, string) in string_cases() {
        for call in ["ops.op_str_len(s)", "ops.op_cow_hash(s)"] {
            for optimized in [false, true] {
                let (allocs, path) = allocs_per_call(&mut runtime, &string, call, optimized);
                report.push(format!(
                    "{call} {kind} {string}: {allocs} allocs/call ({path})"
                ));
                assert_eq!(
                    allocs,
                    0.0,
                    "{call} with {kind} {string} ({path}):\n{}",
                    report.join("\n")
                );
            }
        }
    }
}

#[test]
fn one_byte_arguments_allocate_nothing() {
    let mut runtime = counting_runtime(vec![extension()]);
    for (kind, string) in string_cases()
        .into_iter()
        .filter(|(kind, _)| *kind != "two-byte")
    {
        for optimized in [false, true] {
            let (allocs, path) =
                allocs_per_call(&mut runtime, &string, "ops.op_onebyte_hash(s)", optimized);
            assert_eq!(allocs, 0.0, "op_onebyte_hash with {kind} {string} ({path})");
        }
    }
}

#[test]
fn owned_string_arguments_allocate_exactly_once() {
    let mut runtime = counting_runtime(vec![extension()]);
    for (kind, string) in string_cases() {
        for optimized in [false, true] {
            let (allocs, path) =
                allocs_per_call(&mut runtime, &string, "ops.op_owned_hash(s)", optimized);
            assert_eq!(allocs, 1.0, "op_owned_hash with {kind} {string} ({path})");
        }
    }
}

/// serde's too: the fast path (one-byte strings) and the slow one allocate only the `String`.
#[test]
fn serde_string_arguments_allocate_exactly_once() {
    let mut runtime = counting_runtime(vec![extension()]);
    for (kind, string) in string_cases() {
        for optimized in [false, true] {
            let call = "ops.op_serde_string_hash(s)";
            let (allocs, path) = allocs_per_call(&mut runtime, &string, call, optimized);
            assert_eq!(
                allocs, 1.0,
                "op_serde_string_hash with {kind} {string} ({path})"
            );
            let counts = runtime.op_call_counts("op_serde_string_hash").unwrap();
            let fast_expected = optimized && kind != "two-byte";
            assert_eq!(
                counts.fast > 0,
                fast_expected,
                "{kind} {string} ({path}): {counts:?}"
            );
        }
    }
}

#[test]
fn static_str_returns_allocate_nothing() {
    let mut runtime = counting_runtime(vec![extension()]);
    for optimized in [false, true] {
        let (allocs, path) = allocs_per_call(&mut runtime, "''", "ops.op_static_str()", optimized);
        assert_eq!(allocs, 0.0, "op_static_str ({path})");
    }
}

#[test]
fn the_fast_path_is_taken_for_one_byte_strings() {
    let mut runtime = counting_runtime(vec![extension()]);
    for (kind, string) in string_cases() {
        allocs_per_call(&mut runtime, &string, "ops.op_str_len(s)", true);
        let counts = runtime.op_call_counts("op_str_len").unwrap();
        if kind == "two-byte" {
            assert_eq!(counts.fast, 0, "{kind}: {counts:?}");
        } else {
            assert!(
                counts.fast >= 120 && counts.slow == 0,
                "{kind} {string}: {counts:?}"
            );
        }
    }
}

#[test]
fn an_op_error_from_a_concrete_error_is_one_allocation() {
    #[derive(Debug)]
    struct Denied {
        uid: u32,
    }

    impl JsErrorClass for Denied {
        fn class(&self) -> Cow<'static, str> {
            Cow::Borrowed("PermissionDenied")
        }

        fn message(&self) -> Cow<'_, str> {
            Cow::Borrowed("denied")
        }
    }

    let (error, allocs, bytes) = count(|| OpError::from(Denied { uid: 7 }));
    assert_eq!(
        (allocs, bytes),
        (1, std::mem::size_of::<Denied>() as u64),
        "placed straight into its box"
    );
    assert_eq!(
        error.downcast_ref::<Denied>().map(|denied| denied.uid),
        Some(7)
    );
    // Converting an `OpError` into an `OpError` (what the generated code does for an op
    // returning `Result<T, OpError>`) reboxes nothing.
    #[allow(clippy::useless_conversion)]
    let (_, allocs, _) = count(|| OpError::from(error));
    assert_eq!(allocs, 0);
}

#[op]
async fn op_yield_alloc() {
    tokio::task::yield_now().await;
}

#[op(async(lazy))]
async fn op_lazy_alloc() {}

#[op(async(lazy), nofast)]
async fn op_lazy_nofast_alloc() {}

#[op(async(deferred))]
async fn op_deferred_alloc() {}

/// Its second yield is polled by the loop: woken through its slot's waker.
#[op]
async fn op_yield_twice_alloc() {
    tokio::task::yield_now().await;
    tokio::task::yield_now().await;
}

#[op(async(lazy))]
async fn op_lazy_yield_alloc() {
    tokio::task::yield_now().await;
}

/// Async ops that go pending (eager ops that yield, lazy and deferred ops; through the
/// wrapper's fast claim and slow claim; one at a time and 16 at once, woken through their
/// slots' wakers) allocate nothing per call in steady state: their futures' memory and the
/// event loop's slots are kept and reused.
#[test]
fn pending_async_ops_allocate_nothing() {
    let extension = Extension::new("async_allocs").ops(&[
        op_yield_alloc::DECL,
        op_lazy_alloc::DECL,
        op_lazy_nofast_alloc::DECL,
        op_deferred_alloc::DECL,
        op_yield_twice_alloc::DECL,
        op_lazy_yield_alloc::DECL,
    ]);
    let mut runtime = counting_runtime(vec![extension]);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut run = |script: &str| {
        let value = runtime.execute_script("run.js", script).unwrap();
        tokio.block_on(runtime.resolve(value)).unwrap();
    };
    let ops = [
        "op_yield_alloc",
        "op_lazy_alloc",
        "op_lazy_nofast_alloc",
        "op_deferred_alloc",
        "op_yield_twice_alloc",
        "op_lazy_yield_alloc",
    ];
    for (op, at_once) in ops.iter().flat_map(|op| [(op, false), (op, true)]) {
        // One op awaited at a time, or 16 pending at once.
        let call = if at_once {
            format!("Promise.all(Array.from({{ length: 16 }}, () => ops.{op}()))")
        } else {
            format!("ops.{op}()")
        };
        for optimized in [false, true] {
            let prepare = if optimized {
                "%PrepareFunctionForOptimization(run); run(3); %OptimizeFunctionOnNextCall(run);"
            } else {
                "%NeverOptimizeFunction(run);"
            };
            run(&format!(
                "globalThis.run = async function (n) {{ for (let i = 0; i < n; i++) await {call}; }};
                 {prepare} run(3)"
            ));
            // Warm: the op's memory and the loop's slots exist.
            run("run(200)");
            let mut measure = |calls: u32| count(|| run(&format!("run({calls})"))).1;
            // The fewest of three windows: what V8's own tasks allocate now and then (their
            // queue, an alarm for a delayed one) is not the op's, which would show in each.
            let per_call = (0..3)
                .map(|_| {
                    let short = measure(100);
                    let long = measure(1100);
                    // (Below zero: the short window had one of those.)
                    ((long as f64 - short as f64) / 1000.0).max(0.0)
                })
                .fold(f64::INFINITY, f64::min);
            assert_eq!(
                per_call, 0.0,
                "{op} (16 at once: {at_once}, optimized: {optimized})"
            );
        }
    }
}
