//! `crypto`, by Web Crypto.

use crate::{eval, settle, web};

#[test]
fn get_random_values_fills_integer_arrays_up_to_the_quota() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const a = new Uint8Array(4096); const same = crypto.getRandomValues(a) === a; const distinct = new Set(a).size; const b = crypto.getRandomValues(new BigUint64Array(2)); return [same, distinct > 200, typeof b[0], crypto.getRandomValues(new Uint8Array(65536)).length, crypto.getRandomValues(new Uint8Array(0)).length];"),
        r#"[true,true,"bigint",65536,0]"#
    );
    assert_eq!(
        eval(&mut runtime, "try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { return [e instanceof QuotaExceededError, e instanceof DOMException, e.name, e.code, e.quota, e.requested]; }"),
        r#"[true,true,"QuotaExceededError",22,null,null]"#
    );
    assert_eq!(
        eval(&mut runtime, "const names = []; for (const view of [new Float32Array(1), new Float64Array(1), new DataView(new ArrayBuffer(1))]) { try { crypto.getRandomValues(view); } catch (e) { names.push([e instanceof DOMException, e.name, e.code]); } } return names;"),
        r#"[[true,"TypeMismatchError",17],[true,"TypeMismatchError",17],[true,"TypeMismatchError",17]]"#
    );
    assert_eq!(
        eval(&mut runtime, "return crypto.getRandomValues(new ArrayBuffer(4));"),
        "throws TypeError: Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'."
    );
    assert_eq!(
        eval(
            &mut runtime,
            "return crypto.getRandomValues.call({}, new Uint8Array(1));"
        ),
        "throws TypeError: Illegal invocation"
    );
}

#[test]
fn random_uuids_are_version_4_and_distinct() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const ids = new Set(); for (let i = 0; i < 1000; i++) ids.add(crypto.randomUUID()); return [ids.size, [...ids].every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))];"),
        "[1000,true]"
    );
}

#[test]
fn digest_hashes_with_the_sha_families() {
    let mut runtime = web();
    let hex = "const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');";
    assert_eq!(
        settle(&mut runtime, &format!("{hex} const abc = new TextEncoder().encode('abc'); return [hex(await crypto.subtle.digest('SHA-256', abc)), hex(await crypto.subtle.digest({{ name: 'sha-1' }}, abc.buffer)), (await crypto.subtle.digest('SHA-384', abc)).byteLength, (await crypto.subtle.digest('SHA-512', new DataView(abc.buffer))).byteLength];")),
        r#"["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","a9993e364706816aba3e25717850c26c9cd0d89d",48,64]"#
    );
    assert_eq!(
        settle(
            &mut runtime,
            "return await crypto.subtle.digest('MD5', new Uint8Array(1));"
        ),
        "rejects NotSupportedError: Unrecognized algorithm name"
    );
    assert_eq!(
        settle(&mut runtime, "return await crypto.subtle.digest('SHA-256', 'text');"),
        "rejects TypeError: Failed to execute 'digest' on 'SubtleCrypto': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'"
    );
    assert_eq!(
        eval(&mut runtime, "return [typeof Crypto, typeof SubtleCrypto, crypto instanceof Crypto, crypto.subtle instanceof SubtleCrypto];"),
        r#"["function","function",true,true]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new Crypto();"),
        "throws TypeError: Illegal constructor"
    );
}
