//! The async suite (`bench-ops --async`): deno_core 0.413's `benches/ops/async.rs`, bench for
//! bench, with its ops' signatures and its `async_harness.js` (`ops` for `Deno.core.ops`): an
//! `async bench()` awaiting COUNT calls, optimized first, each call of it driven to completion
//! by the event loop from Rust inside a tokio current-thread runtime, as deno's
//! `with_event_loop_promise` does.

use runtime_core::{op, v8, Extension, Runtime, RuntimeOptions};

use crate::report::BenchResult;
use crate::Plan;

// deno marks this `fast`; a scope (calling JavaScript) has no fast path in opwire.
#[op]
fn op_call_promise_resolver(scope: &mut v8::PinScope, f: &v8::Function) {
    let recv = v8::undefined(scope).into();
    f.call(scope, recv, &[]);
}

#[op]
fn op_resolve_promise<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Promise> {
    let resolver = v8::PromiseResolver::new(scope).expect("not terminating");
    let value = v8::undefined(scope).into();
    resolver.resolve(scope, value).expect("a fresh resolver");
    resolver.get_promise(scope)
}

#[op(fast)]
fn op_void() {}

#[op(fast)]
fn op_make_external() -> *const std::ffi::c_void {
    std::ptr::null()
}

#[op]
async fn op_async_void() {}

#[op]
async fn op_async_yield() {
    tokio::task::yield_now().await
}

#[op(async(lazy))]
async fn op_async_yield_lazy() {
    tokio::task::yield_now().await
}

#[op(async(lazy), nofast)]
async fn op_async_yield_lazy_nofast() {
    tokio::task::yield_now().await
}

#[op(async(deferred))]
async fn op_async_yield_deferred() {
    tokio::task::yield_now().await
}

#[op(async(deferred), nofast)]
async fn op_async_yield_deferred_nofast() {
    tokio::task::yield_now().await
}

#[op(async(lazy))]
async fn op_async_void_lazy() {}

#[op(async(lazy), nofast)]
async fn op_async_void_lazy_nofast() {}

#[op(async(deferred))]
async fn op_async_void_deferred_return() -> u32 {
    1
}

#[op(async(deferred))]
async fn op_async_void_deferred() {}

#[op(async(deferred), nofast)]
async fn op_async_void_deferred_nofast() {}

fn extension() -> Extension {
    Extension::new("testing").ops(&[
        op_void::DECL,
        op_make_external::DECL,
        op_call_promise_resolver::DECL,
        op_resolve_promise::DECL,
        op_async_void::DECL,
        op_async_void_lazy::DECL,
        op_async_void_lazy_nofast::DECL,
        op_async_void_deferred::DECL,
        op_async_void_deferred_nofast::DECL,
        op_async_void_deferred_return::DECL,
        op_async_yield::DECL,
        op_async_yield_lazy::DECL,
        op_async_yield_lazy_nofast::DECL,
        op_async_yield_deferred::DECL,
        op_async_yield_deferred_nofast::DECL,
    ])
}

/// One bench of deno's: `bench_op(b, BENCH_COUNT, op, arg_count, call)`.
pub struct AsyncBench {
    pub name: &'static str,
    op: &'static str,
    args: usize,
    call: &'static str,
    /// Calls per `bench()`, when not the suite's.
    pub count: Option<u32>,
}

const fn bench(
    name: &'static str,
    op: &'static str,
    args: usize,
    call: &'static str,
) -> AsyncBench {
    AsyncBench {
        name,
        op,
        args,
        call,
        count: None,
    }
}

/// opwire's own: a million promises rejected, then each given a handler (V8 reports every one
/// as handled after rejection): per promise, what rejecting and handling late costs. Linear
/// bookkeeping keeps it flat in the count; a scan per event made 4*10^4 take seconds.
const LATE_REJECTIONS: AsyncBench = AsyncBench {
    name: "late_rejections_1000000",
    op: "op_void",
    args: 0,
    call: "{ (globalThis.late ??= []).push(Promise.reject(__index__)); \
           if (__index__ === __COUNT__ - 1) { for (const p of late) p.catch(() => {}); late = []; } }",
    count: Some(1_000_000),
};

/// deno's `benchmark_group!`, in its order (names without `bench_`).
pub const BENCHES: &[AsyncBench] = &[
    bench("baseline", "op_async_void", 0, "accum += __index__;"),
    bench("baseline_promise", "op_async_void", 0, "await Promise.resolve(null);"),
    bench(
        "baseline_promise_with_resolver",
        "op_async_void",
        0,
        "{ let { promise, resolve } = Promise.withResolvers(); resolve(null); await promise; }",
    ),
    bench(
        "baseline_op_promise_resolver",
        "op_call_promise_resolver",
        1,
        "{ let { promise, resolve } = Promise.withResolvers(); op_call_promise_resolver(resolve); await promise; }",
    ),
    bench("baseline_op_promise", "op_resolve_promise", 0, "await op_resolve_promise();"),
    bench("baseline_sync", "op_void", 0, "await op_void()"),
    bench("op_async_yield", "op_async_yield", 0, "await op_async_yield()"),
    bench("op_async_yield_lazy", "op_async_yield_lazy", 0, "await op_async_yield_lazy()"),
    bench("op_async_yield_lazy_nofast", "op_async_yield_lazy_nofast", 0, "await op_async_yield_lazy_nofast()"),
    bench("op_async_yield_deferred", "op_async_yield_deferred", 0, "await op_async_yield_deferred()"),
    bench("op_async_yield_deferred_nofast", "op_async_yield_deferred_nofast", 0, "await op_async_yield_deferred_nofast()"),
    bench("op_async_void", "op_async_void", 0, "await op_async_void()"),
    bench("op_async_void_lazy", "op_async_void_lazy", 0, "await op_async_void_lazy()"),
    bench("op_async_void_lazy_nofast", "op_async_void_lazy_nofast", 0, "await op_async_void_lazy_nofast()"),
    bench("op_async_void_deferred", "op_async_void_deferred", 0, "await op_async_void_deferred()"),
    bench("op_async_void_deferred_nofast", "op_async_void_deferred_nofast", 0, "await op_async_void_deferred_nofast()"),
    bench(
        "op_async_void_deferred_return",
        "op_async_void_deferred_return",
        0,
        "accum += await op_async_void_deferred_return();",
    ),
    LATE_REJECTIONS,
];

