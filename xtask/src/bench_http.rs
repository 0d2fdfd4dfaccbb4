//! `cargo xtask bench-http [--quick] [--runs N] [--workers N] [--load-cpus N] ...`: the edge
//! workload (`shared/edge-workload/WORKLOAD.md`, version 2) under load: `edge-floor` and
//! `edge-js` (release builds) driven by oha 1.16.0, route (`hello`, `echo`, `kv`) ×
//! concurrency, the server pinned to CPU 0 (CPUs 0..N with `--workers N`) and oha to the next
//! CPU (the next N with `--load-cpus N`, so that the server is the bottleneck); RPS,
//! p50/p99, errors and the server's CPU per request (utime + stime over the measured run), with
//! the ratios to the floor and deno_core's figures from WORKLOAD.md beside them. Each metric is
//! the median of N runs per cell (3 by default, as WORKLOAD.md's figures are; 1 with
//! `--quick`), the floor and the JS server taking turns cell by cell so that the machine's
//! drift falls on both. `kv` rows are also read against their ceiling, concurrency / 5 ms (each
//! request awaits the store's 5 ms). Loopback only; every run is bounded in time and the
//! servers exit by themselves.
//!
//! A third server is `edge-js` serving version 3's standard fetch handler
//! (`examples/edge_server/fetch_handler.js`), with runtime_web's `Request` and `Response`.
//!
//! `--js-alone` adds a fourth server: `edge-js` running the handler with its ops replaced by
//! plain JavaScript functions (`bench_http/js_alone.js`), so that the JS server's excess over
//! the floor splits into what the handler's own JavaScript costs and what the op layer adds.

use std::path::{Path, PathBuf};
use std::process::{exit, Command};

mod platforms;
mod report;
mod server;

use platforms::Platforms;
use report::{json, reference_ratios, svg, table};
use server::{echo_body, run_cell};

const ID: &str = "0f8c2b1e-6d3a-4c5b-9e7f-a1b2c3d4e5f6";
const ROUTES: [&str; 3] = ["hello", "echo", "kv"];
/// The key `kv` requests read.
const KEY: &str = "bench-key_1";
/// How long the store takes to answer (`op_kv_get`): the `kv` ceiling is concurrency / this.
const KV_SECONDS: f64 = 0.005;
const CONCURRENCY: [u32; 3] = [1, 16, 64];

struct Cell {
    server: &'static str,
    route: &'static str,
    concurrency: u32,
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    responses: u64,
    errors: u64,
    cpu_us_per_request: f64,
}

const USAGE: &str = "usage: cargo xtask bench-http [--quick] [--runs <n>] [--workers <n>] \
[--load-cpus <n>] [--routes hello,echo,kv] [--concurrency 1,16,64] [--seconds <s>] [--no-build] \
[--js-alone] [--platforms]";

/// What a run measures; the defaults are WORKLOAD.md's grid.
struct Options {
    quick: bool,
    runs: usize,
    workers: usize,
    /// CPUs for oha, after the servers' (a server-bound run needs more than one).
    load_cpus: usize,
    routes: Vec<&'static str>,
    concurrency: Vec<u32>,
    /// Seconds measured per cell (after a warm-up of a fifth of it, at least 0.3 s).
    seconds: f64,
    /// Use the release binaries already in the target directory (a machine without cargo).
    build: bool,
    /// Also measure the handler with its ops as plain JavaScript (`js_alone.js`).
    js_alone: bool,
    /// Also measure deno, Bun and workerd serving the standard handler.
    platforms: bool,
}

