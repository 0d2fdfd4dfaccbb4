//! String arguments and returns: round trips through echo ops on every representation V8 has
//! (one-byte, two-byte, cons, sliced, lone surrogates, 100 MB), the error for wide characters
//! in one-byte arguments, and fast/slow agreement of every string op.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use crate::common;

use std::borrow::Cow;

use common::{call_both_ways, counting_runtime, eval, DESCRIBE_JS};
use runtime_core::__op::STRING_STACK_BUFFER_SIZE;
use runtime_core::{op, v8, ByteString, Extension, Runtime};

include!("../../../testdata/ops/strings.rs");

fn extension() -> Extension {
    Extension::new("strings").ops(&[
        op_str_len::DECL,
        op_str_hash::DECL,
        op_cow_hash::DECL,
        op_owned_hash::DECL,
        op_owned_spare::DECL,
        op_str_then_number::DECL,
        op_onebyte_hash::DECL,
        op_bytestring_hash::DECL,
        op_echo::DECL,
        op_echo_cow::DECL,
        op_echo_owned::DECL,
        op_echo_onebyte::DECL,
        op_echo_bytestring::DECL,
        op_static_str::DECL,
        op_static_str_utf8::DECL,
        op_static_cow::DECL,
        op_static_pick::DECL,
        op_maybe_string::DECL,
        op_concat_len::DECL,
    ])
}

/// `globalThis.S`: the test strings, as JavaScript builds them, each with a label.
fn define_strings(runtime: &mut Runtime) -> Vec<String> {
    let stack = STRING_STACK_BUFFER_SIZE;
    let source = format!(
        r#"
        const stack = {stack};
        const cases = [
          ["empty", ""],
          ["a", "a"],
          ["ascii stack-1", "x".repeat(stack - 1)],
          ["ascii stack", "x".repeat(stack)],
          ["ascii stack+1", "x".repeat(stack + 1)],
          ["ascii 1000", "abcdefghij".repeat(100)],
          ["ascii 1e6", "0123456789".repeat(100000)],
          ["copyright", "©"],
          ["y-diaeresis", "ÿ"],
          ["latin1 mix", "caf\u00e9 \u00a9 \u00ff\u0080 plain"],
          ["latin1 half stack-1", "é".repeat(stack / 2 - 1)],
          ["latin1 half stack", "é".repeat(stack / 2)],
          ["latin1 half stack+1", "é".repeat(stack / 2 + 1)],
          ["latin1 1e6", "é".repeat(1000000)],
          ["two-byte third stack", "\u1000".repeat(Math.floor(stack / 3))],
          ["two-byte third stack+1", "\u1000".repeat(Math.floor(stack / 3) + 1)],
          ["u1000 x 1000", "\u1000".repeat(1000)],
          ["u1000 x 1e6", "\u1000".repeat(1000000)],
          ["emoji", "emoji 😀 and 👍🏽 flags 🇳🇱"],
          ["lone high surrogate", "a\ud800b"],
          ["lone low surrogate", "a\udc00b"],
          ["lone surrogate at end", "abc\ud83d"],
          ["cons ascii", "left half ".repeat(3) + String(Math.random()).slice(0, 1) + "right half".repeat(30)],
          ["cons two-byte", "\u1000".repeat(20) + "ascii tail " + String(Date.now()).slice(0, 0)],
          ["slice ascii", ("0123456789".repeat(200) + String(Math.random())).slice(5, 1905)],
          ["slice two-byte only latin1", ("\u1000" + "é".repeat(300)).slice(1)],
        ];
        // Flat copies: `repeat` and `+` make cons strings, which V8 never passes to a fast
        // call; flattened, the one-byte ones can take the fast path.
        for (const [label, s] of cases.slice()) cases.push(["flat " + label, %FlattenString(s)]);
        globalThis.S = cases.map(([, s]) => s);
        cases.map(([label]) => label).join("\n")
        "#
    );
    let labels = runtime
        .execute_script_to_string("strings.js", &source)
        .unwrap();
    labels.lines().map(str::to_owned).collect()
}

