//! Ops sharing typed state: a counter every call bumps, read back from Rust.
//!
//!     cargo run -p runtime_core --example state

use runtime_core::{op, Extension, OpState, Runtime, RuntimeOptions};

struct Counter(u32);

/// Adds `by` to the counter; returns the new count (a fast call: the state needs no scope).
#[op(fast)]
fn op_count(state: &mut OpState, by: u32) -> u32 {
    let counter = state.borrow_mut::<Counter>();
    counter.0 += by;
    counter.0
}

pub fn main() {
    let extension = Extension::new("counter")
        .ops(&[op_count::DECL])
        .state(|state| {
            state.put(Counter(0));
        });
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![extension],
        ..Default::default()
    });
    runtime
        .execute_script("count.js", "for (let i = 0; i < 10; i++) ops.op_count(2);")
        .expect("the script runs");
    let state = runtime.op_state();
    assert_eq!(state.borrow().borrow::<Counter>().0, 20);
    println!("count: {}", state.borrow().borrow::<Counter>().0);
}
