//! Streams (`streams.js`): `ReadableStream`, `WritableStream`, `TransformStream`, their
//! readers, writers and controllers, and the queuing strategies; byte streams and BYOB readers
//! (`byte_streams.js`); all JavaScript (the spec is promise plumbing); a chunk crosses into
//! Rust only where a host's body reads it. And
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

/// Byte streams: `ReadableByteStreamController`, `ReadableStreamBYOBReader`,
/// `ReadableStreamBYOBRequest` (right after the streams extension, whose `ReadableStream`
/// calls them for `type: "bytes"`).
pub(crate) fn byte_extension() -> Extension {
    Extension::new("web_byte_streams").global(
        GlobalScript::new("ext:web/byte_streams.js", include_str!("byte_streams.js"))
            .typescript(include_str!("byte_streams.d.ts")),
    )
}

/// `TextEncoderStream`, `TextDecoderStream` (after the encoding and streams extensions).
pub(crate) fn text_extension() -> Extension {
    Extension::new("web_text_streams").global(
        GlobalScript::new("ext:web/text_streams.js", include_str!("text_streams.js"))
            .typescript(include_str!("text_streams.d.ts")),
    )
}
