//! `cargo xtask <task>`: project tasks that need more than one cargo command.
//!
//! - `bench-ops [--async|--startup] [--filter S] [--quick] [--rounds N] [--save-baseline NAME] [--baseline NAME]`:
//!   builds the op-call benchmark in release mode and runs it (deno's `ops_sync` suite, its
//!   `ops_async` one, or the cost of making a runtime, with 1,000 generated ops compiled in);
//!   results go to `target/bench-ops/`.
//! - `bench-http [--quick] [--runs N]`: the edge workload under load (`examples/edge_server`,
//!   oha 1.16.0 installed into the target directory when missing), each metric the median of
//!   N runs (3; 1 with `--quick`); results go to `target/bench-http/`.
//! - `bench-web [--quick] [--filter S] [--rounds N]`: the web platform's microbenchmarks
//!   (`benches/web/cases.js`) in opwire with runtime_web and in deno (from the npm registry,
//!   into `target/deno`), side by side; results go to `target/bench-web/`.
//! - `bench-build [--ops N]`: rebuild times of a generated crate of N ops (default 500) in
//!   release, dev and check, beside deno_core's, and the LLVM IR its ops make; results go to
//!   `target/bench-build/`.
//! - `expand <file.rs> [op_name]`: the expansion of the ops in any Rust file (or of one), formatted
//!   exactly as the snapshots show it.
//! - `dts [--out DIR] [--crate DIR]... [FILE.rs...]`: the TypeScript declarations of the ops in
//!   each file (by default the project's test, bench and example ops), one `.d.ts` each (named
//!   after the file's package and its path there), or one per crate (`<package>.d.ts`, every
//!   file of its `src/`), into DIR (default `target/dts`).
//! - `docs`: rewrites what the macro's kind table generates: the supported-types tables (README,
//!   `runtime_core/src/kinds.md`) and the every-kind test ops (`testdata/every_kind.rs`); and
//!   the README's drawings of runtime_core's and the backend's layers (`layers.rs`).
//! - `fuzz [--seconds N] [TARGET...]`: runs each fuzz target in `fuzz/` (all by default) for N
//!   seconds (default 60) with cargo-fuzz (`cargo install cargo-fuzz`); not run by CI.

#![deny(unsafe_code)]

mod bench_build;
mod bench_http;
mod bench_web;
mod circles;
#[cfg(test)]
mod file_names;
mod layer_paths;
mod layers;
mod npm;

use std::path::PathBuf;
use std::process::{exit, Command};

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("bench-ops") => bench_ops(args.collect()),
        Some("bench-http") => bench_http::bench_http(&workspace_root(), args.collect()),
        Some("bench-web") => bench_web::bench_web(&workspace_root(), args.collect()),
        Some("bench-build") => bench_build::bench_build(&workspace_root(), args.collect()),
        Some("fuzz") => fuzz(args.collect()),
        Some("expand") => expand(args.collect()),
        Some("docs") => docs(),
        Some("dts") => dts(args.collect()),
        _ => {
            eprintln!("{USAGE}");
            exit(2);
        }
    }
}

const USAGE: &str = "usage: cargo xtask bench-ops [--async|--startup] [--filter <substring>] [--quick] [--rounds <n>] [--save-baseline <name>] [--baseline <name>] [--reference <file>]
       cargo xtask bench-http [--quick] [--runs <n>]
       cargo xtask bench-web [--quick] [--filter <substring>] [--rounds <n>]
       cargo xtask bench-build [--ops <n>]
       cargo xtask expand <file.rs> [<op_name>]
       cargo xtask docs
       cargo xtask dts [--out <dir>] [--crate <dir>]... [<file.rs>...]
       cargo xtask fuzz [--seconds <n>] [<target>...]   (targets: strings, numbers, structured)";

/// The fuzz targets in `fuzz/fuzz_targets/`.
const FUZZ_TARGETS: &[&str] = &["strings", "numbers", "structured"];

