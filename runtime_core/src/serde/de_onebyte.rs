//! Reading a one-byte string's contents as serde data: what the fast path of a `#[serde]`
//! argument reads (V8 takes it only for a sequential one-byte string, and hands the bytes).
//!
//! Each method answers as [`super::de::Deserializer`] does for a string value (the tests in
//! `runtime_core/tests/integration/serde.rs` compare the two paths), without a handle: strings run no
//! JavaScript and allocate nothing on the V8 heap, so a fast call may read them.

use ::serde::de::{self, IntoDeserializer, Visitor};

use super::Error;
use crate::structured::__derive;
use crate::values::string_buffers::{latin1_to_string, Room};

/// `fn $method(self, _) { Err(expected $what) }`: the requests a string never satisfies.
macro_rules! refuse {
    ($($method:ident => $what:literal,)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Self::expected($what))
        }
    )*};
}

/// A one-byte (Latin-1) string, read by serde.
pub(crate) struct OneByteDeserializer<'a> {
    latin1: &'a [u8],
}

impl<'a> OneByteDeserializer<'a> {
    pub(crate) fn new(latin1: &'a [u8]) -> Self {
        Self { latin1 }
    }

    fn expected(what: &'static str) -> Error {
        __derive::unexpected_string(what).into()
    }

    /// One allocation of the exact UTF-8 length.
    fn string(&self) -> String {
        latin1_to_string(self.latin1)
    }
}

impl<'de> de::Deserializer<'de> for OneByteDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    refuse! {
        deserialize_bool => "a boolean",
        deserialize_i8 => "an integer",
        deserialize_i16 => "an integer",
        deserialize_i32 => "an integer",
        deserialize_i64 => "an integer",
        deserialize_u8 => "an integer",
        deserialize_u16 => "an integer",
        deserialize_u32 => "an integer",
        deserialize_u64 => "an integer",
        deserialize_f32 => "a number",
        deserialize_f64 => "a number",
        deserialize_bytes => "an ArrayBuffer, a typed array or an array",
        deserialize_byte_buf => "an ArrayBuffer, a typed array or an array",
        deserialize_unit => "null or undefined",
        deserialize_seq => "an array",
        deserialize_map => "an object",
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    /// ASCII in place; other Latin-1 transcoded into a stack buffer (a lent one beyond it).
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(Room::new().latin1_as_str(self.latin1))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.string())
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _: V,
    ) -> Result<V::Value, Error> {
        Err(Self::expected("null or undefined"))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, _: V) -> Result<V::Value, Error> {
        Err(Self::expected("an array"))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        _: V,
    ) -> Result<V::Value, Error> {
        Err(Self::expected("an array"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Error> {
        Err(Self::expected("an object"))
    }

    /// A unit variant, by name.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.string().into_deserializer())
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}
