//! Number conversions shared by the slow path and documented in the crate root. The fast path
//! gets the same results from V8 itself; the agreement tests compare the two.

#![deny(unsafe_code)]

/// ECMAScript `ToInt32`: truncate toward zero, wrap modulo 2^32; NaN and ±Infinity are 0.
#[inline]
pub fn to_int32(value: f64) -> i32 {
    to_uint32(value) as i32
}

/// ECMAScript `ToUint32`: truncate toward zero, wrap modulo 2^32; NaN and ±Infinity are 0.
#[inline]
pub fn to_uint32(value: f64) -> u32 {
    if !value.is_finite() {
        return 0;
    }
    // Common case first: already an integer in range (no float remainder needed).
    if (0.0..4_294_967_296.0).contains(&value) {
        return value as u32;
    }
    // `rem_euclid` is exact for these magnitudes: the remainder of two floats is always
    // representable, and adding 2^32 to a negative integer above -2^32 is exact too.
    value.trunc().rem_euclid(4_294_967_296.0) as u32
}

/// A Rust number made from a JavaScript Number, by the rules in the crate documentation. The
/// slow path and the fast path of `Option<number>` arguments both convert through it, so they
/// cannot disagree.
pub trait FromJsNumber: Sized {
    /// What a `TypeError` says was expected.
    const EXPECTED: &'static str;
    /// The conversion.
    fn from_js_number(number: f64) -> Self;
}

macro_rules! from_js_number {
    ($($ty:ty => $expected:literal, |$n:ident| $convert:expr;)*) => {$(
        impl FromJsNumber for $ty {
            const EXPECTED: &'static str = $expected;
            #[ops_macro::inline_hot]
            fn from_js_number($n: f64) -> Self {
                $convert
            }
        }
    )*};
}

from_js_number! {
    i8 => "a number (i8)", |n| to_int32(n) as i8;
    i16 => "a number (i16)", |n| to_int32(n) as i16;
    i32 => "a number (i32)", |n| to_int32(n);
    u8 => "a number (u8)", |n| to_uint32(n) as u8;
    u16 => "a number (u16)", |n| to_uint32(n) as u16;
    u32 => "a number (u32)", |n| to_uint32(n);
    f32 => "a number (f32)", |n| n as f32;
    f64 => "a number (f64)", |n| n;
    // `#[number]`: truncated toward zero, saturating at the bounds, NaN as 0 (Rust's `as`).
    i64 => "a number (i64)", |n| n as i64;
    u64 => "a number (u64)", |n| n as u64;
    isize => "a number (isize)", |n| n as isize;
    usize => "a number (usize)", |n| n as usize;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_int32_matches_ecmascript() {
        let cases: &[(f64, i32)] = &[
            (0.0, 0),
            (-0.0, 0),
            (1.5, 1),
            (-1.5, -1),
            (2147483647.0, i32::MAX),
            (2147483648.0, i32::MIN),
            (4294967296.0, 0),
            (4294967301.0, 5),
            (-4294967297.0, -1),
            (9007199254740992.0, 0),
            (1e20, 1661992960),
            (f64::NAN, 0),
            (f64::INFINITY, 0),
            (f64::NEG_INFINITY, 0),
            (-1.0, -1),
        ];
        for &(input, expected) in cases {
            assert_eq!(to_int32(input), expected, "ToInt32({input})");
        }
    }

    #[test]
    fn to_uint32_matches_ecmascript() {
        let cases: &[(f64, u32)] = &[
            (-1.0, u32::MAX),
            (-0.5, 0),
            (4294967295.0, u32::MAX),
            (4294967296.0, 0),
            (2147483648.0, 2147483648),
            (1e20, 1661992960),
            (-1e20, 2632974336),
            (f64::NAN, 0),
        ];
        for &(input, expected) in cases {
            assert_eq!(to_uint32(input), expected, "ToUint32({input})");
        }
    }
}
