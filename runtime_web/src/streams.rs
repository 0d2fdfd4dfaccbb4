//! Streams (`streams.js`): `ReadableStream`, `WritableStream`, `TransformStream`, their
//! readers, writers and controllers, and the queuing strategies, all JavaScript (the spec is
//! promise plumbing); a chunk crosses into Rust only where a host's body reads it.

use runtime_core::{Extension, GlobalScript};

/// The streams' globals.
pub(crate) fn extension() -> Extension {
    Extension::new("web_streams").global(
        GlobalScript::new("ext:web/streams.js", include_str!("streams.js"))
            .typescript(include_str!("streams.d.ts")),
    )
}
