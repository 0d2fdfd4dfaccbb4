//! bench-ops: what one op call costs, per op kind, in ns, allocations and bytes.
//!
//! The harness is deno_core 0.413's `benches/ops/sync_harness.js`, changed only where the
//! binding differs (`ops` for `Deno.core.ops`): the op is read once into a `const`, a
//! same-named JavaScript wrapper calls it, and `bench()` makes COUNT calls of the wrapper,
//! summing into an accumulator of its own; both are optimized before timing, as deno does.
//! Every bench of deno's `ops_sync` is here under its own name (without `bench_`), with the
//! op's exact signature and the same JavaScript: the same 75-character literal, large strings
//! made by `repeat` (cons strings, not flattened), `new Uint8Array(1024)`, the external from
//! `op_make_external`. Benches whose kinds opwire lacks are listed as pending.
//!
//! The timer measures calls of `bench()` from Rust; each figure is divided by COUNT.
//! Allocations are counted over one more sample, untimed. A second
//! runtime with op call counters on runs `bench()` once more to report which path the
//! optimized code took.
//!
//! Run it with `cargo xtask bench-ops` (release build, output in `target/bench-ops/`).

mod async_benches;
mod class_ops;
mod embed_benches;
mod ops;
mod report;
mod rounds;
mod startup_benches;
mod structured_ops;
mod sync_benches;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use alloc_counter::{self, CountingAllocator};
use runtime_core::v8;

use report::{BenchResult, Results};
use sync_benches::{run_bench, Bench, BENCHES, COUNT};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Command-line options.
struct Options {
    filter: Option<String>,
    quick: bool,
    /// Which suite: deno's `ops_sync` (default), `--async` (its `ops_async`), `--startup`.
    suite: Suite,
    save_baseline: Option<String>,
    baseline: Option<String>,
    reference: Option<PathBuf>,
    out_dir: PathBuf,
    /// `--rounds N`: N processes, the best median of each bench (see `rounds.rs`).
    rounds: u32,
}

const USAGE: &str =
    "usage: bench-ops [--async|--startup] [--filter <substring>|=<name>[,...]] [--quick] [--save-baseline <name>] \
                     [--baseline <name>] [--reference <results.json>] [--out-dir <dir>] [--rounds <n>]";

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        filter: None,
        quick: false,
        suite: Suite::Sync,
        save_baseline: None,
        baseline: None,
        reference: None,
        out_dir: PathBuf::from("target/bench-ops"),
        rounds: 1,
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
            "--async" => options.suite = Suite::Async,
            "--startup" => options.suite = Suite::Startup,
            "--save-baseline" => options.save_baseline = Some(value("--save-baseline")?),
            "--baseline" => options.baseline = Some(value("--baseline")?),
            "--reference" => options.reference = Some(PathBuf::from(value("--reference")?)),
            "--out-dir" => options.out_dir = PathBuf::from(value("--out-dir")?),
            "--rounds" => {
                options.rounds = value("--rounds")?
                    .parse()
                    .ok()
                    .filter(|&rounds| rounds > 0)
                    .ok_or_else(|| format!("--rounds needs a positive whole number\n{USAGE}"))?
            }
            "--bench" => {} // passed by `cargo bench`; harmless
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(options)
}

/// How long to measure: the full run aims at stable medians, `--quick` only at running.
pub struct Plan {
    pub samples: usize,
    pub sample_time: Duration,
    pub count_divisor: u32,
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
    let reference = options.reference.as_ref().map(|path| {
        report::Reference::load(path).unwrap_or_else(|err| {
            eprintln!("cannot read the reference {}: {err}", path.display());
            std::process::exit(2);
        })
    });
    runtime_core::set_v8_flags(&["--allow-natives-syntax"])
        .expect("flags before the first runtime");

