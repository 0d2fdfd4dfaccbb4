//! `atob` and `btoa`, by HTML's forgiving-base64.

use crate::{eval, web};

#[test]
fn atob_is_forgiving_and_btoa_takes_latin1() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "return [atob('aGVsbG8='), atob(' aGVs\\nbG8 '), atob('aGVsbG8'), atob(''), btoa('hello'), btoa('\\u00ff\\u00fe'), atob(btoa('\\u0000\\u00ff')).length, atob(null) === atob('null')];"),
        r#"["hello","hello","hello","","aGVsbG8=","//4=",2,true]"#
    );
    for bad in [
        "'a'",
        "'aGVsbG8=='",
        "'a===' ",
        "'\\u0100AAA'",
        "'aGV*bG8='",
    ] {
        assert_eq!(
            eval(&mut runtime, &format!("try {{ atob({bad}); }} catch (e) {{ return [e instanceof DOMException, e.name, e.code]; }}")),
            r#"[true,"InvalidCharacterError",5]"#,
            "atob({bad})"
        );
    }
    assert_eq!(
        eval(
            &mut runtime,
            "try { btoa('☃'); } catch (e) { return [e instanceof DOMException, e.name]; }"
        ),
        r#"[true,"InvalidCharacterError"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return atob();"),
        "throws TypeError: Failed to execute 'atob' on 'Window': 1 argument required, but only 0 present."
    );
}
