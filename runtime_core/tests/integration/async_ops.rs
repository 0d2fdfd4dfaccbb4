//! Async ops on real V8 and real tokio: promises, the three modes, the event loop's order and
//! batching, errors and panics, 10^5 pending ops, the state across awaits, and dropping a
//! runtime with ops pending.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use crate::common;

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{counting_runtime, DESCRIBE_JS};
use runtime_core::{op, Extension, JsBuffer, OpError, OpState, Runtime, TerminationHandle};

type ResourceId = u16;

static DROPS: AtomicUsize = AtomicUsize::new(0);

/// Counts the drops of `op_forever`'s futures.
struct DropCounter;

impl Drop for DropCounter {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

include!("../../../testdata/ops/async_ops.rs");

static UNCLAIMED_DONE: AtomicUsize = AtomicUsize::new(0);

/// Requests termination during its call, then finishes after a yield: its wrapper is cut
/// short before it claims the op's promise.
#[op]
#[allow(clippy::manual_async_fn)] // the form under test: a sync part, then the future
fn op_async_terminating(state: &OpState) -> impl Future<Output = ()> + 'static {
    state.borrow::<TerminationHandle>().terminate();
    async {
        tokio::task::yield_now().await;
        UNCLAIMED_DONE.fetch_add(1, Ordering::SeqCst);
    }
}

/// A value set on another thread, which wakes the future waiting for it there.
#[derive(Default)]
struct FromThread {
    value: Option<u32>,
    waker: Option<std::task::Waker>,
}

/// Settles with `value`, sent from another thread after `ms`: its future is woken there.
#[op]
#[allow(clippy::manual_async_fn)] // the thread starts during the call
fn op_from_thread(value: u32, ms: u32) -> impl Future<Output = u32> + 'static {
    let shared = std::sync::Arc::new(std::sync::Mutex::new(FromThread::default()));
    let sender = shared.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(u64::from(ms)));
        let mut sent = sender.lock().unwrap();
        sent.value = Some(value);
        if let Some(waker) = sent.waker.take() {
            waker.wake();
        }
    });
    std::future::poll_fn(move |cx| {
        let mut state = shared.lock().unwrap();
        match state.value {
            Some(value) => std::task::Poll::Ready(value),
            None => {
                state.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    })
}

thread_local! {
    static KEPT_WAKER: RefCell<Option<std::task::Waker>> = const { RefCell::new(None) };
}

/// Keeps its waker after it is done, as a timer that outlives its op may.
#[op(async(lazy))]
#[allow(clippy::manual_async_fn)]
fn op_keep_waker() -> impl Future<Output = ()> + 'static {
    std::future::poll_fn(|cx| {
        KEPT_WAKER.with(|kept| *kept.borrow_mut() = Some(cx.waker().clone()));
        std::task::Poll::Ready(())
    })
}

/// Wakes the waker `op_keep_waker` kept.
#[op(fast)]
fn op_wake_kept() -> bool {
    KEPT_WAKER.with(|kept| kept.borrow_mut().take().map(|waker| waker.wake()).is_some())
}

/// A sync op that borrows the state mutably, to run while async ops hold its handle.
#[op(fast)]
fn op_state_bump(state: &mut OpState) -> i32 {
    let value = state.borrow_mut::<i32>();
    *value += 1;
    *value
}

fn runtime() -> Runtime {
    let extension = Extension::new("async")
        .ops(&[
            op_async::DECL,
            op_async_arg_return::DECL,
            op_async_result::DECL,
            op_async_lazy::DECL,
            op_async_deferred::DECL,
            op_async_opstate::DECL,
            op_async_impl_use::DECL,
            op_async_result_impl::DECL,
            op_async_smi::DECL,
            op_async_v8_buffer::DECL,
            op_sleep_echo::DECL,
            op_yield::DECL,
            op_async_panic::DECL,
            op_forever::DECL,
            op_async_len::DECL,
            op_async_check::DECL,
            op_async_panic_now::DECL,
            op_async_state_twice::DECL,
            op_async_terminating::DECL,
            op_state_bump::DECL,
            op_from_thread::DECL,
            op_keep_waker::DECL,
            op_wake_kept::DECL,
        ])
        .state(|state| {
            state.put(41i32);
        });
    let mut runtime = counting_runtime(vec![extension]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    runtime
}

/// Runs `f` inside a tokio current-thread runtime with timers.
fn tokio<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(f)
}

