//! What a host pays around the ops, measured from Rust: calling a JavaScript function
//! (`Runtime::call` beside the same call written by hand with rusty_v8), awaiting an async
//! function's promise (`call_and_await` beside `start_call`, one call at a time, 64 in
//! flight, and 1,024 in flight settling one a turn), and loading a graph of 1,000 small
//! modules.

use std::rc::Rc;

use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{op, v8, Extension, Runtime, RuntimeOptions};

use crate::report::BenchResult;
use crate::Plan;

/// A bench driven from Rust: `run(count, plan)`.
pub struct EmbedBench {
    pub name: &'static str,
    /// Calls per measured batch (one for the module graph: a batch is one load).
    pub count: u32,
    run: fn(&'static str, u32, &Plan) -> BenchResult,
}

pub const BENCHES: &[EmbedBench] = &[
    EmbedBench {
        name: "rust_call_raw",
        count: 1000,
        run: rust_call_raw,
    },
    EmbedBench {
        name: "rust_call",
        count: 1000,
        run: rust_call,
    },
    EmbedBench {
        name: "rust_call_and_await",
        count: 1000,
        run: rust_call_and_await,
    },
    EmbedBench {
        name: "rust_start_call",
        count: 1000,
        run: rust_start_call,
    },
    EmbedBench {
        name: "rust_start_call_64",
        count: 64 * 16,
        run: rust_start_call_64,
    },
    EmbedBench {
        name: "rust_start_call_1024_one_a_turn",
        count: 1024,
        run: rust_start_call_staggered,
    },
    EmbedBench {
        name: "rust_start_call_8192_one_a_turn",
        count: 8192,
        run: rust_start_call_staggered,
    },
    EmbedBench {
        name: "load_modules_1000",
        count: 1,
        run: load_modules,
    },
];

impl EmbedBench {
    pub fn run(&self, count: u32, plan: &Plan) -> BenchResult {
        (self.run)(self.name, count, plan)
    }
}

/// A runtime with `globalThis.answer`, a function returning a number (optimized).
fn runtime_with_answer() -> (Runtime, v8::Global<v8::Function>) {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "answer.js",
            "globalThis.answer = function (x) { return x + 1; };
             %PrepareFunctionForOptimization(answer); answer(1); answer(2);
             %OptimizeFunctionOnNextCall(answer); answer(3);",
        )
        .expect("the function is defined");
    let answer = runtime.global_function("answer").expect("a function");
    (runtime, answer)
}

/// The same call written with rusty_v8 by hand: a scope per call (as `call` makes), the
/// function called, its number read.
fn rust_call_raw(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    let (mut runtime, answer) = runtime_with_answer();
    let call = |times: u64| {
        let mut sum = 0.0;
        for _ in 0..times * u64::from(count) {
            sum += runtime.with_scope(|scope| {
                let function = v8::Local::new(scope, &answer);
                let receiver = v8::undefined(scope).into();
                let arg = v8::Number::new(scope, 1.0).into();
                let value = function.call(scope, receiver, &[arg]).expect("no throw");
                value.number_value(scope).unwrap_or(0.0)
            });
        }
        std::hint::black_box(sum);
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call);
    BenchResult::from_samples(name, samples, allocs, bytes, calls, "n/a")
}

/// `Runtime::call::<f64>(&answer, (1.0,))`: the argument through `ToV8`, the result through
/// `FromV8`, under a `TryCatch`, the termination request spent.
fn rust_call(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    let (mut runtime, answer) = runtime_with_answer();
    let call = |times: u64| {
        let mut sum = 0.0;
        for _ in 0..times * u64::from(count) {
            sum += runtime.call::<f64>(&answer, (1.0,)).expect("no throw");
        }
        std::hint::black_box(sum);
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call);
    BenchResult::from_samples(name, samples, allocs, bytes, calls, "n/a")
}

/// Never done: keeps the loop from going idle.
#[op(async(lazy))]
async fn op_never() {
    std::future::pending::<()>().await
}

/// Settles on the event loop's next turn: a call awaiting it returns a pending promise.
#[op(async(deferred))]
async fn op_next_turn(value: f64) -> f64 {
    value
}

/// A runtime with `globalThis.later`, an async function that awaits `op_next_turn`
/// (optimized), and a tokio runtime to drive it in.
fn runtime_with_later() -> (Runtime, v8::Global<v8::Function>, tokio::runtime::Runtime) {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("embed").ops(&[op_next_turn::DECL, op_never::DECL])],
        ..Default::default()
    });
    runtime
        .execute_script(
            "later.js",
            "globalThis.later = async function (x) { return (await ops.op_next_turn(x)) + 1; };
             %PrepareFunctionForOptimization(later); later(1); later(2);
             %OptimizeFunctionOnNextCall(later); later(3);",
        )
        .expect("the function is defined");
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    tokio
        .block_on(runtime.run_event_loop())
        .expect("the warm-up settles");
    let later = runtime.global_function("later").expect("a function");
    (runtime, later, tokio)
}

/// Measures `batch`, which makes `per_batch` calls of `later` and sums their results, on one
/// runtime inside one tokio runtime: ns per call.
fn awaited(
    name: &'static str,
    count: u32,
    plan: &Plan,
    per_batch: u64,
    mut batch: impl AsyncFnMut(&mut Runtime, &v8::Global<v8::Function>) -> f64,
) -> BenchResult {
    let (mut runtime, later, tokio) = runtime_with_later();
    let call = |times: u64| {
        let sum = tokio.block_on(async {
            let mut sum = 0.0;
            for _ in 0..times * u64::from(count) / per_batch {
                sum += batch(&mut runtime, &later).await;
            }
            sum
        });
        std::hint::black_box(sum);
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call);
    BenchResult::from_samples(name, samples, allocs, bytes, calls, "n/a")
}