#[test]
fn echo_round_trips_every_representation() {
    let mut runtime = counting_runtime(vec![extension()]);
    let labels = define_strings(&mut runtime);
    for echo in ["op_echo", "op_echo_cow", "op_echo_owned"] {
        for (index, label) in labels.iter().enumerate() {
            let check = format!(
                "(() => {{ const s = S[{index}], r = ops.{echo}(s), w = s.toWellFormed();
                   return r === w ? 'ok' : `got length ${{r.length}}, want ${{w.length}}`; }})()"
            );
            let verdict = runtime.execute_script_to_string("echo.js", &check).unwrap();
            assert_eq!(verdict, "ok", "{echo}({label})");
        }
    }
    // Lone surrogates become U+FFFD, as `toWellFormed` has it.
    let replaced = runtime
        .execute_script_to_string("lone.js", "ops.op_echo('a\\ud800b') === 'a\\ufffdb'")
        .unwrap();
    assert_eq!(replaced, "true");
}

#[test]
fn echo_round_trips_100_megabytes() {
    let mut runtime = counting_runtime(vec![extension()]);
    let verdict = runtime
        .execute_script_to_string(
            "big.js",
            "const big = 'abcdefgh'.repeat(12_500_000); const r = ops.op_echo(big);
             [r.length, r === big, ops.op_str_len(big)].join()",
        )
        .unwrap();
    assert_eq!(verdict, "100000000,true,100000000");
}

#[test]
fn one_byte_arguments_take_latin1_and_refuse_wider_characters() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let echo = |runtime: &mut Runtime, op: &str, input: &str| {
        runtime
            .execute_script_to_string("onebyte.js", &format!("attempt(() => ops.{op}({input}))"))
            .unwrap()
    };
    for op in ["op_echo_onebyte", "op_echo_bytestring"] {
        assert_eq!(
            echo(&mut runtime, op, "'caf\\u00e9 \\u00ff'"),
            "string \"café ÿ\""
        );
        // A two-byte representation whose characters all fit in one byte is fine.
        assert_eq!(
            echo(
                &mut runtime,
                op,
                "('\\u1000' + '\\u00e9'.repeat(3)).slice(1)"
            ),
            "string \"ééé\""
        );
        let wide = echo(&mut runtime, op, "'a\\u1000'");
        assert_eq!(
            wide,
            format!(
                "throws TypeError: {op}: argument 1 (bytes) must be a string of characters up to U+00FF, \
                 received a string with wider characters"
            )
        );
        assert_eq!(
            echo(&mut runtime, op, "42"),
            format!(
                "throws TypeError: {op}: argument 1 (bytes) must be a string, received a number"
            )
        );
    }
}

#[test]
fn string_returns() {
    let mut runtime = counting_runtime(vec![extension()]);
    let result = runtime
        .execute_script_to_string(
            "returns.js",
            "JSON.stringify([ops.op_static_str(), ops.op_static_str_utf8(), ops.op_static_cow(false),
              ops.op_static_cow(true), ops.op_maybe_string(true), ops.op_maybe_string(false)])",
        )
        .unwrap();
    assert_eq!(
        result,
        r#"["a static ASCII string, handed to V8 without a copy","café ©","borrowed","ownedowned","here",null]"#
    );
    let picks = runtime
        .execute_script_to_string(
            "picks.js",
            "[0, 0, 1, 2, 2, 0, 1, 4].map(i => ops.op_static_pick(i)).join() + ' ' + \
             [false, true, false].map(b => ops.op_static_cow(b)).join()",
        )
        .unwrap();
    assert_eq!(
        picks,
        "zero,zero,one,twö,twö,zero,one,one borrowed,ownedowned,borrowed"
    );
    // The static ASCII string is external: V8 points at the Rust bytes.
    let external = runtime.with_scope(|scope| {
        let value = runtime_core::v8::String::new(scope, "ops.op_static_str()").unwrap();
        let script = v8::Script::compile(scope, value, None).unwrap();
        let result = script.run(scope).unwrap();
        v8::Local::<v8::String>::try_from(result)
            .unwrap()
            .is_external_onebyte()
    });
    assert!(
        external,
        "an ASCII &'static str becomes an external one-byte string"
    );
}

/// One character longer than V8's longest string, in each way an op can return text.
#[op]
fn op_too_long_ascii() -> String {
    "a".repeat(v8::String::MAX_LENGTH + 1)
}

#[op]
fn op_too_long_utf8() -> String {
    "é".repeat(v8::String::MAX_LENGTH / 2 + 1)
}

#[op]
fn op_too_long_bytestring() -> ByteString {
    ByteString::from(vec![0xe9; v8::String::MAX_LENGTH + 1])
}

