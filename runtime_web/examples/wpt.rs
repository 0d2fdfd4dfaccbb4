//! Runs web-platform-tests files through `testharness.js` in an opwire runtime with the web
//! platform, and prints each file's passing subtests.
//!
//! ```text
//! cargo run -p runtime_web --example wpt -- <wpt checkout> url encoding/textdecoder-fatal.any.js
//! ```
//!
//! WPT is others' code: point this at a checkout of it (the web-platform-tests repository,
//! or a copy such as Node's `test/fixtures/wpt`), never at a copy in this repository. Only
//! tests that run in a worker (`*.any.js`, `*.worker.js`) are run; a `fetch` of a file next to
//! the test (what the URL tests do for their data) reads it from the checkout. `--verbose`
//! prints every failing subtest's message.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use runtime_core::{op, Extension, OpError, OpState, Runtime, RuntimeOptions};

/// The checkout's root, for the harness's reads.
struct Root(PathBuf);

/// A file of the checkout, by a path relative to its root.
#[op]
fn op_wpt_read(state: &OpState, #[string] path: &str) -> Result<String, OpError> {
    let root = &state.borrow::<Root>().0;
    let path = root.join(path.trim_start_matches('/'));
    let canonical = path
        .canonicalize()
        .map_err(|error| OpError::type_error(format!("{}: {error}", path.display())))?;
    if !canonical.starts_with(root) {
        return Err(OpError::type_error("outside the checkout"));
    }
    std::fs::read_to_string(&canonical).map_err(|error| OpError::type_error(error.to_string()))
}

/// What the runner sets up before `testharness.js`: the worker-ish globals the harness and
/// `.any.js` tests expect, a `fetch` of the checkout's files, and the results' collection.
const PRELUDE: &str = r#"
globalThis.self = globalThis;
globalThis.GLOBAL = { isWindow: () => false, isWorker: () => true, isShadowRealm: () => false };
globalThis.location = { href: "http://web-platform.test:8000" + __wpt_path, search: "" };
globalThis.__wpt = { done: false, results: [], status: null };
globalThis.fetch = function (url) {
  const base = __wpt_path.slice(0, __wpt_path.lastIndexOf("/") + 1);
  const path = String(url).startsWith("/") ? String(url) : base + url;
  try {
    const text = ops.op_wpt_read(path);
    return Promise.resolve({ ok: true, status: 200, json: () => Promise.resolve(JSON.parse(text)), text: () => Promise.resolve(text) });
  } catch (error) {
    return Promise.reject(new TypeError("fetch failed: " + error.message));
  }
};
"#;

const REPORTER: &str = r#"
setup({ explicit_timeout: false, timeout_multiplier: 1 });
add_result_callback((test) => {
  __wpt.results.push({ name: test.name, status: test.status, message: test.message });
});
add_completion_callback((tests, status) => {
  __wpt.status = status.status;
  __wpt.done = true;
});
"#;

struct Outcome {
    passed: usize,
    total: usize,
    failures: Vec<String>,
    error: Option<String>,
}

fn run_file(root: &Path, file: &Path) -> Outcome {
    let relative = format!("/{}", file.strip_prefix(root).unwrap().display());
    let source = std::fs::read_to_string(file).unwrap();
    let mut extensions = runtime_web::extensions(runtime_web::Groups::ALL);
    let root_for_state = root.to_path_buf();
    extensions.push(
        Extension::new("wpt")
            .ops(&[op_wpt_read::DECL])
            .state(move |state| {
                state.put(Root(root_for_state));
            }),
    );
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions,
        console: Some(Rc::new(|_, _| {})),
        ..Default::default()
    });
    let fail = |error: String| Outcome {
        passed: 0,
        total: 0,
        failures: Vec::new(),
        error: Some(error),
    };
    // One script, as a worker would load them (the harness's shell environment counts its
    // tests once the microtasks after the script run).
    let mut script = format!("globalThis.__wpt_path = {relative:?};\n{PRELUDE}\n");
    script.push_str(&std::fs::read_to_string(root.join("resources/testharness.js")).unwrap());
    script.push_str(REPORTER);
    let dir = file.parent().unwrap();
    for line in source.lines() {
        let Some(meta) = line.trim().strip_prefix("// META: script=") else {
            continue;
        };
        let path = if let Some(absolute) = meta.strip_prefix('/') {
            root.join(absolute)
        } else {
            dir.join(meta)
        };
        let Ok(code) = std::fs::read_to_string(&path) else {
            return fail(format!("META script {} is missing", path.display()));
        };
        script.push_str(&code);
        script.push('\n');
    }
    script.push_str(&source);
    script.push_str("\n;if (typeof done === 'function') done();\n");
    if let Err(error) = runtime.execute_script(&relative, &script) {
        // A test file that throws at its top level still reports what ran.
        eprintln!("{relative}: {error}");
    }
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let settled = tokio.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), runtime.run_event_loop()).await
    });
    if let Ok(Err(error)) = settled {
        eprintln!("{relative}: {error}");
    }
    let summary = runtime
        .execute_script_to_string(
            "<wpt results>",
            "JSON.stringify(__wpt.results.map((r) => [r.status === 0, String(r.name + ': ' + r.message).toWellFormed()]))",
        )
        .unwrap_or_else(|_| "[]".into());
    let results: Vec<(bool, String)> = serde_json::from_str(&summary).unwrap_or_default();
    Outcome {
        passed: results.iter().filter(|(passed, _)| *passed).count(),
        total: results.len(),
        failures: results
            .into_iter()
            .filter(|(passed, _)| !passed)
            .map(|(_, what)| what)
            .collect(),
        error: None,
    }
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            collect(&entry, out);
        }
    } else if let Some(name) = path.file_name().and_then(|name| name.to_str()) {
        if name.ends_with(".any.js") || name.ends_with(".worker.js") {
            out.push(path.to_path_buf());
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|arg| arg == "--verbose");
    args.retain(|arg| arg != "--verbose");
    let Some((root, paths)) = args.split_first() else {
        eprintln!("usage: wpt [--verbose] <wpt checkout> <dir or file>...");
        std::process::exit(2);
    };
    let root = PathBuf::from(root)
        .canonicalize()
        .expect("the checkout exists");
    let mut files = Vec::new();
    for path in paths {
        collect(&root.join(path), &mut files);
    }
    let (mut passed, mut total) = (0, 0);
    for file in files {
        let outcome = run_file(&root, &file);
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        match outcome.error {
            Some(error) => println!("{name}: error: {error}"),
            None => println!("{name}: {}/{}", outcome.passed, outcome.total),
        }
        if verbose {
            for failure in &outcome.failures {
                let failure: String = failure.chars().take(300).collect();
                println!("  FAIL {failure}");
            }
        }
        passed += outcome.passed;
        total += outcome.total;
    }
    println!("total: {passed}/{total}");
}
