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
//! `--js-alone` adds a third server: `edge-js` running the handler with its ops replaced by
//! plain JavaScript functions (`bench_http/js_alone.js`), so that the JS server's excess over
//! the floor splits into what the handler's own JavaScript costs and what the op layer adds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{exit, Child, Command, Stdio};
use std::time::Duration;

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
[--js-alone]";

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
    let out = target.join("bench-http");
    let servers: &[&'static str] = if js_alone {
        &["floor", "js", "alone"]
    } else {
        &["floor", "js"]
    };
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
                    let (binary, handler) = match (server, alone) {
                        ("floor", _) => (target.join("release/edge-floor"), &handler),
                        ("alone", Some(alone)) => (target.join("release/edge-js"), alone),
                        _ => (target.join("release/edge-js"), &handler),
                    };
                    let cell = run_cell(
                        &binary,
                        handler,
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

/// Starts a server with `workers` workers pinned to CPUs 0..workers: the process and its
/// address.
fn start(binary: &Path, handler: &Path, workers: usize, seconds: u64) -> (Child, SocketAddr) {
    let mut command = Command::new("taskset");
    command
        .args(["-c", &format!("0-{}", workers - 1)])
        .arg(binary)
        .arg("--handler")
        .arg(handler)
        .args(["--port", "0", "--max-seconds", &seconds.to_string()])
        .args(["--workers", &workers.to_string()])
        .stdout(Stdio::piped());
    let mut child = command
        .spawn()
        .expect("the server starts (is taskset installed?)");
    let stdout = child.stdout.take().expect("piped");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server says where it listens");
    let address = line
        .trim()
        .strip_prefix("listening on ")
        .and_then(|address| address.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
    (child, address)
}

/// The server's CPU time so far (utime + stime), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server's stat");
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').expect("a command field") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0 // CLK_TCK
}

/// The exact answer of `route`, checked with a request of our own (before and after the load).
fn probe(address: SocketAddr, route: &str) {
    let (head, body): (String, Vec<u8>) = match route {
        "hello" => (
            format!("GET /hello HTTP/1.1\r\nhost: localhost\r\naccept: */*\r\nuser-agent: edge-anchor/1\r\nx-request-id: {ID}\r\nconnection: close\r\n\r\n"),
            Vec::new(),
        ),
        "kv" => (
            format!("GET /kv/{KEY} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n"),
            Vec::new(),
        ),
        _ => {
            let body = echo_body();
            (
                format!("POST /echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len()),
                body,
            )
        }
    };
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4;
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "probe of {route}: {}",
        String::from_utf8_lossy(&answer)
    );
    let expected = expected_body(route);
    assert_eq!(&answer[end..], &expected[..], "probe of {route}: the body");
}

fn echo_body() -> Vec<u8> {
    (0..1024).map(|i| ((7 * i + 3) % 256) as u8).collect()
}

fn expected_body(route: &str) -> Vec<u8> {
    match route {
        "hello" => format!("hello {ID}").into_bytes(),
        "kv" => format!("value-of-{KEY}").into_bytes(),
        _ => {
            let mut body = echo_body();
            body.reverse();
            body
        }
    }
}

/// oha against `address` for `seconds`, pinned to `count` CPUs from `first`: its JSON report.
fn oha(
    oha: &Path,
    (first, count): (usize, usize),
    address: SocketAddr,
    route: &str,
    concurrency: u32,
    seconds: f64,
) -> serde_json::Value {
    let body_file = std::env::temp_dir().join(format!("edge-echo-body-{}", std::process::id()));
    std::fs::write(&body_file, echo_body()).unwrap();
    let mut command = Command::new("taskset");
    let cpus = format!("{first}-{}", first + count - 1);
    command.args(["-c", &cpus]).arg(oha).args([
        "--no-tui",
        "--disable-compression",
        "--output-format",
        "json",
        "-A",
        "*/*",
        "-H",
        "user-agent: edge-anchor/1",
        "-c",
        &concurrency.to_string(),
        "-z",
        &format!("{}ms", (seconds * 1000.0) as u64),
    ]);
    match route {
        "hello" => {
            command.args(["-H", &format!("x-request-id: {ID}")]);
            command.arg(format!("http://{address}/hello"));
        }
        "kv" => {
            command.arg(format!("http://{address}/kv/{KEY}"));
        }
        _ => {
            command.args(["-m", "POST", "-T", "application/octet-stream", "-D"]);
            command.arg(&body_file);
            command.arg(format!("http://{address}/echo"));
        }
    }
    let output = command.output().expect("oha runs");
    std::fs::remove_file(&body_file).ok();
    assert!(
        output.status.success(),
        "oha: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "oha's JSON: {error}: {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn run_cell(
    binary: &Path,
    handler: &Path,
    oha_path: &Path,
    (workers, load_cpus): (usize, usize),
    server: &'static str,
    route: &'static str,
    concurrency: u32,
    warm: f64,
    measured: f64,
) -> Cell {
    let (mut child, address) = start(binary, handler, workers, (warm + measured) as u64 + 30);
    probe(address, route);
    let load = (workers, load_cpus);
    oha(oha_path, load, address, route, concurrency, warm);
    let before = cpu_seconds(child.id());
    let report = oha(oha_path, load, address, route, concurrency, measured);
    let cpu = cpu_seconds(child.id()) - before;
    probe(address, route);
    child.kill().ok();
    child.wait().ok();
    let summary = &report["summary"];
    let codes = &report["statusCodeDistribution"];
    let ok = codes["200"].as_u64().unwrap_or(0);
    let all: u64 = codes
        .as_object()
        .map_or(0, |codes| codes.values().filter_map(|v| v.as_u64()).sum());
    // Requests in flight when oha's time is up are "aborted due to deadline": not errors.
    let errors = report["errorDistribution"].as_object().map_or(0, |errors| {
        errors
            .iter()
            .filter(|(what, _)| !what.contains("deadline"))
            .filter_map(|(_, count)| count.as_u64())
            .sum::<u64>()
    }) + (all - ok);
    assert_eq!(
        errors, 0,
        "{server} {route} c={concurrency}: errors {report}"
    );
    let total_data = summary["totalData"].as_u64().unwrap_or(0);
    let expected = ok * expected_body(route).len() as u64;
    assert_eq!(
        total_data, expected,
        "{server} {route} c={concurrency}: bytes received"
    );
    let percentile =
        |p: &str| report["latencyPercentiles"][p].as_f64().unwrap_or(f64::NAN) * 1000.0;
    Cell {
        server,
        route,
        concurrency,
        rps: summary["requestsPerSec"].as_f64().unwrap_or(0.0),
        p50_ms: percentile("p50"),
        p99_ms: percentile("p99"),
        responses: ok,
        errors,
        cpu_us_per_request: cpu * 1e6 / ok.max(1) as f64,
    }
}

/// deno_core's ratios to the floor from WORKLOAD.md's table: (route, c) → (RPS, p99, CPU).
fn reference_ratios(path: &Path) -> Vec<(String, u32, f64, f64, f64)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 9 || !ROUTES.contains(&cells[1]) {
                return None;
            }
            let number = |cell: &str| cell.split_whitespace().next()?.parse::<f64>().ok();
            Some((
                cells[1].to_owned(),
                cells[2].parse().ok()?,
                number(cells[5])?,
                number(cells[6])?,
                number(cells[7])?,
            ))
        })
        .collect()
}

