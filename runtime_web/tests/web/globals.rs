//! Every global is defined as the web defines it, per group, and what tenants patch after
//! start-up changes nothing of it.

use runtime_core::{Runtime, RuntimeOptions};
use runtime_web::Groups;

use crate::{eval, web};

/// Every global the crate defines, by group.
const GLOBALS: &[(Groups, &[&str])] = &[
    (Groups::URL, &["URL", "URLSearchParams"]),
    (Groups::ENCODING, &["TextEncoder", "TextDecoder"]),
    (Groups::BASE64, &["atob", "btoa"]),
    (Groups::CLONE, &["structuredClone"]),
    (Groups::CRYPTO, &["crypto", "Crypto", "SubtleCrypto"]),
    (
        Groups::EVENTS,
        &[
            "Event",
            "EventTarget",
            "CustomEvent",
            "ErrorEvent",
            "reportError",
        ],
    ),
    (Groups::ABORT, &["AbortController", "AbortSignal"]),
    (Groups::PERFORMANCE, &["performance", "Performance"]),
    (Groups::FILES, &["Blob", "File"]),
    (Groups::HEADERS, &["Headers"]),
    (
        Groups::STREAMS,
        &[
            "ReadableStream",
            "ReadableStreamDefaultReader",
            "ReadableStreamDefaultController",
            "WritableStream",
            "WritableStreamDefaultWriter",
            "WritableStreamDefaultController",
            "TransformStream",
            "TransformStreamDefaultController",
            "ByteLengthQueuingStrategy",
            "CountQueuingStrategy",
            "TextEncoderStream",
            "TextDecoderStream",
        ],
    ),
    (Groups::FETCH, &["Request", "Response", "FormData", "fetch"]),
];

/// Operations of the global object (WebIDL makes them enumerable, as browsers' are).
const OPERATIONS: &[&str] = &[
    "fetch",
    "atob",
    "btoa",
    "structuredClone",
    "reportError",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
];

#[test]
fn globals_are_defined_as_webidl_defines_them() {
    let mut runtime = web();
    let mut names = vec!["DOMException", "QuotaExceededError"];
    for (_, group) in GLOBALS {
        names.extend_from_slice(group);
    }
    for name in names {
        let descriptor = eval(&mut runtime, &format!("const d = Object.getOwnPropertyDescriptor(globalThis, '{name}'); return [typeof d.value, typeof d.get, typeof d.set, d.writable, d.configurable, d.enumerable];"));
        let expected = match name {
            // Readonly attributes: accessors; `performance` is `[Replaceable]`.
            "crypto" => r#"["undefined","function","undefined",null,true,true]"#,
            "performance" => r#"["undefined","function","function",null,true,true]"#,
            _ if OPERATIONS.contains(&name) => {
                r#"["function","undefined","undefined",true,true,true]"#
            }
            // Interface objects.
            _ => r#"["function","undefined","undefined",true,true,false]"#,
        };
        assert_eq!(descriptor, expected, "{name}");
    }
    assert_eq!(
        eval(&mut runtime, "const mine = {}; performance = mine; crypto = 1; return [performance === mine, typeof crypto];"),
        r#"[true,"object"]"#
    );
    // Interfaces' members are enumerable, and each prototype names its interface.
    assert_eq!(
        eval(&mut runtime, "const keys = []; for (const key in URL.prototype) keys.push(key); return [keys.includes('href'), keys.includes('toJSON'), Object.prototype.toString.call(new URL('a:b')), Object.prototype.toString.call(new TextDecoder())];"),
        r#"[true,true,"[object URL]","[object TextDecoder]"]"#
    );
}

