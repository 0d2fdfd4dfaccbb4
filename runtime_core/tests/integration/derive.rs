//! `#[derive(FromV8, ToV8)]` and `#[serde]` through real ops: deno's `conversion/` test cases
//! (`testdata/ops/derive.rs`), nesting, errors that say where, and hostile objects.

use crate::common;

use std::collections::BTreeMap;

use common::{counting_runtime, eval, json};
use runtime_core::{op, Extension, FromV8, Runtime, RuntimeOptions, ToV8};

mod deno_cases {
    use runtime_core::{v8, FromV8, ToV8};
    include!("../../../testdata/ops/derive.rs");

    #[runtime_core::op]
    #[to_v8]
    pub fn op_struct(#[from_v8] value: Struct) -> Struct {
        value
    }

    #[runtime_core::op]
    pub fn op_tuple(value: Tuple) -> Tuple {
        value
    }

    #[runtime_core::op]
    #[string]
    pub fn op_simple_enum(value: SimpleEnum) -> String {
        match value {
            SimpleEnum::VariantA => "A".into(),
            SimpleEnum::VariantB => "B".into(),
            SimpleEnum::VariantC(n) => format!("C {n}"),
            SimpleEnum::VariantD(s) => format!("D {s}"),
        }
    }

    #[runtime_core::op]
    #[string]
    pub fn op_serde_enum(value: SerdeEnum) -> String {
        match value {
            SerdeEnum::WithoutSerde => "without".into(),
            SerdeEnum::WithSerde(items) => format!("with {items:?}"),
        }
    }

    #[runtime_core::op]
    pub fn op_to_enums(
        which: u32,
    ) -> (
        ToSimpleEnum,
        ToSimpleEnum,
        ToSimpleEnum,
        ToSerdeEnum,
        ToSerdeEnum,
    ) {
        (
            ToSimpleEnum::VariantA,
            ToSimpleEnum::VariantB,
            if which == 0 {
                ToSimpleEnum::VariantC { field: 1 }
            } else {
                ToSimpleEnum::VariantD { value: "v".into() }
            },
            ToSerdeEnum::WithSerde {
                data: vec![1, 2],
                other: "o".into(),
            },
            ToSerdeEnum::WithoutSerde { value: 3 },
        )
    }

    #[runtime_core::op]
    pub fn op_tagged(
        internal: InternallyTaggedEnum,
        adjacent: AdjacentlyTaggedEnum,
        untagged: UntaggedEnum,
    ) -> (InternallyTaggedEnum, AdjacentlyTaggedEnum, UntaggedEnum) {
        (internal, adjacent, untagged)
    }

    #[runtime_core::op]
    pub fn op_structs_out(#[string] text: String) -> (SerdeStruct, SkipIfStruct, SkipIfStruct) {
        (
            SerdeStruct {
                a: 1,
                c: vec![2, 3],
                d: 4,
                f: None,
            },
            SkipIfStruct {
                a: 1,
                b: None,
                c: None,
                e: vec![],
                d: true,
            },
            SkipIfStruct {
                a: 1,
                b: Some(2),
                c: Some(text),
                e: vec![3],
                d: false,
            },
        )
    }

    /// A handle field: the value given back inside an object.
    #[runtime_core::op]
    #[to_v8]
    pub fn op_lifetime<'s>(value: v8::Local<'s, v8::Value>) -> LifetimeStruct<'s> {
        LifetimeStruct { a: value, b: 2 }
    }

    #[runtime_core::op]
    pub fn op_page(page: Page<u32>) -> Page<String> {
        Page {
            items: page.items.iter().map(u32::to_string).collect(),
            next_cursor: page.next_cursor,
        }
    }
}

use deno_cases::*;

#[derive(FromV8, ToV8, Debug, PartialEq)]
pub struct Point(u8, String);