/// Runs `script` (whose completion value is a promise, or anything), drives the event loop
/// until it settles, and describes the outcome.
fn settle(runtime: &mut Runtime, script: &str) -> String {
    tokio(async {
        let value = runtime.execute_script("settle.js", script).unwrap();
        // A lost wake hangs the loop: a failure here, not a test that never ends.
        let settled = tokio::time::timeout(Duration::from_secs(60), runtime.resolve(value));
        match settled.await.expect("settles within a minute") {
            Ok(value) => runtime.with_scope(|scope| {
                let value = runtime_core::v8::Local::new(scope, value);
                value.to_rust_string_lossy(scope)
            }),
            Err(error) => format!("rejects {}: {}", error.class_name, error.message),
        }
    })
}

#[test]
fn values_and_errors_settle_as_sync_ops_return_and_throw() {
    let mut rt = runtime();
    assert_eq!(
        settle(&mut rt, "ops.op_async_arg_return(5).then(describe)"),
        "number 5"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async().then(describe)"),
        "undefined undefined"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async_result(7).then(describe)"),
        "number 7"
    );
    assert_eq!(
        settle(
            &mut rt,
            "ops.op_async_result(-1).catch(e => e.name + ': ' + e.message + ' ' + e.code)"
        ),
        "Error: no such x NotFound"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async_impl_use(3).then(describe)"),
        "number 3"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async_result_impl(4).then(describe)"),
        "number 4"
    );
    // An async op never throws: the call itself failing rejects, argument errors too (with
    // the errors a sync op would throw).
    let reason = ".catch(e => 'rejects ' + e.name + ': ' + e.message)";
    assert_eq!(
        settle(&mut rt, &format!("ops.op_async_result_impl(-4){reason}")),
        "rejects RangeError: x must not be negative"
    );
    assert_eq!(
        settle(&mut rt, &format!("ops.op_async_arg_return('x'){reason}")),
        "rejects TypeError: op_async_arg_return: argument 1 (x) must be a number (i32), received a string"
    );
    // The JavaScript function is the wrapper: the op's name and arity.
    assert_eq!(
        settle(
            &mut rt,
            "ops.op_async_arg_return.name + '/' + ops.op_async_arg_return.length"
        ),
        "op_async_arg_return/1"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async_smi(65535 + 3).then(describe)"),
        "number 2"
    );
    assert_eq!(
        settle(&mut rt, "ops.op_async_len('héllo').then(describe)"),
        "bigint 6n"
    );
    let buffer = "(async () => { const a = new Uint8Array([1, 2]); const b = await ops.op_async_v8_buffer(a); \
                  b[0] = 9; return a.join(); })()";
    assert_eq!(settle(&mut rt, buffer), "9,2");
    // A panic rejects with the op's name.
    assert_eq!(
        settle(
            &mut rt,
            "ops.op_async_panic().catch(e => e.name + ': ' + e.message)"
        ),
        "Error: op_async_panic panicked: async boom"
    );
}

