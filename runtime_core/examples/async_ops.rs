//! Async ops on tokio: a promise per call, settled by the event loop.
//!
//!     cargo run -p runtime_core --example async_ops

use std::time::Duration;

use runtime_core::{op, v8, Extension, Runtime, RuntimeOptions};

/// Waits `ms` milliseconds on tokio's timer, then echoes `text`.
#[op]
async fn op_delay(ms: u32, #[string] text: String) -> String {
    tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
    text
}

pub fn main() {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("timers").ops(&[op_delay::DECL])],
        ..Default::default()
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let joined = tokio.block_on(async {
        let promise = runtime
            .execute_script(
                "async.js",
                "(async () => {
                   const order = [];
                   await Promise.all([
                     ops.op_delay(20, 'second').then((t) => order.push(t)),
                     ops.op_delay(1, 'first').then((t) => order.push(t)),
                   ]);
                   return order.join(' then ');
                 })()",
            )
            .expect("the script runs");
        let value = runtime
            .resolve(promise)
            .await
            .expect("the promise resolves");
        runtime.with_scope(|scope| v8::Local::new(scope, value).to_rust_string_lossy(scope))
    });
    assert_eq!(joined, "first then second");
    println!("{joined}");
}
