//! `--startup`: what a runtime costs before its first op call. Each row makes a runtime, runs
//! one script (calling `op_0(1, 2)` when it has ops, as deno's reference figures do) and
//! drops it; the rows take turns, one runtime each, so that drift on a noisy machine moves
//! them alike. The floor is a bare isolate and context running one script; the snapshot rows
//! with the bootstrap have a floor of their own, the same from a snapshot rusty_v8 made alone
//! of a context that ran the same bootstrap (`startup_raw_v8_snapshot_1mb_js`).
//!
//! The ops are generated (`gen_ops.rs`, five shapes cycled), compiled only with the
//! `startup_ops` feature; the snapshot rows start from a blob made once, before timing, whose
//! bootstrap ran 1 MB of JavaScript.

use std::time::Instant;

use runtime_core::{v8, Extension, OpDecl, Runtime, RuntimeOptions, SnapshotBuilder};

use crate::report::{BenchResult, Pending};
use crate::Plan;

mod generated {
    #![allow(clippy::all, unused_imports)]
    use runtime_core::{op, OpState};
    include!(concat!(env!("OUT_DIR"), "/startup_ops.rs"));
}

/// One row: how its runtime starts.
pub struct StartupBench {
    pub name: &'static str,
    start: Start,
}

#[derive(Clone, Copy)]
enum Start {
    /// A bare isolate and context: the floor.
    Floor,
    /// A bare isolate and context from a snapshot made with rusty_v8 alone, of a context that
    /// ran the bootstrap: the floor of the snapshot rows with the bootstrap.
    RawSnapshot,
    /// `Runtime::new` with this many ops, running the bootstrap each time if `bootstrap`.
    Fresh { ops: usize, bootstrap: bool },
    /// `Runtime::new` from a snapshot of a runtime with this many ops (that ran the bootstrap
    /// if `bootstrap`).
    Snapshot { ops: usize, bootstrap: bool },
}

pub const BENCHES: &[StartupBench] = &[
    StartupBench {
        name: "startup_bare_isolate",
        start: Start::Floor,
    },
    StartupBench {
        name: "startup_runtime_0_ops",
        start: Start::Fresh {
            ops: 0,
            bootstrap: false,
        },
    },
    StartupBench {
        name: "startup_runtime_100_ops",
        start: Start::Fresh {
            ops: 100,
            bootstrap: false,
        },
    },
    StartupBench {
        name: "startup_runtime_1000_ops",
        start: Start::Fresh {
            ops: 1000,
            bootstrap: false,
        },
    },
    StartupBench {
        name: "startup_runtime_1000_ops_1mb_js",
        start: Start::Fresh {
            ops: 1000,
            bootstrap: true,
        },
    },
    StartupBench {
        name: "startup_snapshot_0_ops",
        start: Start::Snapshot {
            ops: 0,
            bootstrap: false,
        },
    },
    StartupBench {
        name: "startup_snapshot_1000_ops",
        start: Start::Snapshot {
            ops: 1000,
            bootstrap: false,
        },
    },
    StartupBench {
        name: "startup_snapshot_0_ops_1mb_js",
        start: Start::Snapshot {
            ops: 0,
            bootstrap: true,
        },
    },
    StartupBench {
        name: "startup_snapshot_1000_ops_1mb_js",
        start: Start::Snapshot {
            ops: 1000,
            bootstrap: true,
        },
    },
    StartupBench {
        name: "startup_raw_v8_snapshot_1mb_js",
        start: Start::RawSnapshot,
    },
];

