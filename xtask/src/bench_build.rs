//! `cargo xtask bench-build [--ops N]`: what ops cost the compiler. Generates a crate of N ops
//! (default 500; `benches/gen_ops.rs`, the five shapes of deno's cold-start reference, the
//! same ops the startup bench compiles) outside the workspace, builds its dependencies once,
//! then times rebuilds of that crate alone after touching its `lib.rs` (release, dev,
//! `cargo check`; `CARGO_INCREMENTAL=0`; best of 2), and counts the LLVM IR lines its ops
//! make (as `cargo llvm-lines` would: the optimized IR of the release build, per function,
//! grouped by what the function is). Results: `target/bench-build/results.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};
use std::time::{Duration, Instant};

include!("../../benches/gen_ops.rs");

/// deno_core 0.413's rebuilds of the same 500 ops on this machine kind (seconds), from
/// `shared/bench-reference/deno_core-0.413-coldstart.json`.
const DENO_S: [(&str, f64); 3] = [("release", 6.6), ("dev", 4.2), ("check", 2.6)];

pub fn bench_build(root: &Path, args: Vec<String>) {
    let mut ops = 500;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match (
            arg.as_str(),
            args.next().and_then(|value| value.parse().ok()),
        ) {
            ("--ops", Some(count)) => ops = count,
            _ => {
                eprintln!("usage: cargo xtask bench-build [--ops N]");
                exit(2);
            }
        }
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let dir = target.join("bench-build").join(format!("ops{ops}"));
    write_crate(root, &dir, ops);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let run = |args: &[&str]| -> Duration {
        let began = Instant::now();
        let status = Command::new(&cargo)
            .current_dir(&dir)
            .env("CARGO_INCREMENTAL", "0")
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .args(args)
            .status()
            .unwrap_or_else(|err| {
                eprintln!("xtask: cannot run cargo: {err}");
                exit(1)
            });
        if !status.success() {
            exit(1);
        }
        began.elapsed()
    };
    let profiles: [(&str, &[&str]); 3] = [
        ("release", &["build", "--release", "--quiet"]),
        ("dev", &["build", "--quiet"]),
        ("check", &["check", "--quiet"]),
    ];
    let mut seconds = BTreeMap::new();
    for (profile, command) in profiles {
        eprintln!("bench-build: {profile}: dependencies");
        run(command);
        let best = (0..2)
            .map(|_| {
                touch(&dir.join("src/lib.rs"));
                run(command)
            })
            .min()
            .expect("two runs");
        eprintln!("bench-build: {profile}: {:.2} s", best.as_secs_f64());
        seconds.insert(profile, best.as_secs_f64());
    }
    let ir = llvm_lines(&cargo, &dir, ops);
    let mut report = String::from("rebuild of the generated crate (best of 2):\n");
    for (profile, deno) in DENO_S {
        let ours = seconds[profile];
        report.push_str(&format!(
            "  {profile:<8} {ours:>6.2} s   deno_core 0.413 (500 ops, reference) {deno:>4.1} s   ratio {:.2}\n",
            ours / deno
        ));
    }
    report.push_str(&format!(
        "optimized LLVM IR: {} lines in {} functions, {:.0} lines per op\n",
        ir.total_lines,
        ir.functions,
        ir.total_lines as f64 / ops as f64
    ));
    for (kind, (functions, lines)) in &ir.by_kind {
        report.push_str(&format!(
            "  {kind:<22} {functions:>6} fns {lines:>8} lines\n"
        ));
    }
    print!("{report}");
    let json = serde_json::json!({
        "ops": ops,
        "rebuild_seconds": seconds,
        "deno_core_0_413_reference_seconds": DENO_S.iter().map(|(p, s)| (p.to_string(), *s)).collect::<BTreeMap<_, _>>(),
        "llvm_ir_lines": ir.total_lines,
        "llvm_ir_functions": ir.functions,
        "llvm_ir_by_kind": ir.by_kind.iter().map(|(kind, (functions, lines))| {
            (kind.clone(), serde_json::json!({"functions": functions, "lines": lines}))
        }).collect::<BTreeMap<_, _>>(),
    });
    let out = target.join("bench-build");
    std::fs::write(
        out.join("results.json"),
        serde_json::to_string_pretty(&json).expect("json"),
    )
    .expect("write results.json");
    eprintln!("wrote {}", out.join("results.json").display());
}

