//! deno_ops' sync test cases and `valid_args`/`valid_retvals` rows, ported (the ops are in
//! `testdata/ops/deno_sync.rs`): each gives the right value, on both paths where it has two.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use crate::common;

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use common::{call_both_ways, counting_runtime, eval, DESCRIBE_JS};
use runtime_core::{
    op, v8, DetachedBuffer, Extension, JsBuffer, OpState, Runtime, RuntimeOptions, V8Slice,
};

include!("../../../testdata/ops/deno_sync.rs");

/// Room for a Uint32Array whose memory starts one byte past a 4-byte boundary.
#[repr(align(4))]
struct Misaligned([u8; 9]);
/// (1 and 2 as little-endian `u32`s from the second byte on.)
static MISALIGNED: Misaligned = Misaligned([0, 1, 0, 0, 0, 2, 0, 0, 0]);

/// A Uint32Array over memory not aligned for `u32` (only Rust-made memory can be): borrowing it
/// must throw, copying it must work.
#[op]
fn op_misaligned_u32s<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Uint32Array> {
    unsafe extern "C" fn keep(_: *mut std::ffi::c_void, _: usize, _: *mut std::ffi::c_void) {}
    // SAFETY: static memory, never freed (the deleter does nothing) and never written (the
    // tests only read it).
    let store = unsafe {
        v8::ArrayBuffer::new_backing_store_from_ptr(
            MISALIGNED.0.as_ptr().add(1).cast_mut().cast(),
            8,
            keep,
            std::ptr::null_mut(),
        )
    };
    let buffer = v8::ArrayBuffer::with_backing_store(scope, &store.make_shared());
    v8::Uint32Array::new(scope, buffer, 0, 2).unwrap()
}

