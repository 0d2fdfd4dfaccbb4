//! `#[serde]` arguments and returns through `runtime_core::serde` (real V8): deno's
//! `serde_v8.rs` case, `serde_json::Value` round trips, serde's attributes, enums, 64-bit
//! integers, bytes, errors that say where, async returns.

use crate::common;

use std::collections::HashMap;

use common::{counting_runtime, eval, json};
use runtime_core::{op, Extension, Runtime};
use serde::{Deserialize, Serialize};

/// deno's `op2/test_cases/sync/serde_v8.rs`.
#[derive(Serialize, Deserialize)]
pub struct Input {}
#[derive(Serialize, Deserialize)]
pub struct Output {}

#[op]
#[serde]
pub fn op_serde_v8(#[serde] _input: Input) -> Output {
    Output {}
}

#[op]
#[serde]
fn op_json(#[serde] value: serde_json::Value) -> serde_json::Value {
    value
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Request {
    url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    timeout_ms: Option<u64>,
    method: Method,
    body: Option<Body>,
    extra: HashMap<String, i32>,
}

#[derive(Serialize, Deserialize, Debug)]
enum Method {
    Get,
    Post,
}

#[derive(Serialize, Deserialize, Debug)]
enum Body {
    Text(String),
    Form { fields: Vec<String> },
    Pair(u8, u8),
}

#[op]
#[serde]
fn op_request(#[serde] request: Request) -> Request {
    request
}

/// deno's bench input: a newtype of a string.
#[derive(Deserialize)]
struct StringWrapper(String);

#[op]
fn op_string_serde(#[serde] value: StringWrapper) -> u32 {
    value.0.len() as u32
}

// ---- ops whose fast path takes one-byte strings (each deserializer method a string meets) --

#[op]
fn op_serde_char(#[serde] c: char) -> u32 {
    c as u32
}

#[op]
fn op_serde_method(#[serde] method: Method) -> u32 {
    method as u32
}

/// (Named, so that the macro does not read it as an optional argument: serde reads the
/// `Option`.)
type MaybeText = Option<Box<str>>;

#[op]
fn op_serde_option(#[serde] text: MaybeText) -> u32 {
    text.map_or(0, |text| text.len() as u32 + 1000)
}

#[op]
fn op_serde_any(#[serde] value: serde_json::Value) -> u32 {
    value.as_str().map_or(0, |text| text.len() as u32)
}

#[op]
fn op_serde_number(#[serde] number: u32) -> u32 {
    number
}

#[op]
fn op_serde_float(#[serde] number: f64) -> f64 {
    number
}

#[op]
fn op_serde_bool(#[serde] flag: bool) -> bool {
    flag
}

#[op]
fn op_serde_unit(#[serde] _unit: ()) -> u32 {
    1
}

#[op]
fn op_serde_list(#[serde] list: Vec<String>) -> u32 {
    list.len() as u32
}

#[op]
fn op_serde_struct(#[serde] _input: Input) -> u32 {
    1
}

#[op]
fn op_serde_bytes(#[serde] bytes: serde_bytes_like::Bytes) -> u32 {
    bytes.0.len() as u32
}

/// A `Deserialize` that panics on the string `"boom"`.
struct Panicky(String);

impl<'de> Deserialize<'de> for Panicky {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        assert_ne!(text, "boom", "boom: Panicky refuses it");
        Ok(Panicky(text))
    }
}

#[op]
fn op_serde_panicky(#[serde] value: Panicky) -> u32 {
    value.0.len() as u32
}

/// A string whose `Drop` panics.
struct FragileText(#[allow(dead_code)] String);

impl<'de> Deserialize<'de> for FragileText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(FragileText)
    }
}

impl Drop for FragileText {
    fn drop(&mut self) {
        panic!("boom: a drop that panics");
    }
}

/// `text` is dropped when `count` is refused, inside the fast call.
#[op(async(lazy))]
async fn op_async_fragile(#[serde] text: FragileText, #[serde] count: u32) {
    std::mem::forget(text);
    let _ = count;
}

#[op]
#[serde]
fn op_tuple_pair(#[serde] pair: (u32, String)) -> (String, u32) {
    (pair.1, pair.0)
}

#[op]
#[serde]
fn op_wide(#[serde] values: Vec<u64>) -> (u64, i64, f64, char) {
    (values.iter().sum(), i64::MIN, 0.5, 'é')
}