#[derive(FromV8, ToV8, Debug, PartialEq)]
pub enum Kind {
    VariantA,
    #[v8(rename = "customName")]
    VariantB,
}

#[derive(FromV8, ToV8)]
pub struct Nested {
    name: String,
    points: Vec<Point>,
    kind: Kind,
    inner: Option<Box<Struct>>,
    /// camelCase in JavaScript: `headerCount`.
    header_count: Option<u32>,
}

#[op]
#[to_v8]
fn op_roundtrip(#[from_v8] value: Nested) -> Nested {
    value
}

/// A recursive type, for cycles.
#[derive(FromV8, ToV8, Debug)]
pub struct Node {
    next: Option<Box<Node>>,
}

#[op]
fn op_node(node: Node) -> u32 {
    let mut depth = 0;
    let mut at = &node;
    while let Some(next) = &at.next {
        depth += 1;
        at = next;
    }
    depth
}

#[op]
fn op_sum(#[from_v8] values: Vec<f64>) -> f64 {
    values.iter().sum()
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
fn op_counts(#[scoped] words: Vec<String>, extra: BTreeMap<String, u32>) -> BTreeMap<String, u32> {
    let mut counts = extra;
    for word in words {
        *counts.entry(word).or_default() += 1;
    }
    counts
}

// ---- types that read strings: a fast path for one-byte strings ---------------------------------

/// A newtype of a string.
#[derive(FromV8)]
pub struct Label(String);

/// A newtype of a `#[serde]` string.
#[derive(FromV8)]
pub struct SerdeLabel(#[v8(serde)] String);

/// Unit variants (one renamed, not ASCII) and a newtype variant.
#[derive(FromV8)]
pub enum Mode {
    Read,
    #[v8(rename = "écrire")]
    Write,
    Append(u32),
}

#[op]
fn op_label(label: Label) -> u32 {
    label.0.len() as u32
}

#[op]
fn op_serde_label(label: SerdeLabel) -> u32 {
    label.0.len() as u32 + 1000
}

#[op]
fn op_mode(mode: Mode) -> u32 {
    match mode {
        Mode::Read => 1,
        Mode::Write => 2,
        Mode::Append(n) => 100 + n,
    }
}

/// deno's enum, through a newtype of it (forwarded), with a number beside it.
#[derive(FromV8)]
pub struct Wrapped(SimpleEnum);

#[op]
fn op_wrapped(wrapped: Wrapped, extra: u32) -> u32 {
    extra
        + match wrapped.0 {
            SimpleEnum::VariantA => 1,
            SimpleEnum::VariantB => 2,
            SimpleEnum::VariantC(n) => 100 + n,
            SimpleEnum::VariantD(_) => 3,
        }
}

/// `Point` reads no string: no fast path is registered.
#[op]
fn op_point(point: Point) -> u32 {
    point.0.into()
}

// ---- user code that panics inside a fast call's conversions ------------------------------------

/// An error whose message panics.
#[derive(Debug)]
pub struct PanickyMessage;

impl runtime_core::JsErrorClass for PanickyMessage {
    fn class(&self) -> std::borrow::Cow<'static, str> {
        "TypeError".into()
    }

    fn message(&self) -> std::borrow::Cow<'_, str> {
        panic!("boom: a message that panics")
    }
}

/// Reads strings (both ways alike) and refuses every one with that error.
pub struct Picky;

impl<'s> FromV8<'s> for Picky {
    const READS_ONE_BYTE: bool = true;

    fn from_one_byte(_: &[u8]) -> Result<Self, runtime_core::OpError> {
        Err(PanickyMessage.into())
    }