/// The checkout xtask was built in, or, for a binary carried to another machine (bench-http on
/// a larger one), the directory it is run from.
fn workspace_root() -> PathBuf {
    let built_in = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf();
    if built_in.join("Cargo.toml").exists() {
        built_in
    } else {
        std::env::current_dir().expect("a current directory")
    }
}

fn bench_ops(args: Vec<String>) {
    let root = workspace_root();
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The startup suite's 1,000 generated ops are compiled only for it.
    let features: &[&str] = if args.iter().any(|arg| arg == "--startup") {
        &["--features", "startup_ops"]
    } else {
        &[]
    };
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["run", "--release", "--package", "opwire_benches"])
        .args(features)
        .args(["--bin", "bench-ops", "--"])
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

fn expand(args: Vec<String>) {
    let (path, wanted) = match args.as_slice() {
        [path] => (path, None),
        [path, op] => (path, Some(op.as_str())),
        _ => {
            eprintln!("{USAGE}");
            exit(2);
        }
    };
    let source = std::fs::read_to_string(path).unwrap_or_else(|err| {
        eprintln!("xtask: cannot read {path}: {err}");
        exit(1);
    });
    match expansions(&source, wanted) {
        Ok(text) => print!("{text}"),
        Err(message) => {
            eprintln!("xtask: {path}: {message}");
            exit(1);
        }
    }
}

/// The expansions of the ops in `source` (all, or the one named): each preceded by a
/// `// op_name` line when there are several, else exactly as its snapshot shows it.
fn expansions(source: &str, wanted: Option<&str>) -> Result<String, String> {
    let ops = ops_macro_backend::expand_file(source).map_err(|err| err.to_string())?;
    let names: Vec<&str> = ops.iter().map(|op| op.name.as_str()).collect();
    let selected: Vec<&ops_macro_backend::ExpandedOp> = ops
        .iter()
        .filter(|op| wanted.is_none_or(|wanted| op.name == wanted))
        .collect();
    match (selected.as_slice(), wanted) {
        ([], Some(wanted)) => {
            return Err(format!(
                "no `#[op]` function `{wanted}`; the file has: {}",
                names.join(", ")
            ))
        }
        ([], None) => return Err("no `#[op]` function at the top level".to_owned()),
        _ => {}
    }
    let mut text = String::new();
    for op in &selected {
        if selected.len() > 1 {
            text.push_str(&format!("// {}\n", op.name));
        }
        match &op.expansion {
            Ok(expansion) => text.push_str(expansion),
            Err(errors) => {
                return Err(format!(
                    "`{}` does not expand:\n{}",
                    op.name,
                    errors.join("\n")
                ))
            }
        }
    }
    Ok(text)
}

/// Writes a `.d.ts` per file of ops.
fn dts(args: Vec<String>) {
    let root = workspace_root();
    let mut out = root.join("target/dts");
    let mut files = Vec::new();
    let mut crates = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--out" {
            out = args.next().map(PathBuf::from).unwrap_or_else(|| {
                eprintln!("--out needs a directory\n{USAGE}");
                exit(2)
            });
        } else if arg == "--crate" {
            let dir = args.next().map(PathBuf::from).unwrap_or_else(|| {
                eprintln!("--crate needs a crate's directory\n{USAGE}");
                exit(2)
            });
            crates.push(dir);
        } else {
            files.push(PathBuf::from(arg));
        }
    }
    if !crates.is_empty() {
        std::fs::create_dir_all(&out).expect("the output directory");
        for dir in crates {
            let (name, dts, errors) = ops_macro_backend::declarations_of_crate(&dir, "ops")
                .unwrap_or_else(|error| {
                    eprintln!("{error}");
                    exit(1)
                });
            for error in errors {
                eprintln!("{error}");
            }
            let target = out.join(name);
            std::fs::write(&target, dts).expect("the declarations written");
            println!("wrote {}", target.display());
        }
        if files.is_empty() {
            return;
        }
    }
    if files.is_empty() {
        let (dirs, extra) = ops_macro_backend::DTS_SOURCES;
        for dir in dirs {
            let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                .expect("a project directory")
                .map(|entry| entry.expect("a directory entry").path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
                .collect();
            found.sort();
            files.extend(found);
        }
        files.extend(extra.iter().map(|file| root.join(file)));
    }
    std::fs::create_dir_all(&out).expect("the output directory");
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap_or_else(|err| {
            eprintln!("cannot read {}: {err}", file.display());
            exit(1)
        });
        let (dts, errors) =
            ops_macro_backend::declarations_of_file(&source, "ops").unwrap_or_else(|err| {
                eprintln!("{} does not parse: {err}", file.display());
                exit(1)
            });
        for error in errors {
            eprintln!("{}: {error}", file.display());
        }
        // Named after the file's package and its path there (files of two folders share
        // stems); outside any package, after the path within the project.
        let name = ops_macro_backend::declaration_file_name(&file).unwrap_or_else(|| {
            let relative = file.strip_prefix(&root).unwrap_or(&file).with_extension("");
            let stem = relative.to_string_lossy().replace(['/', '\\'], "-");
            format!("{}.d.ts", stem.trim_start_matches('-'))
        });
        let target = out.join(name);
        std::fs::write(&target, dts).expect("the declarations written");
        println!("wrote {}", target.display());
    }
}

