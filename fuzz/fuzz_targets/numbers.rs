//! Number conversions against the ECMAScript rules, computed here a second way: from the
//! double's bits (sign, exponent, mantissa), with exact integer arithmetic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime_core::fuzzing::{to_int32, to_uint32, FromJsNumber};

/// ECMAScript `ToUint32` from the bits: truncate toward zero, then modulo 2^32.
fn reference_to_uint32(value: f64) -> u32 {
    if !value.is_finite() {
        return 0;
    }
    let bits = value.to_bits();
    let negative = bits >> 63 == 1;
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if exponent == 0 {
        return 0; // zero or subnormal: |value| < 1
    }
    let mantissa = u128::from(fraction | (1 << 52)); // value = mantissa * 2^(exponent - 1075)
    let shift = exponent - 1075;
    let magnitude_mod_2_32: u128 = if shift >= 32 {
        0 // a multiple of 2^32
    } else if shift >= 0 {
        (mantissa << shift) & 0xffff_ffff
    } else if shift > -64 {
        (mantissa >> -shift) & 0xffff_ffff
    } else {
        0
    };
    let magnitude = magnitude_mod_2_32 as u32;
    if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    }
}

fuzz_target!(|data: [u8; 8]| {
    let value = f64::from_le_bytes(data);
    let expected = reference_to_uint32(value);
    assert_eq!(to_uint32(value), expected, "ToUint32({value:e})");
    assert_eq!(to_int32(value), expected as i32, "ToInt32({value:e})");
    assert_eq!(u8::from_js_number(value), expected as u8);
    assert_eq!(i8::from_js_number(value), expected as i8);
    assert_eq!(u16::from_js_number(value), expected as u16);
    assert_eq!(i16::from_js_number(value), expected as i16);
    assert_eq!(u32::from_js_number(value), expected);
    assert_eq!(i32::from_js_number(value), expected as i32);
    assert_eq!(f64::from_js_number(value).to_bits(), value.to_bits());
    let single = f32::from_js_number(value);
    assert!(single.is_nan() == value.is_nan() && (value.is_nan() || single == value as f32));
});
