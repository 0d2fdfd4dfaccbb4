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
  return typeof value + " " + String(value);
};
globalThis.attempt = function (f) {
  try { return describe(f()); } catch (e) { return "throws " + (e && e.name) + ": " + (e && e.message); }
};
"#;
