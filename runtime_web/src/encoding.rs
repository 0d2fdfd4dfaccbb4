//! `TextEncoder` and `TextDecoder` (`encoding.js`): UTF-8 both ways straight between V8's
//! strings and the tenant's buffers; every other encoding of the WHATWG Encoding standard,
//! and UTF-8 decoded chunk by chunk, through `encoding_rs` decoders kept per `TextDecoder`.

use std::cell::RefCell;
use std::collections::HashMap;

use runtime_core::v8;

use crate::buffer_source::{bytes_of, bytes_of_mut};
use runtime_core::{op, Extension, GlobalScript, OpError, OpState};

/// `string`'s UTF-8, lone surrogates as U+FFFD, in a buffer of its exact length: read in
/// place and transcoded with simdutf (V8's own), one pass to size and one to write.
pub(crate) fn utf8_of(
    scope: &mut v8::PinScope<'_, '_>,
    string: v8::Local<'_, v8::String>,
) -> Vec<u8> {
    use v8::simdutf;
    let view = v8::ValueView::new(scope, string);
    match view.data() {
        v8::ValueViewData::OneByte(bytes) => {
            let length = simdutf::utf8_length_from_latin1(bytes);
            if length == bytes.len() {
                return bytes.to_vec();
            }
            let mut out = Vec::with_capacity(length);
            // SAFETY: `out` has room for the `length` bytes simdutf counted for `bytes`.
            unsafe {
                let written = simdutf::convert_latin1_to_utf8(
                    bytes,
                    std::slice::from_raw_parts_mut(out.as_mut_ptr(), length),
                );
                out.set_len(written);
            }
            out
        }
        v8::ValueViewData::TwoByte(units) => {
            // The length counts a lone surrogate as three bytes: U+FFFD's, what it becomes.
            let length = simdutf::utf8_length_from_utf16le(units);
            let mut out = Vec::with_capacity(length);
            // SAFETY: `out` has room for the `length` bytes simdutf counted for `units`; on an
            // error it wrote fewer, and `out` stays empty.
            let converted = unsafe {
                simdutf::convert_utf16le_to_utf8_with_errors(
                    units,
                    std::slice::from_raw_parts_mut(out.as_mut_ptr(), length),
                )
            };
            if converted.is_ok() {
                // SAFETY: simdutf wrote `converted.count` bytes.
                unsafe { out.set_len(converted.count) };
                return out;
            }
            // Lone surrogates (rare): one at a time, each as U+FFFD.
            for decoded in char::decode_utf16(units.iter().copied()) {
                let ch = decoded.unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buffer = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
            }
            out
        }
    }
}

/// A V8 string of UTF-8 `bytes` (invalid sequences as U+FFFD), or a `RangeError` past V8's
/// longest string. (V8's own decoder beat simdutf's transcoding plus a copy, measured.)
pub(crate) fn string_of_utf8<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: &[u8],
) -> Result<v8::Local<'s, v8::String>, OpError> {
    let made = if is_ascii(bytes) {
        v8::String::new_from_one_byte(scope, bytes, v8::NewStringType::Normal)
    } else {
        v8::String::new_from_utf8(scope, bytes, v8::NewStringType::Normal)
    };
    made.ok_or_else(too_long)
}

/// Whether `bytes` are ASCII: std's word-at-a-time loop for short input, simdutf's vectors
/// beyond (where its call pays for itself).
fn is_ascii(bytes: &[u8]) -> bool {
    const SIMD_FROM: usize = 128;
    if bytes.len() < SIMD_FROM {
        bytes.is_ascii()
    } else {
        v8::simdutf::validate_ascii(bytes)
    }
}

fn too_long() -> OpError {
    OpError::range_error("the decoded text is longer than a string can be")
}

fn invalid(encoding: &str) -> OpError {
    OpError::type_error(format!(
        "The encoded data was not valid for encoding {encoding}"
    ))
}

