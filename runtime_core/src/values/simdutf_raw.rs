//! simdutf's transcoders writing into uninitialised memory.
//!
//! rusty_v8's wrappers (`v8::simdutf`) take the output as `&mut [u8]`, which must be
//! initialised: a string buffer would have to be zeroed before each use, a second pass over the
//! output (BENCHMARKS.md). simdutf itself only writes to it; these call rusty_v8's own binding
//! with the output as a pointer, and check its room first. Text simdutf refuses (UTF-16 with
//! lone surrogates) goes through the scalar transcoder here, which replaces them.

use std::mem::MaybeUninit;

use crate::v8_raw::{
    simdutf__convert_latin1_to_utf8, simdutf__convert_utf16le_to_utf8_with_errors,
};

/// Latin-1 to UTF-8 into `out`, which must have room for 2 bytes per Latin-1 byte (the worst
/// case; panics otherwise); returns the UTF-8 written.
#[ops_macro::inline_hot]
pub(crate) fn latin1_to_utf8<'o>(latin1: &[u8], out: &'o mut [MaybeUninit<u8>]) -> &'o str {
    assert!(
        out.len() / 2 >= latin1.len(),
        "room for 2 bytes per Latin-1 byte"
    );
    // SAFETY: `out` has room for the worst case (checked above); simdutf reads `latin1` and
    // writes only into `out`.
    let written = unsafe {
        simdutf__convert_latin1_to_utf8(latin1.as_ptr(), latin1.len(), out.as_mut_ptr().cast())
    };
    // SAFETY: simdutf wrote `written` bytes of valid UTF-8 at the start of `out` (every
    // Latin-1 input is valid).
    unsafe { utf8_written(out, written) }
}

/// UTF-16 to UTF-8 into `out`, which must have room for 3 bytes per unit (the worst case;
/// panics otherwise); returns the UTF-8 written. Lone surrogates (invalid UTF-16, which
/// simdutf refuses) become U+FFFD, through the scalar loop.
#[ops_macro::inline_hot]
pub(crate) fn utf16_to_utf8<'o>(units: &[u16], out: &'o mut [MaybeUninit<u8>]) -> &'o str {
    assert!(
        out.len() / 3 >= units.len(),
        "room for 3 bytes per UTF-16 unit"
    );
    // SAFETY: `out` has room for the worst case (checked above); simdutf reads `units` and
    // writes only into `out`.
    let result = unsafe {
        simdutf__convert_utf16le_to_utf8_with_errors(
            units.as_ptr(),
            units.len(),
            out.as_mut_ptr().cast(),
        )
    };
    if result.error != 0 {
        return utf16_to_utf8_in(units, out);
    }
    // SAFETY: without an error, simdutf wrote `count` bytes of valid UTF-8 at the start of
    // `out`.
    unsafe { utf8_written(out, result.count) }
}

/// # Safety
/// The first `written` bytes of `out` must be initialised, and valid UTF-8.
#[ops_macro::inline_hot]
unsafe fn utf8_written(out: &[MaybeUninit<u8>], written: usize) -> &str {
    // SAFETY: the contract makes the first `written` bytes of `out` initialised (so `written` is
    // at most `out.len()`: the slice is in bounds and readable) and valid UTF-8, as each callee
    // needs.
    unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(out.as_ptr().cast(), written))
    }
}

/// UTF-16 (lone surrogates become U+FFFD) to UTF-8 into `out`, which must hold the result
/// (3 bytes per unit always do; too little room panics); returns the UTF-8 written.
pub(crate) fn utf16_to_utf8_in<'b>(units: &[u16], out: &'b mut [MaybeUninit<u8>]) -> &'b str {
    let mut written = 0;
    let mut write = |bytes: &[u8]| {
        for (slot, &byte) in out[written..written + bytes.len()].iter_mut().zip(bytes) {
            slot.write(byte);
        }
        written += bytes.len();
    };
    for decoded in char::decode_utf16(units.iter().copied()) {
        let c = decoded.unwrap_or(char::REPLACEMENT_CHARACTER);
        if c.is_ascii() {
            write(&[c as u8]);
        } else {
            write(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    // SAFETY: the first `written` bytes of `out` were written above, as UTF-8.
    unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(out.as_ptr().cast(), written))
    }
}
