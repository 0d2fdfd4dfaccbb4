//! Buffers, ArrayBuffers, Option, V8 locals, externals, the isolate and user types: results,
//! errors, and agreement of the fast and slow paths.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use crate::common;

use std::ffi::c_void;

use common::{call_both_ways, counting_runtime, DESCRIBE_JS};
use runtime_core::{op, v8, Extension, FromV8, OpError, Runtime, ToV8};

include!("../../../testdata/ops/kinds.rs");

fn extension() -> Extension {
    Extension::new("kinds").ops(&[
        op_buffer_sum::DECL,
        op_buffer_fill::DECL,
        op_buffer_copy_sum::DECL,
        op_buffer_box_len::DECL,
        op_arraybuffer_sum::DECL,
        op_arraybuffer_fill::DECL,
        op_bytes_vec::DECL,
        op_bytes_box::DECL,
        op_option_u32::DECL,
        op_option_i16_or_default::DECL,
        op_option_string::DECL,
        op_option_buffer_len::DECL,
        op_local_kind::DECL,
        op_local_array_length::DECL,
        op_local_nofast::DECL,
        op_external_identity::DECL,
        op_external_static::DECL,
        op_external_address::DECL,
        op_isolate_data_slots::DECL,
        op_point_swap::DECL,
    ])
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    runtime
        .execute_script(
            "values.js",
            "const big = new Uint8Array(100).map((_, i) => i);
             const detached = new Uint8Array(new ArrayBuffer(8)); %ArrayBufferDetach(detached.buffer);
             const detachedBuffer = new ArrayBuffer(8); %ArrayBufferDetach(detachedBuffer);
             globalThis.V = [
               new Uint8Array([1, 2, 3]), big.subarray(10, 20), new Uint8Array(0), detached,
               new Int8Array([1, 2]), new DataView(new ArrayBuffer(4)), new Uint8Array([9, 9]).buffer,
               detachedBuffer, new ArrayBuffer(0), [1, 2, 3], [], 'str', 5, undefined, null, {},
               () => 1, ops,
             ];",
        )
        .unwrap();
    runtime
}

/// Each op on every value of `V`, on both paths: the same result or the same exception.
fn agree_on_all_values(
    runtime: &mut Runtime,
    op: &str,
    warm: &str,
    extra_args: &str,
) -> Vec<String> {
    let count: usize = runtime
        .execute_script_to_string("len", "V.length")
        .unwrap()
        .parse()
        .unwrap();
    (0..count)
        .map(|index| {
            let args = format!("V[{index}]{extra_args}");
            let [(slow, _), (fast, path)] = call_both_ways(runtime, op, warm, &args);
            assert_eq!(
                slow, fast,
                "{op}({args}): slow path vs optimized caller ({path})"
            );
            format!("{slow} [{path}]")
        })
        .collect()
}

#[test]
fn buffers_agree_and_refuse_what_is_not_a_view() {
    let mut runtime = runtime();
    let sums = agree_on_all_values(&mut runtime, "op_buffer_sum", "V[0]", "");
    assert_eq!(sums[0], "number 6 [fast]");
    assert_eq!(
        sums[1], "number 145 [fast]",
        "a subarray: offset 10, length 10"
    );
    assert_eq!(sums[2], "number 0 [fast]");
    assert_eq!(sums[3], "throws TypeError: op_buffer_sum: argument 1 (bytes) is backed by a detached ArrayBuffer [fast]");
    // Any view's bytes, as deno_core: an Int8Array, a DataView.
    assert_eq!(sums[4], "number 3 [fast]");
    assert_eq!(sums[5], "number 0 [fast]");
    assert_eq!(sums[6], "throws TypeError: op_buffer_sum: argument 1 (bytes) must be a Uint8Array or another ArrayBufferView, received an object [fast]");
    assert_eq!(sums[12], "throws TypeError: op_buffer_sum: argument 1 (bytes) must be a Uint8Array or another ArrayBufferView, received a number [fast]");
    for op in ["op_buffer_copy_sum", "op_buffer_box_len"] {
        let results = agree_on_all_values(&mut runtime, op, "V[0]", "");
        assert_eq!(
            results[3].split(" [").next(),
            sums[3].replace("op_buffer_sum", op).split(" [").next()
        );
    }
    let sums = agree_on_all_values(&mut runtime, "op_arraybuffer_sum", "V[6]", "");
    assert_eq!(sums[6], "number 18 [fast]");
    assert_eq!(sums[7], "throws TypeError: op_arraybuffer_sum: argument 1 (bytes) is backed by a detached ArrayBuffer [fast]");
    assert_eq!(sums[8], "number 0 [fast]");
    assert_eq!(sums[0], "throws TypeError: op_arraybuffer_sum: argument 1 (bytes) must be an ArrayBuffer, received an object [fast]");
}

