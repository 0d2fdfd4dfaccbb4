//! The ops the benchmark calls, and the hand-written floor.

use std::borrow::Cow;

use runtime_core::{op, v8, ByteString, Extension};

#[op]
pub fn op_void() {}

#[op(nofast)]
pub fn op_void_nofast() {}

#[op]
pub fn op_u32(x: u32) -> u32 {
    x
}

#[op]
pub fn op_bigint(#[bigint] x: u64) {
    std::hint::black_box(x);
}

#[op]
#[bigint]
pub fn op_bigint_return() -> u64 {
    std::hint::black_box(1 << 60)
}

#[op]
pub fn op_scope(scope: &mut v8::PinScope) {
    std::hint::black_box(scope);
}

#[op]
pub fn op_string(#[string] s: &str) {
    std::hint::black_box(s);
}

#[op]
pub fn op_string_onebyte(#[string(onebyte)] s: Cow<[u8]>) {
    std::hint::black_box(s);
}

#[op]
pub fn op_string_bytestring(s: ByteString) {
    std::hint::black_box(s);
}

#[op]
pub fn op_string_owned(#[string] s: String) {
    std::hint::black_box(s);
}

#[op]
pub fn op_string_return() -> String {
    std::hint::black_box("a short string").to_owned()
}

#[op]
pub fn op_string_return_large_1000() -> String {
    std::hint::black_box("0123456789").repeat(100)
}

#[op]
pub fn op_string_return_utf8_1000() -> String {
    std::hint::black_box("é").repeat(1000)
}

#[op]
pub fn op_static_str_return() -> &'static str {
    std::hint::black_box("a static string for op_static_str_return")
}

#[op]
pub fn op_option_u32(x: Option<u32>) {
    std::hint::black_box(x);
}

#[op]
pub fn op_string_option_u32(#[string] s: &str, x: Option<u32>) {
    std::hint::black_box((s, x));
}

#[op]
pub fn op_local(value: v8::Local<v8::Value>) {
    std::hint::black_box(value);
}

#[op(nofast)]
pub fn op_local_nofast(value: v8::Local<v8::Value>) {
    std::hint::black_box(value);
}

#[op]
pub fn op_external(pointer: *const std::ffi::c_void) {
    std::hint::black_box(pointer);
}

#[op(nofast)]
pub fn op_external_nofast(pointer: *const std::ffi::c_void) {
    std::hint::black_box(pointer);
}

/// The External the external benches pass.
#[op]
pub fn op_make_external() -> *const std::ffi::c_void {
    static TARGET: u8 = 0;
    &TARGET as *const u8 as *const std::ffi::c_void
}

#[op]
pub fn op_buffer(#[buffer] bytes: &[u8]) {
    std::hint::black_box(bytes);
}

#[op(nofast)]
pub fn op_buffer_nofast(#[buffer] bytes: &[u8]) {
    std::hint::black_box(bytes);
}

#[op]
pub fn op_arraybuffer(#[arraybuffer] bytes: &[u8]) {
    std::hint::black_box(bytes);
}

/// Every op the benchmark registers.
pub fn extension() -> Extension {
    Extension::new("bench").ops(&[
        op_void::DECL,
        op_void_nofast::DECL,
        op_u32::DECL,
        op_bigint::DECL,
        op_bigint_return::DECL,
        op_scope::DECL,
        op_string::DECL,
        op_string_onebyte::DECL,
        op_string_bytestring::DECL,
        op_string_owned::DECL,
        op_string_return::DECL,
        op_string_return_large_1000::DECL,
        op_string_return_utf8_1000::DECL,
        op_static_str_return::DECL,
        op_option_u32::DECL,
        op_string_option_u32::DECL,
        op_local::DECL,
        op_local_nofast::DECL,
        op_external::DECL,
        op_external_nofast::DECL,
        op_make_external::DECL,
        op_buffer::DECL,
        op_buffer_nofast::DECL,
        op_arraybuffer::DECL,
    ])
}

/// The floor: a fast function written by hand against rusty_v8, no macro, no op context.
extern "C" fn raw_fast_noop(_receiver: v8::Local<v8::Object>) {}

fn raw_slow_noop(
    _scope: &mut v8::PinScope,
    _args: v8::FunctionCallbackArguments,
    _rv: v8::ReturnValue<v8::Value>,
) {
}

const RAW_FAST_NOOP: v8::fast_api::CFunction = v8::fast_api::CFunction::new(
    raw_fast_noop as *const std::ffi::c_void,
    &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Void.as_info(),
        &[v8::fast_api::Type::V8Value.as_info()],
        v8::fast_api::Int64Representation::Number,
    ),
);

/// Installs `globalThis.raw_fast_noop`.
pub fn install_raw_fast_noop(scope: &mut v8::PinScope<'_, '_>) {
    let template = v8::FunctionTemplate::builder(raw_slow_noop).build_fast(scope, &[RAW_FAST_NOOP]);
    let function = template.get_function(scope).expect("template instantiates");
    let name = v8::String::new(scope, "raw_fast_noop").expect("short name");
    let global = scope.get_current_context().global(scope);
    global
        .set(scope, name.into(), function.into())
        .expect("setting a global cannot throw");
}