/// `TextEncoder.prototype.encode`.
#[op]
fn op_web_encode(scope: &mut v8::PinScope<'_, '_>, string: v8::Local<'_, v8::String>) -> Vec<u8> {
    utf8_of(scope, string)
}

/// `TextEncoder.prototype.encodeInto`: writes what fits of `string`'s UTF-8 (whole code
/// points, lone surrogates as U+FFFD) into `dest`; `out` (two numbers) gets the UTF-16 units
/// read and the bytes written.
#[op]
fn op_web_encode_into(
    scope: &mut v8::PinScope<'_, '_>,
    string: v8::Local<'_, v8::String>,
    dest: v8::Local<'_, v8::Uint8Array>,
    out: v8::Local<'_, v8::Uint32Array>,
) {
    // SAFETY: transcoding runs no JavaScript; the script made `out`, apart from `dest`.
    let dest = unsafe { bytes_of_mut(dest.into()) };
    let view = v8::ValueView::new(scope, string);
    let (read, written) = match view.data() {
        v8::ValueViewData::OneByte(bytes) => latin1_into(bytes, dest),
        v8::ValueViewData::TwoByte(units) => utf16_into(units, dest),
    };
    drop(view);
    // SAFETY: as above.
    let out = unsafe { bytes_of_mut(out.into()) };
    if out.len() >= 8 {
        out[..4].copy_from_slice(&(read as u32).to_ne_bytes());
        out[4..8].copy_from_slice(&(written as u32).to_ne_bytes());
    }
}

/// `encodeInto` of a one-byte string: all of it with simdutf when it fits (the common case),
/// else what fits, whole characters only. Returns the characters read and bytes written.
fn latin1_into(bytes: &[u8], dest: &mut [u8]) -> (usize, usize) {
    use v8::simdutf;
    let length = simdutf::utf8_length_from_latin1(bytes);
    if length > dest.len() {
        return encoding_rs::mem::convert_latin1_to_utf8_partial(bytes, dest);
    }
    if length == bytes.len() {
        dest[..length].copy_from_slice(bytes);
        return (length, length);
    }
    // SAFETY: `dest` has room for the `length` bytes simdutf counted.
    let written = unsafe { simdutf::convert_latin1_to_utf8(bytes, dest) };
    (bytes.len(), written)
}

/// `encodeInto` of a two-byte string, as [`latin1_into`] (lone surrogates as U+FFFD).
fn utf16_into(units: &[u16], dest: &mut [u8]) -> (usize, usize) {
    use v8::simdutf;
    // A lone surrogate counts three bytes, as the U+FFFD it becomes.
    if simdutf::utf8_length_from_utf16le(units) <= dest.len() {
        // SAFETY: `dest` has room for all of `units`' UTF-8.
        let converted = unsafe { simdutf::convert_utf16le_to_utf8_with_errors(units, dest) };
        if converted.is_ok() {
            return (units.len(), converted.count);
        }
    }
    encoding_rs::mem::convert_utf16_to_utf8_partial(units, dest)
}

/// `TextDecoder.prototype.decode` of UTF-8 in one piece (no `stream`): straight from the
/// bytes into a V8 string.
#[op]
fn op_web_decode_utf8<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    input: v8::Local<'s, v8::Value>,
    ignore_bom: bool,
    fatal: bool,
) -> Result<v8::Local<'s, v8::String>, OpError> {
    // SAFETY: decoding runs no JavaScript.
    let bytes = unsafe { bytes_of(input) };
    let bytes = match bytes {
        [0xef, 0xbb, 0xbf, rest @ ..] if !ignore_bom => rest,
        _ => bytes,
    };
    if fatal && !v8::simdutf::validate_utf8(bytes) {
        return Err(invalid("utf-8"));
    }
    string_of_utf8(scope, bytes)
}