fn options(args: Vec<String>) -> Options {
    let fail = |what: &str| -> ! {
        eprintln!("{what}; {USAGE}");
        exit(2)
    };
    let mut options = Options {
        quick: false,
        runs: 0,
        workers: 1,
        load_cpus: 1,
        routes: ROUTES.to_vec(),
        concurrency: CONCURRENCY.to_vec(),
        seconds: 0.0,
        build: true,
        js_alone: false,
        platforms: false,
    };
    let positive = |value: Option<String>, flag: &str| match value.and_then(|n| n.parse().ok()) {
        Some(n) if n > 0 => n,
        _ => fail(&format!("{flag} takes a positive number")),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--no-build" => options.build = false,
            "--js-alone" => options.js_alone = true,
            "--platforms" => options.platforms = true,
            "--runs" => options.runs = positive(args.next(), "--runs"),
            "--workers" => options.workers = positive(args.next(), "--workers"),
            "--load-cpus" => options.load_cpus = positive(args.next(), "--load-cpus"),
            "--seconds" => {
                options.seconds = positive(args.next(), "--seconds") as f64;
            }
            "--routes" => {
                let list = args.next().unwrap_or_default();
                options.routes = list
                    .split(',')
                    .map(|route| {
                        ROUTES
                            .into_iter()
                            .find(|known| *known == route)
                            .unwrap_or_else(|| fail(&format!("unknown route `{route}`")))
                    })
                    .collect();
            }
            "--concurrency" => {
                let list = args.next().unwrap_or_default();
                options.concurrency = list
                    .split(',')
                    .map(|c| positive(Some(c.to_owned()), "--concurrency") as u32)
                    .collect();
            }
            other => fail(&format!("unknown bench-http argument `{other}`")),
        }
    }
    if options.runs == 0 {
        options.runs = if options.quick { 1 } else { 3 };
    }
    if options.seconds == 0.0 {
        options.seconds = if options.quick { 1.0 } else { 10.0 };
    }
    options
}

pub fn bench_http(root: &Path, args: Vec<String>) {
    let Options {
        quick,
        runs,
        workers,
        load_cpus,
        routes,
        concurrency: concurrencies,
        seconds,
        build,
        js_alone,
        platforms,
    } = options(args);
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if workers + load_cpus > cpus {
        eprintln!(
            "--workers {workers} with --load-cpus {load_cpus} needs {} CPUs; this machine has {cpus}",
            workers + load_cpus
        );
        exit(2);
    }
    let (warm, measured) = ((seconds / 5.0).max(0.3), seconds);
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    if build {
        let built = Command::new(&cargo)
            .current_dir(root)
            .args(["build", "--release", "-p", "edge_server"])
            .status()
            .expect("cargo runs");
        if !built.success() {
            exit(1);
        }
    }
    let oha = target.join("oha/bin/oha");
    if !oha.exists() {
        eprintln!(
            "xtask: installing oha 1.16.0 into {}",
            target.join("oha").display()
        );
        let installed = Command::new(&cargo)
            .args([
                "install",
                "oha",
                "--version",
                "1.16.0",
                "--locked",
                "--root",
            ])
            .arg(target.join("oha"))
            .status()
            .expect("cargo runs");
        if !installed.success() {
            exit(1);
        }
    }
    let handler = root.join("examples/edge_server/handler.js");
    let fetch_handler = root.join("examples/edge_server/fetch_handler.js");
    let out = target.join("bench-http");
    let mut servers: Vec<&'static str> = vec!["floor", "js", "fetch"];
    if js_alone {
        servers.push("alone");
    }
    let platforms = platforms.then(|| {
        servers.extend(["deno", "bun", "workerd"]);
        Platforms::install(&target, &out, &fetch_handler)
    });
    let servers = servers.as_slice();
    // The --js-alone handlers, one per route, written once for every run.
    let alone_handlers: Vec<Option<PathBuf>> = routes
        .iter()
        .map(|route| js_alone.then(|| js_alone_handler(&handler, &out, route)))
        .collect();
    let mut measured_cells = Vec::new();
    for run in 1..=runs {
        for (&route, alone) in routes.iter().zip(&alone_handlers) {
            for &concurrency in &concurrencies {
                for &server in servers {
                    let seconds = (warm + measured) as u64 + 30;
                    let started = match (server, alone, &platforms) {
                        ("deno" | "bun" | "workerd", _, Some(platforms)) => {
                            platforms.start(server, workers, seconds)
                        }
                        (server, alone, _) => {
                            let (binary, handler) = match (server, alone) {
                                ("floor", _) => (target.join("release/edge-floor"), &handler),
                                ("alone", Some(alone)) => (target.join("release/edge-js"), alone),
                                ("fetch", _) => (target.join("release/edge-js"), &fetch_handler),
                                _ => (target.join("release/edge-js"), &handler),
                            };
                            server::start(&binary, handler, workers, seconds)
                        }
                    };
                    let cell = run_cell(
                        started,
                        &oha,
                        (workers, load_cpus),
                        server,
                        route,
                        concurrency,
                        warm,
                        measured,
                    );
                    eprintln!(
                        "run {run}/{runs} {server:>5} {route:>5} c={concurrency:<3} {:>9.0} rps  p50 {:.3} ms  p99 {:.3} ms  {:.2} µs CPU/request  errors {}",
                        cell.rps, cell.p50_ms, cell.p99_ms, cell.cpu_us_per_request, cell.errors
                    );
                    measured_cells.push(cell);
                }
            }
        }
    }
    let cells = medians(&measured_cells, servers, &routes, &concurrencies);
    let reference = reference_ratios(&root.join("../shared/edge-workload/WORKLOAD.md"));
    std::fs::create_dir_all(&out).expect("the output directory");
    let table = table(&cells, &reference, workers);
    println!("{table}");
    std::fs::write(out.join("results.json"), json(&cells, quick, runs, workers))
        .expect("results.json written");
    std::fs::write(out.join("report.svg"), svg(&cells, &reference)).expect("report.svg written");
    eprintln!("wrote {}/results.json and report.svg", out.display());
}