#[test]
fn a_host_chooses_groups_and_gets_what_they_need() {
    for (group, names) in GLOBALS {
        let mut runtime = Runtime::new(RuntimeOptions {
            extensions: runtime_web::extensions(*group),
            ..Default::default()
        });
        for name in *names {
            assert_ne!(
                eval(&mut runtime, &format!("return typeof {name};")),
                r#""undefined""#,
                "{name}"
            );
        }
        // DOMException comes with every group; the others' globals do not.
        assert_eq!(
            eval(&mut runtime, "return typeof DOMException;"),
            r#""function""#
        );
        for (other, other_names) in GLOBALS {
            // A group brings those it builds on (ABORT brings EVENTS, STREAMS brings ABORT):
            // the other group's own extension, its last, is among this one's.
            let other_own = runtime_web::extensions(*other).pop().unwrap().name();
            if runtime_web::extensions(*group)
                .iter()
                .any(|extension| extension.name() == other_own)
            {
                continue;
            }
            for name in *other_names {
                assert_eq!(
                    eval(&mut runtime, &format!("return typeof {name};")),
                    r#""undefined""#,
                    "{name} with {group:?}"
                );
            }
        }
    }
}

#[test]
fn patched_intrinsics_change_nothing_of_the_web_platform() {
    let mut runtime = web();
    let patch = "const protos = [Array.prototype, String.prototype, Promise.prototype, Map.prototype, Set.prototype, WeakMap.prototype, Object.prototype, Function.prototype, Uint8Array.prototype, Object.getPrototypeOf(Uint8Array.prototype), Object.getPrototypeOf([][Symbol.iterator]())]; \
                 const define = Object.defineProperty, keysOf = Reflect.ownKeys, describe = Object.getOwnPropertyDescriptor; \
                 for (let p = 0; p < protos.length; p++) { const proto = protos[p]; const keys = keysOf(proto); \
                   for (let k = 0; k < keys.length; k++) { const key = keys[k]; const d = describe(proto, key); \
                     if (typeof d.value === 'function' && d.configurable && key !== 'constructor') { \
                       try { define(proto, key, { value: function () { throw new Error('patched ' + String(key)); }, writable: true, configurable: true }); } catch {} } } } \
                 Reflect.apply = Reflect.ownKeys = Reflect.getPrototypeOf = () => { throw new Error('patched Reflect'); }; \
                 Object.defineProperty = () => { throw new Error('patched'); }; return 'patched';";
    // Sequences (a Blob's parts, `AbortSignal.any`'s signals) are read through their own
    // iterator, as WebIDL says: these give theirs, not the array iterator a tenant patched.
    let setup = "globalThis.events = () => { const t = new EventTarget(); let n = 0; t.addEventListener('x', () => n++, { once: true }); \
                   t.dispatchEvent(new Event('x')); t.dispatchEvent(new Event('x')); const c = new AbortController(); \
                   const signals = { [Symbol.iterator]() { let done = false; return { next() { const step = { value: c.signal, done }; done = true; return step; } }; } }; \
                   const any = AbortSignal.any(signals); c.abort('r'); return n + ':' + any.reason; }; \
                 globalThis.blob = () => { const parts = { [Symbol.iterator]() { let i = 0; return { next() { i++; return i === 1 ? { value: 'abc', done: false } : { value: undefined, done: true }; } }; } }; \
                   return new Blob(parts).slice(1).size; }; return 0;";
    eval(&mut runtime, setup);
    let checks = "const u = new URL('https://h/p?a=1'); u.searchParams.append('b', '2'); \
                  const bytes = new TextEncoder().encode('héllo'); \
                  return [u.href, new TextDecoder().decode(bytes), new TextDecoder('utf-16le').decode(Uint8Array.of(0x61, 0)), \
                          atob(btoa('x')), crypto.randomUUID().length, typeof performance.now(), \
                          structuredClone(7), new DOMException('m', 'AbortError').code, events(), blob()];";
    let before = eval(&mut runtime, checks);
    assert_eq!(
        before,
        r#"["https://h/p?a=1&b=2","héllo","a","x",36,"number",7,20,"1:r",2]"#
    );
    assert_eq!(eval(&mut runtime, patch), r#""patched""#);
    // JSON.stringify of the result uses no patched method.
    assert_eq!(eval(&mut runtime, checks), before);
}