fn runtime() -> Runtime {
    let extension = Extension::new("deno_sync").ops(&[
        op_smi_unsigned_return::DECL,
        op_smi_option::DECL,
        op_number_i64::DECL,
        op_number_usize_double::DECL,
        op_bigint_isize::DECL,
        op_string_return::DECL,
        op_string_return_ref::DECL,
        op_string_return_cow::DECL,
        op_string_option_return::DECL,
        op_str_trim::DECL,
        op_cow_lowercase::DECL,
        op_latin1_from_bytes::DECL,
        op_v8_lifetime::DECL,
        op_v8_string::DECL,
        op_v8_ref_length::DECL,
        op_v8_ref_option::DECL,
        op_v8_maybe_array::DECL,
        op_global_keep::DECL,
        op_global_kept::DECL,
        op_arraybuffer_return::DECL,
        op_buffer_return::DECL,
        op_typed_sum_u32::DECL,
        op_typed_fill_f64::DECL,
        op_buffers_32::DECL,
        op_typed_max_i64::DECL,
        op_typed_return_u16::DECL,
        op_typed_return_f32::DECL,
        op_misaligned_u32s::DECL,
        op_buffers::DECL,
        op_buffers_option::DECL,
        op_arraybuffers::DECL,
        op_js_buffer_keep::DECL,
        op_js_buffer_kept_sum::DECL,
        op_detach_sum::DECL,
        op_detach_reverse_elsewhere::DECL,
        op_buffers_ptrs::DECL,
        op_buffer_ptr_write::DECL,
        op_anybuffer_sum::DECL,
        op_arraybuffer_copy_len::DECL,
        op_buffers_copy::DECL,
        op_arraybuffer_bytes_len::DECL,
        op_bytes_mut_return::DECL,
        op_bytes_arraybuffer_return::DECL,
        op_generic_len::<Cat>::DECL,
        op_generic_name::<Horse>::DECL,
        op_slow_add::DECL,
        op_fast_add::DECL,
        op_stack_trace::DECL,
        op_v8slice_sum::DECL,
        op_v8slice_echo::DECL,
        op_v8slice_arraybuffer::DECL,
    ]);
    let mut runtime = counting_runtime(vec![extension]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    runtime
}

/// `op(args)` on both paths: the same outcome, `expected`, and the fast path taken when
/// `fast` says the op has one.
fn check(runtime: &mut Runtime, op: &str, warm: &str, args: &str, expected: &str, fast: bool) {
    let [(slow, _), (optimized, path)] = call_both_ways(runtime, op, warm, args);
    assert_eq!(slow, expected, "{op}({args}), slow");
    assert_eq!(
        optimized, expected,
        "{op}({args}), optimized caller ({path})"
    );
    if fast {
        assert_eq!(path, "fast", "{op}({args})");
    }
}

#[test]
fn smi_takes_any_integer_type_and_aliases() {
    let mut rt = runtime();
    let op = "op_smi_unsigned_return";
    check(&mut rt, op, "1, 2, 3, 4", "1, 2, 3, 4", "number 10", true);
    // -1 as an `i16` is 0xFFFF_FFFF as a `u32`: JavaScript sees the signed value again.
    check(&mut rt, op, "1, 2, 3, 4", "-1, 0, 0, 0", "number -1", true);
    // Each argument is `ToInt32`, then wraps to its type: 65536 is 0 as a `u16`.
    check(
        &mut rt,
        op,
        "1, 2, 3, 4",
        "0, 0, 65537, 0",
        "number 1",
        true,
    );
    check(
        &mut rt,
        op,
        "1, 2, 3, 4",
        "0, 2**32 + 5, 0, 0.5",
        "number 5",
        true,
    );
    check(
        &mut rt,
        op,
        "1, 2, 3, 4",
        "'1', 0, 0, 0",
        "throws TypeError: op_smi_unsigned_return: argument 1 (a) must be a number (smi), received a string",
        false,
    );
    check(&mut rt, "op_smi_option", "1", "7", "number 7", false);
    check(&mut rt, "op_smi_option", "1", "undefined", "null", false);
}

#[test]
fn number_marked_wide_integers() {
    let mut rt = runtime();
    let op = "op_number_i64";
    check(
        &mut rt,
        op,
        "1, 2",
        "2**52, 5",
        "number 4503599627370501",
        true,
    );
    // Truncated toward zero; a negative `u64` saturates at 0, NaN is 0.
    check(&mut rt, op, "1, 2", "-1.5, -7", "number -1", true);
    check(&mut rt, op, "1, 2", "NaN, 3", "number 3", true);
    let op = "op_number_usize_double";
    check(&mut rt, op, "1", "2**51", "number 4503599627370496", true);
    // 2^53 is past the last integer a Number holds exactly (and all below it): a RangeError.
    check(
        &mut rt,
        op,
        "1",
        "2**52",
        "throws RangeError: op_number_usize_double: the returned integer 9007199254740992 is beyond 2^53 - 1 in magnitude, where a Number stops being exact; return it as #[bigint]",
        true,
    );
}

#[test]
fn bigint_pointer_sized() {
    let mut rt = runtime();
    let op = "op_bigint_isize";
    check(&mut rt, op, "1n, 2n", "5n, 7n", "bigint 12n", true);
    check(&mut rt, op, "1n, 2n", "-1n, 0n", "bigint -1n", true);
    check(
        &mut rt,
        op,
        "1n, 2n",
        "0n, 2n**64n - 1n",
        "bigint -1n",
        true,
    );
}

#[test]
fn string_returns() {
    let mut rt = runtime();
    assert_eq!(eval(&mut rt, "ops.op_string_return()"), r#"string """#);
    assert_eq!(
        eval(&mut rt, "ops.op_string_return_ref()"),
        r#"string "static""#
    );
    assert_eq!(
        eval(&mut rt, "ops.op_string_return_cow()"),
        r#"string "cow""#
    );
    assert_eq!(
        eval(&mut rt, "ops.op_string_option_return('x')"),
        r#"string "x""#
    );
    assert_eq!(eval(&mut rt, "ops.op_string_option_return()"), "null");
    // Borrowed returns: ASCII, non-ASCII, and beyond the stack buffer (a lent buffer).
    assert_eq!(eval(&mut rt, "ops.op_str_trim('  hi  ')"), r#"string "hi""#);
    assert_eq!(
        eval(&mut rt, "ops.op_str_trim(' h\\u00e9llo \\u2713 ')"),
        "string \"h\u{e9}llo \u{2713}\""
    );
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_str_trim('  ' + 'x\\u00e9'.repeat(5000) + ' ') === 'x\\u00e9'.repeat(5000)"
        ),
        "boolean true"
    );
    assert_eq!(
        eval(&mut rt, "ops.op_cow_lowercase('ABC')"),
        r#"string "abc""#
    );
    assert_eq!(
        eval(&mut rt, "ops.op_cow_lowercase('abc')"),
        r#"string "abc""#
    );
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_latin1_from_bytes(new Uint8Array([104, 233, 255])) === 'h\\u00e9\\u00ff'"
        ),
        "boolean true"
    );
}