    // `=name` selects one bench by its whole name (a name may be part of others'); a comma
    // separates alternatives, so that an op and its floor run side by side in one process.
    let wanted = |name: &str| {
        options.filter.as_deref().is_none_or(|filter| {
            filter
                .split(',')
                .any(|filter| match filter.strip_prefix('=') {
                    Some(exact) => name == exact,
                    None => name.contains(filter),
                })
        })
    };
    let selected: Vec<&Bench> = match options.suite {
        Suite::Sync => BENCHES.iter().filter(|b| wanted(b.name)).collect(),
        Suite::Async | Suite::Startup => Vec::new(),
    };
    let selected_async: Vec<&async_benches::AsyncBench> = match options.suite {
        Suite::Async => async_benches::BENCHES
            .iter()
            .filter(|b| wanted(b.name))
            .collect(),
        Suite::Sync | Suite::Startup => Vec::new(),
    };
    let selected_embed: Vec<&embed_benches::EmbedBench> = match options.suite {
        Suite::Sync => embed_benches::BENCHES
            .iter()
            .filter(|b| wanted(b.name))
            .collect(),
        Suite::Async | Suite::Startup => Vec::new(),
    };
    let selected_startup: Vec<&startup_benches::StartupBench> = match options.suite {
        Suite::Startup => startup_benches::BENCHES
            .iter()
            .filter(|b| wanted(b.name))
            .collect(),
        Suite::Sync | Suite::Async => Vec::new(),
    };
    if selected.is_empty()
        && selected_async.is_empty()
        && selected_embed.is_empty()
        && selected_startup.is_empty()
    {
        eprintln!("no bench matches the filter");
        std::process::exit(2);
    }

    let (results, pending) = if options.rounds > 1 {
        let args = rounds::RoundArgs {
            filter: options.filter.as_deref(),
            quick: options.quick,
            suite: options.suite,
            out_dir: &options.out_dir,
        };
        rounds::best_of(options.rounds, &args).unwrap_or_else(|message| {
            eprintln!("{message}");
            std::process::exit(1);
        })
    } else if options.suite == Suite::Startup {
        startup_benches::run(&selected_startup, &plan)
    } else {
        run_selected(&selected, &selected_async, &selected_embed, &plan)
    };

    let mode = match (options.quick, options.suite) {
        (false, Suite::Sync) => "full",
        (true, Suite::Sync) => "quick",
        (false, Suite::Async) => "async full",
        (true, Suite::Async) => "async quick",
        (false, Suite::Startup) => "startup full",
        (true, Suite::Startup) => "startup quick",
    };
    let results = Results {
        mode: match options.rounds {
            1 => mode.to_owned(),
            rounds => format!("{mode}, best of {rounds} rounds"),
        },
        commit: report::git_commit(),
        date: report::utc_now(),
        v8: v8::V8::get_version().to_owned(),
        results,
        pending,
    };
    let previous_path = match &options.baseline {
        Some(name) => options
            .out_dir
            .join("baselines")
            .join(format!("{name}.json")),
        None => options.out_dir.join(options.suite.results_file()),
    };
    let previous = Results::load(&previous_path);
    if options.baseline.is_some() && previous.is_none() {
        eprintln!("warning: no baseline at {}", previous_path.display());
    }
    let previous = previous.filter(|previous| {
        let same = previous.mode == results.mode;
        if !same {
            eprintln!(
                "note: {} is a {} run; no Δ% against this {} run",
                previous_path.display(),
                previous.mode,
                results.mode
            );
        }
        same
    });
    println!(
        "{}",
        report::table(&results, previous.as_ref(), reference.as_ref())
    );

    std::fs::create_dir_all(&options.out_dir).expect("create the output directory");
    results.save(&options.out_dir.join(options.suite.results_file()));
    std::fs::write(
        options.out_dir.join(options.suite.report_file()),
        report::svg(&results, reference.as_ref()),
    )
    .expect("write report.svg");
    if let Some(name) = &options.save_baseline {
        let dir = options.out_dir.join("baselines");
        std::fs::create_dir_all(&dir).expect("create the baselines directory");
        results.save(&dir.join(format!("{name}.json")));
    }
    eprintln!(
        "wrote {}/{}",
        options.out_dir.display(),
        options.suite.results_file()
    );
}

