//! The smallest embedding: one op, one runtime, one script.
//!
//!     cargo run -p runtime_core --example hello

use runtime_core::{op, Extension, Runtime, RuntimeOptions};

/// Greets `name`.
#[op]
fn op_greet(#[string] name: &str) -> String {
    format!("Hello, {name}!")
}

pub fn main() {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("hello").ops(&[op_greet::DECL])],
        ..Default::default()
    });
    let greeting = runtime
        .execute_script_to_string("hello.js", "ops.op_greet('opwire')")
        .expect("the script runs");
    assert_eq!(greeting, "Hello, opwire!");
    runtime
        .execute_script("log.js", "console.log(ops.op_greet('console'))")
        .expect("the script runs");
}