/// `call_and_await::<f64>(&later, (1.0,))`, one call after another: the call, a turn of the
/// loop, the promise's value converted.
fn rust_call_and_await(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    awaited(name, count, plan, 1, async |runtime, later| {
        runtime
            .call_and_await::<f64>(later, (1.0,))
            .await
            .expect("no throw")
    })
}

/// The same through `start_call` and `run_until`, one call in flight at a time.
fn rust_start_call(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    awaited(name, count, plan, 1, async |runtime, later| {
        let call = runtime.start_call::<f64>(later, (1.0,));
        runtime
            .run_until(call)
            .await
            .expect("the loop runs")
            .expect("no throw")
    })
}

/// 64 calls started, then all awaited together while the loop runs (as a server with 64
/// requests in flight): ns per call.
fn rust_start_call_64(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    const IN_FLIGHT: usize = 64;
    let mut calls = Vec::with_capacity(IN_FLIGHT);
    awaited(
        name,
        count,
        plan,
        IN_FLIGHT as u64,
        async |runtime, later| {
            calls.extend((0..IN_FLIGHT).map(|_| runtime.start_call::<f64>(later, (1.0,))));
            let mut sum = 0.0;
            for call in calls.drain(..) {
                sum += runtime
                    .run_until(call)
                    .await
                    .expect("the loop runs")
                    .expect("no throw");
            }
            sum
        },
    )
}

/// `count` calls started, each waiting for its turn, then settled one per turn of the loop
/// (a call from Rust settles the next, then the loop turns once) — a server with many
/// requests in flight, answered over time: what a turn costs with many calls in flight, ns
/// per call (the settling call and the turn included).
fn rust_start_call_staggered(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    let (mut runtime, _, tokio) = runtime_with_later();
    runtime
        .execute_script(
            "staggered.js",
            "globalThis.queued = [];
             globalThis.next = 0;
             globalThis.waitTurn = () => new Promise((resolve) => queued.push(resolve));
             globalThis.settleNext = () => { queued[next](next); next++; };
             globalThis.reset = () => { queued = []; next = 0; };
             // Keeps the loop from going idle while calls wait on nothing but Rust.
             globalThis.alive = ops.op_never();",
        )
        .expect("the functions are defined");
    let wait_turn = runtime.global_function("waitTurn").expect("a function");
    let settle_next = runtime.global_function("settleNext").expect("a function");
    let reset = runtime.global_function("reset").expect("a function");
    let in_flight = count as usize;
    let mut calls = Vec::with_capacity(in_flight);
    let call = |times: u64| {
        let sum = tokio.block_on(async {
            let mut sum = 0.0;
            for _ in 0..times {
                calls.extend((0..in_flight).map(|_| runtime.start_call::<f64>(&wait_turn, ())));
                for _ in 0..in_flight {
                    runtime.call::<()>(&settle_next, ()).expect("no throw");
                    std::future::poll_fn(|cx| {
                        let _ = runtime.poll_event_loop(cx);
                        std::task::Poll::Ready(())
                    })
                    .await;
                }
                for call in calls.drain(..) {
                    sum += call.await.expect("settled");
                }
                runtime.call::<()>(&reset, ()).expect("no throw");
            }
            sum
        });
        std::hint::black_box(sum);
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call);
    BenchResult::from_samples(name, samples, allocs, bytes, calls, "n/a")
}

/// A graph of 1,000 modules (`m0` imports `m1` and `m2`, ..., a tree with shared leaves),
/// loaded, linked and evaluated in a fresh runtime per batch: ns per whole graph.
fn load_modules(name: &'static str, count: u32, plan: &Plan) -> BenchResult {
    const MODULES: usize = 1000;
    let sources: Vec<(String, ModuleSource)> = (0..MODULES)
        .map(|index| {
            let imports: String = [2 * index + 1, 2 * index + 2]
                .into_iter()
                .filter(|&child| child < MODULES)
                .map(|child| format!("import {{ v as v{child} }} from './m{child}.js';\n"))
                .collect();
            let sum: String = [2 * index + 1, 2 * index + 2]
                .into_iter()
                .filter(|&child| child < MODULES)
                .map(|child| format!(" + v{child}"))
                .collect();
            let code = format!("{imports}export const v = 1{sum};\n");
            (format!("file:///graph/m{index}.js"), ModuleSource::js(code))
        })
        .collect();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let call = |times: u64| {
        for _ in 0..times * u64::from(count) {
            let mut runtime = Runtime::new(RuntimeOptions {
                module_loader: Some(Rc::new(StaticModuleLoader::new(sources.clone()))),
                ..Default::default()
            });
            tokio.block_on(async {
                let id = runtime
                    .load_main_module("file:///graph/m0.js")
                    .await
                    .expect("the graph loads");
                runtime.mod_evaluate(id).await.expect("the graph evaluates");
            });
        }
    };
    let (samples, allocs, bytes, calls) = crate::measure(plan, count, call);
    BenchResult::from_samples(name, samples, allocs, bytes, calls, "n/a")
}
