//! Reading V8 values as serde data.

use ::serde::de::{self, IntoDeserializer, Visitor};

use super::Error;
use crate::structured::{__derive, limits, Depth, ValueError};
use crate::values::string_buffers::{v8_to_string, Room};

/// A V8 value, read by serde.
pub(super) struct Deserializer<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    value: v8::Local<'s, v8::Value>,
}

impl<'a, 's, 'i> Deserializer<'a, 's, 'i> {
    pub(super) fn new(
        scope: &'a mut v8::PinScope<'s, 'i>,
        value: v8::Local<'s, v8::Value>,
    ) -> Self {
        Self { scope, value }
    }

    fn expected(&self, what: &'static str) -> Error {
        ValueError::expected(what, self.value).into()
    }

    /// An integral Number (or a BigInt that fits) as `i64`/`u64`, for the visitor to range-check.
    fn integer<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some(int) = self.value.int32_value_if_int32() {
            return visitor.visit_i64(int.into());
        }
        if let Ok(number) = v8::Local::<v8::Number>::try_from(self.value) {
            let number = number.value();
            if number.fract() == 0.0 && number.abs() <= 9_007_199_254_740_991.0 {
                return if number < 0.0 {
                    visitor.visit_i64(number as i64)
                } else {
                    visitor.visit_u64(number as u64)
                };
            }
        } else if let Ok(bigint) = v8::Local::<v8::BigInt>::try_from(self.value) {
            if let (value, true) = bigint.i64_value() {
                return visitor.visit_i64(value);
            }
            if let (value, true) = bigint.u64_value() {
                return visitor.visit_u64(value);
            }
        }
        Err(self.expected("an integer"))
    }

    fn bytes(&mut self) -> Option<Vec<u8>> {
        crate::structured::copied_bytes(self.value)
    }
}

trait ValueExt {
    fn int32_value_if_int32(&self) -> Option<i32>;
}

impl ValueExt for v8::Local<'_, v8::Value> {
    #[inline]
    fn int32_value_if_int32(&self) -> Option<i32> {
        self.is_int32()
            .then(|| v8::Local::<v8::Int32>::try_from(*self).ok())
            .flatten()
            .map(|int| int.value())
    }
}

