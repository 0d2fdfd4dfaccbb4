//! `Headers` (`headers.js`): the Fetch standard's header list, all JavaScript (the checks are
//! a regular expression each, the list a flat array). One op: whether a record given to the
//! constructor is a proxy, whose traps must run in the standard's order.

use runtime_core::{op, v8, Extension, GlobalScript};

/// Whether `value` is a `Proxy`: an ordinary object's keys are read in one step, a proxy's
/// one trap at a time as WebIDL's record conversion says (the order is observable).
#[op(fast)]
fn op_web_is_proxy(value: v8::Local<'_, v8::Value>) -> bool {
    value.is_proxy()
}

/// `Headers`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_headers")
        .internal_ops(&[op_web_is_proxy::DECL])
        .global(
            GlobalScript::new("ext:web/headers.js", include_str!("headers.js"))
                .typescript(include_str!("headers.d.ts")),
        )
}
