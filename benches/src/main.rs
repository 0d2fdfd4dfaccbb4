//! bench-ops: what one op call costs, per op kind, in ns, allocations and bytes.
//!
//! Each bench is a JavaScript `bench()` that makes COUNT calls of one op through a small JS
//! wrapper; both are optimized with `%PrepareFunctionForOptimization` /
//! `%OptimizeFunctionOnNextCall` before timing. The timer measures calls of `bench()` from Rust;
//! every figure is divided by the number of op calls. A second runtime with op call counters on
//! runs the same code once more to report which path (fast, slow) the optimized code took.
//!
//! Run it with `cargo xtask bench-ops` (release build, output in `target/bench-ops/`).

mod ops;
mod report;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use runtime_core::alloc_counter::{self, CountingAllocator};
use runtime_core::{v8, Runtime, RuntimeOptions};

use report::{BenchResult, Results};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// One benchmark: JavaScript around one op call.
struct Bench {
    name: &'static str,
    what: What,
}

/// What a bench runs.
struct What {
    /// JavaScript run once before the bench.
    setup: &'static str,
    /// The wrapper body's expression, with `i` the loop index.
    call: &'static str,
    /// The op whose counters tell the path taken (none for the floors and the baseline).
    op: Option<&'static str>,
    /// Calls of the op per `bench()`.
    count: u32,
}

/// A bench calling `op` on `S`, a value made in setup (for strings: flattened, as a literal
/// would be).
const fn with_setup(
    string: &'static str,
    op: &'static str,
    call: &'static str,
    count: u32,
) -> What {
    What {
        setup: string,
        call,
        op: Some(op),
        count,
    }
}

/// Setup for the string benches: `S` flat, so that one-byte strings can take the fast path
/// (`repeat` alone makes a cons string, which V8 never passes to a fast call).
macro_rules! string_setup {
    ($expr:literal) => {
        concat!("const S = %FlattenString(", $expr, ");")
    };
}

const fn js(call: &'static str, op: &'static str) -> What {
    What {
        setup: "",
        call,
        op: Some(op),
        count: 1000,
    }
}

