//! The declarations a runtime with the web platform gives tenants: they type-check alone and
//! merge with TypeScript's `lib.dom` and `lib.webworker` (the real compiler, from npm, as
//! runtime_core's tests install it).

use crate::common::{tsc, type_check_with};
use crate::web;

/// Uses every API the crate declares.
const USAGE: &str = include_str!("usage.ts");

#[test]
fn declarations_check_alone_and_beside_dom_and_webworker() {
    let Some(tsc) = tsc() else { return };
    let declarations = web().typescript_declarations();
    for lib in ["es2022", "es2022,dom", "es2022,webworker"] {
        let name = format!("web-{}", lib.replace(',', "-"));
        if let Err(report) = type_check_with(&tsc, &name, &declarations, USAGE, lib) {
            panic!("tsc --lib {lib} failed:\n{report}");
        }
    }
    // A misuse does not check.
    let wrong = format!("{USAGE}\nconst n: number = new URL('a:b').href;\n");
    assert!(type_check_with(&tsc, "web-wrong", &declarations, &wrong, "es2022").is_err());
}