/// Runs `call` from unoptimized code, then from an optimized caller (warmed with `warm`),
/// settling each promise; returns both outcomes with the paths taken.
fn settle_both_ways(
    rt: &mut Runtime,
    op: &str,
    warm: &str,
    args: &str,
) -> [(String, &'static str); 2] {
    let path = |rt: &mut Runtime| {
        let counts = rt.op_call_counts(op).unwrap();
        rt.reset_op_call_counts();
        assert_eq!(
            counts.fast + counts.slow,
            1,
            "{op}({args}) ran once: {counts:?}"
        );
        if counts.fast == 1 {
            "fast"
        } else {
            "slow"
        }
    };
    let outcome = ".then(describe, (e) => 'rejects ' + e.name + ': ' + e.message)";
    rt.reset_op_call_counts();
    let slow = settle(rt, &format!("ops.{op}({args}){outcome}"));
    let slow_path = path(rt);
    // (Every case takes at most one argument.)
    let param = if args.is_empty() { "" } else { "a" };
    let setup = format!(
        "globalThis.caller = function ({param}) {{ return ops.{op}({param}); }};
         %PrepareFunctionForOptimization(caller);
         %PrepareFunctionForOptimization(ops.{op});
         for (let i = 0; i < 10; i++) caller({warm});
         %OptimizeFunctionOnNextCall(caller);
         caller({warm});"
    );
    settle(rt, &setup);
    rt.reset_op_call_counts();
    let fast = settle(rt, &format!("caller({args}){outcome}"));
    let fast_path = path(rt);
    [(slow, slow_path), (fast, fast_path)]
}

#[test]
fn fast_calls_settle_as_slow_calls_do() {
    common::quiet_expected_panics("boom at once");
    let mut rt = runtime();
    let cases = [
        ("op_async", "", "", "undefined undefined"),
        ("op_async_check", "1", "2", "undefined undefined"),
        (
            "op_async_check",
            "1",
            "-2",
            "rejects RangeError: x must not be negative",
        ),
        ("op_async_panic_now", "0", "0", "undefined undefined"),
        (
            "op_async_panic_now",
            "0",
            "1",
            "rejects Error: op_async_panic_now panicked: boom at once",
        ),
        ("op_async_lazy", "", "", "number 0"),
        ("op_async_deferred", "", "", "number 0"),
        ("op_yield", "", "", "undefined undefined"),
        ("op_async_state_twice", "", "", "number 82"),
    ];
    for (op, warm, args, expected) in cases {
        assert!(
            rt.op_decl(op).unwrap().has_fast_path(),
            "{op} has a fast path"
        );
        let [(slow, slow_path), (fast, fast_path)] = settle_both_ways(&mut rt, op, warm, args);
        assert_eq!(
            (slow.as_str(), slow_path),
            (expected, "slow"),
            "{op}({args})"
        );
        assert_eq!(
            (fast.as_str(), fast_path),
            (expected, "fast"),
            "{op}({args})"
        );
    }
    // A wrong argument fails V8's own check of the fast call's types, so the slow path
    // rejects with the op's error, from optimized code too.
    let [(slow, _), (fast, _)] = settle_both_ways(&mut rt, "op_async_check", "1", "'x'");
    let expected = "rejects TypeError: op_async_check: argument 1 (x) must be a number (i32), received a string";
    assert_eq!((slow.as_str(), fast.as_str()), (expected, expected));
    // An eager op returning a value, and `nofast`, keep the slow path.
    assert!(!rt.op_decl("op_async_arg_return").unwrap().has_fast_path());
    // The wrappers are no constructors (as the ops are), keep their op's name and arity, and
    // do not depend on what user code later does to `Promise`.
    let script = "const before = Promise.resolve; Promise.resolve = () => 'hijacked'; \
                  Promise.reject = () => 'hijacked'; \
                  const out = [attempt(() => new ops.op_async()), ops.op_async.prototype, \
                    ops.op_async_check.name, ops.op_async_check.length, \
                    ops.op_async() instanceof Promise, ops.op_async_check('x') instanceof Promise]; \
                  Promise.resolve = before; out.join(' | ')";
    assert_eq!(
        settle(&mut rt, script),
        "throws TypeError: ops.op_async is not a constructor |  | op_async_check | 1 | true | true"
    );
}

#[test]
fn eager_lazy_and_deferred_settle_in_their_order() {
    let mut rt = runtime();
    let order = settle(
        &mut rt,
        "(async () => {
           const log = [];
           const all = [
             ops.op_async_lazy().then(() => log.push('lazy')),
             ops.op_async_deferred().then(() => log.push('deferred')),
             ops.op_async_arg_return(1).then(() => log.push('eager')),
           ];
           Promise.resolve().then(() => log.push('microtask'));
           await Promise.all(all);
           return log.join();
         })()",
    );
    // The eager op's promise is settled when the call returns: its handler runs with the
    // microtasks of the script. The deferred and the lazy ones wait for the loop's first turn,
    // which settles the deferred one (done at its call) before it polls the lazy one.
    assert_eq!(order, "eager,microtask,deferred,lazy");
    // Ops settled in one turn are settled together, then their then-callbacks run in order
    // (not each op's whole chain before the next op settles).
    let order = settle(
        &mut rt,
        "(async () => {
           const log = [];
           const first = ops.op_async_deferred().then(() => log.push('a1')).then(() => log.push('a2'));
           const second = ops.op_async_deferred().then(() => log.push('b'));
           await Promise.all([first, second]);
           return log.join();
         })()",
    );
    assert_eq!(order, "a1,b,a2");
}

