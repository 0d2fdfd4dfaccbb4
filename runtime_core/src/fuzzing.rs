//! The pure conversions under the op paths, for the fuzz targets in `fuzz/` (feature
//! `fuzzing`; not a stable API). Each is what an op path runs, minus V8.

#![deny(unsafe_code)]

pub use crate::convert::{to_int32, to_uint32, FromJsNumber};
use crate::values::string_buffers::{self, Room};

/// UTF-16 to an owned `String` (`#[string] String` arguments).
pub fn utf16_to_string(units: &[u16]) -> String {
    string_buffers::utf16_to_string(units)
}

/// Latin-1 to an owned `String` (`#[string] String` arguments).
pub fn latin1_to_string(latin1: &[u8]) -> String {
    string_buffers::latin1_to_string(latin1)
}

/// UTF-16 to UTF-8 through a call's string `Room` (stack, or a lent thread-local buffer).
pub fn utf16_to_utf8_buffered(units: &[u16]) -> String {
    Room::new().utf16_to_utf8(units).to_owned()
}

/// Latin-1 to UTF-8 through a call's string `Room`.
pub fn latin1_to_utf8_buffered(latin1: &[u8]) -> String {
    Room::new().latin1_to_utf8(latin1).to_owned()
}

/// The ASCII check that decides whether a one-byte string is borrowed in place.
pub fn is_ascii(bytes: &[u8]) -> bool {
    string_buffers::is_ascii(bytes)
}

/// UTF-16 units narrowed to Latin-1 (`#[string(onebyte)]`), `None` if one is above U+00FF.
pub fn narrow_to_latin1(units: &[u16]) -> Option<Vec<u8>> {
    let mut out = vec![std::mem::MaybeUninit::uninit(); units.len()];
    string_buffers::narrow_to_latin1_in(units, &mut out).map(<[u8]>::to_vec)
}
