//! Writing serde data as V8 values.

use ::serde::ser::{self, Serialize};

use super::Error;
use crate::structured::{__derive, keys::static_name};
use crate::OpError;

/// Makes V8 values from serde data.
pub(super) struct Serializer<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
}

impl<'a, 's, 'i> Serializer<'a, 's, 'i> {
    pub(super) fn new(scope: &'a mut v8::PinScope<'s, 'i>) -> Self {
        Self { scope }
    }
}

/// Numbers are exact up to 2^53 - 1; beyond, a BigInt keeps the value.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    text: &str,
) -> Result<v8::Local<'s, v8::Value>, Error> {
    v8::String::new_from_utf8(scope, text.as_bytes(), v8::NewStringType::Normal)
        .map(Into::into)
        .ok_or_else(|| OpError::range_error("a string longer than V8 allows").into())
}

fn define(
    scope: &mut v8::PinScope<'_, '_>,
    object: v8::Local<'_, v8::Object>,
    key: v8::Local<'_, v8::Value>,
    value: v8::Local<'_, v8::Value>,
) -> Result<(), Error> {
    let key = v8::Local::<v8::Name>::try_from(key)
        .map_err(|_| OpError::type_error("a map key must be a string or a number"))?;
    __derive::define(scope, object, key, value).map_err(Error::from)
}

/// `{name: value}`, serde's externally tagged variant.
fn tagged<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    variant: &'static str,
    value: v8::Local<'s, v8::Value>,
) -> Result<v8::Local<'s, v8::Value>, Error> {
    let object = v8::Object::new(scope);
    let key = static_name(scope, variant);
    define(scope, object, key.into(), value)?;
    Ok(object.into())
}

impl<'a, 's, 'i> ser::Serializer for Serializer<'a, 's, 'i> {
    type Ok = v8::Local<'s, v8::Value>;
    type Error = Error;
    type SerializeSeq = SeqWriter<'a, 's, 'i>;
    type SerializeTuple = SeqWriter<'a, 's, 'i>;
    type SerializeTupleStruct = SeqWriter<'a, 's, 'i>;
    type SerializeTupleVariant = SeqWriter<'a, 's, 'i>;
    type SerializeMap = ObjectWriter<'a, 's, 'i>;
    type SerializeStruct = ObjectWriter<'a, 's, 'i>;
    type SerializeStructVariant = ObjectWriter<'a, 's, 'i>;

    fn serialize_bool(self, value: bool) -> Result<Self::Ok, Error> {
        Ok(v8::Boolean::new(self.scope, value).into())
    }

