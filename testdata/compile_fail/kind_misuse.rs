use std::cell::RefCell;
use std::rc::Rc;

use runtime_core::{op, v8, OpState};

#[op]
fn op_buffer_without_attribute(bytes: &mut [u8]) {
    bytes.fill(0);
}

#[op]
fn op_optional_state(state: Option<&mut OpState>) {
    let _ = state;
}

#[op]
fn op_borrowed_bytes_return(#[buffer] bytes: &[u8]) -> &[u8] {
    bytes
}

#[op]
fn op_two_buffers(#[buffer] out: &mut [u8], #[buffer] input: &[u8]) {
    out.copy_from_slice(input);
}

#[op]
fn op_scope_and_buffer(scope: &mut v8::PinScope, #[buffer] bytes: &[u8]) {
    let _ = (scope, bytes);
}

#[op]
fn op_unknown_local(value: v8::Local<v8::Module>) {
    let _ = value;
}

#[op]
fn op_rc_state_optional(state: Option<Rc<RefCell<OpState>>>) {
    let _ = state;
}


#[op]
fn op_mut_buffer_and_handle(#[buffer] bytes: &mut [u8], other: v8::Local<v8::Value>) {
    let _ = (bytes, other);
}

#[op]
unsafe fn op_unsafe(x: u32) -> u32 {
    x
}

#[op(fast)]
fn op_mut_buffer_and_string(#[buffer] bytes: &mut [u8], #[string] text: &str) {
    let _ = (bytes, text);
}

#[op]
fn op_shared_buffer_and_handle(#[buffer] bytes: &[u8], buffer: v8::Local<v8::ArrayBuffer>) -> u8 {
    let _ = buffer;
    bytes[0]
}

#[op(fast)]
fn op_string_and_handle(#[string] text: &str, value: v8::Local<v8::Object>) {
    let _ = (text, value);
}


#[op]
fn op_js_buffer_without_marker(buffer: runtime_core::JsBuffer) -> u32 {
    buffer.len() as u32
}

#[op]
fn op_detached_without_detach(#[buffer] buffer: runtime_core::DetachedBuffer) -> u32 {
    buffer.len() as u32
}

#[op]
fn op_js_buffer_and_borrow(#[buffer] kept: runtime_core::JsBuffer, #[buffer] bytes: &mut [u8]) {
    let _ = (kept, bytes);
}

#[op]
fn op_buffer_on_number(#[buffer] n: u32) -> u32 {
    n
}

fn main() {}