#[test]
fn completion_order_and_tokio_timers() {
    let mut rt = runtime();
    let order = settle(
        &mut rt,
        "(async () => {
           const log = [];
           await Promise.all([
             ops.op_sleep_echo(40, 'slow').then(t => log.push(t)),
             ops.op_sleep_echo(1, 'fast').then(t => log.push(t)),
             ops.op_sleep_echo(20, 'middle').then(t => log.push(t)),
           ]);
           return log.join();
         })()",
    );
    assert_eq!(order, "fast,middle,slow");
}

#[test]
fn a_hundred_thousand_pending_ops() {
    let mut rt = runtime();
    let count = settle(
        &mut rt,
        "(async () => {
           const pending = [];
           for (let i = 0; i < 100000; i++) pending.push(ops.op_yield());
           return (await Promise.all(pending)).length;
         })()",
    );
    assert_eq!(count, "100000");
}

/// Calls at the edge of the stack: wherever the overflow strikes in a wrapper (before the
/// call, in it, making the promise, or in the promise's executor, which rejects the promise it
/// makes), each promise settles once, with the op's value or the `RangeError`, and the loop
/// ends. (A promise its executor had rejected was settled again by the loop, which aborted V8.)
#[test]
fn calls_at_the_edge_of_the_stack_settle_once() {
    let mut rt = runtime();
    let outcome = settle(
        &mut rt,
        "(async () => {
           const promises = [];
           let attempts = 0;
           let thrown = 0;
           let padding;
           // Returns its height above the deepest frame; the lowest frames call the ops. (Every
           // call inside a `try` here: a call, or a loop's back edge, checks the stack too.)
           function down() {
             let height;
             try { height = down.apply(null, padding) + 1; } catch { height = 0; }
             if (height < 400) {
               attempts += 4;
               try { promises.push(ops.op_async_lazy()); } catch { thrown++; }
               try { promises.push(ops.op_async_deferred()); } catch { thrown++; }
               try { promises.push(ops.op_yield()); } catch { thrown++; }
               try { promises.push(ops.op_sleep_echo(0, 'x')); } catch { thrown++; }
             }
             return height;
           }
           // Frames of every size in 8-byte steps (each unused argument is a slot): the overflow
           // lands everywhere in a call.
           for (let size = 0; size < 48; size++) {
             padding = new Array(size).fill(0);
             down();
           }
           const settled = await Promise.allSettled(promises);
           const count = (test) => settled.filter(test).length;
           const fulfilled = count((s) => s.status === 'fulfilled');
           const rangeErrors = count((s) => s.status === 'rejected' && s.reason instanceof RangeError);
           const other = settled.length - fulfilled - rangeErrors;
           // Calls that threw reached the edge; every promise returned settled, once.
           return `${settled.length + thrown === attempts}, ${thrown > 0}, ${fulfilled > 0}, ${other} other`;
         })()",
    );
    assert_eq!(outcome, "true, true, true, 0 other");
}

