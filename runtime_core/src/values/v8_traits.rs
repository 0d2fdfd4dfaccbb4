//! [`FromV8`] and [`ToV8`]: user types as op arguments (`#[from_v8]`) and returns
//! (`#[to_v8]`). Such ops take the slow path (the conversion may allocate and run JavaScript),
//! but for arguments whose type reads strings without V8 ([`FromV8::READS_ONE_BYTE`]).

use crate::values::ts_type::{TsForm, TsType, TsTypes};
use crate::OpError;

/// Converts a JavaScript value into `Self`, for `#[from_v8] arg: Self` arguments.
///
/// An `Err` throws: its class and message, prefixed with the op and the argument.
///
/// ```
/// use runtime_core::{v8, FromV8, OpError, ToV8};
///
/// /// `{x, y}` in JavaScript.
/// struct Point { x: f64, y: f64 }
///
/// impl<'s> FromV8<'s> for Point {
///     fn from_v8(scope: &mut v8::PinScope<'s, '_>, value: v8::Local<'s, v8::Value>) -> Result<Self, OpError> {
///         let object = v8::Local::<v8::Object>::try_from(value)
///             .map_err(|_| OpError::type_error("expected an object {x, y}"))?;
///         let coordinate = |name: &str| -> Result<f64, OpError> {
///             let key = v8::String::new(scope, name).unwrap();
///             let value = object.get(scope, key.into()).ok_or_else(|| OpError::generic("getter threw"))?;
///             v8::Local::<v8::Number>::try_from(value)
///                 .map(|number| number.value())
///                 .map_err(|_| OpError::type_error(format!("{name} must be a number")))
///         };
///         Ok(Point { x: coordinate("x")?, y: coordinate("y")? })
///     }
/// }
///
/// impl ToV8 for Point {
///     fn to_v8<'s>(self, scope: &mut v8::PinScope<'s, '_>) -> Result<v8::Local<'s, v8::Value>, OpError> {
///         let object = v8::Object::new(scope);
///         for (name, value) in [("x", self.x), ("y", self.y)] {
///             let key = v8::String::new(scope, name).unwrap();
///             let value = v8::Number::new(scope, value);
///             object.set(scope, key.into(), value.into());
///         }
///         Ok(object.into())
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a JavaScript value (an op argument, a field): it does not implement `FromV8`",
    label = "`#[derive(runtime_core::FromV8)]` it, or implement `runtime_core::FromV8` for it",
    note = "numbers, strings, buffers and handles have kinds of their own; see `runtime_core::op`"
)]
pub trait FromV8<'s>: Sized {
    /// Whether reading a primitive (any value but an object) never runs JavaScript, so that
    /// an op argument that is one is read without a `TryCatch`. `false` unless an impl
    /// promises it (serde's `Serde<T>` does).
    const PRIMITIVES_RUN_NO_JS: bool = false;

    /// Whether [`FromV8::from_one_byte`] reads a one-byte string's contents as `from_v8`
    /// reads that string (the same value, or the same error). An op argument of such a type
    /// gets a fast path, typed as a sequential one-byte string: V8 takes it for such strings
    /// only, any other value takes the slow path. `String`, `#[serde]` types and the derive's
    /// newtypes of them and enums with unit variants do.
    const READS_ONE_BYTE: bool = false;

    /// The type's TypeScript declaration (`interface Request { .. }`), as JavaScript passes it:
    /// `#[derive(FromV8)]` writes it; empty for other impls.
    const TYPESCRIPT: &'static str = "";

    /// The types [`FromV8::TYPESCRIPT`] names (its fields' types), for the declarations file
    /// to declare them too: `#[derive(FromV8)]` writes it.
    const TYPESCRIPT_TYPES: TsTypes = &[];

    /// The conversion.
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError>;

    /// `from_v8` of a one-byte string, from its Latin-1 bytes and without V8 (a fast call
    /// reads its argument so). Called only where [`FromV8::READS_ONE_BYTE`] is `true`; the
    /// default is never called.
    fn from_one_byte(latin1: &[u8]) -> Result<Self, OpError> {
        let _ = latin1;
        Err(OpError::generic(
            "FromV8::from_one_byte called for a type whose READS_ONE_BYTE is false",
        ))
    }
}

/// Converts `self` into a JavaScript value, for ops marked `#[to_v8]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be made a JavaScript value (an op's return, a field): it does not implement `ToV8`",
    label = "`#[derive(runtime_core::ToV8)]` it, or implement `runtime_core::ToV8` for it"
)]
pub trait ToV8 {
    /// The type's TypeScript declaration, as JavaScript gets it: `#[derive(ToV8)]` writes it;
    /// empty for other impls.
    const TYPESCRIPT: &'static str = "";

    /// The types [`ToV8::TYPESCRIPT`] names: `#[derive(ToV8)]` writes it.
    const TYPESCRIPT_TYPES: TsTypes = &[];

    /// The conversion; an `Err` throws.
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError>;
}

impl TsType {
    /// `T` as an op argument or a `FromV8` field names it.
    pub fn input<T: FromV8<'static>>(name: &'static str) -> Self {
        Self::new(name, TsForm::Input, T::TYPESCRIPT, T::TYPESCRIPT_TYPES)
    }

    /// `T` as an op's return or a `ToV8` field names it.
    pub fn output<T: ToV8>(name: &'static str) -> Self {
        Self::new(name, TsForm::Output, T::TYPESCRIPT, T::TYPESCRIPT_TYPES)
    }
}