    fn serialize_i8(self, value: i8) -> Result<Self::Ok, Error> {
        self.serialize_i32(value.into())
    }
    fn serialize_i16(self, value: i16) -> Result<Self::Ok, Error> {
        self.serialize_i32(value.into())
    }
    fn serialize_i32(self, value: i32) -> Result<Self::Ok, Error> {
        Ok(v8::Integer::new(self.scope, value).into())
    }
    fn serialize_i64(self, value: i64) -> Result<Self::Ok, Error> {
        if value.unsigned_abs() <= MAX_SAFE_INTEGER {
            Ok(v8::Number::new(self.scope, value as f64).into())
        } else {
            Ok(v8::BigInt::new_from_i64(self.scope, value).into())
        }
    }
    fn serialize_u8(self, value: u8) -> Result<Self::Ok, Error> {
        self.serialize_i32(value.into())
    }
    fn serialize_u16(self, value: u16) -> Result<Self::Ok, Error> {
        self.serialize_i32(value.into())
    }
    fn serialize_u32(self, value: u32) -> Result<Self::Ok, Error> {
        Ok(v8::Integer::new_from_unsigned(self.scope, value).into())
    }
    fn serialize_u64(self, value: u64) -> Result<Self::Ok, Error> {
        if value <= MAX_SAFE_INTEGER {
            Ok(v8::Number::new(self.scope, value as f64).into())
        } else {
            Ok(v8::BigInt::new_from_u64(self.scope, value).into())
        }
    }
    fn serialize_f32(self, value: f32) -> Result<Self::Ok, Error> {
        self.serialize_f64(value.into())
    }
    fn serialize_f64(self, value: f64) -> Result<Self::Ok, Error> {
        Ok(v8::Number::new(self.scope, value).into())
    }
    fn serialize_char(self, value: char) -> Result<Self::Ok, Error> {
        string(self.scope, value.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, value: &str) -> Result<Self::Ok, Error> {
        string(self.scope, value)
    }
    fn serialize_bytes(self, value: &[u8]) -> Result<Self::Ok, Error> {
        let store = v8::ArrayBuffer::new_backing_store_from_boxed_slice(value.into()).make_shared();
        let buffer = v8::ArrayBuffer::with_backing_store(self.scope, &store);
        v8::Uint8Array::new(self.scope, buffer, 0, value.len())
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("bytes longer than a typed array holds").into())
    }
    fn serialize_none(self) -> Result<Self::Ok, Error> {
        Ok(v8::null(self.scope).into())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, Error> {
        Ok(v8::null(self.scope).into())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok, Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Error> {
        Ok(static_name(self.scope, variant).into())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        let value = value
            .serialize(Serializer::new(self.scope))
            .map_err(|error| error.at_key(variant))?;
        tagged(self.scope, variant, value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Ok(SeqWriter {
            scope: self.scope,
            values: Gathered::new(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Ok(SeqWriter {
            scope: self.scope,
            values: Gathered::new(len),
            variant: Some(variant),
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        let object = v8::Object::new(self.scope);
        Ok(ObjectWriter {
            scope: self.scope,
            object,
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        let object = v8::Object::new(self.scope);
        Ok(ObjectWriter {
            scope: self.scope,
            object,
            key: None,
            variant: Some(variant),
        })
    }
}

/// How many elements an array gathers on the stack before it takes a `Vec`.
const ON_STACK: usize = 16;

/// An array's elements as they are written: on the stack up to [`ON_STACK`], so that a short
/// sequence costs no allocation beyond the Rust value's own.
enum Gathered<'s> {
    Stack {
        values: [std::mem::MaybeUninit<v8::Local<'s, v8::Value>>; ON_STACK],
        len: usize,
    },
    Heap(Vec<v8::Local<'s, v8::Value>>),
}

impl<'s> Gathered<'s> {
    fn new(len: usize) -> Self {
        if len <= ON_STACK {
            Gathered::Stack {
                values: [std::mem::MaybeUninit::uninit(); ON_STACK],
                len: 0,
            }
        } else {
            // (A length hint is only a hint: a `Serialize` may claim anything.)
            Gathered::Heap(Vec::with_capacity(len.min(1024)))
        }
    }

    fn len(&self) -> usize {
        match self {
            Gathered::Stack { len, .. } => *len,
            Gathered::Heap(values) => values.len(),
        }
    }

    fn push(&mut self, value: v8::Local<'s, v8::Value>) {
        match self {
            Gathered::Stack { values, len } if *len < ON_STACK => {
                values[*len].write(value);
                *len += 1;
            }
            Gathered::Stack { .. } => {
                // More than the length hint said: move to the heap.
                let mut heap = Vec::with_capacity(ON_STACK * 2);
                heap.extend_from_slice(self.as_slice());
                heap.push(value);
                *self = Gathered::Heap(heap);
            }
            Gathered::Heap(values) => values.push(value),
        }
    }

    fn as_slice(&self) -> &[v8::Local<'s, v8::Value>] {
        match self {
            // SAFETY: the first `len` slots were written by `push`; `Local` is `Copy` and has
            // the layout of the `MaybeUninit` that holds it.
            Gathered::Stack { values, len } => unsafe {
                std::slice::from_raw_parts(values.as_ptr().cast(), *len)
            },
            Gathered::Heap(values) => values,
        }
    }
}

/// An array in the making: values gathered, then made in one call.
pub(super) struct SeqWriter<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    values: Gathered<'s>,
    /// For a tuple variant: the variant it is wrapped in.
    variant: Option<&'static str>,
}

impl<'s> SeqWriter<'_, 's, '_> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let index = self.values.len() as u32;
        let value = value
            .serialize(Serializer::new(self.scope))
            .map_err(|error| error.at_index(index))?;
        self.values.push(value);
        Ok(())
    }

    fn finish(self) -> Result<v8::Local<'s, v8::Value>, Error> {
        let array = __derive::array_of(self.scope, self.values.as_slice());
        match self.variant {
            Some(variant) => tagged(self.scope, variant, array),
            None => Ok(array),
        }
    }
}

/// The four sequence traits, alike: each element pushed, the array made at the end.
macro_rules! sequences {
    ($($trait:ident::$method:ident),*) => {$(
        impl<'s> ser::$trait for SeqWriter<'_, 's, '_> {
            type Ok = v8::Local<'s, v8::Value>;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Self::Ok, Error> {
                self.finish()
            }
        }
    )*};
}

sequences!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// An object in the making: a plain object, properties defined as they come.
pub(super) struct ObjectWriter<'a, 's, 'i> {
    scope: &'a mut v8::PinScope<'s, 'i>,
    object: v8::Local<'s, v8::Object>,
    /// A map's key, whose value comes next.
    key: Option<v8::Local<'s, v8::Value>>,
    /// For a struct variant: the variant it is wrapped in.
    variant: Option<&'static str>,
}

impl<'s> ObjectWriter<'_, 's, '_> {
    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<(), Error> {
        let value = value
            .serialize(Serializer::new(self.scope))
            .map_err(|error| error.at_key(name))?;
        let key = static_name(self.scope, name);
        define(self.scope, self.object, key.into(), value)
    }

    fn finish(self) -> Result<v8::Local<'s, v8::Value>, Error> {
        match self.variant {
            Some(variant) => tagged(self.scope, variant, self.object.into()),
            None => Ok(self.object.into()),
        }
    }
}

impl<'s> ser::SerializeMap for ObjectWriter<'_, 's, '_> {
    type Ok = v8::Local<'s, v8::Value>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let key = key.serialize(Serializer::new(self.scope))?;
        // Number keys are property names as their decimal text, as in JavaScript.
        let key = if key.is_number() || key.is_big_int() {
            key.to_string(self.scope)
                .map(Into::into)
                .ok_or_else(__derive::threw)?
        } else {
            key
        };
        self.key = Some(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .expect("serde writes a key before its value");
        let value = value
            .serialize(Serializer::new(self.scope))
            .map_err(|error| {
                let name = key.to_rust_string_lossy(self.scope);
                error.at_key(&name)
            })?;
        define(self.scope, self.object, key, value)
    }
    fn end(self) -> Result<Self::Ok, Error> {
        self.finish()
    }
}

/// Structs and struct variants alike: each field defined as it comes.
macro_rules! structs {
    ($($trait:ident),*) => {$(
        impl<'s> ser::$trait for ObjectWriter<'_, 's, '_> {
            type Ok = v8::Local<'s, v8::Value>;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                name: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(name, value)
            }
            fn end(self) -> Result<Self::Ok, Error> {
                self.finish()
            }
        }
    )*};
}

structs!(SerializeStruct, SerializeStructVariant);