    fn from_v8(
        _: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, runtime_core::OpError> {
        if value.is_string() {
            Err(PanickyMessage.into())
        } else {
            Err(runtime_core::OpError::type_error("not a string"))
        }
    }
}

/// A label whose `Drop` panics.
pub struct Fragile(#[allow(dead_code)] Label);

impl Drop for Fragile {
    fn drop(&mut self) {
        panic!("boom: a drop that panics");
    }
}

impl<'s> FromV8<'s> for Fragile {
    const READS_ONE_BYTE: bool = true;

    fn from_one_byte(latin1: &[u8]) -> Result<Self, runtime_core::OpError> {
        Label::from_one_byte(latin1).map(Fragile)
    }

    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, runtime_core::OpError> {
        Label::from_v8(scope, value).map(Fragile)
    }
}

#[op]
fn op_picky(picky: Picky) -> u32 {
    let _ = picky;
    0
}

/// `fragile` is dropped when `mode` is refused: its panic, under the guard on both paths.
#[op]
fn op_fragile(fragile: Fragile, mode: Mode) -> u32 {
    std::mem::forget(fragile);
    let _ = mode;
    0
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![Extension::new("derive").ops(&[
        op_struct::DECL,
        op_tuple::DECL,
        op_simple_enum::DECL,
        op_serde_enum::DECL,
        op_to_enums::DECL,
        op_tagged::DECL,
        op_structs_out::DECL,
        op_lifetime::DECL,
        op_page::DECL,
        op_roundtrip::DECL,
        op_node::DECL,
        op_sum::DECL,
        op_unmarked::DECL,
        op_counts::DECL,
        op_label::DECL,
        op_serde_label::DECL,
        op_mode::DECL,
        op_wrapped::DECL,
        op_point::DECL,
        op_picky::DECL,
        op_fragile::DECL,
    ])]);
    runtime
        .execute_script("describe", common::DESCRIBE_JS)
        .unwrap();
    runtime
}

/// Types that read strings (`FromV8::READS_ONE_BYTE`) have a fast path, which V8 takes for
/// sequential one-byte strings and which reads what the slow path reads, or throws what it
/// throws; other values take the slow path. A type that reads none registers none.
#[test]
fn string_reading_types_agree_on_both_paths() {
    let mut rt = runtime();
    let inputs = [
        "'Read'",
        "'read'",
        "'écrire'",
        "'ecrire'",
        "'append'",
        "'VariantA'",
        "'variantA'",
        "'customName'",
        "'VariantC'",
        "'abc'",
        "''",
        "%FlattenString('é'.repeat(3000))",
        "'\\u1000'",
        "{append: 5}",
        "{VariantC: 7}",
        "7",
        "null",
        "undefined",
    ];
    let ops = [
        ("op_label", "'abc'", true),
        ("op_serde_label", "'abc'", true),
        ("op_mode", "'read'", true),
        ("op_point", "[1, 'a']", false),
    ];
    for (op, warm, has_fast_path) in ops {
        let registered = rt.op_decl(op).unwrap().has_fast_path();
        assert_eq!(registered, has_fast_path, "{op}");
        for input in inputs {
            let [(slow, _), (fast, path)] = common::call_both_ways(&mut rt, op, warm, input);
            assert_eq!(slow, fast, "{op}({input})");
            let one_byte =
                input.starts_with('\'') && !input.contains("\\u1000") || input.starts_with('%');
            assert_eq!(
                path == "fast",
                has_fast_path && one_byte,
                "{op}({input}): {path}"
            );
        }
    }
    assert!(rt.op_decl("op_wrapped").unwrap().has_fast_path());
    for input in inputs {
        let args = format!("{input}, 1");
        let [(slow, _), (fast, _)] =
            common::call_both_ways(&mut rt, "op_wrapped", "'VariantA', 1", &args);
        assert_eq!(slow, fast, "op_wrapped({args})");
    }
    // What the slow path says, so that agreeing cannot mean both are wrong.
    for (script, expected) in [
        ("ops.op_mode('écrire')", "number 2"),
        ("ops.op_mode({append: 5})", "number 105"),
        (
            "ops.op_mode('append')",
            "throws TypeError: op_mode: argument 1 (mode): expected one of 'read', 'écrire', or an object keyed by one of 'append' (Mode), received a string",
        ),
        ("ops.op_label('é')", "number 2"),
        ("ops.op_serde_label('é')", "number 1002"),
        ("ops.op_wrapped('customName', 1)", "number 3"),
        (
            "ops.op_label(7)",
            "throws TypeError: op_label: argument 1 (label): expected a string, received a number",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), expected, "{script}");
    }
}

