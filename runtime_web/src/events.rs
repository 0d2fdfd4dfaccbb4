//! The groups that are JavaScript alone: the base every group builds on (`DOMException` and
//! the WebIDL helpers, `webidl.js`), the events (`events.js`) and abort (`abort.js`).

#![deny(unsafe_code)]

use runtime_core::{Extension, GlobalScript};

/// `DOMException`, and what the other groups' scripts share (`internals`).
pub(crate) fn webidl_extension() -> Extension {
    Extension::new("web_webidl").global(
        GlobalScript::new("ext:web/webidl.js", include_str!("webidl.js"))
            .typescript(include_str!("webidl.d.ts")),
    )
}

/// `Event`, `EventTarget`, `CustomEvent`, `ErrorEvent`, `reportError`.
pub(crate) fn events_extension() -> Extension {
    Extension::new("web_events").global(
        GlobalScript::new("ext:web/events.js", include_str!("events.js"))
            .typescript(include_str!("events.d.ts")),
    )
}

/// `AbortController`, `AbortSignal`.
pub(crate) fn abort_extension() -> Extension {
    Extension::new("web_abort").global(
        GlobalScript::new("ext:web/abort.js", include_str!("abort.js"))
            .typescript(include_str!("abort.d.ts")),
    )
}
