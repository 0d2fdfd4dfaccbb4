// Async ops hold their arguments across awaits: borrowed kinds are refused, each error saying
// which owned kind to take.
use std::rc::Rc;
use std::cell::RefCell;

use runtime_core::{op, v8, OpState};

#[op]
async fn op_borrowed_str(#[string] s: &str) -> u32 {
    s.len() as u32
}

#[op]
async fn op_borrowed_buffer(#[buffer] bytes: &[u8]) -> u32 {
    bytes.len() as u32
}

#[op]
async fn op_borrowed_state(state: &mut OpState) {
    let _ = state;
}

#[op]
async fn op_local(value: v8::Local<'_, v8::Value>) {
    let _ = value;
}

#[op]
async fn op_returns_local<'s>(state: Rc<RefCell<OpState>>) -> v8::Local<'s, v8::Value> {
    let _ = state;
    todo!()
}

#[op(async(lazy))]
fn op_not_async(x: u32) -> u32 {
    x
}

#[op(async(sometimes))]
async fn op_bad_mode() {}

fn main() {}