/// A panic in user code run by a fast call's conversions (an error's message, a converted
/// value's `Drop` when a later argument is refused) is thrown as the slow path throws it, never
/// unwinding out of the fast call (which would abort the process).
#[test]
fn panics_in_conversions_agree_on_both_paths() {
    common::quiet_expected_panics("boom");
    let mut rt = runtime();
    for (op, warm, args, expected) in [
        (
            "op_picky",
            "'a'",
            "'abc'",
            "throws Error: op_picky panicked: boom: a message that panics",
        ),
        (
            "op_fragile",
            "'a', 'read'",
            "'abc', 'nope'",
            "throws Error: op_fragile panicked: boom: a drop that panics",
        ),
    ] {
        let [(slow, _), (fast, path)] = common::call_both_ways(&mut rt, op, warm, args);
        assert_eq!(path, "fast", "{op}({args})");
        assert_eq!(slow, expected, "{op}({args})");
        assert_eq!(fast, expected, "{op}({args})");
    }
}

#[test]
fn deno_struct_cases() {
    let mut rt = runtime();
    // A missing `Option` is `None` (`null` back), the default applies, the rename is read.
    assert_eq!(
        json(&mut rt, "ops.op_struct({a: 7, e: 1})"),
        r#"{"a":7,"c":3,"e":1,"f":null}"#
    );
    assert_eq!(
        json(&mut rt, "ops.op_struct({a: 7, e: 1, c: null, f: 4})"),
        r#"{"a":7,"c":null,"e":1,"f":4}"#
    );
    // As deno's, objects made by the derive have a null prototype.
    assert_eq!(
        eval(
            &mut rt,
            "Object.getPrototypeOf(ops.op_struct({a: 1, e: 1}))"
        ),
        "null"
    );
    assert_eq!(json(&mut rt, "ops.op_tuple([1, 2])"), "[1,2]");
    assert_eq!(
        json(&mut rt, "ops.op_structs_out('t')"),
        r#"[{"a":1,"c":[2,3],"e":4,"f":null},{"a":1,"d":true},{"a":1,"b":2,"cc":"t","e":[3],"d":false}]"#
    );
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const o = {}; return ops.op_lifetime(o).a === o })()"
        ),
        "boolean true"
    );
    assert_eq!(
        json(&mut rt, "ops.op_page({items: [1, 2], nextCursor: 'x'})"),
        r#"{"items":["1","2"],"nextCursor":"x"}"#
    );
}

