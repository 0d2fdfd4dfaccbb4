//! The ops the benchmark calls: deno_core 0.413's `benches/ops/sync.rs` ops with their exact
//! signatures and bodies (`#[op2(...)]` → `#[op(...)]`),
//! opwire's own extra ops, and the hand-written floors.

use std::borrow::Cow;
use std::ffi::c_void;

use runtime_core::{op, v8, ByteString, Extension, JsBuffer};

// ---- deno's ops, one to one ----------------------------------------------------------------

#[op(fast)]
pub fn op_void() {}

#[op(fast, no_side_effects)]
pub fn op_void_no_side_effects() {}

#[op(nofast)]
pub fn op_void_nofast() {}

#[op(nofast, no_side_effects)]
pub fn op_void_nofast_no_side_effects() {}

#[op(fast)]
pub fn op_void_metrics() {}

#[op(nofast)]
pub fn op_void_nofast_metrics() {}

#[op(fast)]
pub fn op_u32() -> u32 {
    1
}

#[op]
pub fn op_option_u32() -> Option<u32> {
    Some(1)
}

#[op(fast)]
pub fn op_string(#[string] s: &str) -> u32 {
    s.len() as _
}

#[op(fast)]
pub fn op_string_onebyte(#[string(onebyte)] s: Cow<[u8]>) -> u32 {
    s.len() as _
}

#[op]
pub fn op_string_bytestring(#[serde] s: ByteString) -> u32 {
    s.len() as _
}

#[op(no_side_effects)]
pub fn op_string_bytestring_no_side_effects(#[serde] s: ByteString) -> u32 {
    s.len() as _
}

#[op(fast)]
pub fn op_string_owned(#[string] s: String) -> u32 {
    s.len() as _
}

#[op]
pub fn op_string_option_u32(#[string] s: &str) -> Option<u32> {
    Some(s.len() as _)
}

#[op(fast)]
pub fn op_local(_s: v8::Local<v8::String>) {}

/// deno's is `#[op2(fast)]`; opwire gives no fast path to ops that take the scope.
#[op]
pub fn op_local_scope<'s>(_scope: &mut v8::PinScope<'s, '_>, _s: v8::Local<'s, v8::String>) {}

#[op(nofast)]
pub fn op_local_nofast(_s: v8::Local<v8::String>) {}

/// deno's is `#[op2(fast)]`; see `op_local_scope`.
#[op]
pub fn op_scope(_scope: &mut v8::PinScope) {}

#[op(nofast)]
pub fn op_isolate_nofast(_isolate: &mut v8::Isolate) {}

#[op(fast)]
pub fn op_make_external() -> *const c_void {
    std::ptr::null()
}