/// Runs the selected benches in this process, in order.
fn run_selected(
    selected: &[&Bench],
    selected_async: &[&async_benches::AsyncBench],
    selected_embed: &[&embed_benches::EmbedBench],
    plan: &Plan,
) -> (Vec<BenchResult>, Vec<report::Pending>) {
    let mut results = Vec::new();
    let mut pending = Vec::new();
    for (index, bench) in selected.iter().enumerate() {
        eprint!("[{}/{}] {:<38}", index + 1, selected.len(), bench.name);
        if let Some(why) = bench.pending {
            eprintln!("   pending: {why}");
            pending.push(report::Pending {
                name: bench.name.to_owned(),
                why: why.to_owned(),
            });
            continue;
        }
        let count = (bench.count / plan.count_divisor).max(1);
        let result = run_bench(bench, count, plan);
        eprintln!("{:>10.2} ns/call", result.ns_per_call);
        results.push(result);
    }
    for (index, bench) in selected_async.iter().enumerate() {
        eprint!(
            "[{}/{}] {:<38}",
            index + 1,
            selected_async.len(),
            bench.name
        );
        let count = (bench.count.unwrap_or(COUNT) / plan.count_divisor).max(1);
        let result = async_benches::run_bench(bench, count, plan);
        eprintln!("{:>10.2} ns/call", result.ns_per_call);
        results.push(result);
    }
    for (index, bench) in selected_embed.iter().enumerate() {
        eprint!(
            "[{}/{}] {:<38}",
            index + 1,
            selected_embed.len(),
            bench.name
        );
        let count = (bench.count / plan.count_divisor).max(1);
        let result = bench.run(count, plan);
        eprintln!("{:>10.2} ns/call", result.ns_per_call);
        results.push(result);
    }

    (results, pending)
}

/// A set of benches run together, with files of its own.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// deno's `ops_sync` rows, the floors and the embedding rows.
    Sync,
    /// deno's `ops_async` rows.
    Async,
    /// What a runtime costs to make (`startup_benches.rs`).
    Startup,
}

impl Suite {
    /// Where its results go.
    pub fn results_file(self) -> &'static str {
        match self {
            Suite::Sync => "results.json",
            Suite::Async => "results-async.json",
            Suite::Startup => "results-startup.json",
        }
    }

    fn report_file(self) -> &'static str {
        match self {
            Suite::Sync => "report.svg",
            Suite::Async => "report-async.svg",
            Suite::Startup => "report-startup.svg",
        }
    }

    /// Its command-line flag, if any.
    pub fn flag(self) -> Option<&'static str> {
        match self {
            Suite::Sync => None,
            Suite::Async => Some("--async"),
            Suite::Startup => Some("--startup"),
        }
    }
}

/// Times `call_bench(n)` (n calls of `bench()`, each making `count` op calls): enough calls
/// per sample to fill the sample time, with allocation counting off (the counter's own work
/// would be timed too, and deno's harness has none); allocations counted over one more
/// sample. Returns (ns per op call of each sample, allocations, bytes, op calls counted).
pub fn measure(
    plan: &Plan,
    count: u32,
    mut call_bench: impl FnMut(u64),
) -> (Vec<f64>, u64, u64, u64) {
    let start = Instant::now();
    call_bench(1);
    let one = start.elapsed().max(Duration::from_nanos(100));
    let per_sample = (plan.sample_time.as_nanos() / one.as_nanos()).max(1) as u64;
    let mut samples = Vec::with_capacity(plan.samples);
    for _ in 0..plan.samples {
        let start = Instant::now();
        call_bench(per_sample);
        let ns = start.elapsed().as_nanos() as f64;
        samples.push(ns / (per_sample * u64::from(count)) as f64);
    }
    let (calls, allocs, bytes) = alloc_counter::count(|| {
        call_bench(per_sample);
        per_sample * u64::from(count)
    });
    (samples, allocs, bytes, calls)
}