fn floor_of<'a>(cells: &'a [Cell], cell: &Cell) -> Option<&'a Cell> {
    cells
        .iter()
        .find(|c| c.server == "floor" && c.route == cell.route && c.concurrency == cell.concurrency)
}

fn table(cells: &[Cell], reference: &[(String, u32, f64, f64, f64)], workers: usize) -> String {
    let alone_of = |cell: &Cell| {
        cells.iter().find(|c| {
            c.server == "alone" && c.route == cell.route && c.concurrency == cell.concurrency
        })
    };
    let any_alone = cells.iter().any(|cell| cell.server == "alone");
    let mut out = format!(
        "workers: {workers}\n\n| route | c | opwire RPS | floor RPS | RPS ratio | p99 ratio | CPU/request ratio (opwire µs / floor µs) | of the 5 ms ceiling: opwire, floor | deno: RPS, p99, CPU ratios |{}\n|---|---|---:|---:|---:|---:|---:|---:|---|{}\n",
        if any_alone {
            " JS alone: RPS ratio, CPU/request ratio (µs) | op layer's share of the CPU over the floor |"
        } else {
            ""
        },
        if any_alone { "---:|---:|" } else { "" },
    );
    for cell in cells.iter().filter(|cell| cell.server == "js") {
        let Some(floor) = floor_of(cells, cell) else {
            continue;
        };
        let deno = reference
            .iter()
            .find(|(route, c, ..)| route == cell.route && *c == cell.concurrency)
            .map_or("—".to_owned(), |(_, _, rps, p99, cpu)| {
                format!("{rps:.2}, {p99:.2}, {cpu:.2}")
            });
        // The kv ceiling: every connection waits 5 ms per request (per worker's share).
        let ceiling = if cell.route == "kv" {
            let most = f64::from(cell.concurrency) / KV_SECONDS;
            format!("{:.2}, {:.2}", cell.rps / most, floor.rps / most)
        } else {
            "—".to_owned()
        };
        // The op layer's share: what the real ops cost over their JavaScript stand-ins, of
        // what the JS server costs over the floor.
        let alone = alone_of(cell).map_or(String::new(), |alone| {
            format!(
                " {:.2}, {:.2} ({:.1}) | {:.2} |",
                alone.rps / floor.rps,
                alone.cpu_us_per_request / floor.cpu_us_per_request,
                alone.cpu_us_per_request,
                (cell.cpu_us_per_request - alone.cpu_us_per_request)
                    / (cell.cpu_us_per_request - floor.cpu_us_per_request),
            )
        });
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} ({:.1} / {:.1}) | {ceiling} | {deno} |{alone}\n",
            cell.route,
            cell.concurrency,
            cell.rps,
            floor.rps,
            cell.rps / floor.rps,
            cell.p99_ms / floor.p99_ms,
            cell.cpu_us_per_request / floor.cpu_us_per_request,
            cell.cpu_us_per_request,
            floor.cpu_us_per_request,
        ));
    }
    out
}