/// About 1 MB of bootstrap JavaScript, shaped like library code: per unit (about 1 KB) a
/// class with a constructor and four methods, two helpers and a small table; every tenth
/// unit used once (so that the heap holds compiled code and instances too).
fn bootstrap_js() -> String {
    let mut js = String::from("globalThis.lib = {};\n");
    let mut unit = 0;
    while js.len() < 1 << 20 {
        js.push_str(&format!(
            r#"(function () {{
  const LIMITS{unit} = {{ min: {unit}, max: {unit} + 1000, name: "unit-{unit}" }};
  function clamp{unit}(value) {{
    if (value < LIMITS{unit}.min) return LIMITS{unit}.min;
    return value > LIMITS{unit}.max ? LIMITS{unit}.max : value;
  }}
  function describe{unit}(item) {{
    return `${{LIMITS{unit}.name}}: ${{item.id}} (${{item.tags.join(", ")}})`;
  }}
  class Store{unit} {{
    constructor(capacity) {{
      this.capacity = clamp{unit}(capacity);
      this.items = new Map();
    }}
    add(id, tags) {{
      if (this.items.size >= this.capacity) throw new RangeError("store {unit} is full");
      const item = {{ id, tags: [...tags], added: this.items.size }};
      this.items.set(id, item);
      return item;
    }}
    get(id) {{
      const item = this.items.get(id);
      return item === undefined ? null : describe{unit}(item);
    }}
    remove(id) {{
      return this.items.delete(id);
    }}
    *entries() {{
      for (const [id, item] of this.items) yield [id, describe{unit}(item)];
    }}
  }}
  lib.Store{unit} = Store{unit};
  if ({unit} % 10 === 0) {{
    const store = new Store{unit}(10);
    store.add("a", ["x", "y"]);
    lib.sample{unit} = store.get("a");
  }}
}})();
"#
        ));
        unit += 1;
    }
    js
}

/// An isolate made with `params` and a context running one script, with rusty_v8 alone.
fn bare_start(params: v8::CreateParams) {
    let mut isolate = v8::Isolate::new(params);
    {
        v8::scope!(let scope, &mut isolate);
        let context = v8::Context::new(scope, Default::default());
        let scope = &mut v8::ContextScope::new(scope, context);
        let source = v8::String::new(scope, "1 + 1").expect("a short string");
        let script = v8::Script::compile(scope, source, None).expect("it compiles");
        std::hint::black_box(script.run(scope));
    }
    drop(isolate);
}

/// A V8 snapshot of a default context that ran `bootstrap`, made with rusty_v8 alone (as
/// `Runtime` makes its own: code kept).
fn raw_snapshot(bootstrap: &str) -> &'static [u8] {
    let mut isolate = v8::Isolate::snapshot_creator(None, None);
    {
        v8::scope!(let scope, &mut isolate);
        let context = v8::Context::new(scope, Default::default());
        {
            let scope = &mut v8::ContextScope::new(scope, context);
            let source = v8::String::new(scope, bootstrap).expect("the bootstrap fits a string");
            let script = v8::Script::compile(scope, source, None).expect("the bootstrap compiles");
            script.run(scope).expect("the bootstrap runs");
        }
        scope.set_default_context(context);
    }
    let blob = isolate
        .create_blob(v8::FunctionCodeHandling::Keep)
        .expect("V8 makes the snapshot");
    eprintln!("(raw V8 snapshot: {} bytes)", blob.len());
    Box::leak(blob.to_vec().into_boxed_slice())
}

fn options(ops: &'static [OpDecl]) -> RuntimeOptions {
    RuntimeOptions {
        extensions: vec![Extension::new("generated").ops(ops)],
        ..Default::default()
    }
}

/// A made runtime's first script.
fn first_script(ops: usize) -> &'static str {
    if ops > 0 {
        "ops.op_0(1, 2)"
    } else {
        "1 + 1"
    }
}

