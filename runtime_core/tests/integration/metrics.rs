//! The op metrics hook: an observer per op, told of dispatch and outcome on both paths; ops
//! without one are not reported; the call counters work alongside it.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{init_test_flags, quiet_expected_panics};
use runtime_core::{
    op, v8, Extension, OpCallCounts, OpError, OpMetricsEvent, OpMetricsFn, OpMetricsSource,
    Runtime, RuntimeOptions,
};

#[op]
fn op_half(x: u32) -> Result<u32, OpError> {
    if x % 2 == 1 {
        return Err(OpError::range_error("odd"));
    }
    if x == 1000 {
        panic!("metrics test panic");
    }
    Ok(x / 2)
}

#[op(nofast)]
fn op_half_nofast(x: u32) -> Result<u32, OpError> {
    op_half(x)
}

#[op]
fn op_unobserved() {}

/// Calls `callback` (which may call other ops, and catch what they throw).
#[op(nofast)]
fn op_run<'s>(scope: &mut v8::PinScope<'s, '_>, callback: v8::Local<'s, v8::Function>) {
    let receiver = v8::undefined(scope).into();
    let _ = callback.call(scope, receiver, &[]);
}

type Log = Rc<RefCell<Vec<(&'static str, OpMetricsEvent, OpMetricsSource)>>>;

fn runtime(log: &Log, counters: bool) -> Runtime {
    init_test_flags();
    let log = log.clone();
    Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("metrics").ops(&[
            op_half::DECL,
            op_half_nofast::DECL,
            op_unobserved::DECL,
            op_run::DECL,
        ])],
        op_call_counters: counters,
        op_metrics_factory_fn: Some(Box::new(move |decl| {
            let log = log.clone();
            (decl.name() != "op_unobserved").then(|| {
                Rc::new(move |op_ctx: &runtime_core::OpCtx, event, source| {
                    log.borrow_mut().push((op_ctx.decl().name(), event, source));
                }) as OpMetricsFn
            })
        })),
        ..Default::default()
    })
}

/// Calls `op(args)` from unoptimized code, then from an optimized caller (with as many
/// arguments as the op declares: V8 takes the slow path for any other count).
fn call_twice(runtime: &mut Runtime, op: &str, args: &str) {
    let param = if args.is_empty() { "" } else { "x" };
    let source = format!(
        "function caller_{op}({param}) {{ try {{ return ops.{op}({param}); }} catch (e) {{ return e.name; }} }}
         %PrepareFunctionForOptimization(caller_{op});
         caller_{op}({args});
         %OptimizeFunctionOnNextCall(caller_{op});
         caller_{op}({args});"
    );
    runtime.execute_script("call.js", &source).unwrap();
}

#[test]
fn observers_see_dispatch_and_outcome_on_both_paths() {
    quiet_expected_panics("metrics test panic");
    let log: Log = Rc::default();
    let mut runtime = runtime(&log, false);
    use OpMetricsEvent::{Completed, Dispatched, Error};
    use OpMetricsSource::{Fast, Slow};
    for (args, outcome) in [
        ("4", Completed),
        ("3", Error),
        ("'x'", Error),
        ("1000", Error),
    ] {
        for op in ["op_half", "op_half_nofast"] {
            log.borrow_mut().clear();
            call_twice(&mut runtime, op, args);
            let events: Vec<_> = log.borrow().iter().map(|&(_, e, s)| (e, s)).collect();
            assert_eq!(events.len(), 4, "{op}({args}): {events:?}");
            assert_eq!(
                &events[..2],
                [(Dispatched, Slow), (outcome, Slow)],
                "{op}({args})"
            );
            // From optimized code: the fast path where the op has one and V8 takes it (a
            // string for a number argument leaves optimized code for the slow path).
            let second = if op == "op_half" && args != "'x'" {
                Fast
            } else {
                Slow
            };
            assert_eq!(
                &events[2..],
                [(Dispatched, second), (outcome, second)],
                "{op}({args})"
            );
            assert!(log.borrow().iter().all(|&(name, _, _)| name == op));
        }
    }
    log.borrow_mut().clear();
    runtime
        .execute_script("unobserved.js", "ops.op_unobserved()")
        .unwrap();
    assert!(
        log.borrow().is_empty(),
        "an op without an observer is not reported"
    );
}

/// An op whose JavaScript callback calls a throwing op and catches: the inner call is an
/// error, the outer completes. An exception the callback lets through reaches the outer's
/// caller, but the op itself completed (as deno reports it: by the op's own result).
#[test]
fn outcomes_of_nested_calls_are_their_own() {
    let log: Log = Rc::default();
    let mut runtime = runtime(&log, false);
    use OpMetricsEvent::{Completed, Dispatched, Error};
    let caught = runtime
        .execute_script_to_string(
            "nested.js",
            "let seen; ops.op_run(() => { try { ops.op_half_nofast(3); } catch (e) { seen = e.name; } }); seen",
        )
        .unwrap();
    assert_eq!(caught, "RangeError");
    let events: Vec<_> = log.borrow().iter().map(|&(name, e, _)| (name, e)).collect();
    assert_eq!(
        events,
        [
            ("op_run", Dispatched),
            ("op_half_nofast", Dispatched),
            ("op_half_nofast", Error),
            ("op_run", Completed),
        ]
    );
    log.borrow_mut().clear();
    let thrown = runtime
        .execute_script_to_string(
            "through.js",
            "try { ops.op_run(() => ops.op_half_nofast(5)); 'no' } catch (e) { e.name + ': ' + e.message }",
        )
        .unwrap();
    assert_eq!(thrown, "RangeError: odd");
    let outer: Vec<_> = log
        .borrow()
        .iter()
        .filter(|&&(name, _, _)| name == "op_run")
        .map(|&(_, e, _)| e)
        .collect();
    assert_eq!(outer, [Dispatched, Completed]);
}

#[test]
fn call_counters_run_beside_an_observer() {
    let log: Log = Rc::default();
    let mut runtime = runtime(&log, true);
    call_twice(&mut runtime, "op_half", "2");
    call_twice(&mut runtime, "op_unobserved", "");
    assert_eq!(
        runtime.op_call_counts("op_half"),
        Some(OpCallCounts { fast: 1, slow: 1 })
    );
    assert_eq!(
        runtime.op_call_counts("op_unobserved"),
        Some(OpCallCounts { fast: 1, slow: 1 })
    );
    assert_eq!(log.borrow().len(), 4);
}
