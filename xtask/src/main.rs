//! `cargo xtask <task>`: project tasks that need more than one cargo command.
//!
//! - `bench-ops [--filter S] [--quick] [--save-baseline NAME] [--baseline NAME]`: builds the
//!   op-call benchmark in release mode and runs it; results go to `target/bench-ops/`.

use std::path::PathBuf;
use std::process::{exit, Command};

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("bench-ops") => bench_ops(args.collect()),
        _ => {
            eprintln!("usage: cargo xtask bench-ops [--filter <substring>] [--quick] [--save-baseline <name>] [--baseline <name>]");
            exit(2);
        }
    }
}

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
            "--quiet",
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