#[test]
fn deno_enum_cases() {
    let mut rt = runtime();
    for (input, out) in [
        ("'variantA'", "string \"A\""),
        ("'customName'", "string \"B\""),
        ("{variantC: 5}", "string \"C 5\""),
        ("{renamedNewtype: 'x'}", "string \"D x\""),
    ] {
        assert_eq!(eval(&mut rt, &format!("ops.op_simple_enum({input})")), out);
    }
    assert_eq!(
        eval(&mut rt, "ops.op_serde_enum({withSerde: [1, 2]})"),
        "string \"with [1, 2]\""
    );
    assert_eq!(
        json(&mut rt, "ops.op_to_enums(0)"),
        r#"["variantA","customName",{"variantC":{"field":1}},{"withSerde":{"data":[1,2],"renamedField":"o"}},{"withoutSerde":{"value":3}}]"#
    );
    assert_eq!(
        json(&mut rt, "ops.op_to_enums(1)[2]"),
        r#"{"renamedWithFields":{"value":"v"}}"#
    );
    // Tagged forms read what they write.
    for (args, out) in [
        (
            "{type: 'custom_a'}, {kind: 'FIRST'}, null",
            r#"[{"type":"custom_a"},{"kind":"FIRST"},null]"#,
        ),
        (
            "{type: 'b', data: 4}, {kind: 'second', data: 5}, 's'",
            r#"[{"data":4,"type":"b"},{"kind":"second","data":5},"s"]"#,
        ),
        (
            "{type: 'b', data: 4}, {kind: 'FIRST'}, [1, 2]",
            r#"[{"data":4,"type":"b"},{"kind":"FIRST"},[1,2]]"#,
        ),
        (
            "{type: 'b', data: 4}, {kind: 'FIRST'}, {field: 3}",
            r#"[{"data":4,"type":"b"},{"kind":"FIRST"},{"field":3}]"#,
        ),
    ] {
        assert_eq!(
            json(&mut rt, &format!("ops.op_tagged({args})")),
            out,
            "{args}"
        );
    }
}

#[test]
fn nested_values_round_trip() {
    let mut rt = runtime();
    assert_eq!(
        json(
            &mut rt,
            "ops.op_roundtrip({name: 'n', points: [[1, 'a'], [2, 'b']], kind: 'customName', \
             inner: {a: 1, e: 5}, headerCount: 3})"
        ),
        r#"{"name":"n","points":[[1,"a"],[2,"b"]],"kind":"customName","inner":{"a":1,"c":3,"e":5,"f":null},"headerCount":3}"#
    );
    assert_eq!(
        json(
            &mut rt,
            "ops.op_unmarked({name: 'n', points: [], kind: 'variantA'}, [2, 'abc'], 1.5)"
        ),
        r#"[{"name":"n","points":[],"kind":"variantA","inner":null,"headerCount":null},1.5,5]"#
    );
    assert_eq!(
        json(&mut rt, "ops.op_counts(['a', 'b', 'a'], {c: 7})"),
        r#"{"a":2,"b":1,"c":7}"#
    );
}

#[test]
fn bad_values_say_where() {
    let mut rt = runtime();
    let cases = [
        (
            "ops.op_struct({e: 1})",
            "TypeError: op_struct: argument 1 (value): a is missing (a required field of 'Struct')",
        ),
        (
            "ops.op_struct({a: 'x', e: 1})",
            "TypeError: op_struct: argument 1 (value): a must be a number (u8), received a string",
        ),
        (
            "ops.op_struct(5)",
            "TypeError: op_struct: argument 1 (value): expected an object (Struct), received a number",
        ),
        (
            "ops.op_roundtrip({name: 'n', points: [[1, 'a'], [1]], kind: 'variantA'})",
            "TypeError: op_roundtrip: argument 1 (value): points[1] must be an array of 2 elements (Point), received an array",
        ),
        (
            "ops.op_roundtrip({name: 'n', points: [[1, 'a'], [1, 2]], kind: 'variantA'})",
            "TypeError: op_roundtrip: argument 1 (value): points[1][1] must be a string, received a number",
        ),
        (
            "ops.op_roundtrip({name: 'n', points: [], kind: 'nope'})",
            "TypeError: op_roundtrip: argument 1 (value): kind must be one of 'variantA', 'customName' (Kind), received a string",
        ),
        (
            "ops.op_roundtrip({name: 'n', points: [], kind: 'variantA', inner: {a: 1, e: 1, f: 'x'}})",
            "TypeError: op_roundtrip: argument 1 (value): inner.f must be a number (u32), received a string",
        ),
        (
            "ops.op_simple_enum({other: 1})",
            "TypeError: op_simple_enum: argument 1 (value): expected one of 'variantA', 'customName', or an object keyed by one of 'variantC', 'renamedNewtype' (SimpleEnum), received an object",
        ),
        (
            "ops.op_tagged({type: 'zzz'}, {kind: 'FIRST'}, null)",
            "TypeError: op_tagged: argument 1 (internal): type must be one of 'custom_a', 'b' (InternallyTaggedEnum), received a string",
        ),
        (
            "ops.op_tagged({type: 'b'}, {kind: 'FIRST'}, null)",
            "TypeError: op_tagged: argument 1 (internal): data is missing (a required field of 'InternallyTaggedEnum::B')",
        ),
        (
            "ops.op_unmarked({name: 'n', points: [], kind: 'variantA'}, [2], 1)",
            "TypeError: op_unmarked: argument 2 (pair): expected an array of 2 elements, received an array",
        ),
    ];
    for (script, error) in cases {
        assert_eq!(eval(&mut rt, script), format!("throws {error}"), "{script}");
    }
}

