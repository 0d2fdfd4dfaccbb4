//! `performance`, by High Resolution Time.

use crate::{eval, web};

#[test]
fn the_clock_is_monotonic_coarse_and_starts_at_the_time_origin() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "let last = 0, backwards = false, fine = false; for (let i = 0; i < 10000; i++) { const now = performance.now(); if (now < last) backwards = true; if (Math.abs(now * 10 - Math.round(now * 10)) > 1e-6) fine = true; last = now; } const origin = performance.timeOrigin; return [backwards, fine, last >= 0, Math.abs(origin + last - Date.now()) < 60000, performance.toJSON().timeOrigin === origin];"),
        "[false,false,true,true,true]"
    );
    assert_eq!(
        eval(&mut runtime, "return [performance instanceof Performance, performance instanceof EventTarget, typeof performance.addEventListener];"),
        r#"[true,true,"function"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new Performance();"),
        "throws TypeError: Illegal constructor"
    );
}
