//! Shared set-up for runtime_core's integration tests.
#![allow(dead_code)]

use std::sync::Once;

use runtime_core::{Extension, Runtime, RuntimeOptions};

/// Queues the flags the tests need (`%OptimizeFunctionOnNextCall`, `gc()`), once per process,
/// before any runtime starts V8.
pub fn init_test_flags() {
    static FLAGS: Once = Once::new();
    FLAGS.call_once(|| {
        runtime_core::set_v8_flags(&["--allow-natives-syntax", "--expose-gc"])
            .expect("flags are set before the first runtime");
    });
}

/// Keeps the default panic hook's report off stderr for panics whose message starts with
/// `prefix` (tests that panic on purpose, a thousand times); every other panic is reported.
pub fn quiet_expected_panics(prefix: &'static str) {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !message.starts_with(prefix) {
            default_hook(info);
        }
    }));
}

/// A runtime with op call counters on.
pub fn counting_runtime(extensions: Vec<Extension>) -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        extensions,
        op_call_counters: true,
        ..Default::default()
    })
}

/// JavaScript helpers: `describe(value)` prints a value so that every distinction the tests
/// care about survives (type, -0, NaN, BigInt), and `attempt(f)` also prints exceptions.
pub const DESCRIBE_JS: &str = r#"
globalThis.describe = function (value) {
  if (typeof value === "number") return Object.is(value, -0) ? "number -0" : "number " + String(value);
  if (typeof value === "bigint") return "bigint " + String(value) + "n";
  if (typeof value === "string") return "string " + JSON.stringify(value);
  if (typeof value === "symbol") return "symbol";
  if (value === null) return "null";
  let text;
  try { text = String(value); } catch { text = "(no string)"; } // an External has none
  return typeof value + " " + text;
};
globalThis.attempt = function (f) {
  try { return describe(f()); } catch (e) { return "throws " + (e && e.name) + ": " + (e && e.message); }
};
"#;

/// The commas of a JavaScript argument list outside brackets and strings.
fn top_level_commas(args: &str) -> usize {
    let (mut depth, mut quote, mut commas) = (0i32, None, 0);
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => commas += 1,
            _ => {}
        }
    }
    commas
}

/// Calls `op(args)` once from unoptimized code and once from an optimized caller; returns
/// both outcomes and which path each took.
pub fn call_both_ways(
    runtime: &mut Runtime,
    op: &str,
    warm_args: &str,
    args: &str,
) -> [(String, &'static str); 2] {
    let arity = if args.is_empty() {
        0
    } else {
        top_level_commas(args) + 1
    };
    let params: Vec<String> = (0..arity).map(|i| format!("p{i}")).collect();
    let params = params.join(", ");

    runtime.reset_op_call_counts();
    let slow = runtime
        .execute_script_to_string("slow", &format!("attempt(() => ops.{op}({args}))"))
        .unwrap();
    let counts = runtime.op_call_counts(op).unwrap();
    assert_eq!(
        (counts.fast, counts.slow),
        (0, 1),
        "{op}({args}) from unoptimized code"
    );

    // A fresh caller each time, so one input's deoptimization does not colour the next. (The
    // warm-up may throw: an op that refuses every value its fast path is taken for.)
    let setup = format!(
        "globalThis.caller = function ({params}) {{ return ops.{op}({params}); }};
         globalThis.warm = () => {{ try {{ caller({warm_args}); }} catch {{}} }};
         %PrepareFunctionForOptimization(caller);
         warm(); warm();
         %OptimizeFunctionOnNextCall(caller);
         warm();"
    );
    runtime.execute_script("warm", &setup).unwrap();
    let warm = runtime.op_call_counts(op).unwrap();
    runtime.reset_op_call_counts();
    let has_fast_path = runtime.op_decl(op).unwrap().has_fast_path();
    assert!(
        warm.fast >= 1 || !has_fast_path,
        "{op}: optimized caller with {warm_args} took the fast path ({warm:?})"
    );
    let fast = runtime
        .execute_script_to_string("fast", &format!("attempt(() => caller({args}))"))
        .unwrap();
    let counts = runtime.op_call_counts(op).unwrap();
    assert_eq!(
        counts.fast + counts.slow,
        1,
        "{op}({args}) ran once: {counts:?}"
    );
    let fast_path = if counts.fast == 1 { "fast" } else { "slow" };
    [(slow, "slow"), (fast, fast_path)]
}

/// Set to `1` to skip the TypeScript checks where npm cannot reach the registry (CI never sets
/// it): without it, a test that needs `tsc` and cannot install it fails, so that an offline
/// run never passes by checking nothing.
pub const SKIP_TSC: &str = "OPWIRE_SKIP_TSC";

/// The real TypeScript compiler, installed from the npm registry into `target/typescript` on
/// first use (once per process: tests that need it in parallel wait for one install). `None`
/// only when [`SKIP_TSC`] is set; otherwise a `tsc` that cannot be installed panics with why.
pub fn tsc() -> Option<std::path::PathBuf> {
    static INSTALLED: std::sync::OnceLock<Result<std::path::PathBuf, String>> =
        std::sync::OnceLock::new();
    if std::env::var_os(SKIP_TSC).is_some_and(|value| value == "1") {
        eprintln!("SKIPPED: {SKIP_TSC}=1; no tsc check");
        return None;
    }
    // Beside the build, wherever `CARGO_TARGET_DIR` puts it.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        std::path::PathBuf::from,
    );
    match INSTALLED.get_or_init(|| install_tsc(&target.join("typescript"), "npm")) {
        Ok(tsc) => Some(tsc.clone()),
        Err(why) => panic!(
            "{why}: this test needs the TypeScript compiler from the npm registry (set \
             {SKIP_TSC}=1 to skip the TypeScript checks offline)"
        ),
    }
}