#[test]
fn mutable_buffers_write_through_on_both_paths() {
    let mut runtime = runtime();
    runtime
        .execute_script(
            "fill",
            "globalThis.arr = new Uint8Array(50); globalThis.ab = new ArrayBuffer(4);
             globalThis.head = arr.subarray(0, 1); globalThis.middle = arr.subarray(5, 15);",
        )
        .unwrap();
    // Slow (unoptimized caller) then fast (optimized): each fill must land in JavaScript's view.
    let [(slow, _), (fast, path)] =
        call_both_ways(&mut runtime, "op_buffer_fill", "head, 1", "middle, 3");
    assert_eq!(
        (slow.as_str(), fast.as_str(), path),
        ("number 10", "number 10", "fast")
    );
    let view = runtime
        .execute_script_to_string("read", "Array.from(arr.slice(0, 16)).join('')")
        .unwrap();
    assert_eq!(view, "1000033333333330");
    let [(_, _), (_, path)] = call_both_ways(&mut runtime, "op_arraybuffer_fill", "ab, 1", "ab, 4");
    assert_eq!(path, "fast");
    assert_eq!(
        runtime
            .execute_script_to_string("ab", "new Uint8Array(ab).join()")
            .unwrap(),
        "4,4,4,4"
    );

    // Small arrays made by optimized code may live on the V8 heap: writes still land.
    let small = runtime
        .execute_script_to_string(
            "small.js",
            "function make(n) { const a = new Uint8Array(8); ops.op_buffer_fill(a, n); return a[0] + a[7]; }
             %PrepareFunctionForOptimization(make); make(1); make(1);
             %OptimizeFunctionOnNextCall(make); make(2)",
        )
        .unwrap();
    assert_eq!(small, "4");
}

#[test]
fn byte_returns_become_uint8_arrays_without_a_copy() {
    let mut runtime = runtime();
    let result = runtime
        .execute_script_to_string(
            "bytes.js",
            "const v = ops.op_bytes_vec(5), b = ops.op_bytes_box(3), e = ops.op_bytes_vec(0);
             [v instanceof Uint8Array, Array.from(v).join(''), Array.from(b).join(''), e.length,
              v.buffer.byteLength].join()",
        )
        .unwrap();
    assert_eq!(result, "true,01234,777,0,5");
}

#[test]
fn options_take_undefined_and_null() {
    let mut runtime = runtime();
    for (args, expected) in [
        ("5", "number 6"),
        ("undefined", "null"),
        ("null", "null"),
        ("", "null"),
        ("'5'", "throws TypeError: op_option_u32: argument 1 (x) must be a number (u32), received a string"),
    ] {
        let warm = "1";
        let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_option_u32", warm, args);
        assert_eq!((slow.as_str(), fast.as_str(), path), (expected, expected, "slow"), "op_option_u32({args})");
    }
    // An optional number is fast: nullish and numbers on the fast path, the rest throws there.
    let results = agree_on_all_values(&mut runtime, "op_option_i16_or_default", "1", "");
    assert_eq!(results[12], "number 5 [fast]");
    assert_eq!(results[13], "number -100000 [fast]");
    assert_eq!(results[14], "number -100000 [fast]");
    assert_eq!(
        results[11],
        "throws TypeError: op_option_i16_or_default: argument 1 (x) must be a number (i16), received a string [fast]"
    );
    for (input, expected) in [
        ("32768", "number -32768"),
        ("-0", "number 0"),
        ("NaN", "number 0"),
        ("1.9", "number 1"),
    ] {
        let [(slow, _), (fast, path)] =
            call_both_ways(&mut runtime, "op_option_i16_or_default", "1", input);
        assert_eq!(
            (slow.as_str(), fast.as_str(), path),
            (expected, expected, "fast"),
            "({input})"
        );
    }
    let strings = runtime
        .execute_script_to_string(
            "opt.js",
            "JSON.stringify([ops.op_option_string('abc'), ops.op_option_string(null), ops.op_option_string(),
              ops.op_option_buffer_len(new Uint8Array(3)), ops.op_option_buffer_len(undefined)])",
        )
        .unwrap();
    assert_eq!(strings, r#"["ABC",null,null,3,-1]"#);
}