#[test]
fn hostile_objects() {
    let mut rt = runtime();
    // A getter that throws: its own exception, unchanged.
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_struct({get a() { throw new RangeError('mine') }, e: 1})"
        ),
        "throws RangeError: mine"
    );
    // A proxy's traps run, and a throwing trap propagates.
    assert_eq!(
        json(
            &mut rt,
            "ops.op_struct(new Proxy({}, {get: (_, key) => key === 'a' ? 2 : key === 'e' ? 3 : undefined}))"
        ),
        r#"{"a":2,"c":3,"e":3,"f":null}"#
    );
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_struct(new Proxy({}, {get() { throw new Error('trap') }}))"
        ),
        "throws Error: trap"
    );
    // A getter that changes the object while it is read: what it read is what counts.
    assert_eq!(
        json(
            &mut rt,
            "(() => { const o = {get a() { o.e = 9; return 1 }, e: 1}; return ops.op_struct(o) })()"
        ),
        r#"{"a":1,"c":3,"e":9,"f":null}"#
    );
    // Fields on the prototype are read (as property access does).
    assert_eq!(
        json(&mut rt, "ops.op_struct(Object.create({a: 4, e: 5}))"),
        r#"{"a":4,"c":3,"e":5,"f":null}"#
    );
    // A cycle: refused at the depth limit, not a stack overflow.
    let cycle = eval(
        &mut rt,
        "(() => { const n = {}; n.next = n; return ops.op_node(n) })()",
    );
    let path = format!("next{}", ".next".repeat(127));
    assert_eq!(
        cycle,
        format!("throws RangeError: op_node: argument 1 (node): {path}: a value nested more than 128 levels deep (is it cyclic?)")
    );
    // Deep but acyclic within the limit is fine.
    assert_eq!(
        eval(
            &mut rt,
            "(() => { let n = {}; for (let i = 0; i < 100; i++) n = {next: n}; return ops.op_node(n) })()"
        ),
        "number 100"
    );
    // 10^6 elements; sparse arrays' holes are `undefined`.
    assert_eq!(
        eval(&mut rt, "ops.op_sum(new Array(1e6).fill(1))"),
        "number 1000000"
    );
    assert_eq!(
        eval(&mut rt, "ops.op_sum([1, , 2])"),
        "throws TypeError: op_sum: argument 1 (values): [1] must be a number, received undefined"
    );
    // A setter on `Array.prototype` does not run when arrays are made.
    assert_eq!(
        json(
            &mut rt,
            "(() => { Object.defineProperty(Array.prototype, '0', {set() { throw new Error('setter') }, configurable: true}); \
             try { return ops.op_page({items: [1], nextCursor: null}) } finally { delete Array.prototype[0] } })()"
        ),
        r#"{"items":["1"],"nextCursor":null}"#
    );
}

