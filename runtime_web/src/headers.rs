//! `Headers` (`headers.js`): the Fetch standard's header list, all JavaScript (the checks are
//! a regular expression each, the list a flat array): nothing crosses into Rust.

use runtime_core::{Extension, GlobalScript};

/// `Headers`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_headers").global(
        GlobalScript::new("ext:web/headers.js", include_str!("headers.js"))
            .typescript(include_str!("headers.d.ts")),
    )
}
