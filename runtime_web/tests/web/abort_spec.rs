//! `AbortController` and `AbortSignal`, by the DOM standard.

use crate::{eval, settle, web};

#[test]
fn abort_sets_the_reason_once_and_fires_once() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const c = new AbortController(); const s = c.signal; const seen = []; s.onabort = (e) => seen.push(['on', e.type, e.isTrusted]); s.addEventListener('abort', () => seen.push('listener')); \
            const before = [s.aborted, s.reason]; c.abort('why'); c.abort('again'); \
            let thrown; try { s.throwIfAborted(); } catch (e) { thrown = e; } return [before, s.aborted, s.reason, thrown, seen, c.signal === s];"),
        r#"[[false,null],true,"why","why",[["on","abort",true],"listener"],true]"#
    );
    assert_eq!(
        eval(&mut runtime, "const c = new AbortController(); c.abort(); return [c.signal.reason instanceof DOMException, c.signal.reason.name, c.signal.reason.code];"),
        r#"[true,"AbortError",20]"#
    );
    assert_eq!(
        eval(
            &mut runtime,
            "const s = AbortSignal.abort(); return [s.aborted, s.reason.name];"
        ),
        r#"[true,"AbortError"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new AbortSignal();"),
        "throws TypeError: Illegal constructor"
    );
}

#[test]
fn any_follows_its_sources_and_flattens_dependents() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const a = new AbortController(), b = new AbortController(); const any = AbortSignal.any([a.signal, b.signal]); const nested = AbortSignal.any([any]); const seen = []; nested.onabort = () => seen.push(nested.reason); b.abort('b'); a.abort('a'); return [any.aborted, any.reason, nested.reason, seen, AbortSignal.any([AbortSignal.abort('done')]).reason, AbortSignal.any([]).aborted];"),
        r#"[true,"b","b",["b"],"done",false]"#
    );
}

#[test]
fn timeout_aborts_with_a_timeout_error_on_the_runtimes_timers() {
    let mut runtime = web();
    assert_eq!(
        settle(&mut runtime, "const s = AbortSignal.timeout(5); const keepAlive = setTimeout(() => {}, 50); const reason = await new Promise((resolve) => s.onabort = () => resolve(s.reason)); clearTimeout(keepAlive); return [reason.name, reason.code, s.aborted];"),
        r#"["TimeoutError",23,true]"#
    );
    // A pending timeout keeps nothing alive: the loop ends before it fires.
    assert_eq!(
        settle(
            &mut runtime,
            "globalThis.late = AbortSignal.timeout(60000); return 'done';"
        ),
        r#""done""#
    );
}