#[test]
fn v8_handles_in_and_out() {
    let mut rt = runtime();
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const s = 'abc' + Math.random(); return ops.op_v8_lifetime(s) === s; })()"
        ),
        "boolean true"
    );
    check(
        &mut rt,
        "op_v8_string",
        "'a', 'b'",
        "'a', 'b'",
        r#"string "ab""#,
        false,
    );
    check(
        &mut rt,
        "op_v8_string",
        "'a', 'b'",
        "1, 'b'",
        "throws TypeError: op_v8_string: argument 1 (str1) must be a string, received a number",
        false,
    );
    check(
        &mut rt,
        "op_v8_ref_length",
        "'a'",
        "'hello'",
        "number 5",
        true,
    );
    check(
        &mut rt,
        "op_v8_ref_length",
        "'a'",
        "5",
        "throws TypeError: op_v8_ref_length: argument 1 (s) must be a string, received a number",
        true,
    );
    check(
        &mut rt,
        "op_v8_ref_option",
        "'a', 'b'",
        "undefined, 'ab'",
        "number 2",
        false,
    );
    assert_eq!(eval(&mut rt, "ops.op_v8_maybe_array(3)"), "null");
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const f = () => 1; ops.op_global_keep(f); const kept = ops.op_global_kept(); \
             return kept === f && ops.op_global_kept() === null; })()"
        ),
        "boolean true"
    );
}

#[test]
fn buffer_returns() {
    let mut rt = runtime();
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const b = ops.op_arraybuffer_return(4); \
             return b instanceof ArrayBuffer && new Uint8Array(b).join() === '0,1,2,3'; })()"
        ),
        "boolean true"
    );
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const b = ops.op_buffer_return(3); \
             return b instanceof Uint8Array && b.join() === '7,7,7'; })()"
        ),
        "boolean true"
    );
}