#[op]
#[serde]
fn op_bytes(#[serde] bytes: serde_bytes_like::Bytes) -> serde_bytes_like::Bytes {
    bytes
}

/// `serialize_bytes`/`deserialize_byte_buf` without the serde_bytes crate.
mod serde_bytes_like {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub struct Bytes(pub Vec<u8>);

    impl Serialize for Bytes {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(&self.0)
        }
    }

    impl<'de> Deserialize<'de> for Bytes {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Bytes;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_byte_buf<E>(self, bytes: Vec<u8>) -> Result<Bytes, E> {
                    Ok(Bytes(bytes))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Bytes, A::Error> {
                    let mut bytes = Vec::new();
                    while let Some(byte) = seq.next_element()? {
                        bytes.push(byte);
                    }
                    Ok(Bytes(bytes))
                }
            }
            deserializer.deserialize_byte_buf(Visitor)
        }
    }
}

/// A sequence of unknown length (a filter), longer than the stack gathers.
struct Evens(u32);

impl Serialize for Evens {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((0..self.0).filter(|n| n % 2 == 0))
    }
}

#[op]
#[serde]
fn op_evens(#[smi] below: u32) -> Evens {
    Evens(below)
}

#[op(async(lazy))]
#[serde]
async fn op_async_json(#[serde] value: serde_json::Value) -> serde_json::Value {
    tokio::task::yield_now().await;
    serde_json::json!({ "got": value })
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![Extension::new("serde").ops(&[
        op_serde_v8::DECL,
        op_json::DECL,
        op_request::DECL,
        op_string_serde::DECL,
        op_tuple_pair::DECL,
        op_wide::DECL,
        op_bytes::DECL,
        op_async_json::DECL,
        op_evens::DECL,
        op_serde_char::DECL,
        op_serde_method::DECL,
        op_serde_option::DECL,
        op_serde_any::DECL,
        op_serde_number::DECL,
        op_serde_float::DECL,
        op_serde_bool::DECL,
        op_serde_unit::DECL,
        op_serde_list::DECL,
        op_serde_struct::DECL,
        op_serde_bytes::DECL,
        op_serde_panicky::DECL,
        op_async_fragile::DECL,
    ])]);
    runtime
        .execute_script("describe", common::DESCRIBE_JS)
        .unwrap();
    runtime
}

#[test]
fn json_values_round_trip() {
    let mut rt = runtime();
    assert_eq!(json(&mut rt, "ops.op_serde_v8({})"), "{}");
    let value =
        r#"{"a":[1,-2,3.5,"x",true,false,null,{"b":{"c":[]}}],"d":"éက","e":9007199254740991}"#;
    assert_eq!(json(&mut rt, &format!("ops.op_json({value})")), value);
    // `undefined` reads as null; -0 and fractions as floats.
    assert_eq!(
        json(&mut rt, "ops.op_json([undefined, -0, 0.25])"),
        "[null,0,0.25]"
    );
    assert_eq!(
        eval(&mut rt, "Object.is(ops.op_json(-0), -0)"),
        "boolean true"
    );
    // Plain objects (unlike the derive's null-prototype ones).
    assert_eq!(
        eval(
            &mut rt,
            "Object.getPrototypeOf(ops.op_json({a: 1})) === Object.prototype"
        ),
        "boolean true"
    );
}

