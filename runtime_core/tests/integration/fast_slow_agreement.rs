//! For every test op and every input: the slow path (unoptimized caller) and the fast path
//! (caller optimized with `%OptimizeFunctionOnNextCall`) give the same result or the same
//! exception, and the op call counters prove which path ran.

// The testdata files hold slow-only ops too, which this test does not register.
#![allow(dead_code)]

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{call_both_ways, counting_runtime, DESCRIBE_JS};
use runtime_core::{op, v8, Extension, OpState, Runtime};

include!("../../../testdata/ops/numbers.rs");
include!("../../../testdata/ops/state.rs");

/// Which JavaScript values reach an op's fast path (V8 checks before the call; anything else
/// deoptimizes and the slow path decides).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Accepts {
    Numbers,
    BigInts,
    Anything,
}

/// Edge values for every scalar kind, as JavaScript source.
const EDGE_INPUTS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "1.5",
    "-1.5",
    "0.1",
    "127",
    "128",
    "-128",
    "-129",
    "255",
    "256",
    "32767",
    "32768",
    "-32769",
    "65535",
    "65536",
    "2**31 - 1",
    "2**31",
    "-(2**31)",
    "2**32",
    "2**32 + 5",
    "-(2**32) - 1",
    "2**53",
    "-(2**53)",
    "1e20",
    "-1e20",
    "3.4028235677973366e38",
    "1e300",
    "5e-324",
    "NaN",
    "Infinity",
    "-Infinity",
    "'5'",
    "''",
    "'abc'",
    "undefined",
    "null",
    "true",
    "false",
    "0n",
    "5n",
    "-1n",
    "2n**63n",
    "2n**63n - 1n",
    "-(2n**63n)",
    "2n**64n",
    "2n**64n + 3n",
    "-(2n**64n) - 7n",
    "({})",
    "[]",
    "[7]",
    "new Number(5)",
    "Symbol('s')",
    "(() => 1)",
];

fn extension() -> Extension {
    Extension::new("agreement")
        .ops(&[
            op_bool::DECL,
            op_i8::DECL,
            op_i16::DECL,
            op_i32::DECL,
            op_u8::DECL,
            op_u16::DECL,
            op_u32::DECL,
            op_f32::DECL,
            op_f64::DECL,
            op_bigint_i64::DECL,
            op_bigint_u64::DECL,
            op_add_i32::DECL,
            op_mixed::DECL,
            op_void::DECL,
            op_square_f64::DECL,
            op_tally_add::DECL,
            op_tally_get::DECL,
        ])
        .state(|state| {
            state.put(Tally(0));
        })
}

fn is_accepted(accepts: Accepts, runtime: &mut Runtime, input: &str) -> bool {
    let type_of = runtime
        .execute_script_to_string("typeof", &format!("typeof ({input})"))
        .unwrap();
    match accepts {
        Accepts::Numbers => type_of == "number",
        Accepts::BigInts => type_of == "bigint",
        Accepts::Anything => true,
    }
}