/// The name (lowercase, as `TextDecoder.prototype.encoding` gives it) of the encoding a label
/// names, or `""` when it names none or names the replacement encoding (which `TextDecoder`
/// refuses).
#[op]
fn op_web_encoding_name(#[string] label: &str) -> String {
    match encoding_rs::Encoding::for_label(label.as_bytes()) {
        Some(encoding) if encoding != encoding_rs::REPLACEMENT => {
            encoding.name().to_ascii_lowercase()
        }
        _ => String::new(),
    }
}

/// The decoders of `TextDecoder`s that keep state between calls, by id.
#[derive(Default)]
struct Decoders {
    next: RefCell<u32>,
    open: RefCell<HashMap<u32, encoding_rs::Decoder>>,
}

/// A decoder for `encoding` (a name `op_web_encoding_name` gave): its id.
#[op]
fn op_web_decoder_new(state: &OpState, #[string] encoding: &str, ignore_bom: bool) -> u32 {
    let encoding =
        encoding_rs::Encoding::for_label(encoding.as_bytes()).unwrap_or(encoding_rs::UTF_8);
    let decoder = if ignore_bom {
        encoding.new_decoder_without_bom_handling()
    } else {
        encoding.new_decoder_with_bom_removal()
    };
    let decoders = state.borrow::<Decoders>();
    let mut next = decoders.next.borrow_mut();
    *next = next.wrapping_add(1);
    decoders.open.borrow_mut().insert(*next, decoder);
    *next
}

/// Decodes `bytes` with decoder `id`; `last` ends the stream (what is left of an incomplete
/// sequence is then an error, or U+FFFD).
#[op]
fn op_web_decoder_decode<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &OpState,
    id: u32,
    input: v8::Local<'s, v8::Value>,
    last: bool,
    fatal: bool,
) -> Result<v8::Local<'s, v8::String>, OpError> {
    // SAFETY: decoding runs no JavaScript.
    let bytes = unsafe { bytes_of(input) };
    let decoders = state.borrow::<Decoders>();
    let mut open = decoders.open.borrow_mut();
    let decoder = open
        .get_mut(&id)
        .ok_or_else(|| OpError::type_error("the decoder is closed"))?;
    let capacity = decoder
        .max_utf8_buffer_length(bytes.len())
        .ok_or_else(too_long)?;
    let mut text = String::with_capacity(capacity);
    let name = decoder.encoding().name();
    if fatal {
        let (result, _) = decoder.decode_to_string_without_replacement(bytes, &mut text, last);
        if let encoding_rs::DecoderResult::Malformed(..) = result {
            // The decoder is done: the next call starts afresh, as the spec's reset says.
            open.remove(&id);
            return Err(invalid(&name.to_ascii_lowercase()));
        }
    } else {
        // The capacity holds all of it: the result is always `InputEmpty`.
        let _ = decoder.decode_to_string(bytes, &mut text, last);
    }
    drop(open);
    v8::String::new_from_utf8(scope, text.as_bytes(), v8::NewStringType::Normal)
        .ok_or_else(too_long)
}

/// Forgets decoder `id` (a stream ended, or its `TextDecoder` was collected).
#[op(fast)]
fn op_web_decoder_free(state: &OpState, id: u32) {
    state.borrow::<Decoders>().open.borrow_mut().remove(&id);
}

/// `TextEncoder`, `TextDecoder`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_encoding")
        .internal_ops(&[
            op_web_encode::DECL,
            op_web_encode_into::DECL,
            op_web_decode_utf8::DECL,
            op_web_encoding_name::DECL,
            op_web_decoder_new::DECL,
            op_web_decoder_decode::DECL,
            op_web_decoder_free::DECL,
        ])
        .global(
            GlobalScript::new("ext:web/encoding.js", include_str!("encoding.js"))
                .typescript(include_str!("encoding.d.ts")),
        )
        .state(|state| {
            state.put(Decoders::default());
        })
}