/// `tsc` under `prefix`, installed there with `npm` if it is not yet.
pub fn install_tsc(prefix: &std::path::Path, npm: &str) -> Result<std::path::PathBuf, String> {
    let tsc = prefix.join("node_modules/.bin/tsc");
    if !tsc.exists() {
        let installed = std::process::Command::new(npm)
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(prefix)
            .arg("typescript@5.9.3")
            .status();
        if !matches!(installed, Ok(status) if status.success()) || !tsc.exists() {
            return Err(format!(
                "npm could not install typescript@5.9.3 into {} ({installed:?})",
                prefix.display()
            ));
        }
    }
    Ok(tsc)
}

/// A fresh, empty directory under the temporary directory, named for `name`, this process and
/// a sequence number: tests run in parallel in one process, and two that chose one name shared
/// (and overwrote) one directory before.
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("opwire-{name}-{}-{n}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tsc --strict` over `dts` and `usage`: `Err` with its report when they do not check.
pub fn type_check(tsc: &std::path::Path, name: &str, dts: &str, usage: &str) -> Result<(), String> {
    type_check_with(tsc, name, dts, usage, "es2022")
}

/// As [`type_check`], with TypeScript's libraries `lib` (`"es2022,dom"`).
pub fn type_check_with(
    tsc: &std::path::Path,
    name: &str,
    dts: &str,
    usage: &str,
    lib: &str,
) -> Result<(), String> {
    let dir = scratch_dir(&format!("tsc-{name}"));
    std::fs::write(dir.join("ops.d.ts"), dts).unwrap();
    std::fs::write(dir.join("usage.ts"), usage).unwrap();
    let output = std::process::Command::new(tsc)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--lib", lib,
        ])
        .arg(dir.join("ops.d.ts"))
        .arg(dir.join("usage.ts"))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// `describe` of what `script` evaluates to, or `throws <class>: <message>`.
pub fn eval(runtime: &mut Runtime, script: &str) -> String {
    runtime
        .execute_script_to_string("eval", &format!("attempt(() => {script})"))
        .unwrap()
}

/// `JSON.stringify` of what `script` evaluates to, as a Rust string.
pub fn json(runtime: &mut Runtime, script: &str) -> String {
    let out = eval(runtime, &format!("JSON.stringify({script})"));
    let Some(text) = out.strip_prefix("string ") else {
        panic!("{script}: {out}")
    };
    serde_json::from_str::<String>(text).unwrap()
}

/// A tokio current-thread runtime with its time and I/O drivers, as hosts run opwire in.
pub fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs the runtime's event loop to completion on a tokio current-thread runtime, then the
/// value of `globalThis.out` (which the test's promises set) as a string.
pub fn settle_and_read_out(runtime: &mut Runtime) -> String {
    tokio().block_on(runtime.run_event_loop()).unwrap();
    runtime
        .execute_script_to_string("out", "globalThis.out")
        .unwrap()
}

/// A fresh directory of `files` (path, contents) under the temporary directory, named for
/// `name` and this process.
pub fn tenant_dir(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch_dir(name);
    for (path, contents) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}

/// Loads and evaluates `main`, then runs `script` (if any) and the event loop:
/// `globalThis.out` as a string, or the first error's text.
pub fn run_main(rt: &mut Runtime, main: &str, script: &str) -> Result<String, String> {
    let tokio = tokio();
    let id = tokio
        .block_on(rt.load_main_module(main))
        .map_err(|error| error.to_string())?;
    tokio
        .block_on(rt.mod_evaluate(id))
        .map_err(|error| error.to_string())?;
    if !script.is_empty() {
        rt.execute_script("run.js", script)
            .map_err(|error| error.to_string())?;
    }
    tokio
        .block_on(rt.run_event_loop())
        .map_err(|error| error.to_string())?;
    rt.execute_script_to_string("out.js", "globalThis.out")
        .map_err(|error| error.to_string())
}
