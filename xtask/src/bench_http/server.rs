//! The servers and the load of `cargo xtask bench-http`: starting a server pinned to its CPUs,
//! reading its CPU time, checking every route's exact answer, and oha's runs of one cell.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{Cell, ID, KEY};

/// Starts a server with `workers` workers pinned to CPUs 0..workers: the process and its
/// address.
pub(super) fn start(binary: &Path, handler: &Path, workers: usize, seconds: u64) -> Started {
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
    Started {
        pid: child.id(),
        child,
        address,
    }
}

/// The server's CPU time so far (utime + stime), in seconds.
pub(super) fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server's stat");
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').expect("a command field") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0 // CLK_TCK
}

/// The exact answer of `route`, checked with a request of our own (before and after the load).
pub(super) fn probe(address: SocketAddr, route: &str) {
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

pub(super) fn echo_body() -> Vec<u8> {
    (0..1024).map(|i| ((7 * i + 3) % 256) as u8).collect()
}

pub(super) fn expected_body(route: &str) -> Vec<u8> {
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
pub(super) fn oha(
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

/// A server started for one cell: its process (killed after the cell), the pid whose CPU is
/// read (the server itself, under any wrapper), its address.
pub(super) struct Started {
    pub(super) child: Child,
    pub(super) pid: u32,
    pub(super) address: SocketAddr,
}

/// Stops a cell's server: the server itself first, then its wrappers. Killing `timeout` alone
/// (SIGKILL cannot be forwarded) left the server it watched running, reparented, for good.
fn stop(child: &mut Child, pid: u32) {
    if pid != child.id() {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    child.kill().ok();
    child.wait().ok();
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_cell(
    started: Started,
    oha_path: &Path,
    (workers, load_cpus): (usize, usize),
    server: &'static str,
    route: &'static str,
    concurrency: u32,
    warm: f64,
    measured: f64,
) -> Cell {
    let Started {
        mut child,
        pid,
        address,
    } = started;
    probe(address, route);
    let load = (workers, load_cpus);
    oha(oha_path, load, address, route, concurrency, warm);
    let before = cpu_seconds(pid);
    let report = oha(oha_path, load, address, route, concurrency, measured);
    let cpu = cpu_seconds(pid) - before;
    probe(address, route);
    stop(&mut child, pid);
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
