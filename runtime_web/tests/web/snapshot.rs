//! A runtime started from a snapshot of one with the web platform: what the install scripts
//! kept (the URL components' memory, the clone errors' maker) is kept again.

use runtime_core::{Runtime, RuntimeOptions, SnapshotBuilder};

use crate::{eval, settle};

fn options() -> RuntimeOptions {
    RuntimeOptions {
        extensions: runtime_web::extensions(runtime_web::Groups::ALL),
        ..Default::default()
    }
}

#[test]
fn the_web_platform_works_in_a_runtime_made_from_a_snapshot() {
    let mut builder = SnapshotBuilder::new(options()).unwrap();
    builder
        .execute_script("<setup>", "globalThis.base = new URL('https://h/a/');")
        .unwrap();
    let blob = builder.build().unwrap();
    let mut runtime = Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..options()
    });
    assert_eq!(
        eval(&mut runtime, "const u = new URL('b?c=1', base); u.searchParams.append('d', '2'); return [u.href, base.pathname, new TextDecoder('utf-16le').decode(Uint8Array.of(0x61, 0)), atob(btoa('x')), crypto.randomUUID().length];"),
        r#"["https://h/a/b?c=1&d=2","/a/","a","x",36]"#
    );
    assert_eq!(
        eval(&mut runtime, "try { structuredClone(() => 1); } catch (e) { return [e instanceof DOMException, e.name]; }"),
        r#"[true,"DataCloneError"]"#
    );
    assert_eq!(
        settle(&mut runtime, "const c = new AbortController(); const t = new EventTarget(); let n = 0; t.addEventListener('x', () => n++, { signal: c.signal }); t.dispatchEvent(new Event('x')); c.abort(); t.dispatchEvent(new Event('x')); return [n, await new Blob(['ok']).text()];"),
        r#"[1,"ok"]"#
    );
}
