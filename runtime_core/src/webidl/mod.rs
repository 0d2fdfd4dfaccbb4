//! WebIDL conversions, for ops implementing web APIs: [`WebIdlConverter`] with the spec's rules for
//! numbers (`[EnforceRange]`, `[Clamp]`), strings, sequences (the iterator protocol), records
//! (`HashMap`/`BTreeMap<String, V>`), nullable values and `any`; `#[derive(WebIDL)]` makes
//! dictionaries and enums of Rust types, and `#[webidl] arg: T` takes an op argument through it.
//!
//! Errors are `TypeError`s that say where, as structured values' do (`op_x: argument 1 (options):
//! powerPreference can not be converted to 'GPUPowerPreference' because 'fast' is not a valid enum
//! value`); an exception thrown on the way (a `valueOf`, a getter, an iterator) propagates
//! unchanged.

#![deny(unsafe_code)]

mod numeric_types;
mod sequences;
mod string_types;

pub use numeric_types::{IntOptions, UnrestrictedDouble, UnrestrictedFloat};
pub use string_types::StringOptions;

use crate::structured::ValueError;
use crate::{FromV8, OpError};

/// A WebIDL conversion of a JavaScript value into `Self`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no WebIDL conversion: it does not implement `WebIdlConverter`",
    label = "`#[derive(runtime_core::WebIDL)]` it (a `#[webidl(dictionary)]` struct or `#[webidl(enum)]`), or implement `runtime_core::webidl::WebIdlConverter`"
)]
pub trait WebIdlConverter<'s>: Sized {
    /// The extended attributes the conversion takes (`IntOptions { clamp, enforce_range }`).
    type Options: Default;

    /// The conversion.
    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &Self::Options,
    ) -> Result<Self, OpError>;
}

/// A value converted by WebIDL rules: what `#[webidl]` arguments go through.
pub struct WebIdl<T>(pub T);

impl<'s, T: WebIdlConverter<'s>> FromV8<'s> for WebIdl<T> {
    #[inline]
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        T::convert(scope, value, &T::Options::default()).map(WebIdl)
    }
}

/// A TypeError saying the value `phrase`.
#[cold]
pub(crate) fn error(phrase: impl Into<std::borrow::Cow<'static, str>>) -> OpError {
    ValueError::phrase(phrase).into()
}

/// `T?` in a dictionary member or argument that may be absent: `undefined` is `None` (as
/// deno's; `null` converts as `T`). For `T?` (nullable), see [`Nullable`].
impl<'s, T: WebIdlConverter<'s>> WebIdlConverter<'s> for Option<T> {
    type Options = T::Options;

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &Self::Options,
    ) -> Result<Self, OpError> {
        if value.is_undefined() {
            Ok(None)
        } else {
            T::convert(scope, value, options).map(Some)
        }
    }
}

/// A nullable type `T?`: `null` and `undefined` are `Null`.
#[derive(Debug, Eq, PartialEq)]
pub enum Nullable<T> {
    /// A value.
    Value(T),
    /// `null` or `undefined`.
    Null,
}

impl<T> Nullable<T> {
    /// As an `Option`.
    pub fn into_option(self) -> Option<T> {
        match self {
            Nullable::Value(value) => Some(value),
            Nullable::Null => None,
        }
    }
}

impl<'s, T: WebIdlConverter<'s>> WebIdlConverter<'s> for Nullable<T> {
    type Options = T::Options;

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &Self::Options,
    ) -> Result<Self, OpError> {
        if value.is_null_or_undefined() {
            Ok(Nullable::Null)
        } else {
            T::convert(scope, value, options).map(Nullable::Value)
        }
    }
}

/// `any`: the value itself.
impl<'s> WebIdlConverter<'s> for v8::Local<'s, v8::Value> {
    type Options = ();

    fn convert(
        _: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        Ok(value)
    }
}

/// `boolean`: ECMAScript `ToBoolean`.
impl<'s> WebIdlConverter<'s> for bool {
    type Options = ();

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        _: &(),
    ) -> Result<Self, OpError> {
        Ok(value.boolean_value(scope))
    }
}

/// What `#[derive(WebIDL)]` calls. Not a public API.
#[doc(hidden)]
pub mod __derive {
    pub use crate::structured::{Keys, ValueError};
    use crate::OpError;

    /// A dictionary's value as an object; `None` for `undefined` and `null` (every member
    /// then missing).
    #[inline]
    pub fn dictionary<'s>(
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Option<v8::Local<'s, v8::Object>>, OpError> {
        if value.is_null_or_undefined() {
            return Ok(None);
        }
        v8::Local::<v8::Object>::try_from(value)
            .map(Some)
            .map_err(|_| super::error("can not be converted to a dictionary"))
    }

    /// Member `key` of `object` (`None` when the object is absent or the member is
    /// `undefined`, as the spec reads a missing member).
    #[inline]
    pub fn member<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        object: Option<v8::Local<'s, v8::Object>>,
        key: v8::Local<'s, v8::String>,
    ) -> Result<Option<v8::Local<'s, v8::Value>>, OpError> {
        let Some(object) = object else {
            return Ok(None);
        };
        let value = object
            .get(scope, key.into())
            .ok_or_else(crate::structured::__derive::threw)?;
        Ok((!value.is_undefined()).then_some(value))
    }

    /// A required member that is missing.
    #[cold]
    pub fn required(dictionary: &'static str, key: &'static str) -> OpError {
        super::error(format!(
            "can not be converted to '{dictionary}' because '{key}' is required in '{dictionary}'"
        ))
    }

    /// The value as a string (WebIDL `DOMString`: `ToString`, which may run JavaScript),
    /// handed to `f` from a stack buffer (no allocation), for an enum.
    #[inline]
    pub fn enum_value<'s, R>(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        f: impl FnOnce(&str) -> R,
    ) -> Result<R, OpError> {
        let string = match v8::Local::<v8::String>::try_from(value) {
            Ok(string) => string,
            Err(_) if value.is_symbol() => {
                return Err(super::error("can not be converted to a string"))
            }
            Err(_) => value
                .to_string(scope)
                .ok_or_else(crate::structured::__derive::threw)?,
        };
        Ok(f(
            crate::values::string_buffers::Room::new().copy_string(scope, string)
        ))
    }

    /// A string that names no value of the enum.
    #[cold]
    pub fn invalid_enum_value(enumeration: &'static str, value: &str) -> OpError {
        super::error(format!(
            "can not be converted to '{enumeration}' because '{value}' is not a valid enum value"
        ))
    }
}
