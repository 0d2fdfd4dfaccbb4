//! `cargo xtask <task>`: project tasks that need more than one cargo command.
//!
//! - `bench-ops [--filter S] [--quick] [--save-baseline NAME] [--baseline NAME]`: builds the
//!   op-call benchmark in release mode and runs it; results go to `target/bench-ops/`.
//! - `fuzz [--seconds N] [TARGET...]`: runs each fuzz target in `fuzz/` (all by default) for N
//!   seconds (default 60) with cargo-fuzz (`cargo install cargo-fuzz`); not run by CI.

use std::path::PathBuf;
use std::process::{exit, Command};

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("bench-ops") => bench_ops(args.collect()),
        Some("fuzz") => fuzz(args.collect()),
        _ => {
            eprintln!("{USAGE}");
            exit(2);
        }
    }
}

const USAGE: &str = "usage: cargo xtask bench-ops [--filter <substring>] [--quick] [--save-baseline <name>] [--baseline <name>] [--reference <file>]
       cargo xtask fuzz [--seconds <n>] [<target>...]   (targets: strings, numbers)";

/// The fuzz targets in `fuzz/fuzz_targets/`.
const FUZZ_TARGETS: &[&str] = &["strings", "numbers"];

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

fn bench_ops(args: Vec<String>) {
    let root = workspace_root();
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args([
            "run",
            "--release",
            "--package",
            "opwire_benches",
            "--bin",
            "bench-ops",
            "--",
        ])
        .arg("--out-dir")
        .arg(target_dir.join("bench-ops"))
        .args(&args)
        .status()
        .unwrap_or_else(|err| {
            eprintln!("xtask: cannot run cargo: {err}");
            exit(1);
        });
    exit(status.code().unwrap_or(1));
}

fn fuzz(args: Vec<String>) {
    let mut seconds = 60u32;
    let mut targets = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|value| value.parse().ok())
                    .unwrap_or_else(|| {
                        eprintln!("--seconds needs a whole number\n{USAGE}");
                        exit(2)
                    })
            }
            target if FUZZ_TARGETS.contains(&target) => targets.push(arg),
            other => {
                eprintln!("unknown fuzz argument `{other}`\n{USAGE}");
                exit(2);
            }
        }
    }
    if targets.is_empty() {
        targets = FUZZ_TARGETS
            .iter()
            .map(|target| target.to_string())
            .collect();
    }
    let fuzz_dir = workspace_root().join("fuzz");
    for target in &targets {
        eprintln!("xtask: fuzzing `{target}` for {seconds} s");
        let status = Command::new("cargo")
            .current_dir(&fuzz_dir)
            // cargo-fuzz passes `-Z` sanitizer flags; this lets a stable toolchain accept them.
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", target, "--"])
            .arg(format!("-max_total_time={seconds}"))
            .status()
            .unwrap_or_else(|err| {
                eprintln!("xtask: cannot run cargo fuzz ({err}); install it with `cargo install cargo-fuzz`");
                exit(1);
            });
        if !status.success() {
            eprintln!(
                "xtask: `{target}` found a failure; the input is in fuzz/artifacts/{target}/"
            );
            exit(status.code().unwrap_or(1));
        }
    }
}
