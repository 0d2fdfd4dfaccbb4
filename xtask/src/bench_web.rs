//! `cargo xtask bench-web [--quick] [--filter S] [--rounds N]`: the web platform's
//! microbenchmarks (`benches/web/cases.js`) in an opwire runtime with runtime_web (the
//! `bench-web` binary, release) and in deno (the `@deno/linux-x64-glibc` package from the npm
//! registry, installed into `target/deno` when missing), side by side in one run: N rounds
//! (3; 1 with `--quick`), each a process of each in turn, each case its best round (this
//! machine's noise comes and goes between processes). Results go to
//! `target/bench-web/results.json`.

use std::path::Path;
use std::process::{exit, Command};

/// The deno release measured beside opwire.
const DENO_VERSION: &str = "2.9.6";

pub(crate) fn bench_web(root: &Path, args: Vec<String>) {
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let mut passed = Vec::new();
    let mut rounds = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args.next().and_then(|value| value.parse::<u32>().ok());
                if rounds.is_none() {
                    fail("--rounds needs a whole number");
                }
            }
            "--quick" => passed.push(arg),
            "--filter" => {
                passed.push(arg);
                passed.push(
                    args.next()
                        .unwrap_or_else(|| fail("--filter needs a substring")),
                );
            }
            other => fail(&format!("unknown bench-web argument `{other}`")),
        }
    }
    let rounds = rounds.unwrap_or(if passed.iter().any(|arg| arg == "--quick") {
        1
    } else {
        3
    });
    let deno = install_deno(&target_dir);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = Command::new(&cargo)
        .current_dir(root)
        .args([
            "build",
            "--quiet",
            "--release",
            "--package",
            "opwire_benches",
            "--bin",
            "bench-web",
        ])
        .status()
        .unwrap_or_else(|err| fail(&format!("cannot run cargo: {err}")));
    if !build.success() {
        fail("bench-web did not build");
    }
    let opwire_bin = target_dir.join("release/bench-web");
    let mut opwire = serde_json::Map::new();
    let mut deno_times = serde_json::Map::new();
    for _ in 0..rounds {
        let ours = run_json(Command::new(&opwire_bin).args(&passed), "the opwire side");
        for (name, value) in ours {
            let better = opwire
                .get(&name)
                .is_none_or(|kept: &serde_json::Value| value["ns"].as_f64() < kept["ns"].as_f64());
            if better {
                opwire.insert(name, value);
            }
        }
        let theirs = run_json(
            Command::new(&deno)
                .current_dir(root)
                .args(["run", "--quiet", "benches/web/cases.js"])
                .args(&passed),
            "the deno side",
        );
        for (name, value) in theirs {
            let better = deno_times
                .get(&name)
                .is_none_or(|kept: &serde_json::Value| value.as_f64() < kept.as_f64());
            if better {
                deno_times.insert(name, value);
            }
        }
    }
    println!("| case | opwire ns | deno {DENO_VERSION} ns | opwire / deno | opwire allocs/call |");
    println!("|---|---:|---:|---:|---:|");
    let mut rows = serde_json::Map::new();
    for (name, ours) in &opwire {
        let ns = ours["ns"].as_f64().unwrap_or(f64::NAN);
        let allocs = ours["allocs"].as_f64().unwrap_or(f64::NAN);
        let theirs = deno_times
            .get(name)
            .and_then(|value| value.as_f64())
            .unwrap_or(f64::NAN);
        println!(
            "| {name} | {} | {} | {:.2} | {allocs:.1} |",
            figure(ns),
            figure(theirs),
            ns / theirs
        );
        rows.insert(
            name.clone(),
            serde_json::json!({ "opwire_ns": ns, "deno_ns": theirs, "opwire_allocs": allocs }),
        );
    }
    let out = target_dir.join("bench-web");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("results.json"),
        serde_json::to_string_pretty(
            &serde_json::json!({ "deno": DENO_VERSION, "rounds": rounds, "cases": rows }),
        )
        .unwrap(),
    )
    .unwrap();
}

/// The JSON object a bench process prints.
fn run_json(command: &mut Command, what: &str) -> serde_json::Map<String, serde_json::Value> {
    let output = command
        .output()
        .unwrap_or_else(|err| fail(&format!("cannot run {what}: {err}")));
    if !output.status.success() {
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        fail(&format!("{what} failed"));
    }
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| fail(&format!("{what} wrote no JSON")))
}

/// A time in nanoseconds: whole above a microsecond, one decimal below.
fn figure(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.0}", ns)
    } else {
        format!("{ns:.1}")
    }
}

/// The deno binary under `target/deno`, installed from the npm registry when missing.
fn install_deno(target_dir: &Path) -> std::path::PathBuf {
    let prefix = target_dir.join("deno");
    let package = format!("@deno/linux-x64-glibc@{DENO_VERSION}");
    crate::npm::install(&prefix, &[&package]).unwrap_or_else(|why| fail(&why));
    prefix.join("node_modules/@deno/linux-x64-glibc/deno")
}

fn fail(message: &str) -> ! {
    eprintln!("xtask bench-web: {message}");
    exit(1)
}