#[test]
fn derived_values_stay_in_their_isolate() {
    // Keys are cached per isolate: a second runtime (another isolate) reads the same types.
    let mut first = runtime();
    let mut second = runtime();
    for turn in [0, 1, 0] {
        let rt = if turn == 0 { &mut first } else { &mut second };
        assert_eq!(
            json(rt, "ops.op_struct({a: 1, e: 2})"),
            r#"{"a":1,"c":3,"e":2,"f":null}"#
        );
    }
    drop(first);
    assert_eq!(
        json(&mut second, "ops.op_struct({a: 1, e: 2})"),
        r#"{"a":1,"c":3,"e":2,"f":null}"#
    );
}

/// `bytes::Bytes` fields take any ArrayBufferView or ArrayBuffer and give a `Uint8Array`.
#[derive(runtime_core::FromV8, runtime_core::ToV8, Debug, PartialEq)]
struct Upload {
    name: String,
    body: bytes::Bytes,
}

#[test]
fn bytes_fields_are_uint8_arrays() {
    common::init_test_flags();
    let mut rt = Runtime::new(RuntimeOptions::default());
    rt.execute_script(
        "bytes.js",
        "globalThis.echo = (u) => u;
         globalThis.fromView = () => ({ name: 'v', body: new Uint16Array([258]) });
         globalThis.fromBuffer = () => ({ name: 'b', body: new Uint8Array([7, 8]).buffer });
         globalThis.describeBody = (u) => u.body.constructor.name + ' ' + Array.from(u.body).join();",
    )
    .unwrap();
    let from_view = rt.global_function("fromView").unwrap();
    let upload: Upload = rt.call(&from_view, ()).unwrap();
    assert_eq!(&upload.body[..], &258u16.to_ne_bytes());
    let from_buffer = rt.global_function("fromBuffer").unwrap();
    let upload: Upload = rt.call(&from_buffer, ()).unwrap();
    assert_eq!(
        upload,
        Upload {
            name: "b".into(),
            body: bytes::Bytes::from_static(&[7, 8])
        }
    );
    let describe = rt.global_function("describeBody").unwrap();
    let text: String = rt.call(&describe, (upload,)).unwrap();
    assert_eq!(text, "Uint8Array 7,8");
}

#[test]
fn bytes_given_to_javascript_are_its_own_and_bytes_taken_detach() {
    common::init_test_flags();
    let mut rt = Runtime::new(RuntimeOptions::default());
    rt.execute_script(
        "bytes.js",
        "globalThis.scribble = (b) => { b[0] = 9; return Array.from(b).join(); };
         globalThis.give = () => (globalThis.kept = new Uint8Array([5, 6, 7]));
         globalThis.giveShared = () => new Uint8Array(new SharedArrayBuffer(4));
         globalThis.keptLength = () => kept.length;",
    )
    .unwrap();
    let scribble = rt.global_function("scribble").unwrap();
    // A `Bytes` that shares its memory is copied: JavaScript's writes reach no other handle.
    let original = bytes::Bytes::from(vec![1, 2, 3]);
    let written: String = rt.call(&scribble, (original.clone(),)).unwrap();
    assert_eq!((written.as_str(), &original[..]), ("9,2,3", &[1, 2, 3][..]));
    // One that is the only handle is handed over as it is.
    let written: String = rt
        .call(&scribble, (bytes::Bytes::from(vec![4, 5]),))
        .unwrap();
    assert_eq!(written, "9,5");
    // Taken: the bytes without a copy, JavaScript's buffer detached.
    let give = rt.global_function("give").unwrap();
    let taken: runtime_core::DetachedBuffer = rt.call(&give, ()).unwrap();
    assert_eq!(&taken[..], &[5, 6, 7]);
    let kept_length = rt.global_function("keptLength").unwrap();
    assert_eq!(rt.call::<u32>(&kept_length, ()).unwrap(), 0);
    let give_shared = rt.global_function("giveShared").unwrap();
    let Err(refused) = rt.call::<runtime_core::DetachedBuffer>(&give_shared, ()) else {
        panic!("shared memory taken");
    };
    assert!(refused.to_string().contains("shared memory"), "{refused}");
}
