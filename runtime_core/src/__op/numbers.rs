//! Booleans, numbers and BigInts: arguments and returns on the slow path, `Option<number>` on
//! the fast path (V8 converts the rest itself). The rules are in the crate documentation.

use crate::convert::FromJsNumber;

use super::call::*;
use super::{FastApiCallbackOptions, SlowCall, Thrown};

/// ECMAScript `ToBoolean`, without the isolate: `false` for `false`, `undefined`, `null`, `+0`,
/// `-0`, `NaN`, `0n` and `""`; `true` for everything else (V8's fast path passes the same).
#[inline(always)]
pub(super) fn to_boolean(value: v8::Local<'_, v8::Value>) -> bool {
    if value.is_true() {
        true
    } else if value.is_false() || value.is_null_or_undefined() {
        false
    } else if let Ok(number) = v8::Local::<v8::Number>::try_from(value) {
        let number = number.value();
        number != 0.0 && !number.is_nan()
    } else if let Ok(string) = v8::Local::<v8::String>::try_from(value) {
        string.length() != 0
    } else if let Ok(bigint) = v8::Local::<v8::BigInt>::try_from(value) {
        bigint.word_count() != 0
    } else {
        true // objects (no `document.all` here) and symbols
    }
}

/// `Option<number>` on the fast path: `undefined`/`null` is `None`, a Number converts as on
/// the slow path, anything else throws the slow path's `TypeError` (`None` then).
///
/// # Safety
/// As [`fast_call_guarded`].
#[inline(always)]
pub unsafe fn fast_option_number<T: FromJsNumber>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Option<T>> {
    if let Ok(number) = v8::Local::<v8::Number>::try_from(value) {
        return Some(Some(T::from_js_number(number.value())));
    }
    if value.is_null_or_undefined() {
        return Some(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { fast_throw_arg_type_error(options, index, T::EXPECTED, value) };
    None
}

impl<'a, 's> SlowCall<'a, 's> {
    /// A Number argument converted to `T`, or a `TypeError`.
    #[inline(always)]
    pub(super) fn arg_number<T: FromJsNumber>(&mut self, index: i32) -> Result<T, Thrown> {
        let value = self.args.get(index);
        match v8::Local::<v8::Number>::try_from(value) {
            Ok(number) => Ok(T::from_js_number(number.value())),
            Err(_) => Err(self.throw_arg_type_error(index, T::EXPECTED)),
        }
    }

    /// `bool`: `ToBoolean`, as V8's fast path does; never throws.
    #[inline(always)]
    pub fn arg_bool(&mut self, index: i32) -> Result<bool, Thrown> {
        Ok(to_boolean(self.args.get(index)))
    }

    /// `i32`: a Number, `ToInt32`.
    #[inline(always)]
    pub fn arg_i32(&mut self, index: i32) -> Result<i32, Thrown> {
        self.arg_number(index)
    }

    /// `i16`: a Number, `ToInt32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_i16(&mut self, index: i32) -> Result<i16, Thrown> {
        self.arg_number(index)
    }

    /// `i8`: a Number, `ToInt32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_i8(&mut self, index: i32) -> Result<i8, Thrown> {
        self.arg_number(index)
    }

    /// `u32`: a Number, `ToUint32`.
    #[inline(always)]
    pub fn arg_u32(&mut self, index: i32) -> Result<u32, Thrown> {
        self.arg_number(index)
    }

    /// `u16`: a Number, `ToUint32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_u16(&mut self, index: i32) -> Result<u16, Thrown> {
        self.arg_number(index)
    }

    /// `u8`: a Number, `ToUint32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_u8(&mut self, index: i32) -> Result<u8, Thrown> {
        self.arg_number(index)
    }

    /// `f64`: a Number, as is.
    #[inline(always)]
    pub fn arg_f64(&mut self, index: i32) -> Result<f64, Thrown> {
        self.arg_number(index)
    }

    /// `f32`: a Number, rounded to the nearest `f32`.
    #[inline(always)]
    pub fn arg_f32(&mut self, index: i32) -> Result<f32, Thrown> {
        self.arg_number(index)
    }

    /// `#[bigint] i64`: a BigInt, `BigInt.asIntN(64, x)`.
    #[inline(always)]
    pub fn arg_bigint_i64(&mut self, index: i32) -> Result<i64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.i64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, "a BigInt (i64)")),
        }
    }

    /// `#[bigint] u64`: a BigInt, `BigInt.asUintN(64, x)`.
    #[inline(always)]
    pub fn arg_bigint_u64(&mut self, index: i32) -> Result<u64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.u64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, "a BigInt (u64)")),
        }
    }

    /// Returns a boolean.
    #[inline(always)]
    pub fn ret_bool(&mut self, value: bool) -> Result<(), Thrown> {
        self.rv().set_bool(value);
        Ok(())
    }

    /// Returns an `i32` Number.
    #[inline(always)]
    pub fn ret_i32(&mut self, value: i32) -> Result<(), Thrown> {
        self.rv().set_int32(value);
        Ok(())
    }

    /// Returns a `u32` Number.
    #[inline(always)]
    pub fn ret_u32(&mut self, value: u32) -> Result<(), Thrown> {
        self.rv().set_uint32(value);
        Ok(())
    }

    /// Returns an `f64` Number.
    #[inline(always)]
    pub fn ret_f64(&mut self, value: f64) -> Result<(), Thrown> {
        self.rv().set_double(value);
        Ok(())
    }

    /// Returns an `i64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_i64(&mut self, value: i64) -> Result<(), Thrown> {
        let bigint = v8::BigInt::new_from_i64(self.scope(), value);
        self.rv().set(bigint.into());
        Ok(())
    }

    /// Returns a `u64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_u64(&mut self, value: u64) -> Result<(), Thrown> {
        let bigint = v8::BigInt::new_from_u64(self.scope(), value);
        self.rv().set(bigint.into());
        Ok(())
    }
}