/// The crate: `runtime_core` by path, not part of the workspace.
fn write_crate(root: &Path, dir: &Path, ops: usize) {
    std::fs::create_dir_all(dir.join("src")).expect("create the crate");
    let manifest = format!(
        "[package]\nname = \"generated_ops\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n[dependencies]\nruntime_core = {{ path = {:?} }}\n\n\
         [workspace]\n",
        root.join("runtime_core")
    );
    let lib = format!(
        "#![allow(clippy::all)]\nuse runtime_core::{{op, OpState}};\n\n{}\n\
         /// The extension of every generated op.\npub fn extension() -> runtime_core::Extension {{\n    \
         runtime_core::Extension::new(\"generated\").ops(GENERATED_OPS)\n}}\n",
        generate_ops(ops)
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    write_if_changed(&dir.join("src/lib.rs"), &lib);
    // The workspace's lock file: the same dependency versions as the project.
    let lock = root.join("Cargo.lock");
    if !dir.join("Cargo.lock").exists() {
        std::fs::copy(lock, dir.join("Cargo.lock")).expect("copy Cargo.lock");
    }
}

fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents).expect("write the generated crate");
    }
}

/// Marks `lib.rs` changed for cargo (a new modification time).
fn touch(path: &Path) {
    let file = std::fs::File::options()
        .append(true)
        .open(path)
        .expect("open lib.rs");
    file.set_modified(std::time::SystemTime::now())
        .expect("set the modification time");
}

struct IrLines {
    total_lines: usize,
    functions: usize,
    /// Per kind of function (the op's slow, fast, metered function, its conversions, ...):
    /// how many, how many lines.
    by_kind: BTreeMap<String, (usize, usize)>,
}

/// The release build's optimized IR of the crate, its functions grouped by their last path
/// segment (`slow_fn`, `fast_fn`, ...).
fn llvm_lines(cargo: &std::ffi::OsStr, dir: &Path, ops: usize) -> IrLines {
    let status = Command::new(cargo)
        .current_dir(dir)
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .args([
            "rustc",
            "--release",
            "--quiet",
            "--lib",
            "--",
            "--emit=llvm-ir",
            "-Ccodegen-units=1",
        ])
        .status()
        .expect("cargo runs");
    if !status.success() {
        exit(1);
    }
    let deps = dir.join("target/release/deps");
    let ll = std::fs::read_dir(&deps)
        .expect("the deps directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "ll")
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("generated_ops"))
        })
        .max_by_key(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .expect("rustc wrote the IR");
    let text = std::fs::read_to_string(&ll).expect("read the IR");
    let mut ir = IrLines {
        total_lines: 0,
        functions: 0,
        by_kind: BTreeMap::new(),
    };
    let mut current: Option<(String, usize)> = None;
    for line in text.lines() {
        if line.starts_with("define ") {
            current = Some((function_kind(line), 0));
        }
        if let Some((_, lines)) = &mut current {
            *lines += 1;
        }
        if line == "}" {
            if let Some((kind, lines)) = current.take() {
                ir.functions += 1;
                ir.total_lines += lines;
                let entry = ir.by_kind.entry(kind).or_default();
                entry.0 += 1;
                entry.1 += lines;
            }
        }
    }
    eprintln!("bench-build: {} ({} ops)", ll.display(), ops);
    ir
}

/// A function's kind: the last segment of its mangled path (`_ZN13generated_ops4op_77slow_fn17h..E`
/// is `slow_fn`); a generic instance of a dependency is named by its own last segment.
fn function_kind(define: &str) -> String {
    let Some(start) = define.find("@_ZN") else {
        return "(other)".to_owned();
    };
    let mut rest = &define[start + 4..];
    let mut segments = Vec::new();
    while let Some(digits) = rest
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&end| end > 0)
    {
        let len: usize = rest[..digits].parse().unwrap_or(0);
        let body = &rest[digits..];
        if len == 0 || body.len() < len {
            break;
        }
        segments.push(&body[..len]);
        rest = &body[len..];
    }
    segments
        .iter()
        .rev()
        .find(|segment| !segment.starts_with('h') || segment.len() != 17)
        .map_or("(other)".to_owned(), |segment| segment.to_string())
}