#[test]
fn returned_text_longer_than_v8_allows_is_a_range_error() {
    let mut runtime = counting_runtime(vec![Extension::new("too_long").ops(&[
        op_too_long_ascii::DECL,
        op_too_long_utf8::DECL,
        op_too_long_bytestring::DECL,
    ])]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    for op in [
        "op_too_long_ascii",
        "op_too_long_utf8",
        "op_too_long_bytestring",
    ] {
        assert_eq!(
            eval(&mut runtime, &format!("ops.{op}()")),
            format!("throws RangeError: {op}: the returned string is longer than V8 allows")
        );
    }
}

#[test]
fn string_ops_agree_on_both_paths() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let labels = define_strings(&mut runtime);
    let ops = [
        "op_str_len",
        "op_str_hash",
        "op_cow_hash",
        "op_owned_hash",
        "op_onebyte_hash",
        "op_bytestring_hash",
    ];
    let mut fast_seen = 0;
    for op in ops {
        for (index, label) in labels.iter().enumerate() {
            let [(slow, _), (fast, path)] =
                call_both_ways(&mut runtime, op, "'warm'", &format!("S[{index}]"));
            assert_eq!(
                slow, fast,
                "{op}({label}): slow path vs optimized caller ({path})"
            );
            fast_seen += usize::from(path == "fast");
        }
        // Non-strings: the same TypeError on both paths.
        for input in ["undefined", "42", "({})", "null", "1n"] {
            let [(slow, _), (fast, path)] = call_both_ways(&mut runtime, op, "'warm'", input);
            assert_eq!(slow, fast, "{op}({input})");
            assert_eq!(path, "slow", "{op}({input}) cannot be fast");
            assert!(
                slow.starts_with("throws TypeError: "),
                "{op}({input}) -> {slow}"
            );
        }
    }
    // Sequential one-byte strings (most of the cases) do take the fast path.
    assert!(fast_seen >= ops.len() * 10, "only {fast_seen} fast calls");

    // Two string arguments and a number between them.
    let [(slow, _), (fast, path)] = call_both_ways(
        &mut runtime,
        "op_concat_len",
        "'a', 1, 'b'",
        "'ab', 1, S[9]",
    );
    assert_eq!(
        (slow.as_str(), fast.as_str(), path),
        ("number 22", "number 22", "fast")
    );
    let [(slow, _), (fast, _)] =
        call_both_ways(&mut runtime, "op_concat_len", "'a', 1, 'b'", "'ab', 1, 7");
    assert_eq!(slow, fast);
    assert_eq!(
        slow,
        "throws TypeError: op_concat_len: argument 3 (b) must be a string, received a number"
    );
}

#[test]
fn an_argument_after_a_string_throws_its_error() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    for (args, expected) in [
        ("'abc', 4", "number 7"),
        // Cons, two-byte and one-byte strings: each read a different way.
        ("'ab'.repeat(600), 1", "number 1201"),
        ("'\\u1000', 1", "number 4"),
        (
            "'abc', 'x'",
            "throws TypeError: op_str_then_number: argument 2 (n) must be a number (u32), received a string",
        ),
        (
            "'\\u1000'.repeat(2), {}",
            "throws TypeError: op_str_then_number: argument 2 (n) must be a number (u32), received an object",
        ),
    ] {
        for (outcome, path) in call_both_ways(&mut runtime, "op_str_then_number", "'warm', 1", args) {
            assert_eq!(outcome, expected, "op_str_then_number({args}) on the {path} path");
        }
    }
}

