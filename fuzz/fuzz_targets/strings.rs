//! String transcoding against `std`: the input is read as UTF-16 units (lone surrogates
//! included) and as Latin-1 bytes, and every path an op argument can take must agree with
//! what `std` makes of the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime_core::fuzzing;

fuzz_target!(|data: &[u8]| {
    // Latin-1: every byte is the character of the same number.
    let expected: String = data.iter().map(|&byte| char::from(byte)).collect();
    assert_eq!(fuzzing::is_ascii(data), data.is_ascii());
    assert_eq!(fuzzing::latin1_to_string(data), expected);
    assert_eq!(fuzzing::latin1_to_utf8_buffered(data), expected);

    // UTF-16: pairs of bytes, little-endian; lone surrogates become U+FFFD.
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    let expected = String::from_utf16_lossy(&units);
    let owned = fuzzing::utf16_to_string(&units);
    assert_eq!(owned, expected);
    assert_eq!(
        owned.capacity(),
        owned.len(),
        "one allocation of the exact length"
    );
    assert_eq!(fuzzing::utf16_to_utf8_buffered(&units), expected);
    let narrowed = fuzzing::narrow_to_latin1(&units);
    let latin1: Option<Vec<u8>> = units.iter().map(|&unit| u8::try_from(unit).ok()).collect();
    assert_eq!(narrowed, latin1);
});
