//! `TextEncoder` and `TextDecoder`, by the Encoding standard.

use crate::{eval, web};

#[test]
fn text_encoder_writes_utf8_and_replaces_lone_surrogates() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const e = new TextEncoder(); return [e.encoding, [...e.encode('aé€😀')], [...e.encode('\\ud800x')], e.encode().length, e.encode(undefined).length, Object.getPrototypeOf(e.encode('a')) === Uint8Array.prototype];"),
        r#"["utf-8",[97,195,169,226,130,172,240,159,152,128],[239,191,189,120],0,0,true]"#
    );
    // Two-byte strings and Latin-1 ones take other paths in Rust: the same bytes.
    assert_eq!(
        eval(&mut runtime, "const e = new TextEncoder(); return [[...e.encode('\\u00ff\\u00e9')], [...e.encode('\\u00ff\\u0100')]];"),
        r#"[[195,191,195,169],[195,191,196,128]]"#
    );
}

/// A short ASCII string is copied by the script, anything else by the op: the same bytes
/// either way, each result its own array, at every length around the limit.
#[test]
fn encode_gives_the_same_bytes_on_every_path() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const e = new TextEncoder(); const out = []; \
             for (const length of [1, 63, 64, 65]) { \
               for (const last of ['a', '\\u00ff', '\\u20ac', '\\ud800']) { \
                 const bytes = e.encode('x'.repeat(length - 1) + last); \
                 out.push(bytes.length + ':' + bytes.slice(length - 1).join('.')); } } \
             const one = e.encode('same'); const two = e.encode('same'); one[0] = 0; \
             out.push(two[0], one.buffer === two.buffer, one.buffer.byteLength); \
             return out;"
        ),
        r#"["1:97","2:195.191","3:226.130.172","3:239.191.189","63:97","64:195.191","65:226.130.172","65:239.191.189","64:97","65:195.191","66:226.130.172","66:239.191.189","65:97","66:195.191","67:226.130.172","67:239.191.189",115,false,4]"#
    );
}

#[test]
fn encode_into_writes_whole_code_points_only() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const e = new TextEncoder(); const d = new Uint8Array(5); const r = e.encodeInto('a€😀', d); return [r.read, r.written, [...d]];"),
        r#"[2,4,[97,226,130,172,0]]"#
    );
    assert_eq!(
        eval(&mut runtime, "const e = new TextEncoder(); const d = new Uint8Array(8); const r = e.encodeInto('😀😀', d.subarray(2)); return [r.read, r.written, [...d]];"),
        r#"[2,4,[0,0,240,159,152,128,0,0]]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new TextEncoder().encodeInto('a', new Uint16Array(2));"),
        "throws TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'."
    );
}

#[test]
fn text_decoder_handles_boms_fatal_and_replacement() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const d = new TextDecoder(); return [d.encoding, d.fatal, d.ignoreBOM, d.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])).length, d.decode(new Uint8Array([0x61, 0xff, 0x62])), d.decode(new Uint8Array([0xe2, 0x82])), d.decode(), d.decode(new Uint8Array([0x68, 0x69]).buffer), d.decode(new DataView(new Uint8Array([0x68]).buffer))];"),
        r#"["utf-8",false,false,"a",2,"a�b","�","","hi","h"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0x61, 0xff]));"),
        "throws TypeError: The encoded data was not valid for encoding utf-8"
    );
    assert_eq!(
        eval(&mut runtime, "return new TextDecoder().decode('not a buffer');"),
        "throws TypeError: Failed to execute 'decode' on 'TextDecoder': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'"
    );
}

#[test]
fn a_stream_keeps_code_points_split_across_chunks() {
    let mut runtime = web();
    // "😀€" split in every chunk, then the stream ends in the middle of a sequence.
    assert_eq!(
        eval(&mut runtime, "const d = new TextDecoder(); const bytes = [0xf0, 0x9f, 0x98, 0x80, 0xe2, 0x82, 0xac]; let out = ''; for (const b of bytes) out += d.decode(new Uint8Array([b]), { stream: true }); out += d.decode(new Uint8Array([0xe2]), { stream: true }); out += d.decode(); return [out, d.decode(new Uint8Array([0x61]))];"),
        r#"["😀€�","a"]"#
    );
    // A fatal stream that fails starts afresh on the next call.
    assert_eq!(
        eval(&mut runtime, "const d = new TextDecoder('utf-8', { fatal: true }); d.decode(new Uint8Array([0xe2]), { stream: true }); let threw; try { d.decode(new Uint8Array([0x41])); } catch (e) { threw = e.name; } return [threw, d.decode(new Uint8Array([0x42]))];"),
        r#"["TypeError","B"]"#
    );
    // A BOM split across chunks is still dropped once.
    assert_eq!(
        eval(&mut runtime, "const d = new TextDecoder(); return d.decode(new Uint8Array([0xef, 0xbb]), { stream: true }) + d.decode(new Uint8Array([0xbf, 0xef, 0xbb, 0xbf]));"),
        "\"\u{feff}\""
    );
}

#[test]
fn every_label_names_its_encoding() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "return [' UTF8 ', 'latin1', 'unicode-1-1-utf-8', 'utf-16', 'UTF-16BE', 'sjis', 'gb2312', 'x-user-defined'].map((l) => new TextDecoder(l).encoding);"),
        r#"["utf-8","windows-1252","utf-8","utf-16le","utf-16be","shift_jis","gbk","x-user-defined"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return [new TextDecoder('utf-16le').decode(new Uint8Array([0x61, 0, 0x3d, 0xd8, 0, 0xde])), new TextDecoder('utf-16be').decode(new Uint8Array([0, 0x61])), new TextDecoder('windows-1252').decode(new Uint8Array([0x80, 0xe9])), new TextDecoder('shift_jis').decode(new Uint8Array([0x82, 0xa0]))];"),
        r#"["a😀","a","€é","あ"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new TextDecoder('replacement');"),
        "throws RangeError: Failed to construct 'TextDecoder': The encoding label provided ('replacement') is invalid."
    );
    assert_eq!(
        eval(&mut runtime, "return new TextDecoder('klingon');"),
        "throws RangeError: Failed to construct 'TextDecoder': The encoding label provided ('klingon') is invalid."
    );
}