/// The `--js-alone` handler of `route` in `out/js-alone/<route>/`: a module that installs
/// `js_alone.js`'s stand-ins for the route's requests, then the workload's handler, copied
/// beside it (a handler imports only from its own directory). Returns the module's path.
fn js_alone_handler(handler: &Path, out: &Path, route: &str) -> PathBuf {
    let dir = out.join("js-alone").join(route);
    std::fs::create_dir_all(&dir).expect("the js-alone directory");
    // What oha sends (see `oha`), as the real op returns it: lowercase names, arrival order.
    let mut headers = vec![
        ("host", "127.0.0.1".to_owned()),
        ("accept", "*/*".to_owned()),
        ("user-agent", "edge-anchor/1".to_owned()),
    ];
    let (method, path) = match route {
        "hello" => {
            headers.push(("x-request-id", ID.to_owned()));
            ("GET", "/hello".to_owned())
        }
        "kv" => ("GET", format!("/kv/{KEY}")),
        _ => {
            headers.push(("content-type", "application/octet-stream".to_owned()));
            headers.push(("content-length", echo_body().len().to_string()));
            ("POST", "/echo".to_owned())
        }
    };
    let pairs: Vec<String> = headers
        .iter()
        .map(|(name, value)| format!("[{name:?}, {value:?}]"))
        .collect();
    let standins = include_str!("bench_http/js_alone.js")
        .replace("__METHOD__", method)
        .replace("__PATH__", &path)
        .replace("__HEADERS__", &format!("[{}]", pairs.join(", ")));
    std::fs::write(dir.join("standins.js"), standins).expect("standins.js written");
    std::fs::copy(handler, dir.join("handler.js")).expect("handler.js copied");
    let main = dir.join("main.js");
    // Imports evaluate in order: the stand-ins are in place when handler.js reads its ops.
    std::fs::write(
        &main,
        "import \"./standins.js\";\nexport { handle } from \"./handler.js\";\n",
    )
    .expect("main.js written");
    main
}

/// One cell per server, route and concurrency: each metric the median of its runs (responses
/// and errors summed), in the order the table and the JSON list them.
fn medians(
    runs: &[Cell],
    servers: &[&'static str],
    routes: &[&'static str],
    concurrencies: &[u32],
) -> Vec<Cell> {
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        let middle = values.len() / 2;
        if values.len().is_multiple_of(2) {
            (values[middle - 1] + values[middle]) / 2.0
        } else {
            values[middle]
        }
    };
    let mut cells = Vec::new();
    for &server in servers {
        for &route in routes {
            for &concurrency in concurrencies {
                let same: Vec<&Cell> = runs
                    .iter()
                    .filter(|cell| {
                        (cell.server, cell.route, cell.concurrency) == (server, route, concurrency)
                    })
                    .collect();
                let metric =
                    |read: fn(&Cell) -> f64| median(&mut same.iter().map(|c| read(c)).collect());
                cells.push(Cell {
                    server,
                    route,
                    concurrency,
                    rps: metric(|cell| cell.rps),
                    p50_ms: metric(|cell| cell.p50_ms),
                    p99_ms: metric(|cell| cell.p99_ms),
                    responses: same.iter().map(|cell| cell.responses).sum(),
                    errors: same.iter().map(|cell| cell.errors).sum(),
                    cpu_us_per_request: metric(|cell| cell.cpu_us_per_request),
                });
            }
        }
    }
    cells
}