#[test]
fn owned_string_arguments_are_allocated_exactly() {
    let mut runtime = counting_runtime(vec![extension()]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    let labels = define_strings(&mut runtime);
    for (index, label) in labels.iter().enumerate() {
        for (spare, path) in call_both_ways(
            &mut runtime,
            "op_owned_spare",
            "'warm'",
            &format!("S[{index}]"),
        ) {
            assert_eq!(
                spare, "number 0",
                "op_owned_spare({label}) on the {path} path"
            );
        }
    }
}

#[test]
fn string_ops_hash_the_utf8_content() {
    let mut runtime = counting_runtime(vec![extension()]);
    let hash = runtime
        .execute_script_to_string(
            "hash.js",
            "[ops.op_str_hash('café'), ops.op_str_hash('a\\ud800')].join()",
        )
        .unwrap();
    assert_eq!(
        hash,
        format!(
            "{},{}",
            fnv1a("café".as_bytes()),
            fnv1a("a\u{fffd}".as_bytes())
        )
    );
}

/// Random strings from a seed (`OPWIRE_STRING_SEED` replays one): every string argument kind,
/// on both paths, against `std`'s reading of the same UTF-16 (lone surrogates as U+FFFD).
#[test]
fn seeded_random_strings_read_as_std_reads_them() {
    let seed: u64 = std::env::var("OPWIRE_STRING_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x0bad_c0de);
    let mut state = seed;
    let mut next = move |below: u32| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(below)) as u32
    };
    // Each string draws its units from one class, so that whole strings stay one-byte often.
    let mut strings: Vec<Vec<u16>> = Vec::new();
    for _ in 0..200 {
        let len = match next(4) {
            0 => next(8),
            1 => next(100),
            2 => next(1100), // around the stack buffer
            _ => next(5000),
        };
        let class = next(5);
        let unit = |next: &mut dyn FnMut(u32) -> u32| -> u16 {
            match class {
                0 => next(0x80) as u16,                                     // ASCII
                1 => next(0x100) as u16,                                    // Latin-1
                2 => [0x41, 0xe9, 0x3b1, 0x1000, 0xfffd][next(5) as usize], // mixed BMP
                3 => 0xd800 + next(0x800) as u16, // surrogates, often lone
                _ => next(0x10000) as u16,        // anything
            }
        };
        strings.push((0..len).map(|_| unit(&mut next)).collect());
    }

    let mut runtime = counting_runtime(vec![extension()]);
    let units_json = units_literal(&strings);
    let source = format!(
        "const strings = {units_json}.map(units => {{
           let s = '';
           for (let i = 0; i < units.length; i += 4096)
             s += String.fromCharCode(...units.slice(i, i + 4096));
           return %FlattenString(s);
         }});
         function hashes(s) {{
           let onebyte;
           try {{ onebyte = ops.op_onebyte_hash(s); }} catch (e) {{ onebyte = e.name; }}
           return [ops.op_str_hash(s), ops.op_cow_hash(s), ops.op_owned_hash(s), onebyte].join();
         }}
         %PrepareFunctionForOptimization(hashes);
         hashes('warm'); hashes('warm');
         %OptimizeFunctionOnNextCall(hashes);
         hashes('warm');
         const slow = strings.map(s => [ops.op_str_hash(s), ops.op_cow_hash(s), ops.op_owned_hash(s)].join());
         const fast = strings.map(hashes);
         JSON.stringify([slow, fast])"
    );
    runtime.reset_op_call_counts();
    let result = runtime
        .execute_script_to_string("random.js", &source)
        .unwrap();
    let fast_calls = runtime.op_call_counts("op_str_hash").unwrap().fast;
    assert!(
        fast_calls > 0,
        "the optimized caller took the fast path for one-byte strings"
    );

    let (slow, fast) = result
        .trim_start_matches("[[")
        .trim_end_matches("]]")
        .split_once("],[")
        .unwrap();
    let slow: Vec<&str> = slow.split("\",\"").collect();
    let fast: Vec<&str> = fast.split("\",\"").collect();
    for (index, units) in strings.iter().enumerate() {
        let utf8 = String::from_utf16_lossy(units);
        let hash = fnv1a(utf8.as_bytes());
        let onebyte = if units.iter().all(|&unit| unit <= 0xff) {
            let latin1: Vec<u8> = units.iter().map(|&unit| unit as u8).collect();
            fnv1a(&latin1).to_string()
        } else {
            "TypeError".to_owned()
        };
        let expected_slow = format!("{hash},{hash},{hash}");
        let expected_fast = format!("{hash},{hash},{hash},{onebyte}");
        let context = format!(
            "seed {seed}, string {index} (units {:?}...)",
            &units[..units.len().min(8)]
        );
        assert_eq!(slow[index].trim_matches('"'), expected_slow, "{context}");
        assert_eq!(fast[index].trim_matches('"'), expected_fast, "{context}");
    }
}

/// `[[1,2],[3]]`: the units as a JavaScript array literal.
fn units_literal(strings: &[Vec<u16>]) -> String {
    let arrays: Vec<String> = strings
        .iter()
        .map(|units| {
            let units: Vec<String> = units.iter().map(u16::to_string).collect();
            format!("[{}]", units.join(","))
        })
        .collect();
    format!("[{}]", arrays.join(","))
}
