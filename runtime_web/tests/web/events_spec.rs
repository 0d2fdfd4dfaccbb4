//! `Event`, `EventTarget`, `CustomEvent`, `ErrorEvent`, `DOMException`, `reportError`, by the
//! DOM standard and WebIDL.

use crate::{eval, web};

#[test]
fn listeners_run_in_order_with_once_passive_and_handle_event() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); const seen = []; \
            t.addEventListener('x', (e) => seen.push(['fn', e.type, e.target === t, e.currentTarget === t, e.eventPhase])); \
            t.addEventListener('x', { handleEvent(e) { seen.push(['object', this !== t]); } }); \
            t.addEventListener('x', () => seen.push('once'), { once: true }); \
            t.addEventListener('x', (e) => { e.preventDefault(); seen.push(['passive', e.defaultPrevented]); }, { passive: true }); \
            const first = t.dispatchEvent(new Event('x', { cancelable: true })); t.dispatchEvent(new Event('x')); \
            return [first, seen];"),
        r#"[true,[["fn","x",true,true,2],["object",true],"once",["passive",false],["fn","x",true,true,2],["object",true],["passive",false]]]"#
    );
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); const f = () => {}; t.addEventListener('x', f); t.addEventListener('x', f); let n = 0; t.addEventListener('y', () => n++); t.addEventListener('y', () => n++, true); t.dispatchEvent(new Event('y')); return n;"),
        "2"
    );
}

#[test]
fn cancelation_propagation_and_the_event_state() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); const seen = []; \
            t.addEventListener('x', (e) => { e.preventDefault(); e.stopImmediatePropagation(); seen.push(e.defaultPrevented, e.cancelBubble, e.returnValue); }); \
            t.addEventListener('x', () => seen.push('never')); \
            const e = new Event('x', { cancelable: true, bubbles: true }); \
            return [t.dispatchEvent(e), seen, e.eventPhase, e.currentTarget, e.target === t, e.isTrusted, typeof e.timeStamp];"),
        r#"[false,[true,true,false],0,null,true,false,"number"]"#
    );
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); let inner; t.addEventListener('x', (e) => { try { t.dispatchEvent(e); } catch (error) { inner = [error.name, error.code]; } }); t.dispatchEvent(new Event('x')); return inner;"),
        r#"["InvalidStateError",11]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new Event();"),
        "throws TypeError: Failed to construct 'Event': 1 argument required, but only 0 present."
    );
}

#[test]
fn custom_and_error_events_carry_their_data() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const c = new CustomEvent('c', { detail: { n: 1 } }); const e = new ErrorEvent('error', { message: 'm', filename: 'f.js', lineno: 3, colno: 4, error: 42 }); return [c.detail, c instanceof Event, e.message, e.filename, e.lineno, e.colno, e.error, new ErrorEvent('e').message];"),
        r#"[{"n":1},true,"m","f.js",3,4,42,""]"#
    );
}

#[test]
fn dom_exception_has_names_codes_and_is_an_error() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const e = new DOMException('gone', 'NotFoundError'); return [e.name, e.message, e.code, e instanceof Error, DOMException.NOT_FOUND_ERR, e.NOT_FOUND_ERR, new DOMException().name, new DOMException('x', 'Custom').code, typeof e.stack, Object.prototype.toString.call(e)];"),
        r#"["NotFoundError","gone",8,true,8,8,"Error",0,"string","[object DOMException]"]"#
    );
}

#[test]
fn listeners_dispatching_and_removing_during_a_dispatch() {
    let mut runtime = web();
    // A listener that removes a later one: it is not called; one added during dispatch waits
    // for the next dispatch; a listener that dispatches on its own target nests.
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); const seen = []; const later = () => seen.push('later'); \
            t.addEventListener('x', () => { seen.push('first'); t.removeEventListener('x', later); t.addEventListener('x', () => seen.push('added')); }); \
            t.addEventListener('x', later); \
            t.addEventListener('y', (e) => { seen.push('y' + e.detail); if (e.detail < 3) t.dispatchEvent(new CustomEvent('y', { detail: e.detail + 1 })); }); \
            t.dispatchEvent(new Event('x')); t.dispatchEvent(new CustomEvent('y', { detail: 1 })); return seen;"),
        r#"["first","y1","y2","y3"]"#
    );
    // A listener that throws is reported; the others still run.
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); const seen = []; let reported; addEventListener('error', (e) => { reported = [e.constructor.name, e.error.message]; e.preventDefault(); }); t.addEventListener('x', () => { throw new Error('boom'); }); t.addEventListener('x', () => seen.push('after')); t.dispatchEvent(new Event('x')); return [seen, reported];"),
        r#"[["after"],["ErrorEvent","boom"]]"#
    );
}

#[test]
fn report_error_reaches_the_global_listeners() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "let got; const listener = (e) => { got = [e instanceof ErrorEvent, e.error, e.message]; e.preventDefault(); }; addEventListener('error', listener); reportError('oops'); removeEventListener('error', listener); return got;"),
        r#"[true,"oops","Uncaught oops"]"#
    );
}
