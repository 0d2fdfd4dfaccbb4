//! `structuredClone`, by HTML.

use crate::{eval, web};

#[test]
fn clones_keep_types_cycles_and_shared_references() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const a = { n: 1, d: new Date(5), r: /x/gi, m: new Map([[1, 'one']]), s: new Set([2]), big: 10n, u8: new Uint8Array([1, 2]) }; a.self = a; a.twice = [a.u8, a.u8]; const c = structuredClone(a); return [c !== a, c.self === c, c.d instanceof Date && c.d.getTime(), String(c.r), c.m.get(1), c.s.has(2), typeof c.big, [...c.u8], c.twice[0] === c.twice[1], c.u8 !== a.u8];"),
        r#"[true,true,5,"/x/gi","one",true,"bigint",[1,2],true,true]"#
    );
}

#[test]
fn transfer_moves_buffers_and_detaches_the_originals() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const buffer = new Uint8Array([7, 8]).buffer; const c = structuredClone({ buffer }, { transfer: [buffer] }); return [buffer.byteLength, buffer.detached, [...new Uint8Array(c.buffer)]];"),
        r#"[0,true,[7,8]]"#
    );
    for (transfer, why) in [
        ("[b, b]", "an ArrayBuffer is transferred twice"),
        ("[{}]", "only ArrayBuffers can be transferred"),
        (
            "[(structuredClone(b, { transfer: [b] }), b)]",
            "a transferred ArrayBuffer is detached",
        ),
    ] {
        assert_eq!(
            eval(&mut runtime, &format!("const b = new ArrayBuffer(1); try {{ structuredClone(1, {{ transfer: {transfer} }}); }} catch (e) {{ return [e instanceof DOMException, e.name, e.code, e.message]; }}")),
            format!(r#"[true,"DataCloneError",25,"Failed to execute 'structuredClone': {why}"]"#)
        );
    }
}

#[test]
fn what_cannot_be_cloned_is_a_data_clone_error() {
    let mut runtime = web();
    for value in [
        "() => 1",
        "new Proxy({}, {})",
        "Symbol('s')",
        "{ f() {} }",
        "new WeakMap()",
    ] {
        assert_eq!(
            eval(&mut runtime, &format!("try {{ structuredClone({value}); }} catch (e) {{ return [e instanceof DOMException, e.name]; }}")),
            r#"[true,"DataCloneError"]"#,
            "{value}"
        );
    }
    // A getter that throws is the getter's error, not a clone error.
    assert_eq!(
        eval(
            &mut runtime,
            "return structuredClone({ get x() { throw new RangeError('mine'); } });"
        ),
        "throws RangeError: mine"
    );
    assert_eq!(
        eval(&mut runtime, "return structuredClone();"),
        "throws TypeError: Failed to execute 'structuredClone': 1 argument required, but only 0 present."
    );
}