fn json(cells: &[Cell], quick: bool, runs: usize, workers: usize) -> String {
    let rows: Vec<serde_json::Value> = cells
        .iter()
        .map(|cell| {
            serde_json::json!({
                "server": cell.server,
                "route": cell.route,
                "concurrency": cell.concurrency,
                "rps": cell.rps,
                "p50_ms": cell.p50_ms,
                "p99_ms": cell.p99_ms,
                "responses": cell.responses,
                "errors": cell.errors,
                "cpu_us_per_request": cell.cpu_us_per_request,
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "mode": if quick { "quick" } else { "full" },
        "runs_per_cell": runs,
        "workers": workers,
        "cells": rows,
    }))
    .expect("JSON")
}

/// Bars of the CPU-per-request ratio to the floor, opwire's beside deno's reference.
fn svg(cells: &[Cell], reference: &[(String, u32, f64, f64, f64)]) -> String {
    let js: Vec<&Cell> = cells.iter().filter(|cell| cell.server == "js").collect();
    let width = 120 * js.len() + 80;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"300\" font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"10\" y=\"16\">CPU per request, ratio to the Rust floor (1.0 = the floor); opwire in blue, deno_core 0.413 (WORKLOAD.md) in grey</text>\n<line x1=\"40\" y1=\"240\" x2=\"{width}\" y2=\"240\" stroke=\"black\"/>\n"
    );
    let scale = 100.0; // px per 1.0
    for (index, cell) in js.iter().enumerate() {
        let x = 60 + index * 120;
        let ratio = floor_of(cells, cell).map_or(0.0, |floor| {
            cell.cpu_us_per_request / floor.cpu_us_per_request
        });
        let deno = reference
            .iter()
            .find(|(route, c, ..)| route == cell.route && *c == cell.concurrency)
            .map_or(0.0, |(_, _, _, _, cpu)| *cpu);
        for (offset, value, color) in [(0, ratio, "#3b6fd4"), (40, deno, "#aaaaaa")] {
            let height = value * scale;
            out.push_str(&format!(
                "<rect x=\"{}\" y=\"{:.1}\" width=\"36\" height=\"{height:.1}\" fill=\"{color}\"/><text x=\"{}\" y=\"{:.1}\">{value:.2}</text>\n",
                x + offset,
                240.0 - height,
                x + offset,
                235.0 - height,
            ));
        }
        out.push_str(&format!(
            "<text x=\"{x}\" y=\"256\">{} c={}</text>\n",
            cell.route, cell.concurrency
        ));
    }
    out.push_str(&format!(
        "<line x1=\"40\" y1=\"{:.1}\" x2=\"{width}\" y2=\"{:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n</svg>\n",
        240.0 - scale,
        240.0 - scale
    ));
    out
}
