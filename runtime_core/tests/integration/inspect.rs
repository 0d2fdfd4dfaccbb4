//! `Runtime::inspect` against Node's `util.inspect` (v20, its defaults), value by value: the
//! expected column is what Node printed for the same source.

use runtime_core::{Runtime, RuntimeOptions};

/// (source, what Node's `util.inspect` printed for it).
const TABLE: &[(&str, &str)] = &[
    (r#"1"#, r#"1"#),
    (r#"-0"#, r#"-0"#),
    (r#"12345678901234567890n"#, r#"12345678901234567890n"#),
    (r#"'it\'s'"#, r#""it's""#),
    (r#"'plain'"#, r#"'plain'"#),
    (r#"Symbol('tag')"#, r#"Symbol(tag)"#),
    (r#"Symbol()"#, r#"Symbol()"#),
    (r#"undefined"#, r#"undefined"#),
    (r#"null"#, r#"null"#),
    (r#"true"#, r#"true"#),
    (r#"NaN"#, r#"NaN"#),
    (r#"[]"#, r#"[]"#),
    (
        r#"[1, 'a', [2, [3, [4, [5]]]]]"#,
        r#"[ 1, 'a', [ 2, [ 3, [Array] ] ] ]"#,
    ),
    (r#"[1, , 3]"#, r#"[ 1, <1 empty item>, 3 ]"#),
    (r#"[, , , 4]"#, r#"[ <3 empty items>, 4 ]"#),
    (r#"({})"#, r#"{}"#),
    (
        r#"({ a: 1, 'b-c': { d: { e: { f: 1 } } }, [Symbol('s')]: 2 })"#,
        r#"{ a: 1, 'b-c': { d: { e: [Object] } }, [Symbol(s)]: 2 }"#,
    ),
    (
        r#"Object.assign(Object.create(null), { a: 1 })"#,
        r#"[Object: null prototype] { a: 1 }"#,
    ),
    (r#"Object.create(null)"#, r#"[Object: null prototype] {}"#),
    (
        r#"new (class Point { constructor() { this.x = 1; this.y = 2; } })()"#,
        r#"Point { x: 1, y: 2 }"#,
    ),
    (r#"new (class Empty {})()"#, r#"Empty {}"#),
    (
        r#"(() => { const o = { name: 'o' }; o.self = o; o.list = [o]; return o; })()"#,
        r#"<ref *1> { name: 'o', self: [Circular *1], list: [ [Circular *1] ] }"#,
    ),
    (
        r#"({ get a() { throw new Error('ran'); }, set b(v) {}, get c() { return 1; }, set c(v) {} })"#,
        r#"{ a: [Getter], b: [Setter], c: [Getter/Setter] }"#,
    ),
    (
        r#"new Proxy({ a: 1 }, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); }, getOwnPropertyDescriptor() { throw new Error('trap'); } })"#,
        r#"{ a: 1 }"#,
    ),
    (r#"(function named() {})"#, r#"[Function: named]"#),
    (r#"(class A {})"#, r#"[class A]"#),
    (
        r#"(class B extends Array {})"#,
        r#"[class B extends Array]"#,
    ),
    (r#"(async () => {})"#, r#"[AsyncFunction (anonymous)]"#),
    (r#"(function* gen() {})"#, r#"[GeneratorFunction: gen]"#),
    (
        r#"(async function* agen() {})"#,
        r#"[AsyncGeneratorFunction: agen]"#,
    ),
    (
        r#"Object.assign(function withProps() {}, { a: 1 })"#,
        r#"[Function: withProps] { a: 1 }"#,
    ),
    (
        r#"new Map([['a', 1], [{ k: 2 }, [3]]])"#,
        r#"Map(2) { 'a' => 1, { k: 2 } => [ 3 ] }"#,
    ),
    (r#"new Map()"#, r#"Map(0) {}"#),
    (
        r#"new Set([1, 'two', [3]])"#,
        r#"Set(3) { 1, 'two', [ 3 ] }"#,
    ),
    (r#"new Set()"#, r#"Set(0) {}"#),
    (
        r#"new Uint8Array([1, 2, 3])"#,
        r#"Uint8Array(3) [ 1, 2, 3 ]"#,
    ),
    (r#"new Float64Array(0)"#, r#"Float64Array(0) []"#),
    (
        r#"new BigInt64Array([1n, -2n])"#,
        r#"BigInt64Array(2) [ 1n, -2n ]"#,
    ),
    (
        r#"new Uint8Array(3).buffer"#,
        r#"ArrayBuffer { [Uint8Contents]: <00 00 00>, byteLength: 3 }"#,
    ),
    (
        r#"(() => { const e = new RangeError('bad'); e.stack = 'RangeError: bad\n    at f (file:///a.js:1:1)'; e.code = 'E_BAD'; return e; })()"#,
        r#"RangeError: bad
    at f (file:///a.js:1:1) {
  code: 'E_BAD'
}"#,
    ),
    (
        r#"(() => { const e = new TypeError('no frames'); e.stack = 'TypeError: no frames'; return e; })()"#,
        r#"[TypeError: no frames]"#,
    ),
    (r#"new Date(0)"#, r#"1970-01-01T00:00:00.000Z"#),
    (r#"new Date(NaN)"#, r#"Invalid Date"#),
    (r#"/a+b/gi"#, r#"/a+b/gi"#),
    (r#"Promise.resolve(4)"#, r#"Promise { 4 }"#),
    (r#"new Promise(() => {})"#, r#"Promise { <pending> }"#),
    (
        r#"(() => { const q = Promise.reject(3); q.catch(() => {}); return q; })()"#,
        r#"Promise { <rejected> 3 }"#,
    ),
    (
        r#"Array.from({ length: 30 }, (_, i) => i * 3)"#,
        r#"[
   0,  3,  6,  9, 12, 15, 18, 21, 24,
  27, 30, 33, 36, 39, 42, 45, 48, 51,
  54, 57, 60, 63, 66, 69, 72, 75, 78,
  81, 84, 87
]"#,
    ),
    (
        r#"Array.from({ length: 120 }, (_, i) => i)"#,
        r#"[
   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,
  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,
  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,
  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,
  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,
  96, 97, 98, 99,
  ... 20 more items
]"#,
    ),
    (
        r#"Array.from({ length: 10 }, (_, i) => 'item' + i)"#,
        r#"[
  'item0', 'item1',
  'item2', 'item3',
  'item4', 'item5',
  'item6', 'item7',
  'item8', 'item9'
]"#,
    ),
    (
        r#"({ alpha: 'aaaaaaaaaaaaaaaaaaaa', beta: 'bbbbbbbbbbbbbbbbbbbbbb', gamma: 'ccccccccccccccccccccccc' })"#,
        r#"{
  alpha: 'aaaaaaaaaaaaaaaaaaaa',
  beta: 'bbbbbbbbbbbbbbbbbbbbbb',
  gamma: 'ccccccccccccccccccccccc'
}"#,
    ),
    (
        r#"({ outer: { alpha: 'aaaaaaaaaaaaaaaaaaaa', beta: 'bbbbbbbbbbbbbbbbbbbbbb', gamma: 'ccccccccccccccccccccccc' }, n: 1 })"#,
        r#"{
  outer: {
    alpha: 'aaaaaaaaaaaaaaaaaaaa',
    beta: 'bbbbbbbbbbbbbbbbbbbbbb',
    gamma: 'ccccccccccccccccccccccc'
  },
  n: 1
}"#,
    ),
    (r#"({ a: { b: { c: {} } } })"#, r#"{ a: { b: { c: {} } } }"#),
    (
        r#"({ a: { b: { c: { d: 1 } } } })"#,
        r#"{ a: { b: { c: [Object] } } }"#,
    ),
    (r#"[[[[]]]]"#, r#"[ [ [ [] ] ] ]"#),
    (r#"[[[[1]]]]"#, r#"[ [ [ [Array] ] ] ]"#),
    (
        r#"Object.assign([1, 2], { extra: true })"#,
        r#"[ 1, 2, extra: true ]"#,
    ),
    (r#"new WeakMap()"#, r#"WeakMap { <items unknown> }"#),
    (r#"'multi\nline'"#, r#"'multi\nline'"#),
];

#[test]
fn inspect_prints_what_node_prints() {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let mut wrong = Vec::new();
    for (source, expected) in TABLE {
        let value = runtime.execute_script("inspect.js", source).unwrap();
        let printed = runtime.inspect(&value);
        if printed != *expected {
            wrong.push(format!(
                "{source}\n  node:   {expected:?}\n  opwire: {printed:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        TABLE.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_sparse_array_prints_its_holes_as_runs_at_once() {
    // Each hole was looked up one by one: four billion of them kept the thread.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script("sparse.js", "const a = []; a[2 ** 32 - 2] = 1; a")
        .unwrap();
    assert_eq!(runtime.inspect(&value), "[ <4294967294 empty items>, 1 ]");
    let value = runtime
        .execute_script("sparse.js", "const b = [1, 2]; b[1000] = 3; b[5000] = 4; b")
        .unwrap();
    assert_eq!(
        runtime.inspect(&value),
        "[ 1, 2, <998 empty items>, 3, <3999 empty items>, 4 ]"
    );
    // A long string is cut where Node cuts it.
    let value = runtime
        .execute_script("long.js", "'a'.repeat(10_003)")
        .unwrap();
    let printed = runtime.inspect(&value);
    assert_eq!(printed.len(), 10_002 + "... 3 more characters".len());
    assert!(
        printed.ends_with("aaa'... 3 more characters"),
        "{}",
        &printed[9_990..]
    );
}

#[test]
fn inspecting_runs_no_getter_or_trap_of_the_value() {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script(
            "traps.js",
            "globalThis.ran = [];\n\
             const target = { get a() { ran.push('getter'); return 1; } };\n\
             const handler = {};\n\
             for (const trap of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf']) {\n\
               handler[trap] = () => { ran.push(trap); throw new Error(trap); };\n\
             }\n\
             [new Proxy(target, handler), target, Object.defineProperty({}, 'x', { get() { ran.push('x'); }, enumerable: true })]",
        )
        .unwrap();
    assert_eq!(
        runtime.inspect(&value),
        "[ { a: [Getter] }, { a: [Getter] }, { x: [Getter] } ]"
    );
    assert_eq!(
        runtime
            .execute_script_to_string("ran.js", "ran.join()")
            .unwrap(),
        ""
    );
}

#[test]
fn a_callable_proxy_on_a_prototype_chain_aborts_nothing() {
    // A callable proxy is a function to V8's type checks, and reading its name aborted the
    // process (V8's `bad_optional_access`).
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script(
            "proxies.js",
            "const P = new Proxy(function () {}, {});\n\
             class Child extends new Proxy(class Base {}, {}) {}\n\
             [Object.create({ constructor: P }), Child, Object.create(new Proxy({}, {}))]",
        )
        .unwrap();
    assert_eq!(runtime.inspect(&value), "[ {}, [class Child], {} ]");
}

#[test]
fn reading_elements_regexps_and_errors_runs_none_of_the_scripts_code() {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script(
            "no_code.js",
            r#"globalThis.ran = [];
            const trap = (name) => () => { ran.push(name); throw new Error(name); };
            const traps = {};
            for (const name of ["get", "has", "getOwnPropertyDescriptor", "getPrototypeOf"]) {
              traps[name] = trap(name);
            }
            const accessor = [1, 2, 3];
            Object.defineProperty(accessor, 1, { get: trap("element getter"), enumerable: true });
            const underGetter = [1, , 3];
            Object.setPrototypeOf(underGetter,
              Object.defineProperty([], 1, { get: trap("prototype index getter") }));
            const underProxy = [1, , 3];
            Object.setPrototypeOf(underProxy, new Proxy([], traps));
            const flagged = /a/g;
            Object.setPrototypeOf(flagged,
              Object.create(RegExp.prototype, { flags: { get: trap("flags getter") } }));
            const proxied = /b/iy;
            Object.setPrototypeOf(proxied, new Proxy(RegExp.prototype, traps));
            Error.prepareStackTrace = trap("prepareStackTrace");
            const unformatted = new Error("never read");
            [accessor, underGetter, underProxy, flagged, proxied, unformatted]"#,
        )
        .unwrap();
    let printed = runtime.inspect(&value);
    let ran = runtime
        .execute_script_to_string("ran.js", "ran.join()")
        .unwrap();
    assert_eq!(ran, "", "{printed}");
    assert!(
        printed.starts_with(
            "[\n  [ 1, [Getter], 3 ],\n  [ 1, <1 empty item>, 3 ],\n  [ 1, <1 empty item>, 3 ],\n  \
             /a/g,\n  /b/iy,\n  Error: never read\n    at no_code.js:"
        ),
        "{printed}"
    );
}

#[test]
fn what_one_call_prints_is_bounded_however_values_share_references() {
    // Each of these is a few kilobytes to megabytes of heap that printed as gigabytes, or for
    // minutes, with no way to stop it.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let cases = [
        "const s = 'x'.repeat(10_000); const a = Array(100).fill(s); \
         const b = Array(100).fill(a); Array(100).fill(b)",
        "const wide = (inner) => { const o = {}; for (let i = 0; i < 1000; i++) o['k' + i] = inner; \
         return o; }; wide(wide(wide(1)))",
        "const e = new Error('m'.repeat(16 << 20)); Array(100).fill(e)",
        "const key = 'k'.repeat(8 << 20); const o = { [key]: 1 }; Array(100).fill(o)",
        // Listing a large array's keys is work too: ten thousand references to one array of
        // a million elements listed ten billion keys.
        "const big = new Array(1e6).fill(1); Array(100).fill(Array(100).fill(big))",
    ];
    for source in cases {
        let value = runtime.execute_script("shared.js", source).unwrap();
        let printed = runtime.inspect(&value);
        assert!(
            printed.len() < 3 << 20,
            "{} bytes printed for {source}",
            printed.len()
        );
    }
}
