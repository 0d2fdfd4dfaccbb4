//! WebIDL's numeric types: the integer types with `ConvertToInt` (modulo, `[EnforceRange]`,
//! `[Clamp]`), `float`/`double` (finite), and their `unrestricted` forms.

use super::{error, WebIdlConverter};
use crate::structured::__derive::threw;
use crate::OpError;

/// The extended attributes of an integer conversion.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntOptions {
    /// `[Clamp]`: out-of-range values clamp, rounding to even.
    pub clamp: bool,
    /// `[EnforceRange]`: non-finite or out-of-range values are a `TypeError`.
    pub enforce_range: bool,
}

/// ECMAScript `ToNumber` (which may run `valueOf`); a BigInt is a `TypeError`, as the spec's.
fn to_number(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
    name: &'static str,
) -> Result<f64, OpError> {
    if value.is_big_int() {
        return Err(error(format!("can not be converted to {name}")));
    }
    if let Ok(number) = v8::Local::<v8::Number>::try_from(value) {
        return Ok(number.value());
    }
    value.number_value(scope).ok_or_else(threw)
}

/// `ConvertToInt` (<https://webidl.spec.whatwg.org/#abstract-opdef-converttoint>) for a type
/// of `bits` bits whose range is `min..=max`.
fn convert_to_int(
    number: f64,
    min: f64,
    max: f64,
    bits: i32,
    signed: bool,
    options: &IntOptions,
) -> Result<f64, OpError> {
    let number = if number == 0.0 { 0.0 } else { number };
    if options.enforce_range {
        if !number.is_finite() {
            return Err(error("is not a finite number"));
        }
        let number = number.trunc() + 0.0;
        if !(min..=max).contains(&number) {
            return Err(error(format!(
                "is outside the accepted range of {min} to {max}, inclusive"
            )));
        }
        return Ok(number);
    }
    if !number.is_nan() && options.clamp {
        return Ok(number.clamp(min, max).round_ties_even() + 0.0);
    }
    if !number.is_finite() {
        return Ok(0.0);
    }
    let number = number.trunc() + 0.0;
    if (min..=max).contains(&number) {
        return Ok(number);
    }
    let modulus = 2f64.powi(bits);
    let mut number = number.rem_euclid(modulus);
    if signed && number >= modulus / 2.0 {
        number -= modulus;
    }
    Ok(number)
}

macro_rules! integers {
    ($($ty:ty: $signed:literal, $bits:literal, $name:literal, $min:expr, $max:expr;)*) => {$(
        impl<'s> WebIdlConverter<'s> for $ty {
            type Options = IntOptions;

            fn convert(
                scope: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
                options: &IntOptions,
            ) -> Result<Self, OpError> {
                let number = to_number(scope, value, $name)?;
                convert_to_int(number, $min as f64, $max as f64, $bits, $signed, options)
                    .map(|number| number as $ty)
            }
        }
    )*};
}

// https://webidl.spec.whatwg.org/#js-integer-types; `long long` is exact to 2^53 - 1.
integers! {
    i8: true, 8, "a byte", i8::MIN, i8::MAX;
    u8: false, 8, "an octet", u8::MIN, u8::MAX;
    i16: true, 16, "a short", i16::MIN, i16::MAX;
    u16: false, 16, "an unsigned short", u16::MIN, u16::MAX;
    i32: true, 32, "a long", i32::MIN, i32::MAX;
    u32: false, 32, "an unsigned long", u32::MIN, u32::MAX;
    i64: true, 64, "a long long", -(2i64.pow(53) - 1), 2i64.pow(53) - 1;
    u64: false, 64, "an unsigned long long", 0, 2u64.pow(53) - 1;
}

/// `double`: finite.
impl<'s> WebIdlConverter<'s> for f64 {
    type Options = ();

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        let number = to_number(scope, value, "a double")?;
        if number.is_finite() {
            Ok(number)
        } else {
            Err(error("is not a finite number"))
        }
    }
}

/// `float`: finite and within `f32`'s range.
impl<'s> WebIdlConverter<'s> for f32 {
    type Options = ();

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        let number = <f64 as WebIdlConverter>::convert(scope, value, &())?;
        let single = number as f32;
        if single.is_finite() {
            Ok(single)
        } else {
            Err(error(
                "is outside the range of a single-precision floating-point value",
            ))
        }
    }
}

/// `unrestricted double`: any Number, NaN and infinities included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnrestrictedDouble(pub f64);

impl<'s> WebIdlConverter<'s> for UnrestrictedDouble {
    type Options = ();

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        to_number(scope, value, "an unrestricted double").map(UnrestrictedDouble)
    }
}

/// `unrestricted float`: any Number, rounded to `f32`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnrestrictedFloat(pub f32);

impl<'s> WebIdlConverter<'s> for UnrestrictedFloat {
    type Options = ();

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        to_number(scope, value, "an unrestricted float")
            .map(|number| UnrestrictedFloat(number as f32))
    }
}

#[cfg(test)]
mod tests {
    use super::{convert_to_int, IntOptions};

    const PLAIN: IntOptions = IntOptions {
        clamp: false,
        enforce_range: false,
    };
    const CLAMP: IntOptions = IntOptions {
        clamp: true,
        enforce_range: false,
    };
    const ENFORCE: IntOptions = IntOptions {
        clamp: false,
        enforce_range: true,
    };

    fn byte(number: f64, options: IntOptions) -> Option<f64> {
        convert_to_int(number, -128.0, 127.0, 8, true, &options).ok()
    }

    fn octet(number: f64, options: IntOptions) -> Option<f64> {
        convert_to_int(number, 0.0, 255.0, 8, false, &options).ok()
    }

    /// deno's `webidl.rs` integer table, and the spec's modulo cases.
    #[test]
    fn convert_to_int_follows_the_spec() {
        assert_eq!(byte(1.0, PLAIN), Some(1.0));
        assert_eq!(byte(130.0, PLAIN), Some(-126.0));
        assert_eq!(byte(-130.0, PLAIN), Some(126.0));
        assert_eq!(byte(1.9, PLAIN), Some(1.0));
        assert_eq!(byte(-1.9, PLAIN), Some(-1.0));
        assert_eq!(byte(f64::NAN, PLAIN), Some(0.0));
        assert_eq!(byte(f64::INFINITY, PLAIN), Some(0.0));
        assert_eq!(byte(130.0, CLAMP), Some(127.0));
        assert_eq!(byte(-130.0, CLAMP), Some(-128.0));
        assert_eq!(byte(2.5, CLAMP), Some(2.0));
        assert_eq!(byte(3.5, CLAMP), Some(4.0));
        assert_eq!(byte(f64::INFINITY, ENFORCE), None);
        assert_eq!(byte(f64::NAN, ENFORCE), None);
        assert_eq!(byte(130.0, ENFORCE), None);
        assert_eq!(byte(-128.9, ENFORCE), Some(-128.0));
        assert_eq!(octet(260.0, PLAIN), Some(4.0));
        assert_eq!(octet(-1.0, PLAIN), Some(255.0));
        assert_eq!(octet(260.0, CLAMP), Some(255.0));
        assert_eq!(octet(-1.0, CLAMP), Some(0.0));
        assert_eq!(octet(260.0, ENFORCE), None);
        assert!(octet(-0.0, PLAIN).unwrap().is_sign_positive());
        assert!(byte(-0.4, CLAMP).unwrap().is_sign_positive());
    }
}
