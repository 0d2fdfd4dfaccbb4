//! `#[serde] T`: any `T: serde::Deserialize` / `serde::Serialize` as an op argument or
//! return, through a serde data format over V8 values written here (behind the default-on
//! `serde` feature).
//!
//! The mapping is JSON's, as `serde_v8`'s: `null`/`undefined` ↔ unit and `None`, booleans,
//! Numbers (an integral Number reads as any integer type that holds it; 64-bit integers
//! beyond 2^53 - 1 are written as BigInts, and BigInts read as integers), strings, arrays ↔
//! sequences and tuples, objects ↔ maps and structs (own enumerable string keys),
//! `ArrayBufferView`s and `ArrayBuffer`s → bytes (copied), bytes → `Uint8Array`. Enums are
//! serde's externally tagged form: a unit variant is its name, others `{Variant: value}`.
//! `serde_json::Value` round-trips.
//!
//! Struct field names are V8 strings made once per isolate (serde hands the names as
//! `&'static str`, so they key a per-isolate cache); strings read for `&str`-taking visitors
//! go through a stack buffer, for `String` ones into one exact allocation.
//!
//! Errors say where, as the derives' do (`items[2].name: invalid type: ...`); values nested
//! deeper than [`MAX_DEPTH`](crate::structured::MAX_DEPTH) are a `RangeError`.

mod de;
mod de_onebyte;
mod ser;
mod serde_error;

pub use serde_error::Error;

use crate::{FromV8, OpError, ToV8};

/// Reads `value` as a `T`.
pub fn from_v8<'s, T: ::serde::de::DeserializeOwned>(
    scope: &mut v8::PinScope<'s, '_>,
    value: v8::Local<'s, v8::Value>,
) -> Result<T, OpError> {
    T::deserialize(de::Deserializer::new(scope, value)).map_err(Error::into_op_error)
}

/// Reads a one-byte (Latin-1) string's contents as a `T`, as [`from_v8`] reads that string.
pub(crate) fn from_one_byte<T: ::serde::de::DeserializeOwned>(latin1: &[u8]) -> Result<T, OpError> {
    T::deserialize(de_onebyte::OneByteDeserializer::new(latin1)).map_err(Error::into_op_error)
}

/// Writes `value` as a JavaScript value.
pub fn to_v8<'s, T: ::serde::Serialize + ?Sized>(
    scope: &mut v8::PinScope<'s, '_>,
    value: &T,
) -> Result<v8::Local<'s, v8::Value>, OpError> {
    value
        .serialize(ser::Serializer::new(scope))
        .map_err(Error::into_op_error)
}

/// A value converted through serde: `FromV8` for `T: DeserializeOwned`, `ToV8` for
/// `T: Serialize`. What `#[serde]` arguments and returns, and `serde` fields of derived
/// types, go through.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Serde<T>(pub T);

impl<'s, T: ::serde::de::DeserializeOwned> FromV8<'s> for Serde<T> {
    // Primitives are read through V8's accessors; only objects' getters, proxies and
    // iterators run JavaScript.
    const PRIMITIVES_RUN_NO_JS: bool = true;
    const READS_ONE_BYTE: bool = true;

    fn from_one_byte(latin1: &[u8]) -> Result<Self, OpError> {
        from_one_byte(latin1).map(Serde)
    }

    #[inline]
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        from_v8(scope, value).map(Serde)
    }
}

impl<T: ::serde::Serialize> ToV8 for Serde<T> {
    #[inline]
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        to_v8(scope, &self.0)
    }
}
