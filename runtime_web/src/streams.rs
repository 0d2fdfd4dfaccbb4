//! Streams (`streams.js`): `ReadableStream`, `WritableStream`, `TransformStream`, their
//! readers, writers and controllers, and the queuing strategies, all JavaScript (the spec is
//! promise plumbing); a chunk crosses into Rust only where a host's body reads it. And
//! `TextEncoderStream`/`TextDecoderStream` (`text_streams.js`), over the encoding group's
//! encoder and decoder.

use runtime_core::{Extension, GlobalScript};

/// The streams' globals.
pub(crate) fn extension() -> Extension {
    Extension::new("web_streams").global(
        GlobalScript::new("ext:web/streams.js", include_str!("streams.js"))
            .typescript(include_str!("streams.d.ts")),
    )
}

/// `TextEncoderStream`, `TextDecoderStream` (after the encoding and streams extensions).
pub(crate) fn text_extension() -> Extension {
    Extension::new("web_text_streams").global(
        GlobalScript::new("ext:web/text_streams.js", include_str!("text_streams.js"))
            .typescript(include_str!("text_streams.d.ts")),
    )
}
