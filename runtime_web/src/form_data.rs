//! `FormData` (`form_data.js`): its entries in JavaScript, and a body's `multipart/form-data`
//! and `application/x-www-form-urlencoded` both ways, for `fetch.js`.

use runtime_core::{Extension, GlobalScript};

/// `FormData` (before `Request` and `Response`).
pub(crate) fn extension() -> Extension {
    Extension::new("web_form_data").global(
        GlobalScript::new("ext:web/form_data.js", include_str!("form_data.js"))
            .typescript(include_str!("form_data.d.ts")),
    )
}