const BENCHES: &[Bench] = &[
    Bench {
        name: "baseline",
        what: What {
            setup: "",
            // `| 0` keeps the sum a small integer: a growing double would deoptimize the loop.
            call: "accum = (accum + i) | 0",
            op: None,
            count: 1000,
        },
    },
    Bench {
        name: "op_void",
        what: js("ops.op_void()", "op_void"),
    },
    Bench {
        name: "op_void_nofast",
        what: js("ops.op_void_nofast()", "op_void_nofast"),
    },
    Bench {
        name: "op_u32",
        what: js("ops.op_u32(i)", "op_u32"),
    },
    Bench {
        name: "op_option_u32",
        what: js("ops.op_option_u32(i)", "op_option_u32"),
    },
    Bench {
        name: "op_bigint",
        what: js("ops.op_bigint(1234567890123n)", "op_bigint"),
    },
    Bench {
        name: "op_bigint_return",
        what: js("ops.op_bigint_return()", "op_bigint_return"),
    },
    Bench {
        name: "op_string",
        what: with_setup(
            string_setup!("'x'.repeat(75)"),
            "op_string",
            "ops.op_string(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_large_1000",
        what: with_setup(
            string_setup!("'x'.repeat(1000)"),
            "op_string",
            "ops.op_string(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_large_1000000",
        what: with_setup(
            string_setup!("'x'.repeat(1000000)"),
            "op_string",
            "ops.op_string(S)",
            5,
        ),
    },
    Bench {
        name: "op_string_large_utf8_1000",
        what: with_setup(
            string_setup!("'\\u1000'.repeat(1000)"),
            "op_string",
            "ops.op_string(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_large_utf8_1000000",
        what: with_setup(
            string_setup!("'\\u1000'.repeat(1000000)"),
            "op_string",
            "ops.op_string(S)",
            5,
        ),
    },
    // Not in the original list: Latin-1 strings whose UTF-8 fits the stack buffer, to measure
    // its size against lending the thread-local buffer (README, "String buffer size").
    Bench {
        name: "op_string_latin1_100",
        what: with_setup(
            string_setup!("'é'.repeat(100)"),
            "op_string",
            "ops.op_string(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_latin1_400",
        what: with_setup(
            string_setup!("'é'.repeat(400)"),
            "op_string",
            "ops.op_string(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_onebyte",
        what: with_setup(
            string_setup!("'x'.repeat(75)"),
            "op_string_onebyte",
            "ops.op_string_onebyte(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_onebyte_large_1000",
        what: with_setup(
            string_setup!("'x'.repeat(1000)"),
            "op_string_onebyte",
            "ops.op_string_onebyte(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_onebyte_large_1000000",
        what: with_setup(
            string_setup!("'x'.repeat(1000000)"),
            "op_string_onebyte",
            "ops.op_string_onebyte(S)",
            5,
        ),
    },
    Bench {
        name: "op_string_bytestring",
        what: with_setup(
            string_setup!("'x'.repeat(75)"),
            "op_string_bytestring",
            "ops.op_string_bytestring(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_owned",
        what: with_setup(
            string_setup!("'x'.repeat(75)"),
            "op_string_owned",
            "ops.op_string_owned(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_owned_large_1000",
        what: with_setup(
            string_setup!("'x'.repeat(1000)"),
            "op_string_owned",
            "ops.op_string_owned(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_owned_large_utf8_1000",
        what: with_setup(
            string_setup!("'\\u1000'.repeat(1000)"),
            "op_string_owned",
            "ops.op_string_owned(S)",
            1000,
        ),
    },
    Bench {
        name: "op_string_option_u32",
        what: with_setup(
            string_setup!("'x'.repeat(75)"),
            "op_string_option_u32",
            "ops.op_string_option_u32(S, i)",
            1000,
        ),
    },
    Bench {
        name: "op_string_return",
        what: js("ops.op_string_return()", "op_string_return"),
    },
    Bench {
        name: "op_string_return_large_1000",
        what: js(
            "ops.op_string_return_large_1000()",
            "op_string_return_large_1000",
        ),
    },
    Bench {
        name: "op_string_return_utf8_1000",
        what: js(
            "ops.op_string_return_utf8_1000()",
            "op_string_return_utf8_1000",
        ),
    },
    Bench {
        name: "op_static_str_return",
        what: js("ops.op_static_str_return()", "op_static_str_return"),
    },
    Bench {
        name: "op_local",
        what: with_setup("const S = {};", "op_local", "ops.op_local(S)", 1000),
    },
    Bench {
        name: "op_local_nofast",
        what: with_setup(
            "const S = {};",
            "op_local_nofast",
            "ops.op_local_nofast(S)",
            1000,
        ),
    },
    Bench {
        name: "op_scope",
        what: js("ops.op_scope()", "op_scope"),
    },
    Bench {
        name: "op_external",
        what: with_setup(
            "const S = ops.op_make_external();",
            "op_external",
            "ops.op_external(S)",
            1000,
        ),
    },
    Bench {
        name: "op_external_nofast",
        what: with_setup(
            "const S = ops.op_make_external();",
            "op_external_nofast",
            "ops.op_external_nofast(S)",
            1000,
        ),
    },
    Bench {
        name: "op_buffer",
        what: with_setup(
            "const S = new Uint8Array(1024);",
            "op_buffer",
            "ops.op_buffer(S)",
            1000,
        ),
    },
    Bench {
        name: "op_buffer_nofast",
        what: with_setup(
            "const S = new Uint8Array(1024);",
            "op_buffer_nofast",
            "ops.op_buffer_nofast(S)",
            1000,
        ),
    },
    Bench {
        name: "op_arraybuffer",
        what: with_setup(
            "const S = new ArrayBuffer(1024);",
            "op_arraybuffer",
            "ops.op_arraybuffer(S)",
            1000,
        ),
    },
    Bench {
        name: "floor_raw_fast_call",
        what: What {
            setup: "",
            call: "raw_fast_noop()",
            op: None,
            count: 1000,
        },
    },
    Bench {
        name: "floor_js_call",
        what: What {
            setup: "function js_noop(x) { return x; } %NeverOptimizeFunction(js_noop);",
            call: "js_noop(i)",
            op: None,
            count: 1000,
        },
    },
];

/// Command-line options.
struct Options {
    filter: Option<String>,
    quick: bool,
    save_baseline: Option<String>,
    baseline: Option<String>,
    out_dir: PathBuf,
}

const USAGE: &str = "usage: bench-ops [--filter <substring>] [--quick] [--save-baseline <name>] \
                     [--baseline <name>] [--out-dir <dir>]";

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        filter: None,
        quick: false,
        save_baseline: None,
        baseline: None,
        out_dir: PathBuf::from("target/bench-ops"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--filter" => options.filter = Some(value("--filter")?),
            "--quick" => options.quick = true,
            "--save-baseline" => options.save_baseline = Some(value("--save-baseline")?),
            "--baseline" => options.baseline = Some(value("--baseline")?),
            "--out-dir" => options.out_dir = PathBuf::from(value("--out-dir")?),
            "--bench" => {} // passed by `cargo bench`; harmless
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(options)
}

/// How long to measure: the full run aims at stable medians, `--quick` only at running.
struct Plan {
    samples: usize,
    sample_time: Duration,
    count_divisor: u32,
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let plan = if options.quick {
        Plan {
            samples: 3,
            sample_time: Duration::from_millis(1),
            count_divisor: 10,
        }
    } else {
        Plan {
            samples: 25,
            sample_time: Duration::from_millis(20),
            count_divisor: 1,
        }
    };
    runtime_core::set_v8_flags(&["--allow-natives-syntax"])
        .expect("flags before the first runtime");

    let selected: Vec<&Bench> = BENCHES
        .iter()
        .filter(|bench| {
            options
                .filter
                .as_deref()
                .is_none_or(|filter| bench.name.contains(filter))
        })
        .collect();
    if selected.is_empty() {
        eprintln!("no bench matches the filter");
        std::process::exit(2);
    }

    let mut results = Vec::new();
    for (index, bench) in selected.iter().enumerate() {
        eprint!("[{}/{}] {:<34}", index + 1, selected.len(), bench.name);
        let What {
            setup,
            call,
            op,
            count,
        } = bench.what;
        let count = (count / plan.count_divisor).max(1);
        let result = run_bench(bench.name, setup, call, op, count, &plan);
        eprintln!("{:>10.2} ns/call", result.ns_per_call);
        results.push(result);
    }

    let results = Results {
        v8: v8::V8::get_version().to_owned(),
        results,
    };
    let previous_path = match &options.baseline {
        Some(name) => options
            .out_dir
            .join("baselines")
            .join(format!("{name}.json")),
        None => options.out_dir.join("results.json"),
    };
    let previous = Results::load(&previous_path);
    if options.baseline.is_some() && previous.is_none() {
        eprintln!("warning: no baseline at {}", previous_path.display());
    }
    println!("{}", report::table(&results, previous.as_ref()));

    std::fs::create_dir_all(&options.out_dir).expect("create the output directory");
    results.save(&options.out_dir.join("results.json"));
    std::fs::write(options.out_dir.join("report.svg"), report::svg(&results))
        .expect("write report.svg");
    if let Some(name) = &options.save_baseline {
        let dir = options.out_dir.join("baselines");
        std::fs::create_dir_all(&dir).expect("create the baselines directory");
        results.save(&dir.join(format!("{name}.json")));
    }
    eprintln!(
        "wrote {}/results.json and report.svg",
        options.out_dir.display()
    );
}

/// The JavaScript of one bench: a wrapper around the call and `bench()` looping over it, both
/// optimized before anything is measured.
fn bench_source(setup: &str, call: &str, count: u32) -> String {
    format!(
        "{setup}
        globalThis.accum = 0;
        function wrapper(i) {{ {call}; }}
        function bench() {{ for (let i = 0; i < {count}; i++) wrapper(i); }}
        %PrepareFunctionForOptimization(wrapper);
        %PrepareFunctionForOptimization(bench);
        bench(); bench();
        %OptimizeFunctionOnNextCall(wrapper);
        %OptimizeFunctionOnNextCall(bench);
        bench();
        bench"
    )
}

fn new_runtime(op_call_counters: bool) -> Runtime {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![ops::extension()],
        op_call_counters,
        ..Default::default()
    });
    runtime.with_scope(ops::install_raw_fast_noop);
    runtime
}

fn run_bench(
    name: &'static str,
    setup: &str,
    call: &str,
    op: Option<&str>,
    count: u32,
    plan: &Plan,
) -> BenchResult {
    let source = bench_source(setup, call, count);
    let path = op.map_or("n/a", |op| path_taken(&source, op));

    let mut runtime = new_runtime(false);
    let bench = runtime
        .execute_script(name, &source)
        .unwrap_or_else(|err| panic!("{name}: {err}"));
    let (samples, allocs, bytes, calls) = runtime.with_scope(|scope| {
        let bench = v8::Local::new(scope, &bench);
        let bench = v8::Local::<v8::Function>::try_from(bench).expect("the script ends with bench");
        let receiver = v8::undefined(scope).into();
        let mut call_bench = |times: u64| {
            v8::scope!(let scope, scope);
            for _ in 0..times {
                bench
                    .call(scope, receiver, &[])
                    .expect("bench() does not throw");
            }
        };
        // Calibrate: enough bench() calls per sample to fill the sample time.
        let start = Instant::now();
        call_bench(1);
        let one = start.elapsed().max(Duration::from_nanos(100));
        let per_sample = (plan.sample_time.as_nanos() / one.as_nanos()).max(1) as u64;

        // Made before counting starts: only what the op calls allocate is counted.
        let mut samples = Vec::with_capacity(plan.samples);
        let (calls, allocs, bytes) = alloc_counter::count(|| {
            for _ in 0..plan.samples {
                let start = Instant::now();
                call_bench(per_sample);
                let ns = start.elapsed().as_nanos() as f64;
                samples.push(ns / (per_sample * u64::from(count)) as f64);
            }
            plan.samples as u64 * per_sample * u64::from(count)
        });
        (samples, allocs, bytes, calls)
    });
    BenchResult::from_samples(name, samples, allocs, bytes, calls, path)
}

/// Runs the bench once more in a runtime with op call counters on: which path did the
/// optimized `bench()` take?
fn path_taken(source: &str, op: &str) -> &'static str {
    let mut runtime = new_runtime(true);
    runtime
        .execute_script("path", source)
        .expect("bench source runs");
    runtime.reset_op_call_counts();
    runtime
        .execute_script("path", "bench()")
        .expect("bench() runs");
    let counts = runtime.op_call_counts(op).expect("the op is registered");
    match (counts.fast, counts.slow) {
        (_, 0) if counts.fast > 0 => "fast",
        (0, _) => "slow",
        _ => "mixed",
    }
}