/// Rewrites what is generated: the supported-types tables (`runtime_core/src/kinds.md`, which
/// the README links and the crate docs include), the every-kind test ops, and the layer
/// drawings in CONTRIBUTING.md.
fn docs() {
    let root = workspace_root();
    let generated = ops_macro_backend::docs::kinds_markdown();
    let contributing_path = root.join("CONTRIBUTING.md");
    let mut contributing = std::fs::read_to_string(&contributing_path).expect("CONTRIBUTING.md");
    for layering in layers::ALL {
        let edges = layers::edges(&root, layering);
        for violation in layers::violations(layering, &edges) {
            eprintln!("layers: {violation}");
        }
        for circle in circles::circles(&root, layering.src, layering.self_name) {
            eprintln!("layers: {circle}");
        }
        let drawing = layers::drawing(layering, &edges);
        contributing = layers::replace_drawing(&contributing, layering, &drawing)
            .expect("CONTRIBUTING.md has the layers markers");
    }
    std::fs::write(&contributing_path, contributing).expect("CONTRIBUTING.md written");
    std::fs::write(root.join("runtime_core/src/kinds.md"), &generated).expect("kinds.md written");
    std::fs::write(
        root.join("testdata/every_kind.rs"),
        ops_macro_backend::examples::every_kind_source(),
    )
    .expect("testdata/every_kind.rs written");
    println!("wrote CONTRIBUTING.md, runtime_core/src/kinds.md and testdata/every_kind.rs");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot's body: what follows its `---` header.
    fn snapshot_body(name: &str) -> String {
        let path = workspace_root().join(format!("ops_macro/backend/tests/snapshots/{name}.snap"));
        let text = std::fs::read_to_string(path).unwrap();
        let body = text.splitn(3, "---\n").nth(2).unwrap();
        body.to_owned()
    }

    #[test]
    fn expand_prints_what_the_snapshots_show() {
        let source =
            std::fs::read_to_string(workspace_root().join("testdata/ops/strings.rs")).unwrap();
        let one = expansions(&source, Some("op_echo")).unwrap();
        assert_eq!(one.trim_end(), snapshot_body("strings__op_echo").trim_end());
        let all = expansions(&source, None).unwrap();
        assert!(all.starts_with("// op_str_len\n"), "{}", &all[..40]);
        assert!(all.contains(&format!("// op_echo\n{one}")));
        let missing = expansions(&source, Some("op_nope")).unwrap_err();
        assert!(missing.starts_with("no `#[op]` function `op_nope`; the file has: op_str_len, "));
        let broken = expansions("#[op] fn op_bad(x: u128) {}", None).unwrap_err();
        assert!(
            broken.contains("unsupported argument type `u128`"),
            "{broken}"
        );
    }
}