/// deno_core 0.413's `async_harness.js` (the binding aside).
const HARNESS: &str = r#"async function run() {
  const LARGE_STRING_1000000 = "*".repeat(1000000);
  const LARGE_STRING_1000 = "*".repeat(1000);
  const LARGE_STRING_UTF8_1000000 = "\u1000".repeat(1000000);
  const LARGE_STRING_UTF8_1000 = "\u1000".repeat(1000);
  const BUFFER = new Uint8Array(1024);
  const ARRAYBUFFER = new ArrayBuffer(1024);
  const { __OP__: op } = ops;
  const { op_make_external } = ops;
  const EXTERNAL = op_make_external();

  function __OP__(__ARGS__) {
    return op(__ARGS__);
  }

  let accum = 0;
  let __index__ = 0;
  __PERCENT__PrepareFunctionForOptimization(__OP__);
  __CALL__;
  __PERCENT__OptimizeFunctionOnNextCall(__OP__);
  __CALL__;

  async function bench() {
    let accum = 0;
    for (let __index__ = 0; __index__ < __COUNT__; __index__++) __CALL__;
    return accum;
  }

  __PERCENT__PrepareFunctionForOptimization(bench);
  await bench();
  __PERCENT__OptimizeFunctionOnNextCall(bench);
  await bench();

  return bench;
}
run()"#;

fn source(bench: &AsyncBench, count: u32) -> String {
    let args = (0..bench.args)
        .map(|n| format!("arg{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut harness = HARNESS.to_owned();
    for (key, value) in [
        ("PERCENT", "%"),
        ("CALL", bench.call),
        ("COUNT", &count.to_string()),
        ("ARGS", &args),
        ("OP", bench.op),
    ] {
        harness = harness.replace(&format!("__{key}__"), value);
    }
    harness
}

/// Calls `bench()` and drives the event loop until its promise settles, as deno's
/// `do_benchmark` does.
fn call_once(
    tokio: &tokio::runtime::Runtime,
    runtime: &mut Runtime,
    bench: &v8::Global<v8::Function>,
) {
    tokio.block_on(async {
        let promise = runtime.with_scope(|scope| {
            let bench = v8::Local::new(scope, bench);
            let receiver = v8::undefined(scope).into();
            let promise = bench
                .call(scope, receiver, &[])
                .expect("bench() does not throw");
            v8::Global::new(scope, promise)
        });
        runtime.resolve(promise).await.expect("bench() resolves");
    });
}

/// A runtime with the bench's source run: its `bench()`, optimized.
fn prepare(
    bench: &AsyncBench,
    count: u32,
    tokio: &tokio::runtime::Runtime,
    op_call_counters: bool,
) -> (Runtime, v8::Global<v8::Function>) {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![extension()],
        op_call_counters,
        ..Default::default()
    });
    let run = runtime
        .execute_script(bench.name, &source(bench, count))
        .unwrap_or_else(|err| panic!("{}: {err}", bench.name));
    let bench_fn = tokio
        .block_on(runtime.resolve(run))
        .unwrap_or_else(|err| panic!("{}: {err}", bench.name));
    let bench_fn = runtime.with_scope(|scope| {
        let bench_fn = v8::Local::new(scope, bench_fn);
        let bench_fn = v8::Local::<v8::Function>::try_from(bench_fn).expect("run() returns bench");
        v8::Global::new(scope, bench_fn)
    });
    (runtime, bench_fn)
}

pub fn run_bench(bench: &AsyncBench, count: u32, plan: &Plan) -> BenchResult {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (mut runtime, bench_fn) = prepare(bench, count, &tokio, false);
    let call_bench = |times: u64| {
        for _ in 0..times {
            call_once(&tokio, &mut runtime, &bench_fn);
        }
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call_bench);
    let path = path_taken(bench, count, &tokio);
    BenchResult::from_samples(bench.name, samples, allocs, bytes, calls, path)
}

/// Runs the bench once more in a runtime with op call counters on: which path did the
/// optimized `bench()` take? (`n/a` for the baselines that call no op.)
fn path_taken(bench: &AsyncBench, count: u32, tokio: &tokio::runtime::Runtime) -> &'static str {
    let (mut runtime, bench_fn) = prepare(bench, count, tokio, true);
    runtime.reset_op_call_counts();
    call_once(tokio, &mut runtime, &bench_fn);
    let counts = runtime
        .op_call_counts(bench.op)
        .expect("the op is registered");
    match (counts.fast, counts.slow) {
        (0, 0) => "n/a",
        (_, 0) => "fast",
        (0, _) => "slow",
        _ => "mixed",
    }
}
