//! `Request` and `Response` with their bodies (`fetch.js`): JavaScript over the headers,
//! streams, blob and URL groups' internals; a body read from what it was made of, with no
//! stream unless a script asks for one.

use runtime_core::{Extension, GlobalScript};

/// `Request`, `Response`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_fetch").global(
        GlobalScript::new("ext:web/fetch.js", include_str!("fetch.js"))
            .typescript(include_str!("fetch.d.ts")),
    )
}
