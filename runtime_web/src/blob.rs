//! `Blob` and `File` (`blob.js`): immutable byte parts in JavaScript, with UTF-8 both ways in
//! Rust (a string part's bytes, `text()`).

use runtime_core::v8;
use runtime_core::{op, Extension, GlobalScript, OpError};

/// A string part's bytes: its UTF-8, lone surrogates as U+FFFD.
#[op]
fn op_web_utf8_encode(
    scope: &mut v8::PinScope<'_, '_>,
    text: v8::Local<'_, v8::String>,
) -> Vec<u8> {
    crate::encoding::utf8_of(scope, text)
}

/// `text()`: UTF-8 with replacement, a leading BOM dropped.
#[op]
fn op_web_utf8_decode<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: v8::Local<'s, v8::Value>,
) -> Result<v8::Local<'s, v8::String>, OpError> {
    // SAFETY: decoding runs no JavaScript.
    let bytes = unsafe { crate::buffer_source::bytes_of(bytes) };
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    crate::encoding::string_of_utf8(scope, bytes)
}

/// `Blob`, `File`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_blob")
        .internal_ops(&[op_web_utf8_encode::DECL, op_web_utf8_decode::DECL])
        .global(
            GlobalScript::new("ext:web/blob.js", include_str!("blob.js"))
                .typescript(include_str!("blob.d.ts")),
        )
}

/// `Blob.prototype.stream()` (after the streams extension).
pub(crate) fn stream_extension() -> Extension {
    Extension::new("web_blob_stream").global(
        GlobalScript::new("ext:web/blob_stream.js", include_str!("blob_stream.js"))
            .typescript(include_str!("blob_stream.d.ts")),
    )
}