#[test]
fn locals_pass_any_value_or_check_their_type() {
    let mut runtime = runtime();
    let kinds = agree_on_all_values(&mut runtime, "op_local_kind", "V[0]", "");
    let kinds: Vec<&str> = kinds
        .iter()
        .map(|kind| kind.trim_start_matches("number "))
        .collect();
    assert_eq!(
        kinds[9..],
        [
            "5 [fast]", "5 [fast]", "3 [fast]", "2 [fast]", "0 [fast]", "1 [fast]", "6 [fast]",
            "4 [fast]", "6 [fast]"
        ]
    );
    let lengths = agree_on_all_values(&mut runtime, "op_local_array_length", "V[9]", "");
    assert_eq!(lengths[9], "number 3 [fast]");
    assert_eq!(lengths[10], "number 0 [fast]");
    assert_eq!(lengths[15], "throws TypeError: op_local_array_length: argument 1 (array) must be an array, received an object [fast]");
    assert!(!op_local_nofast::DECL.has_fast_path());
}

#[test]
fn externals_carry_pointers() {
    let mut runtime = runtime();
    let expected = std::ptr::addr_of!(EXTERNAL_TARGET) as usize;
    runtime
        .execute_script("ext", "globalThis.E = ops.op_external_static();")
        .unwrap();
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_external_address", "E", "E");
    assert_eq!(
        (slow.as_str(), path),
        (format!("number {expected}").as_str(), "fast")
    );
    assert_eq!(slow, fast);
    let [(slow, _), (fast, _)] = call_both_ways(&mut runtime, "op_external_address", "E", "null");
    assert_eq!((slow.as_str(), fast.as_str()), ("number 0", "number 0"));
    let [(slow, _), (fast, _)] = call_both_ways(&mut runtime, "op_external_address", "E", "7");
    assert_eq!(slow, fast);
    assert_eq!(slow, "throws TypeError: op_external_address: argument 1 (pointer) must be an External or null, received a number");
    // Through an op and back: another External object, the same pointer.
    let [(slow, _), (fast, path)] = call_both_ways(
        &mut runtime,
        "op_external_address",
        "E",
        "ops.op_external_identity(E)",
    );
    assert_eq!(
        (slow.as_str(), fast.as_str()),
        (
            format!("number {expected}").as_str(),
            format!("number {expected}").as_str()
        )
    );
    assert_eq!(path, "fast");
    let null = runtime
        .execute_script_to_string("null", "String(ops.op_external_identity(null))")
        .unwrap();
    assert_eq!(null, "null");
}

#[test]
fn the_isolate_and_user_types() {
    let mut runtime = runtime();
    assert_eq!(
        runtime
            .execute_script_to_string("slots", "ops.op_isolate_data_slots() > 0")
            .unwrap(),
        "true"
    );
    assert!(!op_isolate_data_slots::DECL.has_fast_path());
    let swapped = runtime
        .execute_script_to_string(
            "point.js",
            "JSON.stringify(ops.op_point_swap({x: 1, y: 2.5}))",
        )
        .unwrap();
    assert_eq!(swapped, r#"{"x":2.5,"y":1}"#);
    for (input, message) in [
        (
            "5",
            "TypeError: op_point_swap: argument 1 (point): expected an object {x, y}",
        ),
        (
            "{x: 'a', y: 1}",
            "TypeError: op_point_swap: argument 1 (point): x must be a number",
        ),
    ] {
        let err = runtime
            .execute_script("bad.js", &format!("ops.op_point_swap({input})"))
            .unwrap_err();
        assert_eq!(format!("{}: {}", err.class_name, err.message), message);
    }
}