#[test]
fn every_scalar_op_agrees_on_edge_values() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let ops: &[(&str, &str, Accepts)] = &[
        ("op_bool", "true", Accepts::Anything),
        ("op_i8", "1", Accepts::Numbers),
        ("op_i16", "1", Accepts::Numbers),
        ("op_i32", "1", Accepts::Numbers),
        ("op_u8", "1", Accepts::Numbers),
        ("op_u16", "1", Accepts::Numbers),
        ("op_u32", "1", Accepts::Numbers),
        ("op_f32", "1.5", Accepts::Numbers),
        ("op_f64", "1.5", Accepts::Numbers),
        ("op_square_f64", "1.5", Accepts::Numbers),
        ("op_bigint_i64", "1n", Accepts::BigInts),
        ("op_bigint_u64", "1n", Accepts::BigInts),
    ];
    let mut report = Vec::new();
    for &(op, warm, accepts) in ops {
        for input in EDGE_INPUTS {
            let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, op, warm, input);
            assert_eq!(slow, fast, "{op}({input}): slow path vs optimized caller");
            let accepted = is_accepted(accepts, &mut runtime, input);
            assert_eq!(
                path == "fast",
                accepted,
                "{op}({input}) took the {path} path; accepted by the fast signature: {accepted}"
            );
            if !accepted {
                assert!(
                    slow.starts_with("throws TypeError: "),
                    "{op}({input}) -> {slow}"
                );
            }
            report.push(format!("{op}({input}) = {slow} [{path}]"));
        }
    }
    // The agreement alone would pass if both paths were wrong the same way: pin the rules.
    let expect = |line: &str| {
        assert!(
            report.iter().any(|entry| entry.starts_with(line)),
            "missing: {line}\n{}",
            report.join("\n")
        )
    };
    expect("op_bool('') = boolean false [fast]");
    expect("op_bool('abc') = boolean true [fast]");
    expect("op_bool(({})) = boolean true [fast]");
    expect("op_bool(undefined) = boolean false [fast]");
    expect("op_i8(128) = number -128 [fast]");
    expect("op_i8(-129) = number 127 [fast]");
    expect("op_i16(32768) = number -32768 [fast]");
    expect("op_i32(-0) = number 0 [fast]");
    expect("op_i32(1.5) = number 1 [fast]");
    expect("op_i32(-1.5) = number -1 [fast]");
    expect("op_i32(2**31) = number -2147483648 [fast]");
    expect("op_i32(2**32 + 5) = number 5 [fast]");
    expect("op_i32(1e20) = number 1661992960 [fast]");
    expect("op_i32(NaN) = number 0 [fast]");
    expect("op_i32(Infinity) = number 0 [fast]");
    expect("op_u8(256) = number 0 [fast]");
    expect("op_u16(65536) = number 0 [fast]");
    expect("op_u32(-1) = number 4294967295 [fast]");
    expect("op_u32(2**32) = number 0 [fast]");
    expect("op_f32(0.1) = number 0.10000000149011612 [fast]");
    expect("op_f32(1e300) = number Infinity [fast]");
    expect("op_f64(-0) = number -0 [fast]");
    expect("op_f64(NaN) = number NaN [fast]");
    expect("op_bigint_i64(2n**63n) = bigint -9223372036854775808n [fast]");
    expect("op_bigint_u64(-1n) = bigint 18446744073709551615n [fast]");
    expect("op_bigint_u64(2n**64n + 3n) = bigint 3n [fast]");
    expect("op_i32('5') = throws TypeError: op_i32: argument 1 (x) must be a number (i32), received a string [slow]");
    expect("op_i32(undefined) = throws TypeError: op_i32: argument 1 (x) must be a number (i32), received undefined [slow]");
    expect("op_i32(5n) = throws TypeError: op_i32: argument 1 (x) must be a number (i32), received a BigInt [slow]");
    expect("op_u32(new Number(5)) = throws TypeError: op_u32: argument 1 (x) must be a number (u32), received an object [slow]");
    expect("op_bigint_i64(1) = throws TypeError: op_bigint_i64: argument 1 (x) must be a BigInt (i64), received a number [slow]");
}

#[test]
fn multi_argument_ops_agree_and_name_the_right_argument() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let cases: &[(&str, &str, &str, &str)] = &[
        ("op_add_i32", "1, 2", "2**31 - 1, 1", "number -2147483648"),
        ("op_add_i32", "1, 2", "-0, 0.5", "number 0"),
        ("op_add_i32", "1, 2", "1, '2'", "throws TypeError: op_add_i32: argument 2 (b) must be a number (i32), received a string"),
        ("op_add_i32", "1, 2", "undefined, 2", "throws TypeError: op_add_i32: argument 1 (a) must be a number (i32), received undefined"),
        ("op_mixed", "true, 1, 1, 1, 1", "true, 127, 65535, 0.5, 0.25", "number 65662.75"),
        ("op_mixed", "true, 1, 1, 1, 1", "0, 128, 65536, 1.5, NaN", "number NaN"),
        ("op_mixed", "true, 1, 1, 1, 1", "'', -129, -1, 0.1, 1", "number -65663.10000000149"),
        ("op_mixed", "true, 1, 1, 1, 1", "true, 1, 1, 1, 1n", "throws TypeError: op_mixed: argument 5 (double) must be a number (f64), received a BigInt"),
        ("op_mixed", "true, 1, 1, 1, 1", "true, 1, null, 1, 1", "throws TypeError: op_mixed: argument 3 (medium) must be a number (u16), received null"),
    ];
    for &(op, warm, args, expected) in cases {
        let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, op, warm, args);
        assert_eq!(slow, expected, "{op}({args}) on the slow path");
        assert_eq!(
            fast, expected,
            "{op}({args}) from an optimized caller ({path} path)"
        );
        assert_eq!(
            path == "fast",
            !expected.starts_with("throws"),
            "{op}({args}) took the {path} path"
        );
    }
}

#[test]
fn void_and_state_ops_agree() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_void", "", "");
    assert_eq!(
        (slow.as_str(), fast.as_str(), path),
        ("undefined undefined", "undefined undefined", "fast")
    );

    // State ops: the tally moves by the same amounts on either path.
    let state = runtime.op_state();
    state.borrow_mut().put(Tally(0));
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_tally_get", "", "");
    assert_eq!(slow, fast);
    assert_eq!(path, "fast");
    assert_eq!(state.borrow().borrow::<Tally>().0, 0);
    let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, "op_tally_add", "0", "5");
    assert_eq!(path, "fast");
    assert_eq!((slow.as_str(), fast.as_str()), ("number 5", "number 10"));
}