#[op(fast)]
pub fn op_bigint(#[bigint] _input: u64) {}

#[op(fast)]
#[bigint]
pub fn op_bigint_return() -> u64 {
    0
}

#[op(fast)]
pub fn op_external(_input: *const c_void) {}

#[op(nofast)]
pub fn op_external_nofast(_input: *const c_void) {}

#[op(fast)]
pub fn op_buffer(#[buffer] _buffer: &[u8]) {}

#[op]
pub fn op_buffer_jsbuffer(#[buffer] _buffer: JsBuffer) {}

#[op(nofast)]
pub fn op_buffer_nofast(#[buffer] _buffer: &[u8]) {}

#[op(fast)]
pub fn op_arraybuffer(#[arraybuffer] _buffer: &[u8]) {}

// ---- opwire's own ----------------------------------------------------------------------------

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

/// Every op the benchmark registers.
pub fn extension() -> Extension {
    Extension::new("bench")
        .ops(&[
            op_void::DECL,
            op_void_no_side_effects::DECL,
            op_void_nofast::DECL,
            op_void_nofast_no_side_effects::DECL,
            op_void_metrics::DECL,
            op_void_nofast_metrics::DECL,
            op_u32::DECL,
            op_option_u32::DECL,
            op_string::DECL,
            op_string_onebyte::DECL,
            op_string_bytestring::DECL,
            op_string_bytestring_no_side_effects::DECL,
            op_string_owned::DECL,
            op_string_option_u32::DECL,
            op_local::DECL,
            op_local_scope::DECL,
            op_local_nofast::DECL,
            op_scope::DECL,
            op_isolate_nofast::DECL,
            op_make_external::DECL,
            op_bigint::DECL,
            op_bigint_return::DECL,
            op_external::DECL,
            op_external_nofast::DECL,
            op_buffer::DECL,
            op_buffer_jsbuffer::DECL,
            op_buffer_nofast::DECL,
            op_arraybuffer::DECL,
            op_string_return::DECL,
            op_string_return_large_1000::DECL,
            op_string_return_utf8_1000::DECL,
            op_static_str_return::DECL,
        ])
        .state(|state| {
            // deno's bench extension puts these; no op reads them.
            state.put(1234u32);
            state.put(10000u16);
        })
}

// ---- the floors: written by hand against rusty_v8, no macro, no op context -------------------

extern "C" fn raw_fast_noop(_receiver: v8::Local<v8::Object>) {}

fn raw_noop(
    _scope: &mut v8::PinScope,
    _args: v8::FunctionCallbackArguments,
    _rv: v8::ReturnValue<v8::Value>,
) {
}

const RAW_FAST_NOOP: &[v8::fast_api::CFunction] = &[v8::fast_api::CFunction::new(
    raw_fast_noop as *const c_void,
    &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Void.as_info(),
        &[v8::fast_api::Type::V8Value.as_info()],
        v8::fast_api::Int64Representation::Number,
    ),
)];

/// A fast function taking a `BigInt` as a `u64` and doing nothing: what V8 alone costs for
/// `op_bigint`'s signature (the same `CFunctionInfo`, deno's too).
extern "C" fn raw_fast_bigint(_receiver: v8::Local<v8::Object>, _value: u64) {}

const RAW_FAST_BIGINT: &[v8::fast_api::CFunction] = &[v8::fast_api::CFunction::new(
    raw_fast_bigint as *const c_void,
    &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Void.as_info(),
        &[
            v8::fast_api::Type::V8Value.as_info(),
            v8::fast_api::Type::Uint64.as_info(),
        ],
        v8::fast_api::Int64Representation::BigInt,
    ),
)];

/// A fast function taking an external as a pointer and doing nothing: what V8 alone costs for
/// `op_external`'s signature.
extern "C" fn raw_fast_pointer(_receiver: v8::Local<v8::Object>, _value: *mut c_void) {}

const RAW_FAST_POINTER: &[v8::fast_api::CFunction] = &[v8::fast_api::CFunction::new(
    raw_fast_pointer as *const c_void,
    &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Void.as_info(),
        &[
            v8::fast_api::Type::V8Value.as_info(),
            v8::fast_api::Type::Pointer.as_info(),
        ],
        v8::fast_api::Int64Representation::Number,
    ),
)];

/// A `FunctionCallback` that does nothing at all: the floor of every slow call.
unsafe extern "C" fn raw_slow_noop(_info: *const v8::FunctionCallbackInfo) {}

/// The floor of a fast call that reads a view's bytes: the two V8 calls no binding can skip
/// (is it a view? where are its bytes?), and nothing else: no error for a wrong type, no
/// detached check. It takes the callback options, as every op's fast function does (they are
/// how it would throw).
extern "C" fn raw_fast_view_bytes(
    _receiver: v8::Local<v8::Object>,
    value: v8::Local<v8::Value>,
    _options: *mut v8::fast_api::FastApiCallbackOptions,
) {
    if let Ok(view) = v8::Local::<v8::ArrayBufferView>::try_from(value) {
        // SAFETY: the storage is as large as any array V8 keeps on its heap.
        let contents =
            unsafe { view.get_contents_raw_parts(&mut [0; v8::TYPED_ARRAY_MAX_SIZE_IN_HEAP]) };
        std::hint::black_box(contents);
    }
}

const RAW_FAST_VIEW_BYTES: &[v8::fast_api::CFunction] = &[v8::fast_api::CFunction::new(
    raw_fast_view_bytes as *const c_void,
    &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Void.as_info(),
        &[
            v8::fast_api::Type::V8Value.as_info(),
            v8::fast_api::Type::V8Value.as_info(),
            v8::fast_api::Type::CallbackOptions.as_info(),
        ],
        v8::fast_api::Int64Representation::Number,
    ),
)];

/// Puts the floors on the ops object, where the harness reads ops: `raw_fast_noop` (a fast
/// function doing nothing; its slow twin does nothing either), `raw_slow_noop` (a
/// `FunctionCallback` doing nothing), `raw_fast_view_bytes` (a fast function finding a view's
/// bytes, and nothing more), `raw_fast_bigint` and `raw_fast_pointer` (fast functions taking a
/// `BigInt` or an external, doing nothing) and `js_noop` (a JavaScript function never
/// optimized).
pub fn install_floors(scope: &mut v8::PinScope<'_, '_>) {
    let global = scope.get_current_context().global(scope);
    let key = v8::String::new(scope, "ops").expect("short name");
    let ops = global
        .get(scope, key.into())
        .and_then(|ops| v8::Local::<v8::Object>::try_from(ops).ok())
        .expect("the ops object");
    let fast = v8::FunctionTemplate::builder(raw_noop).build_fast(scope, RAW_FAST_NOOP);
    let slow = v8::FunctionTemplate::builder_raw(raw_slow_noop).build(scope);
    let view_bytes = v8::FunctionTemplate::builder(raw_noop).build_fast(scope, RAW_FAST_VIEW_BYTES);
    let bigint = v8::FunctionTemplate::builder(raw_noop).build_fast(scope, RAW_FAST_BIGINT);
    let pointer = v8::FunctionTemplate::builder(raw_noop).build_fast(scope, RAW_FAST_POINTER);
    for (name, template) in [
        ("raw_fast_noop", fast),
        ("raw_slow_noop", slow),
        ("raw_fast_view_bytes", view_bytes),
        ("raw_fast_bigint", bigint),
        ("raw_fast_pointer", pointer),
    ] {
        let function = template.get_function(scope).expect("template instantiates");
        let name = v8::String::new(scope, name).expect("short name");
        ops.set(scope, name.into(), function.into())
            .expect("setting a property cannot throw");
    }
}