/// Wakes from other threads reach the loop, however many at once; a waker kept past its op's
/// end wakes the op that reuses its slot, which is polled for nothing and settles as it should.
#[test]
fn wakes_from_other_threads_and_stale_wakers() {
    let mut rt = runtime();
    let sum = settle(
        &mut rt,
        "(async () => {
           const values = await Promise.all(
             Array.from({ length: 32 }, (_, i) => ops.op_from_thread(i, i % 4)));
           return values.reduce((a, b) => a + b, 0);
         })()",
    );
    assert_eq!(sum, (0..32).sum::<u32>().to_string());
    let reused = settle(
        &mut rt,
        "(async () => {
           await ops.op_keep_waker();
           // In the slot `op_keep_waker` left, polled (pending) by the time the next settles.
           const later = ops.op_from_thread(7, 50);
           await ops.op_from_thread(0, 1);
           const woke = ops.op_wake_kept();
           return `${woke} ${await later}`;
         })()",
    );
    assert_eq!(reused, "true 7");
}

#[test]
fn the_state_across_awaits() {
    let mut rt = runtime();
    let values = settle(
        &mut rt,
        "(async () => {
           const held = ops.op_async_opstate();
           const bumped = ops.op_state_bump();
           return bumped + ',' + await held;
         })()",
    );
    assert_eq!(values, "42,42");
}

#[test]
fn unhandled_rejections_end_the_loop_with_their_error() {
    let mut rt = runtime();
    let error = tokio(async {
        rt.execute_script("reject.js", "ops.op_async_result(-1); 1")
            .unwrap();
        rt.run_event_loop().await.unwrap_err()
    });
    assert_eq!(
        (error.class_name.as_str(), error.message.as_str()),
        ("Error", "no such x")
    );
    // A handler added in time is a handled rejection.
    let done = tokio(async {
        rt.execute_script(
            "handled.js",
            "globalThis.p = ops.op_async_result(-1); p.catch(() => {}); 1",
        )
        .unwrap();
        rt.run_event_loop().await
    });
    assert!(done.is_ok(), "{done:?}");
}

#[test]
fn an_op_whose_wrapper_never_claimed_it_runs_on() {
    let mut rt = runtime();
    let before = UNCLAIMED_DONE.load(Ordering::SeqCst);
    let cut = rt.execute_script(
        "cut.js",
        "globalThis.after = 0; ops.op_async_terminating(); globalThis.after = 1;",
    );
    assert!(cut.is_err(), "the script was terminated");
    // Its promise was never claimed (nobody can await it); the loop still runs it to the end.
    tokio(rt.run_event_loop()).unwrap();
    assert_eq!(UNCLAIMED_DONE.load(Ordering::SeqCst) - before, 1);
    assert_eq!(settle(&mut rt, "globalThis.after"), "0");
}

#[test]
fn dropping_a_runtime_drops_its_pending_ops() {
    let before = DROPS.load(Ordering::SeqCst);
    {
        let mut rt = runtime();
        tokio(async {
            rt.execute_script(
                "forever.js",
                "for (let i = 0; i < 3; i++) ops.op_forever();",
            )
            .unwrap();
            // One turn: the ops stay pending.
            let turn =
                std::future::poll_fn(|cx| std::task::Poll::Ready(rt.poll_event_loop(cx))).await;
            assert!(turn.is_pending());
        });
    }
    assert_eq!(DROPS.load(Ordering::SeqCst) - before, 3);
}
