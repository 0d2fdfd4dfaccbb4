//! `Blob` and `File`, by the File API.

use crate::{eval, settle, web};

#[test]
fn blobs_join_parts_and_slice_without_copying_what_they_share() {
    let mut runtime = web();
    assert_eq!(
        settle(&mut runtime, "const inner = new Blob(['xy']); const b = new Blob(['ab', new Uint8Array([0x63]), inner, new Uint16Array([0x6564]).buffer, 'é'], { type: 'Text/Plain' }); \
            const s = b.slice(1, -2, 'x/y'); \
            return [b.size, b.type, await b.text(), s.size, s.type, await s.text(), [...await b.slice(-2).bytes()], (await b.arrayBuffer()).byteLength, await b.slice(2, 1).text(), new Blob(['a'], { type: 'bad\\u0001' }).type];"),
        r#"[9,"text/plain","abcxyde\u00e9",6,"x/y","bcxyde",[195,169],9,"",""]"#
            .replace("\\u00e9", "é")
    );
    // Parts are copied when the blob is made: later writes do not show.
    assert_eq!(
        settle(&mut runtime, "const bytes = new Uint8Array([0x61]); const b = new Blob([bytes]); bytes[0] = 0x7a; return await b.text();"),
        r#""a""#
    );
}

#[test]
fn files_have_names_and_dates() {
    let mut runtime = web();
    assert_eq!(
        settle(&mut runtime, "const f = new File(['hi'], 'a/b.txt', { type: 'text/plain', lastModified: 42 }); const now = new File([], 'n'); return [f.name, f.lastModified, f.size, f.type, f instanceof Blob, await f.text(), Math.abs(now.lastModified - Date.now()) < 60000, f.webkitRelativePath, Object.prototype.toString.call(f)];"),
        r#"["a/b.txt",42,2,"text/plain",true,"hi",true,"","[object File]"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new File(['x']);"),
        "throws TypeError: Failed to construct 'File': 2 arguments required, but only 1 present."
    );
}
