//! Booleans, numbers and BigInts: arguments and returns on the slow path, `Option<number>` on
//! the fast path (V8 converts the rest itself). The rules are in the crate documentation.

use crate::convert::FromJsNumber;

use crate::convert::to_int32;

use super::call::*;
use crate::errors::throw::throw_error_of_class;
use crate::OpError;

use super::kinds::{kind, FromArg, FromFast, IntoFast, IntoFastChecked, IntoReturn, IntoValue};
use super::{FastApiCallbackOptions, SlowCall, Thrown};

/// ECMAScript `ToBoolean`, without the isolate: `false` for `false`, `undefined`, `null`, `+0`,
/// `-0`, `NaN`, `0n` and `""`; `true` for everything else (V8's fast path passes the same).
#[ops_macro::inline_hot]
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
#[ops_macro::inline_hot]
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
    // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
    // fn's contract, as `fast_call_guarded`), which is all `fast_throw_arg_type_error` requires.
    unsafe { fast_throw_arg_type_error(options, index, T::EXPECTED, value) };
    None
}

impl<'a, 's> SlowCall<'a, 's> {
    /// A Number argument converted to `T`, or a `TypeError`.
    #[ops_macro::inline_hot]
    pub(super) fn arg_number<T: FromJsNumber>(&mut self, index: i32) -> Result<T, Thrown> {
        let value = self.args.get(index);
        match v8::Local::<v8::Number>::try_from(value) {
            Ok(number) => Ok(T::from_js_number(number.value())),
            Err(_) => Err(self.throw_arg_type_error(index, T::EXPECTED)),
        }
    }

    /// A BigInt argument: `BigInt.asIntN(64, x)`, or a `TypeError`.
    #[ops_macro::inline_hot]
    fn arg_bigint_i64(&mut self, index: i32, expected: &str) -> Result<i64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.i64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, expected)),
        }
    }

    /// A BigInt argument: `BigInt.asUintN(64, x)`, or a `TypeError`.
    #[ops_macro::inline_hot]
    fn arg_bigint_u64(&mut self, index: i32, expected: &str) -> Result<u64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.u64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, expected)),
        }
    }

    #[cold]
    #[inline(never)]
    fn throw_unsafe_integer(&mut self, value: &dyn std::fmt::Display) -> Thrown {
        let message = unsafe_integer_message(self.op_ctx().decl.name, value);
        self.with_scope(|scope| throw_error_of_class(scope, "RangeError", &message));
        Thrown(())
    }
}

fn unsafe_integer_message(op: &str, value: &dyn std::fmt::Display) -> String {
    format!("{op}: {}", unsafe_integer_detail(value))
}

fn unsafe_integer_detail(value: &dyn std::fmt::Display) -> String {
    format!(
        "the returned integer {value} is beyond 2^53 - 1 in magnitude, where a Number stops \
         being exact; return it as #[bigint]"
    )
}

/// Throws the slow path's `RangeError` for a returned integer beyond 2^53 - 1, from a fast
/// call.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
unsafe fn fast_throw_unsafe_integer(
    options: *mut FastApiCallbackOptions<'_>,
    value: &dyn std::fmt::Display,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    throw_error_of_class(
        scope,
        "RangeError",
        &unsafe_integer_message(decl.name, value),
    );
}

// `bool`: `ToBoolean` on both paths (V8 passes the fast path the same).

impl<'s> FromArg<'s, kind::Bool> for bool {
    #[ops_macro::inline_hot]
    fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown> {
        Ok(to_boolean(call.args.get(index)))
    }
}

impl FromFast<kind::Bool, bool> for bool {
    #[ops_macro::inline_hot]
    fn from_fast(value: bool) -> Self {
        value
    }
}

impl IntoReturn<kind::Bool> for bool {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.rv().set_bool(self);
        Ok(())
    }
}

impl IntoValue<kind::Bool> for bool {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Boolean::new(scope, self).into())
    }
}

impl IntoValue<kind::Unit> for () {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::undefined(scope).into())
    }
}

impl IntoFast<kind::Bool, bool> for bool {
    #[ops_macro::inline_hot]
    fn into_fast(self) -> bool {
        self
    }
}

/// Numbers that fit a Fast API type `$c`: a Number in (`FromJsNumber`; V8 converts the fast
/// path's with the same rules, which the agreement tests compare), set as `$c` on return.
macro_rules! small_numbers {
    ($($ty:ty => $c:ty, $set:ident;)*) => {$(
        impl<'s> FromArg<'s, kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown> {
                call.arg_number(index)
            }
        }

        impl FromFast<kind::Number, $c> for $ty {
            #[ops_macro::inline_hot]
            fn from_fast(value: $c) -> Self {
                // Wrapping, as the slow path's ToInt32/ToUint32-then-wrap does.
                value as $ty
            }
        }

        impl IntoReturn<kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                call.rv().$set(self.into());
                Ok(())
            }
        }

        impl IntoFast<kind::Number, $c> for $ty {
            #[ops_macro::inline_hot]
            fn into_fast(self) -> $c {
                self.into()
            }
        }

        impl IntoValue<kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                Ok(v8::Number::new(scope, self.into()).into())
            }
        }
    )*};
}

small_numbers! {
    i8 => i32, set_int32;
    i16 => i32, set_int32;
    i32 => i32, set_int32;
    u8 => u32, set_uint32;
    u16 => u32, set_uint32;
    u32 => u32, set_uint32;
    f32 => f32, set_double;
    f64 => f64, set_double;
}

/// The largest integer a Number holds exactly, and every integer below it: 2^53 - 1.
const MAX_SAFE_INTEGER: u128 = (1 << 53) - 1;