#[test]
fn typed_arrays_of_every_element_type() {
    let mut rt = runtime();
    // (Arguments without commas: `call_both_ways` counts them.)
    rt.execute_script(
        "arrays",
        "globalThis.U = new Uint32Array([1, 2, 2**32 - 1]);
         globalThis.U_OFFSET = new Uint32Array(new ArrayBuffer(16), 4, 2);
         globalThis.U_12 = new Uint32Array([1, 2]);
         globalThis.I64 = new BigInt64Array([-5n, 7n, -(2n**63n)]);",
    )
    .unwrap();
    check(&mut rt, "op_typed_sum_u32", "U", "U", "number 2", true);
    check(
        &mut rt,
        "op_typed_sum_u32",
        "U",
        "U_OFFSET",
        "number 0",
        true,
    );
    check(
        &mut rt,
        "op_typed_sum_u32",
        "U",
        "new Int32Array(1)",
        "throws TypeError: op_typed_sum_u32: argument 1 (values) must be a Uint32Array, received an object",
        true,
    );
    // Writes reach JavaScript, on both paths.
    let fill = "(() => { const a = new Float64Array(3); ops.op_typed_fill_f64(a.subarray(1), 2.5); return a.join(); })()";
    assert_eq!(eval(&mut rt, fill), r#"string "0,2.5,2.5""#);
    check(
        &mut rt,
        "op_typed_fill_f64",
        "new Float64Array(2), 1",
        "new Float64Array(4), 1",
        "number 4",
        true,
    );
    check(
        &mut rt,
        "op_buffers_32",
        "U_12, U_12",
        "U_12, new Uint32Array(3)",
        "number 3",
        true,
    );
    check(&mut rt, "op_typed_max_i64", "I64", "I64", "bigint 7n", true);
    assert_eq!(
        eval(&mut rt, "(() => { const a = ops.op_typed_return_u16(3); return a instanceof Uint16Array && a.join(); })()"),
        r#"string "0,1000,2000""#
    );
    assert_eq!(
        eval(&mut rt, "(() => { const a = ops.op_typed_return_f32(); return a instanceof Float32Array && a.join(); })()"),
        r#"string "0.5,-1""#
    );
}

#[test]
fn misaligned_typed_arrays_throw_when_borrowed() {
    let mut rt = runtime();
    rt.execute_script(
        "m",
        "globalThis.M = ops.op_misaligned_u32s(); globalThis.A = new Uint32Array(2);",
    )
    .unwrap();
    let aligned = "A";
    check(
        &mut rt,
        "op_typed_sum_u32",
        aligned,
        "M",
        "throws TypeError: op_typed_sum_u32: argument 1 (values) must be a Uint32Array aligned for its element type; this one's memory is not (a buffer made from Rust bytes): copy it with #[buffer(copy)]",
        true,
    );
    check(
        &mut rt,
        "op_buffers_32",
        "A, A",
        "M, new Uint32Array(1)",
        "number 3",
        true,
    );
}

#[test]
fn kept_buffers_share_memory() {
    let mut rt = runtime();
    let same =
        "(() => { const a = new Uint8Array([1, 2, 3]); const b = ops.op_buffers(a.subarray(1)); \
                b[0] = 9; return b instanceof Uint8Array && b.length === 2 && a.join(); })()";
    assert_eq!(eval(&mut rt, same), r#"string "1,9,3""#);
    assert_eq!(eval(&mut rt, "ops.op_buffers_option(null)"), "null");
    assert_eq!(
        eval(&mut rt, "ops.op_buffers(new ArrayBuffer(2))"),
        "throws TypeError: op_buffers: argument 1 (buffer) must be a Uint8Array or another ArrayBufferView, received an object"
    );
    let whole = "(() => { const a = new ArrayBuffer(4); const b = ops.op_arraybuffers(a); \
                 new Uint8Array(b)[3] = 7; return b instanceof ArrayBuffer && new Uint8Array(a)[3]; })()";
    assert_eq!(eval(&mut rt, whole), "number 7");
    for refused in [
        "new Uint8Array(new SharedArrayBuffer(4))",
        "new Uint8Array(new ArrayBuffer(4, { maxByteLength: 8 }))",
    ] {
        let outcome = eval(&mut rt, &format!("ops.op_buffers({refused})"));
        assert!(
            outcome.starts_with("throws TypeError: op_buffers: argument 1 (buffer) is "),
            "{outcome}"
        );
    }
    // Kept across calls, on both paths: JavaScript's writes show, and the op's show to it.
    rt.execute_script("keep", "globalThis.K = new Uint8Array([1, 2, 3]);")
        .unwrap();
    check(
        &mut rt,
        "op_js_buffer_keep",
        "new ArrayBuffer(1)",
        "K",
        "number 3",
        true,
    );
    rt.execute_script("write", "K[2] = 10;").unwrap();
    check(
        &mut rt,
        "op_js_buffer_kept_sum",
        "5",
        "5",
        "number 17",
        true,
    );
    assert_eq!(eval(&mut rt, "K[0]"), "number 5");
}

#[test]
fn detached_buffers_are_taken() {
    let mut rt = runtime();
    let taken = "(() => { const a = new Uint8Array([1, 2, 3]); const sum = ops.op_detach_sum(a); \
                 return sum + ',' + a.length + ',' + a.buffer.detached; })()";
    assert_eq!(eval(&mut rt, taken), r#"string "6,0,true""#);
    let again = "(() => { const a = new Uint8Array([1]); ops.op_detach_sum(a); return ops.op_detach_sum(a); })()";
    assert_eq!(
        eval(&mut rt, again),
        "throws TypeError: op_detach_sum: argument 1 (buffer) is backed by a detached ArrayBuffer"
    );
    let reversed = "(() => { const a = new Uint8Array([1, 2, 3]).buffer; \
                    return ops.op_detach_reverse_elsewhere(a).join() + ',' + a.byteLength; })()";
    assert_eq!(eval(&mut rt, reversed), r#"string "3,2,1,0""#);
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_detach_sum(new Uint8Array(new SharedArrayBuffer(2)))"
        )
        .split(':')
        .next(),
        Some("throws TypeError")
    );
}

#[test]
fn pointers_anybuffers_and_arraybuffer_copies() {
    let mut rt = runtime();
    rt.execute_script(
        "b",
        "globalThis.B3 = new Uint8Array([1, 2, 3]); globalThis.B0 = new Uint8Array(0);",
    )
    .unwrap();
    check(
        &mut rt,
        "op_buffers_ptrs",
        "B3, B3, B3",
        "B3, B0, B3",
        "number 310",
        true,
    );
    let write = "(() => { const a = new Uint8Array(2); ops.op_buffer_ptr_write(a.subarray(1), 4); return a.join(); })()";
    assert_eq!(eval(&mut rt, write), r#"string "0,4""#);
    check(
        &mut rt,
        "op_buffer_ptr_write",
        "B3, 1",
        "B0, 1",
        "undefined undefined",
        true,
    );
    check(
        &mut rt,
        "op_anybuffer_sum",
        "B3",
        "B3.buffer",
        "number 6",
        true,
    );
    check(
        &mut rt,
        "op_anybuffer_sum",
        "B3",
        "B3.subarray(2)",
        "number 3",
        true,
    );
    check(
        &mut rt,
        "op_anybuffer_sum",
        "B3",
        "[1]",
        "throws TypeError: op_anybuffer_sum: argument 1 (bytes) must be an ArrayBuffer or an ArrayBufferView, received an array",
        true,
    );
    check(
        &mut rt,
        "op_arraybuffer_copy_len",
        "B3.buffer, B3.buffer",
        "B3.buffer, B0.buffer",
        "number 3",
        true,
    );
}

#[test]
fn bytes_crate_copies_and_returns() {
    let mut rt = runtime();
    rt.execute_script(
        "b",
        "globalThis.B3 = new Uint8Array([1, 2, 3]); globalThis.B1 = B3.subarray(2);",
    )
    .unwrap();
    check(
        &mut rt,
        "op_buffers_copy",
        "B3, B3, B3",
        "B3, B1, B1",
        "number 311",
        true,
    );
    assert_eq!(
        eval(&mut rt, "ops.op_arraybuffer_bytes_len(new ArrayBuffer(5))"),
        "number 5"
    );
    assert_eq!(
        eval(&mut rt, "(() => { const a = ops.op_bytes_mut_return(2); return a instanceof Uint8Array && a.join(); })()"),
        r#"string "3,3""#
    );
    assert_eq!(
        eval(&mut rt, "(() => { const a = ops.op_bytes_arraybuffer_return(); return a instanceof ArrayBuffer && new Uint8Array(a).join(); })()"),
        r#"string "1,2""#
    );
}

#[test]
fn generic_ops_are_one_declaration_per_type() {
    let mut rt = runtime();
    check(&mut rt, "op_generic_len", "1", "2", "number 5", true);
    assert_eq!(eval(&mut rt, "ops.op_generic_name()"), r#"string "horse""#);
    // Another instantiation is another declaration (registered under the same name).
    let horse = Extension::new("horse").ops(&[op_generic_len::<Horse>::DECL]);
    let mut other = common::counting_runtime(vec![horse]);
    let len = other
        .execute_script_to_string("len", "ops.op_generic_len(0)")
        .unwrap();
    assert_eq!(len, "5");
}

#[test]
fn a_slow_op_may_borrow_another_ops_fast_path() {
    assert!(op_slow_add::DECL.has_fast_path());
    let mut rt = runtime();
    check(&mut rt, "op_slow_add", "1, 2", "40, 2", "number 42", true);
}

#[test]
fn stack_traces_when_asked_only() {
    // Not asked: the op keeps its fast path, and nothing is captured.
    let mut rt = runtime();
    check(
        &mut rt,
        "op_stack_trace",
        "",
        "",
        "undefined undefined",
        true,
    );

    type Seen = Vec<(String, Vec<runtime_core::JsStackFrame>)>;
    let seen: Rc<RefCell<Seen>> = Rc::default();
    let record = seen.clone();
    common::init_test_flags();
    let mut rt = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("traced").ops(&[op_stack_trace::DECL, op_fast_add::DECL])],
        op_stack_trace_callback: Some(Rc::new(move |decl, frames| {
            record
                .borrow_mut()
                .push((decl.name().to_owned(), frames.to_vec()));
        })),
        ..Default::default()
    });
    rt.execute_script(
        "trace.js",
        "function opens() { ops.op_stack_trace(); }\n\
         %PrepareFunctionForOptimization(opens); opens(); opens();\n\
         %OptimizeFunctionOnNextCall(opens); opens();\n\
         ops.op_fast_add(1, 2);",
    )
    .unwrap();
    let seen = seen.borrow();
    // Every call, optimized or not (a traced op has no fast path); only the traced op.
    assert_eq!(seen.len(), 3, "{seen:?}");
    for (name, frames) in seen.iter() {
        assert_eq!(name, "op_stack_trace");
        assert_eq!(
            frames[0],
            runtime_core::JsStackFrame {
                function_name: Some("opens".into()),
                file_name: Some("trace.js".into()),
                line_number: Some(1),
                column_number: Some(24), // `op_stack_trace` in `ops.op_stack_trace()`
                ..Default::default()
            }
        );
        assert_eq!(frames[1].function_name, None);
        assert_eq!(frames[1].file_name.as_deref(), Some("trace.js"));
    }
}

#[test]
fn typed_slices_keep_memory() {
    let mut rt = runtime();
    rt.execute_script(
        "s",
        "globalThis.U = new Uint32Array([1, 2, 3]); globalThis.M = ops.op_misaligned_u32s();",
    )
    .unwrap();
    check(
        &mut rt,
        "op_v8slice_sum",
        "U",
        "U.subarray(1)",
        "number 5",
        true,
    );
    check(
        &mut rt,
        "op_v8slice_sum",
        "U",
        "new Int32Array(1)",
        "throws TypeError: op_v8slice_sum: argument 1 (values) must be a Uint32Array, received an object",
        true,
    );
    check(
        &mut rt,
        "op_v8slice_sum",
        "U",
        "M",
        "throws TypeError: op_v8slice_sum: argument 1 (values) must be a Uint32Array aligned for its element type; this one's memory is not (a buffer made from Rust bytes): copy it with #[buffer(copy)]",
        true,
    );
    let same = "(() => { const a = new Uint32Array([1, 2, 3]); const b = ops.op_v8slice_echo(a.subarray(1)); \
                b[0] = 7; return b instanceof Uint32Array && a.join(); })()";
    assert_eq!(eval(&mut rt, same), r#"string "1,7,3""#);
    let buffer = "(() => { const a = new ArrayBuffer(2); return ops.op_v8slice_arraybuffer(a) instanceof ArrayBuffer; })()";
    assert_eq!(eval(&mut rt, buffer), "boolean true");
}