/// Runs the selected rows, interleaved; rows whose ops were not compiled are pending.
pub fn run(selected: &[&StartupBench], plan: &Plan) -> (Vec<BenchResult>, Vec<Pending>) {
    runtime_core::init_v8();
    let available = generated::GENERATED_OPS.len();
    let (runnable, skipped): (Vec<&StartupBench>, Vec<&StartupBench>) =
        selected.iter().partition(|bench| match bench.start {
            Start::Floor | Start::RawSnapshot => true,
            Start::Fresh { ops, .. } | Start::Snapshot { ops, .. } => ops <= available,
        });
    let pending = skipped
        .iter()
        .map(|bench| Pending {
            name: bench.name.to_owned(),
            why: "its ops are compiled with the startup_ops feature (cargo xtask bench-ops --startup)"
                .to_owned(),
        })
        .collect();
    let bootstrap = bootstrap_js();
    let mut starters: Vec<Box<dyn FnMut()>> = runnable
        .iter()
        .map(|bench| starter(bench.start, &bootstrap))
        .collect();
    let runs = if plan.count_divisor > 1 { 10 } else { 200 };
    for _ in 0..runs / 10 {
        for start in &mut starters {
            start();
        }
    }
    // Rows take turns (the machine's drift falls on all), but each timed start follows an
    // untimed one of its own row: a start timed right after another row's paid for that row's
    // aftermath (its heap pages handed back, V8's background threads finishing its work), which
    // made the bare isolate read markedly slower than run alone.
    let mut samples = vec![Vec::with_capacity(runs); starters.len()];
    for _ in 0..runs {
        for (start, samples) in starters.iter_mut().zip(&mut samples) {
            start();
            let began = Instant::now();
            start();
            samples.push(began.elapsed().as_nanos() as f64);
        }
    }
    let results = runnable
        .iter()
        .zip(samples)
        .zip(&mut starters)
        .map(|((bench, samples), start)| {
            let (calls, allocs, bytes) = alloc_counter::count(|| {
                start();
                1
            });
            eprintln!("{:<40}{:>10.0} ns", bench.name, median(&samples));
            BenchResult::from_samples(bench.name, samples, allocs, bytes, calls, "n/a")
        })
        .collect();
    (results, pending)
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// What one run of a row does (a snapshot row's blob made here, once).
fn starter(start: Start, bootstrap: &str) -> Box<dyn FnMut()> {
    match start {
        Start::Floor => Box::new(|| bare_start(v8::CreateParams::default())),
        Start::RawSnapshot => {
            let blob = raw_snapshot(bootstrap);
            Box::new(move || bare_start(v8::CreateParams::default().snapshot_blob(blob.into())))
        }
        Start::Fresh {
            ops,
            bootstrap: run_bootstrap,
        } => {
            let ops = &generated::GENERATED_OPS[..ops];
            let bootstrap = run_bootstrap.then(|| bootstrap.to_owned());
            Box::new(move || {
                let mut runtime = Runtime::new(options(ops));
                if let Some(bootstrap) = &bootstrap {
                    runtime
                        .execute_script("bootstrap.js", bootstrap)
                        .expect("the bootstrap runs");
                }
                std::hint::black_box(
                    runtime
                        .execute_script("first.js", first_script(ops.len()))
                        .expect("it runs"),
                );
            })
        }
        Start::Snapshot {
            ops,
            bootstrap: run_bootstrap,
        } => {
            let ops = &generated::GENERATED_OPS[..ops];
            let mut builder = SnapshotBuilder::new(options(ops)).expect("a snapshot builder");
            if run_bootstrap {
                builder
                    .execute_script("bootstrap.js", bootstrap)
                    .expect("the bootstrap runs");
            }
            let blob: &'static [u8] = Box::leak(
                builder
                    .build()
                    .expect("the snapshot is made")
                    .into_boxed_slice(),
            );
            eprintln!("(snapshot of {} ops: {} bytes)", ops.len(), blob.len());
            Box::new(move || {
                let mut runtime = Runtime::new(RuntimeOptions {
                    startup_snapshot: Some(blob.into()),
                    ..options(ops)
                });
                std::hint::black_box(
                    runtime
                        .execute_script("first.js", first_script(ops.len()))
                        .expect("it runs"),
                );
            })
        }
    }
}
