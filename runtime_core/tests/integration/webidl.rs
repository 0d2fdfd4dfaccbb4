//! `#[derive(WebIDL)]` and `#[webidl]` arguments on real V8: deno's `webidl/test_cases`, the
//! spec's integer, float, string and sequence rules, dictionary member order, errors.

use crate::common;

use common::{counting_runtime, eval};
use runtime_core::webidl::{Nullable, UnrestrictedDouble};
use runtime_core::{op, ByteString, Extension, Runtime, WebIDL};

include!("../../../testdata/ops/webidl.rs");

#[op]
#[string]
fn op_dict(#[webidl] dict: Dict) -> String {
    format!(
        "{} {:?} {:?} {} {:?}",
        dict.a, dict.b, dict.c, dict.d, dict.f
    )
}

#[op]
#[string]
fn op_enum(#[webidl] value: Enumeration) -> &'static str {
    value.as_str()
}

#[op]
#[string]
fn op_numbers(
    #[webidl] byte: i8,
    #[webidl] octet: u8,
    #[webidl] long: i32,
    #[webidl] double: f64,
    #[webidl] unrestricted: UnrestrictedDouble,
) -> String {
    format!("{byte} {octet} {long} {double} {}", unrestricted.0)
}

#[op]
#[string]
fn op_strings(
    #[webidl] text: String,
    #[webidl] bytes: ByteString,
    #[webidl] maybe: Nullable<String>,
    #[webidl] flag: bool,
) -> String {
    format!("{text}|{:?}|{:?}|{flag}", bytes.0, maybe.into_option())
}

#[op]
#[string]
fn op_sequence(#[webidl] items: Vec<String>) -> String {
    items.join(",")
}

#[op]
#[string]
fn op_record(#[webidl] headers: std::collections::BTreeMap<String, ByteString>) -> String {
    headers
        .iter()
        .map(|(name, value)| format!("{name}={}", String::from_utf8_lossy(value)))
        .collect::<Vec<_>>()
        .join(";")
}

#[op]
fn op_shadowing(#[webidl] dict: Shadowing) -> u32 {
    [Some(dict.value), dict.scope, dict.object, dict.keys, dict.d]
        .iter()
        .map(|n| u32::from(n.unwrap_or(0)))
        .sum()
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![Extension::new("webidl").ops(&[
        op_request_adapter::DECL,
        op_dict::DECL,
        op_enum::DECL,
        op_numbers::DECL,
        op_strings::DECL,
        op_sequence::DECL,
        op_shadowing::DECL,
        op_record::DECL,
        op_webidl_args::DECL,
    ])]);
    runtime
        .execute_script("describe", common::DESCRIBE_JS)
        .unwrap();
    runtime
}

#[test]
fn deno_dictionary_and_enum_cases() {
    let mut rt = runtime();
    for (input, out) in [
        // Members read by key; a clamped sequence; defaults; the rename; an absent Option.
        (
            "{a: 258, b: [1, 70000.5, -1], e: 7}",
            "2 [1, 65535, 0] Some(3) 7 None",
        ),
        (
            "{a: 1, b: new Set([2, 3]), c: 9, e: 1, f: 4}",
            "1 [2, 3] Some(9) 1 Some(4)",
        ),
        (
            "{a: '5', b: [], e: 2n ** 53n > 0 ? 3 : 0}",
            "5 [] Some(3) 3 None",
        ),
    ] {
        assert_eq!(
            eval(&mut rt, &format!("ops.op_dict({input})")),
            format!("string {out:?}"),
            "{input}"
        );
    }
    for (input, out) in [
        ("undefined", "None false"),
        ("null", "None false"),
        ("{}", "None false"),
        (
            "{powerPreference: 'high-performance', forceFallbackAdapter: 1}",
            "Some(\"high-performance\") true",
        ),
    ] {
        assert_eq!(
            eval(&mut rt, &format!("ops.op_request_adapter({input})")),
            format!("string {out:?}"),
            "{input}"
        );
    }
    assert_eq!(
        eval(&mut rt, "ops.op_enum('foo-bar')"),
        "string \"foo-bar\""
    );
    assert_eq!(eval(&mut rt, "ops.op_enum('hello')"), "string \"hello\"");
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_shadowing({value: 1, scope: 2, object: 3, keys: 4, d: 5})"
        ),
        "number 15"
    );
    // An enum value is `ToString`ed first.
    assert_eq!(
        eval(&mut rt, "ops.op_enum({toString() { return 'baz' }})"),
        "string \"baz\""
    );
}