#[test]
fn serde_attributes_enums_and_numbers() {
    let mut rt = runtime();
    assert_eq!(
        json(
            &mut rt,
            "ops.op_request({url: 'u', timeoutMs: 5, method: 'Post', body: {Form: {fields: ['a']}}, extra: {x: 1}})"
        ),
        r#"{"url":"u","headers":[],"timeoutMs":5,"method":"Post","body":{"Form":{"fields":["a"]}},"extra":{"x":1}}"#
    );
    assert_eq!(
        json(
            &mut rt,
            "ops.op_request({url: 'u', headers: [['k', 'v']], method: 'Get', body: {Text: 't'}, extra: {}})"
        ),
        r#"{"url":"u","headers":[["k","v"]],"timeoutMs":null,"method":"Get","body":{"Text":"t"},"extra":{}}"#
    );
    assert_eq!(
        json(
            &mut rt,
            "ops.op_request({url: 'u', method: 'Get', body: {Pair: [1, 2]}, extra: {}})"
        ),
        r#"{"url":"u","headers":[],"timeoutMs":null,"method":"Get","body":{"Pair":[1,2]},"extra":{}}"#
    );
    assert_eq!(eval(&mut rt, "ops.op_string_serde('abc')"), "number 3");
    assert_eq!(
        eval(&mut rt, "ops.op_string_serde('\\u1000'.repeat(1000))"),
        "number 3000"
    );
    assert_eq!(json(&mut rt, "ops.op_tuple_pair([1, 'a'])"), r#"["a",1]"#);
    // Arrays of unknown length, below and beyond what is gathered on the stack.
    assert_eq!(json(&mut rt, "ops.op_evens(7)"), "[0,2,4,6]");
    let evens: Vec<String> = (0..100)
        .filter(|n| n % 2 == 0)
        .map(|n| n.to_string())
        .collect();
    assert_eq!(
        json(&mut rt, "ops.op_evens(100)"),
        format!("[{}]", evens.join(","))
    );
    // Beyond 2^53 - 1: BigInts out, and BigInts read as integers.
    assert_eq!(
        eval(&mut rt, "ops.op_wide([2n ** 63n, 1]).map(describe).join()"),
        r#"string "bigint 9223372036854775809n,bigint -9223372036854775808n,number 0.5,string \"é\"""#
    );
    assert_eq!(
        eval(
            &mut rt,
            "Array.from(ops.op_bytes(new Uint8Array([1, 2, 3]))).join()"
        ),
        "string \"1,2,3\""
    );
    assert_eq!(
        eval(&mut rt, "ops.op_bytes([4, 5]) instanceof Uint8Array"),
        "boolean true"
    );
}

/// A `#[serde]` argument's fast path (V8 takes it for sequential one-byte strings) reads
/// what the slow path reads, or throws what it throws, for every way serde asks for a value.
#[test]
fn strings_read_the_same_on_both_paths() {
    common::quiet_expected_panics("boom");
    let mut rt = runtime();
    // `%FlattenString`: a sequential string (V8 would make `repeat`'s result a cons string,
    // which takes the slow path); beyond the stack buffer, to borrow the lent one.
    let long_latin1 = "%FlattenString('é'.repeat(5000) + 'x')";
    let inputs = [
        "'abc'",
        "'café'",
        "'\\xff'",
        "''",
        "'Get'",
        "'Post'",
        "'Put'",
        "'a'",
        "'é'",
        "'boom'",
        "'12'",
        "'true'",
        long_latin1,
        "'\\u1000'",
        "7",
        "null",
        "undefined",
        "['a']",
        "{}",
    ];
    let ops = [
        ("op_string_serde", "'abc'"),
        ("op_serde_char", "'a'"),
        ("op_serde_method", "'Get'"),
        ("op_serde_option", "'abc'"),
        ("op_serde_any", "'abc'"),
        ("op_serde_number", "'abc'"),
        ("op_serde_float", "'abc'"),
        ("op_serde_bool", "'abc'"),
        ("op_serde_unit", "'abc'"),
        ("op_serde_list", "'abc'"),
        ("op_serde_struct", "'abc'"),
        ("op_serde_bytes", "'abc'"),
        ("op_serde_panicky", "'abc'"),
    ];
    let mut fast_calls = 0;
    for (op, warm) in ops {
        for input in inputs {
            let [(slow, _), (fast, path)] = common::call_both_ways(&mut rt, op, warm, input);
            assert_eq!(slow, fast, "{op}({input})");
            let flat_one_byte =
                input.starts_with('\'') && !input.contains("\\u1000") || input == long_latin1;
            assert_eq!(path == "fast", flat_one_byte, "{op}({input}): {path}");
            fast_calls += usize::from(path == "fast");
        }
    }
    assert_eq!(fast_calls, ops.len() * 13);
    // What the slow path says, so that agreeing cannot mean both are wrong.
    for (script, expected) in [
        ("ops.op_serde_option('café')", "number 1005"),
        ("ops.op_serde_any('\\xff')", "number 2"),
        ("ops.op_serde_char('é')", "number 233"),
        ("ops.op_serde_method('Post')", "number 1"),
        (
            "ops.op_serde_method('Put')",
            "throws TypeError: op_serde_method: argument 1 (method): unknown variant `Put`, expected `Get` or `Post`",
        ),
        (
            "ops.op_serde_number('12')",
            "throws TypeError: op_serde_number: argument 1 (number): expected an integer, received a string",
        ),
        (
            "ops.op_serde_panicky('boom')",
            "throws Error: op_serde_panicky panicked: assertion `left != right` failed: boom: Panicky refuses it\n  left: \"boom\"\n right: \"boom\"",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), expected, "{script}");
    }
}

