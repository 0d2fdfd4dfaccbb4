//! `atob` and `btoa` (`base64.js`): forgiving-base64 with simdutf (V8's own), read in place
//! from V8's one-byte strings.

use runtime_core::v8;
use runtime_core::v8::simdutf;
use runtime_core::{op, Extension, GlobalScript, OpError};

/// What `f` makes of the Latin-1 bytes of `string`, read in place; `None` if it has a
/// character past U+00FF.
fn with_latin1<R>(
    scope: &mut v8::PinScope<'_, '_>,
    string: v8::Local<'_, v8::String>,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    let view = v8::ValueView::new(scope, string);
    match view.data() {
        v8::ValueViewData::OneByte(bytes) => Some(f(bytes)),
        // A two-byte string may still hold Latin-1 only.
        v8::ValueViewData::TwoByte(units) => {
            let bytes: Option<Vec<u8>> =
                units.iter().map(|&unit| u8::try_from(unit).ok()).collect();
            bytes.map(|bytes| f(&bytes))
        }
    }
}

fn one_byte_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: &[u8],
) -> Result<v8::Local<'s, v8::String>, OpError> {
    v8::String::new_from_one_byte(scope, bytes, v8::NewStringType::Normal)
        .ok_or_else(|| OpError::range_error("the result is longer than a string can be"))
}

/// `atob`: the bytes `data` encodes, as a string of one byte a character; `None` (the script
/// throws `InvalidCharacterError`) when `data` is not forgiving-base64 (simdutf's decoder
/// follows the WHATWG algorithm: ASCII whitespace skipped, padding optional).
#[op]
fn op_web_atob<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    data: v8::Local<'_, v8::String>,
) -> Result<Option<v8::Local<'s, v8::String>>, OpError> {
    let decoded = with_latin1(scope, data, |text| {
        let mut out = vec![0; simdutf::maximal_binary_length_from_base64(text)];
        // SAFETY: `out` has the room simdutf asks for.
        let result = unsafe {
            simdutf::base64_to_binary(
                text,
                &mut out,
                simdutf::Base64Options::Default,
                simdutf::LastChunkHandling::Loose,
            )
        };
        (result.error == simdutf::ErrorCode::Success).then(|| {
            out.truncate(result.count);
            out
        })
    });
    match decoded.flatten() {
        Some(bytes) => one_byte_string(scope, &bytes).map(Some),
        None => Ok(None),
    }
}

/// `btoa`: the base64 of a string's characters as bytes; `None` (the script throws
/// `InvalidCharacterError`) if one is past U+00FF.
#[op]
fn op_web_btoa<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    data: v8::Local<'_, v8::String>,
) -> Result<Option<v8::Local<'s, v8::String>>, OpError> {
    let encoded = with_latin1(scope, data, |bytes| {
        let options = simdutf::Base64Options::Default;
        let mut out = vec![0; simdutf::base64_length_from_binary(bytes.len(), options)];
        // SAFETY: `out` has the room simdutf asks for.
        let written = unsafe { simdutf::binary_to_base64(bytes, &mut out, options) };
        out.truncate(written);
        out
    });
    match encoded {
        Some(text) => one_byte_string(scope, &text).map(Some),
        None => Ok(None),
    }
}

/// `atob`, `btoa`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_base64")
        .internal_ops(&[op_web_atob::DECL, op_web_btoa::DECL])
        .global(
            GlobalScript::new("ext:web/base64.js", include_str!("base64.js"))
                .typescript(include_str!("base64.d.ts")),
        )
}