impl<'de> de::Deserializer<'de> for Deserializer<'_, '_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let value = self.value;
        if value.is_null_or_undefined() {
            visitor.visit_unit()
        } else if value.is_boolean() {
            visitor.visit_bool(value.is_true())
        } else if value.is_number() {
            let number = v8::Local::<v8::Number>::try_from(value)
                .map(|number| number.value())
                .unwrap_or(f64::NAN);
            if number.fract() == 0.0
                && number.abs() <= 9_007_199_254_740_991.0
                && !(number == 0.0 && number.is_sign_negative())
            {
                if number < 0.0 {
                    visitor.visit_i64(number as i64)
                } else {
                    visitor.visit_u64(number as u64)
                }
            } else {
                visitor.visit_f64(number)
            }
        } else if value.is_big_int() {
            self.integer(visitor)
        } else if value.is_string() {
            self.deserialize_string(visitor)
        } else if value.is_array() {
            self.deserialize_seq(visitor)
        } else if let Some(bytes) = self.bytes() {
            visitor.visit_byte_buf(bytes)
        } else if value.is_object() {
            self.deserialize_map(visitor)
        } else {
            Err(self.expected("a value serde can read (not a symbol)"))
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.value.is_boolean() {
            visitor.visit_bool(self.value.is_true())
        } else {
            Err(self.expected("a boolean"))
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match v8::Local::<v8::Number>::try_from(self.value) {
            Ok(number) => visitor.visit_f64(number.value()),
            Err(_) => Err(self.expected("a number")),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    /// Copied into a stack buffer (a lent one beyond it): no allocation for visitors that
    /// only look (field names, enum variants, `Cow` that stay borrowed is not possible here).
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Ok(string) = v8::Local::<v8::String>::try_from(self.value) else {
            return Err(self.expected("a string"));
        };
        visitor.visit_str(Room::new().copy_string(self.scope, string))
    }

    /// One allocation of the exact UTF-8 length, handed to the visitor.
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match v8::Local::<v8::String>::try_from(self.value) {
            Ok(string) => visitor.visit_string(v8_to_string(self.scope, string)),
            Err(_) => Err(self.expected("a string")),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        match self.bytes() {
            Some(bytes) => visitor.visit_byte_buf(bytes),
            None if self.value.is_array() => self.deserialize_seq(visitor),
            None => Err(self.expected("an ArrayBuffer, a typed array or an array")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.value.is_null_or_undefined() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.value.is_null_or_undefined() {
            visitor.visit_unit()
        } else {
            Err(self.expected("null or undefined"))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Ok(array) = v8::Local::<v8::Array>::try_from(self.value) else {
            return Err(self.expected("an array"));
        };
        let _depth = Depth::enter()?;
        let len = limits::checked_len(self.scope, array.length())?;
        visitor.visit_seq(SeqAccess {
            scope: self.scope,
            array,
            len,
            index: 0,
            budget: limits::ElementBudget::default(),
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Ok(object) = v8::Local::<v8::Object>::try_from(self.value) else {
            return Err(self.expected("an object"));
        };
        let _depth = Depth::enter()?;
        let keys = __derive::own_keys(self.scope, object)?;
        let len = limits::checked_len(self.scope, keys.length())?;
        visitor.visit_map(MapAccess {
            scope: self.scope,
            object,
            keys,
            len,
            index: 0,
            budget: limits::ElementBudget::default(),
            value: None,
        })
    }

    /// The declared fields are read by name (strings made once per isolate); a field that
    /// is `undefined` is left out, so serde's own rules (`Option` → `None`, `#[serde(default)]`,
    /// or a missing-field error) decide.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let Ok(object) = v8::Local::<v8::Object>::try_from(self.value) else {
            return Err(self.expected("an object"));
        };
        let _depth = Depth::enter()?;
        let keys = crate::structured::keys::static_names(self.scope, fields);
        visitor.visit_map(StructAccess {
            scope: self.scope,
            object,
            fields,
            keys,
            index: 0,
            value: None,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if self.value.is_string() {
            let name = self.deserialize_variant_name()?;
            return visitor.visit_enum(name.into_deserializer());
        }
        let Ok(object) = v8::Local::<v8::Object>::try_from(self.value) else {
            return Err(self.expected("a string or an object with one key"));
        };
        let keys = __derive::own_keys(self.scope, object)?;
        if keys.length() != 1 {
            return Err(self.expected("a string or an object with one key"));
        }
        let key = keys.get_index(self.scope, 0).ok_or_else(__derive::threw)?;
        let value = object.get(self.scope, key).ok_or_else(__derive::threw)?;
        let _depth = Depth::enter()?;
        visitor.visit_enum(EnumAccess {
            scope: self.scope,
            key,
            value,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

impl Deserializer<'_, '_, '_> {
    fn deserialize_variant_name(self) -> Result<String, Error> {
        match v8::Local::<v8::String>::try_from(self.value) {
            Ok(string) => Ok(v8_to_string(self.scope, string)),
            Err(_) => Err(self.expected("a string")),
        }
    }
}

struct SeqAccess<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    array: v8::Local<'s, v8::Array>,
    len: u32,
    index: u32,
    budget: limits::ElementBudget,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, '_, '_> {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.index >= self.len {
            return Ok(None);
        }
        let index = self.index;
        self.budget.before_element(self.scope, index)?;
        self.index += 1;
        let value = self
            .array
            .get_index(self.scope, index)
            .ok_or_else(__derive::threw)?;
        seed.deserialize(Deserializer::new(self.scope, value))
            .map(Some)
            .map_err(|error| error.at_index(index))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(limits::reserve_for(self.len - self.index))
    }
}

struct MapAccess<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    object: v8::Local<'s, v8::Object>,
    keys: v8::Local<'s, v8::Array>,
    len: u32,
    index: u32,
    budget: limits::ElementBudget,
    /// The key just read, whose value comes next.
    value: Option<v8::Local<'s, v8::Value>>,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.index >= self.len {
            return Ok(None);
        }
        self.budget.before_element(self.scope, self.index)?;
        let key = self
            .keys
            .get_index(self.scope, self.index)
            .ok_or_else(__derive::threw)?;
        self.index += 1;
        self.value = Some(key);
        seed.deserialize(Deserializer::new(self.scope, key))
            .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let key = self
            .value
            .take()
            .expect("serde asks for a key before its value");
        let value = self
            .object
            .get(self.scope, key)
            .ok_or_else(__derive::threw)?;
        seed.deserialize(Deserializer::new(self.scope, value))
            .map_err(|error| error.at_key(&key.to_rust_string_lossy(self.scope)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(limits::reserve_for(self.len - self.index))
    }
}

struct StructAccess<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    object: v8::Local<'s, v8::Object>,
    fields: &'static [&'static str],
    /// The fields' names as strings of this isolate (see `keys::static_names`).
    keys: *const [v8::Global<v8::String>],
    index: usize,
    /// The field just named, and its value.
    value: Option<(&'static str, v8::Local<'s, v8::Value>)>,
}

impl<'de> de::MapAccess<'de> for StructAccess<'_, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        while let Some(&field) = self.fields.get(self.index) {
            self.index += 1;
            // SAFETY: the list lives as long as the isolate (see `keys::static_names`), and one
            // entry is read here, before anything can touch the cache.
            let key = unsafe { &(*self.keys)[self.index - 1] };
            let key = v8::Local::new(self.scope, key);
            // Own properties only: a value on the prototype chain (`Object.prototype.b`, put
            // there by a script) is not this object's data, and fills no field.
            let own = self
                .object
                .has_own_property(self.scope, key.into())
                .ok_or_else(__derive::threw)?;
            if !own {
                continue;
            }
            let value = self
                .object
                .get(self.scope, key.into())
                .ok_or_else(__derive::threw)?;
            if value.is_undefined() {
                continue;
            }
            self.value = Some((field, value));
            return seed
                .deserialize(de::value::BorrowedStrDeserializer::<Error>::new(field))
                .map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (field, value) = self
            .value
            .take()
            .expect("serde asks for a key before its value");
        seed.deserialize(Deserializer::new(self.scope, value))
            .map_err(|error| error.at_key(field))
    }
}

struct EnumAccess<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    key: v8::Local<'s, v8::Value>,
    value: v8::Local<'s, v8::Value>,
}

impl<'de, 'a, 's, 'i> de::EnumAccess<'de> for EnumAccess<'a, 's, 'i> {
    type Error = Error;
    type Variant = VariantAccess<'a, 's, 'i>;

    fn variant_seed<V: de::DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Error> {
        let name = self.key.to_rust_string_lossy(self.scope);
        let variant = seed.deserialize(Deserializer::new(self.scope, self.key))?;
        Ok((
            variant,
            VariantAccess {
                scope: self.scope,
                value: self.value,
                name,
            },
        ))
    }
}

struct VariantAccess<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    value: v8::Local<'s, v8::Value>,
    name: String,
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, '_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(Deserializer::new(self.scope, self.value))
            .map_err(|error| error.at_key(&self.name))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(Deserializer::new(self.scope, self.value), visitor)
            .map_err(|error| error.at_key(&self.name))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(
            Deserializer::new(self.scope, self.value),
            "",
            fields,
            visitor,
        )
        .map_err(|error| error.at_key(&self.name))
    }
}
