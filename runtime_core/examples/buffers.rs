//! Buffers: borrowed for the call (no copy), returned without a copy, and kept beyond the call.
//!
//!     cargo run -p runtime_core --example buffers

use runtime_core::{op, Extension, JsBuffer, OpState, Runtime, RuntimeOptions};

/// Sums the bytes of any view, in place.
#[op(fast)]
fn op_sum(#[buffer] bytes: &[u8]) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte)).sum()
}

/// Doubles each element of a Float64Array, in place: JavaScript sees the writes.
#[op(fast)]
fn op_double(#[buffer] values: &mut [f64]) {
    values.iter_mut().for_each(|value| *value *= 2.0);
}

/// A Uint16Array over Rust's memory (the vector is handed over, not copied).
#[op]
fn op_squares(len: u32) -> Vec<u16> {
    (0..len as u16).map(|i| i * i).collect()
}

/// Keeps JavaScript's memory for later (no copy; read through cells, as JavaScript may write).
#[op]
fn op_keep(state: &mut OpState, #[buffer] buffer: JsBuffer) {
    state.put(buffer);
}

pub fn main() {
    let extension = Extension::new("buffers").ops(&[
        op_sum::DECL,
        op_double::DECL,
        op_squares::DECL,
        op_keep::DECL,
    ]);
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![extension],
        ..Default::default()
    });
    let out = runtime
        .execute_script_to_string(
            "buffers.js",
            "const values = new Float64Array([1.5, 2]);
             ops.op_double(values);
             const kept = new Uint8Array([1, 2, 3]);
             ops.op_keep(kept);
             kept[0] = 9;
             [ops.op_sum(new Uint8Array([1, 2, 3])), values.join(), ops.op_squares(4).join()].join(' | ')",
        )
        .expect("the script runs");
    assert_eq!(out, "6 | 3,4 | 0,1,4,9");
    let state = runtime.op_state();
    let kept = state.borrow().borrow::<JsBuffer>().to_vec();
    assert_eq!(kept, [9, 2, 3], "JavaScript's later write shows");
    println!("{out}; kept {kept:?}");
}