#[test]
fn errors_say_where() {
    let mut rt = runtime();
    for (script, error) in [
        (
            "ops.op_request({url: 1, method: 'Get', extra: {}})",
            "TypeError: op_request: argument 1 (request): url must be a string, received a number",
        ),
        (
            "ops.op_request({url: 'u', headers: [['k', 'v'], ['k', 2]], method: 'Get', extra: {}})",
            "TypeError: op_request: argument 1 (request): headers[1][1] must be a string, received a number",
        ),
        (
            "ops.op_request({url: 'u', method: 'Get', extra: {a: 1.5}})",
            "TypeError: op_request: argument 1 (request): extra.a must be an integer, received a number",
        ),
        (
            "ops.op_request({url: 'u', method: 'Put', extra: {}})",
            "TypeError: op_request: argument 1 (request): method: unknown variant `Put`, expected `Get` or `Post`",
        ),
        (
            "ops.op_request({url: 'u', extra: {}})",
            "TypeError: op_request: argument 1 (request): missing field `method`",
        ),
        (
            "ops.op_wide([-1])",
            "TypeError: op_wide: argument 1 (values): [0]: invalid value: integer `-1`, expected u64",
        ),
        (
            "ops.op_json({get a() { throw new SyntaxError('mine') }})",
            "SyntaxError: mine",
        ),
        (
            "ops.op_json(Symbol())",
            "TypeError: op_json: argument 1 (value): expected a value serde can read (not a symbol), received a symbol",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), format!("throws {error}"), "{script}");
    }
    let cycle = eval(
        &mut rt,
        "(() => { const a = []; a.push(a); return ops.op_json(a) })()",
    );
    assert!(
        cycle.starts_with("throws RangeError: op_json: argument 1 (value): [0][0]")
            && cycle.ends_with("a value nested more than 128 levels deep (is it cyclic?)"),
        "{cycle}"
    );
}

/// An async op's fast call guards the `Drop` of a converted value as its slow call does: the
/// promise rejects with the panic (it aborted the process before).
#[test]
fn async_conversions_run_under_the_guard() {
    common::quiet_expected_panics("boom");
    let mut rt = runtime();
    assert!(rt.op_decl("op_async_fragile").unwrap().has_fast_path());
    rt.execute_script(
        "fragile",
        "globalThis.out = [];
         globalThis.call = (a, b) => ops.op_async_fragile(a, b);
         %PrepareFunctionForOptimization(call);
         %PrepareFunctionForOptimization(ops.op_async_fragile);
         for (let i = 0; i < 10; i++) call('a', '1').catch(() => {});
         %OptimizeFunctionOnNextCall(call);
         call('a', '1').catch(() => {});",
    )
    .unwrap();
    rt.reset_op_call_counts();
    rt.execute_script(
        "fragile2",
        "call('a', 'b').catch(e => globalThis.out.push(e.name + ': ' + e.message));
         %NeverOptimizeFunction(ops.op_async_fragile);
         ops.op_async_fragile('a', 'b').catch(e => globalThis.out.push(e.name + ': ' + e.message));
         globalThis.out = globalThis.out;",
    )
    .unwrap();
    let counts = rt.op_call_counts("op_async_fragile").unwrap();
    assert_eq!((counts.fast, counts.slow), (1, 1), "{counts:?}");
    rt.execute_script("out", "globalThis.out = JSON.stringify(globalThis.out)")
        .unwrap();
    assert_eq!(
        common::settle_and_read_out(&mut rt),
        r#"["Error: op_async_fragile panicked: boom: a drop that panics","Error: op_async_fragile panicked: boom: a drop that panics"]"#
    );
}

#[test]
fn async_serde_returns() {
    let mut rt = runtime();
    rt.execute_script(
        "async",
        "globalThis.out = null; ops.op_async_json([1, 'a']).then(v => globalThis.out = JSON.stringify(v))",
    )
    .unwrap();
    assert_eq!(common::settle_and_read_out(&mut rt), r#"{"got":[1,"a"]}"#);
}