#[test]
fn members_are_read_in_lexicographic_order() {
    let mut rt = runtime();
    assert_eq!(
        eval(
            &mut rt,
            "(() => { const seen = []; const p = new Proxy({a: 1, b: [], e: 1}, {get(t, k) { seen.push(k); return t[k] }}); \
             ops.op_dict(p); return seen.join() })()"
        ),
        "string \"a,b,c,e,f\""
    );
}

#[test]
fn spec_conversions() {
    let mut rt = runtime();
    assert_eq!(
        eval(&mut rt, "ops.op_numbers(130, -1, 2 ** 32 + 5, 0.5, NaN)"),
        "string \"-126 255 5 0.5 NaN\""
    );
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_numbers({valueOf() { return 3 }}, '7', -0, '1e3', -Infinity)"
        ),
        "string \"3 7 0 1000 -inf\""
    );
    assert_eq!(
        eval(&mut rt, "ops.op_strings(12, 'ÿ', null, 'x')"),
        "string \"12|[255]|None|true\""
    );
    assert_eq!(
        eval(&mut rt, "ops.op_strings('\\ud800', '', 'm', 0)"),
        "string \"\u{fffd}|[]|Some(\\\"m\\\")|false\""
    );
    assert_eq!(
        eval(
            &mut rt,
            "ops.op_sequence((function* () { yield 'a'; yield 1 })())"
        ),
        "string \"a,1\""
    );
}

#[test]
fn argument_defaults_and_options() {
    let mut rt = runtime();
    for (call, out) in [
        ("ops.op_webidl_args(300)", "string \"255 7 none\""),
        ("ops.op_webidl_args(-5.5, undefined, undefined)", "string \"0 7 none\""),
        ("ops.op_webidl_args(2.5, 9, 'x')", "string \"2 9 x\""),
        ("ops.op_webidl_args(3.5, '12', null)", "string \"4 12 null\""),
        (
            "ops.op_webidl_args(1, 2 ** 32)",
            "throws TypeError: op_webidl_args: argument 2 (count): the value is outside the accepted range of 0 to 4294967295, inclusive",
        ),
    ] {
        assert_eq!(eval(&mut rt, call), out, "{call}");
    }
    assert_eq!(eval(&mut rt, "ops.op_webidl_args.length"), "number 3");
}

#[test]
fn errors_say_where() {
    let mut rt = runtime();
    for (script, error) in [
        (
            "ops.op_dict({b: [], e: 1})",
            "TypeError: op_dict: argument 1 (dict): the value can not be converted to 'Dict' because 'a' is required in 'Dict'",
        ),
        (
            "ops.op_dict(5)",
            "TypeError: op_dict: argument 1 (dict): the value can not be converted to a dictionary",
        ),
        (
            "ops.op_dict({a: 1, b: 5, e: 1})",
            "TypeError: op_dict: argument 1 (dict): b can not be converted to a sequence",
        ),
        (
            "ops.op_dict({a: 1, b: [1, 2n], e: 1})",
            "TypeError: op_dict: argument 1 (dict): b[1] can not be converted to an unsigned short",
        ),
        (
            "ops.op_request_adapter({powerPreference: 'fast'})",
            "TypeError: op_request_adapter: argument 1 (options): powerPreference can not be converted to 'GPUPowerPreference' because 'fast' is not a valid enum value",
        ),
        (
            "ops.op_numbers(1, 1, 1, Infinity, 1)",
            "TypeError: op_numbers: argument 4 (double): the value is not a finite number",
        ),
        (
            "ops.op_strings(Symbol(), '', null, 1)",
            "TypeError: op_strings: argument 1 (text): the value can not be converted to a string",
        ),
        (
            "ops.op_strings('', '\\u0100', null, 1)",
            "TypeError: op_strings: argument 2 (bytes): the value is not a valid ByteString",
        ),
        (
            "ops.op_numbers({valueOf() { throw new RangeError('mine') }}, 1, 1, 1, 1)",
            "RangeError: mine",
        ),
        (
            "ops.op_sequence({[Symbol.iterator]() { throw new SyntaxError('iter') }})",
            "SyntaxError: iter",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), format!("throws {error}"), "{script}");
    }
}
