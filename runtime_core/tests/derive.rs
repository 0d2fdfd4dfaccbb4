//! `#[derive(FromV8, ToV8)]` (deno's `conversion/` test cases, in opwire's spelling): structs
//! as objects, tuple structs as arrays, unit enums as strings, nested, through real ops.

mod common;

use common::counting_runtime;
use runtime_core::{op, Extension, FromV8, Runtime, ToV8};

/// deno's `struct.rs`.
#[derive(FromV8, ToV8, Debug, PartialEq)]
pub struct Struct {
    a: u8,
    #[from_v8(default = Some(3))]
    c: Option<u32>,
    #[from_v8(rename = "e")]
    #[to_v8(rename = "e")]
    d: u16,
    f: Option<u32>,
}

/// deno's `struct_tuple.rs` (without its serde field).
#[derive(FromV8, ToV8, Debug, PartialEq)]
pub struct Tuple(u8, String);

/// deno's `enum.rs`, unit variants.
#[derive(FromV8, ToV8, Debug, PartialEq)]
pub enum SimpleEnum {
    VariantA,
    #[from_v8(rename = "customName")]
    #[to_v8(rename = "customName")]
    VariantB,
}

#[derive(FromV8, ToV8, Debug, PartialEq)]
pub struct Nested {
    name: String,
    points: Vec<Tuple>,
    kind: SimpleEnum,
    inner: Option<Box<Struct>>,
}

/// Takes a structured value and gives it back, so both derives run.
#[op]
#[to_v8]
fn op_roundtrip(#[from_v8] value: Nested) -> Nested {
    value
}

#[op]
#[to_v8]
fn op_struct(#[from_v8] value: Struct) -> Struct {
    value
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![
        Extension::new("derive").ops(&[op_roundtrip::DECL, op_struct::DECL])
    ]);
    runtime
        .execute_script("describe", common::DESCRIBE_JS)
        .unwrap();
    runtime
}

fn eval(runtime: &mut Runtime, script: &str) -> String {
    runtime
        .execute_script_to_string("eval", &format!("attempt(() => {script})"))
        .unwrap()
}

#[test]
fn structs_objects_arrays_and_strings_round_trip() {
    let mut rt = runtime();
    let out = eval(
        &mut rt,
        "JSON.stringify(ops.op_roundtrip({name: 'n', points: [[1, 'a'], [2, 'b']], kind: 'customName', \
         inner: {a: 1, e: 5}}))",
    );
    assert_eq!(
        out,
        r#"string "{\"name\":\"n\",\"points\":[[1,\"a\"],[2,\"b\"]],\"kind\":\"customName\",\"inner\":{\"a\":1,\"c\":3,\"e\":5,\"f\":null}}""#
    );
    // A missing `Option` field is `None` (`null` back), a default applies, `null` is `None`.
    let out = eval(
        &mut rt,
        "JSON.stringify(ops.op_struct({a: 7, e: 1, c: null}))",
    );
    assert_eq!(out, r#"string "{\"a\":7,\"c\":null,\"e\":1,\"f\":null}""#);
}

#[test]
fn bad_values_say_where() {
    let mut rt = runtime();
    let cases = [
        (
            "ops.op_struct({e: 1})",
            "missing required field 'a' on 'Struct'",
        ),
        ("ops.op_struct({a: 'x', e: 1})", "a: expected a number (u8)"),
        ("ops.op_struct(5)", "expected an object (Struct)"),
        (
            "ops.op_roundtrip({name: 'n', points: [[1]], kind: 'VariantA'})",
            "points: [0]: expected an array of 2 elements (Tuple)",
        ),
        (
            "ops.op_roundtrip({name: 'n', points: [], kind: 'nope'})",
            "kind: expected one of 'VariantA', 'customName' (SimpleEnum)",
        ),
    ];
    for (script, detail) in cases {
        let out = eval(&mut rt, script);
        let op = script.split('(').next().unwrap().trim_start_matches("ops.");
        assert_eq!(
            out,
            format!("throws TypeError: {op}: argument 1 (value): {detail}"),
            "{script}"
        );
    }
}

/// A newtype is its field.
#[derive(FromV8, ToV8, Debug, PartialEq)]
pub struct Meters(f64);

/// No attribute needed (as deno's op2): the types' `FromV8`/`ToV8` are used.
#[op]
fn op_unmarked(value: Nested, pair: (u32, String), lengths: Meters) -> (Nested, Meters, u32) {
    (value, lengths, pair.0 + pair.1.len() as u32)
}

/// deno's `#[scoped]` spelling; maps of strings.
#[op]
fn op_counts(
    #[scoped] words: Vec<String>,
    extra: std::collections::BTreeMap<String, u32>,
) -> std::collections::BTreeMap<String, u32> {
    let mut counts = extra;
    for word in words {
        *counts.entry(word).or_default() += 1;
    }
    counts
}

#[test]
fn unmarked_tuples_maps_and_newtypes() {
    let mut rt = counting_runtime(vec![
        Extension::new("derive2").ops(&[op_unmarked::DECL, op_counts::DECL])
    ]);
    rt.execute_script("describe", common::DESCRIBE_JS).unwrap();
    let out = eval(
        &mut rt,
        "JSON.stringify(ops.op_unmarked({name: 'n', points: [], kind: 'VariantA'}, [2, 'abc'], 1.5))",
    );
    assert_eq!(
        out,
        r#"string "[{\"name\":\"n\",\"points\":[],\"kind\":\"VariantA\",\"inner\":null},1.5,5]""#
    );
    let out = eval(
        &mut rt,
        "JSON.stringify(ops.op_counts(['a', 'b', 'a'], {c: 7}))",
    );
    assert_eq!(out, r#"string "{\"a\":2,\"b\":1,\"c\":7}""#);
    assert_eq!(
        eval(&mut rt, "ops.op_unmarked({name: 'n', points: [], kind: 'VariantA'}, [2], 1)"),
        "throws TypeError: op_unmarked: argument 2 (pair): expected an array of 2 elements (a tuple)"
    );
}
