//! `#[serde]` arguments and returns through `runtime_core::serde` (real V8): deno's
//! `serde_v8.rs` case, `serde_json::Value` round trips, serde's attributes, enums, 64-bit
//! integers, bytes, errors that say where, async returns.

mod common;

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