/// `#[number]` 64-bit and pointer-sized integers: a Number in (truncated toward zero, saturating
/// at the type's bounds, NaN as 0; a `double` on the fast path, converted the same way), a
/// Number out when it is exact, else a `RangeError` (deno leaves this unchecked).
macro_rules! wide_numbers {
    ($($ty:ty),*) => {$(
        impl<'s> FromArg<'s, kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown> {
                call.arg_number(index)
            }
        }

        impl FromFast<kind::Number, f64> for $ty {
            #[ops_macro::inline_hot]
            fn from_fast(value: f64) -> Self {
                <$ty>::from_js_number(value)
            }
        }

        impl IntoReturn<kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                if (self as i128).unsigned_abs() > MAX_SAFE_INTEGER {
                    return Err(call.throw_unsafe_integer(&self));
                }
                call.rv().set_double(self as f64);
                Ok(())
            }
        }

        impl IntoValue<kind::Number> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                if (self as i128).unsigned_abs() > MAX_SAFE_INTEGER {
                    return Err(OpError::range_error(unsafe_integer_detail(&self)));
                }
                Ok(v8::Number::new(scope, self as f64).into())
            }
        }

        impl IntoFastChecked<kind::Number, f64> for $ty {
            #[ops_macro::inline_hot]
            unsafe fn into_fast_checked(
                self,
                options: *mut FastApiCallbackOptions<'_>,
            ) -> Option<f64> {
                if (self as i128).unsigned_abs() > MAX_SAFE_INTEGER {
                    // SAFETY: by `into_fast_checked`'s contract, `options` are the running fast
                    // call's, of an op `Runtime` registered, as `fast_throw_unsafe_integer`
                    // requires.
                    unsafe { fast_throw_unsafe_integer(options, &self) };
                    return None;
                }
                Some(self as f64)
            }
        }
    )*};
}

wide_numbers!(i64, u64, isize, usize);

/// The integer types `#[smi]` takes: carried as an `i32`, wrapping both ways (an unsigned type
/// gets the bits of a negative one, as in deno).
pub trait SmiInt: Copy {
    /// From the `i32` JavaScript passed (after `ToInt32`).
    fn from_smi(value: i32) -> Self;
    /// To the `i32` JavaScript sees.
    fn to_smi(self) -> i32;
}

macro_rules! smi_ints {
    ($($ty:ty),*) => {$(
        impl SmiInt for $ty {
            #[ops_macro::inline_hot]
            fn from_smi(value: i32) -> Self {
                value as $ty
            }
            #[ops_macro::inline_hot]
            fn to_smi(self) -> i32 {
                self as i32
            }
        }
    )*};
}

smi_ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// What a `TypeError` says a `#[smi]` argument must be.
const SMI_EXPECTED: &str = "a number (smi)";

impl<'s, T: SmiInt> FromArg<'s, kind::Smi> for T {
    #[ops_macro::inline_hot]
    fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown> {
        match v8::Local::<v8::Number>::try_from(call.args.get(index)) {
            Ok(number) => Ok(T::from_smi(to_int32(number.value()))),
            Err(_) => Err(call.throw_arg_type_error(index, SMI_EXPECTED)),
        }
    }
}

impl<T: SmiInt> FromFast<kind::Smi, i32> for T {
    #[ops_macro::inline_hot]
    fn from_fast(value: i32) -> Self {
        T::from_smi(value)
    }
}

impl<T: SmiInt> IntoReturn<kind::Smi> for T {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.rv().set_int32(self.to_smi());
        Ok(())
    }
}

impl<T: SmiInt> IntoValue<kind::Smi> for T {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Integer::new(scope, self.to_smi()).into())
    }
}

impl<T: SmiInt> IntoFast<kind::Smi, i32> for T {
    #[ops_macro::inline_hot]
    fn into_fast(self) -> i32 {
        self.to_smi()
    }
}

/// `#[bigint]` integers: `BigInt.asIntN(64, x)` / `BigInt.asUintN(64, x)` in (the fast path's
/// `int64_t`/`uint64_t` are the same), a BigInt out.
macro_rules! bigints {
    ($($ty:ty => $c:ty, $arg:ident, $new:ident, $made:ident, $expected:literal;)*) => {$(
        impl<'s> FromArg<'s, kind::BigInt> for $ty {
            #[ops_macro::inline_hot]
            fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown> {
                call.$arg(index, $expected).map(|value| value as $ty)
            }
        }

        impl FromFast<kind::BigInt, $c> for $ty {
            #[ops_macro::inline_hot]
            fn from_fast(value: $c) -> Self {
                value as $ty
            }
        }

        impl IntoReturn<kind::BigInt> for $ty {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                let value = call.in_callback().$made(self as $c);
                call.rv().set(value.into());
                Ok(())
            }
        }

        impl IntoValue<kind::BigInt> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                Ok(v8::BigInt::$new(scope, self as $c).into())
            }
        }

        impl IntoFast<kind::BigInt, $c> for $ty {
            #[ops_macro::inline_hot]
            fn into_fast(self) -> $c {
                self as $c
            }
        }
    )*};
}

bigints! {
    i64 => i64, arg_bigint_i64, new_from_i64, bigint_from_i64, "a BigInt (i64)";
    isize => i64, arg_bigint_i64, new_from_i64, bigint_from_i64, "a BigInt (isize)";
    u64 => u64, arg_bigint_u64, new_from_u64, bigint_from_u64, "a BigInt (u64)";
    usize => u64, arg_bigint_u64, new_from_u64, bigint_from_u64, "a BigInt (usize)";
}
