//! [`FromV8`] and [`ToV8`] for the std types structured values are made of.

use super::__derive;
use super::{limits, Depth, ValueError};
use crate::convert::FromJsNumber;
use crate::{FromV8, OpError, ToV8};

fn expected(what: &'static str, value: v8::Local<'_, v8::Value>) -> OpError {
    ValueError::expected(what, value).into()
}

/// Any value, ignored: the result of a call whose value does not matter.
impl<'s> FromV8<'s> for () {
    fn from_v8(_: &mut v8::PinScope<'s, '_>, _: v8::Local<'s, v8::Value>) -> Result<Self, OpError> {
        Ok(())
    }
}

/// `undefined`.
impl ToV8 for () {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::undefined(scope).into())
    }
}

impl<'s> FromV8<'s> for bool {
    fn from_v8(
        _: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        if value.is_boolean() {
            Ok(value.is_true())
        } else {
            Err(expected("a boolean", value))
        }
    }
}

impl ToV8 for bool {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Boolean::new(scope, self).into())
    }
}

macro_rules! numbers {
    ($($ty:ty),*) => {$(
        impl<'s> FromV8<'s> for $ty {
            fn from_v8(
                _: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
            ) -> Result<Self, OpError> {
                v8::Local::<v8::Number>::try_from(value)
                    .map(|number| <$ty>::from_js_number(number.value()))
                    .map_err(|_| expected(<$ty as FromJsNumber>::EXPECTED, value))
            }
        }

        impl ToV8 for $ty {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                // Exact only up to 2^53 - 1 (the narrower types always are), as `#[number]`.
                if (self as i128).unsigned_abs() > (1 << 53) - 1 {
                    return Err(OpError::range_error(format!(
                        "{self} is beyond 2^53 - 1 in magnitude, where a Number stops being exact"
                    )));
                }
                Ok(v8::Number::new(scope, self as f64).into())
            }
        }
    )*};
}

numbers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! floats {
    ($($ty:ty),*) => {$(
        impl<'s> FromV8<'s> for $ty {
            fn from_v8(
                _: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
            ) -> Result<Self, OpError> {
                v8::Local::<v8::Number>::try_from(value)
                    .map(|number| number.value() as $ty)
                    .map_err(|_| expected("a number", value))
            }
        }

        impl ToV8 for $ty {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                Ok(v8::Number::new(scope, self as f64).into())
            }
        }
    )*};
}

floats!(f32, f64);

impl<'s> FromV8<'s> for String {
    const READS_ONE_BYTE: bool = true;

    fn from_one_byte(latin1: &[u8]) -> Result<Self, OpError> {
        Ok(crate::values::string_buffers::latin1_to_string(latin1))
    }

    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        v8::Local::<v8::String>::try_from(value)
            .map(|string| crate::values::string_buffers::v8_to_string(scope, string))
            .map_err(|_| expected("a string", value))
    }
}

impl ToV8 for String {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        v8::String::new(scope, &self)
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("a string longer than V8 allows"))
    }
}

impl ToV8 for &str {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        v8::String::new(scope, self)
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("a string longer than V8 allows"))
    }
}

/// A one-byte string of its Latin-1 bytes (an HTTP header's name or value): no UTF-8 on the
/// way in or out.
impl ToV8 for crate::ByteString {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        v8::String::new_from_one_byte(scope, &self, v8::NewStringType::Normal)
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("a string longer than V8 allows"))
    }
}

/// A string of characters up to U+00FF, as its Latin-1 bytes (else a `TypeError`).
impl<'s> FromV8<'s> for crate::ByteString {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        let string =
            v8::Local::<v8::String>::try_from(value).map_err(|_| expected("a string", value))?;
        crate::ByteString::of_string(scope, string)
            .ok_or_else(|| ValueError::phrase("must be a string of characters up to U+00FF").into())
    }
}

/// Bytes are a `Uint8Array`: read from any ArrayBufferView or ArrayBuffer (copied: the value
/// is kept beyond the call), given back as a `Uint8Array` over the bytes' memory (no copy when
/// the `Bytes` is the only handle to its bytes: a chunk hyper read, say).
impl<'s> FromV8<'s> for bytes::Bytes {
    fn from_v8(
        _: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        super::copied_bytes(value)
            .map(Into::into)
            .ok_or_else(|| expected("an ArrayBufferView or an ArrayBuffer", value))
    }
}

impl ToV8 for bytes::Bytes {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let (store, range) = crate::values::js_buffer::bytes_store(self);
        let buffer = v8::ArrayBuffer::with_backing_store(scope, &store);
        v8::Uint8Array::new(scope, buffer, range.start, range.len())
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("a buffer longer than V8 allows"))
    }
}

impl<'s, T: FromV8<'s>> FromV8<'s> for Option<T> {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        if value.is_null_or_undefined() {
            Ok(None)
        } else {
            T::from_v8(scope, value).map(Some)
        }
    }
}

impl<T: ToV8> ToV8 for Option<T> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        match self {
            Some(value) => value.to_v8(scope),
            None => Ok(v8::null(scope).into()),
        }
    }
}

impl<'s, T: FromV8<'s>> FromV8<'s> for Box<T> {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        T::from_v8(scope, value).map(Box::new)
    }
}

impl<T: ToV8> ToV8 for Box<T> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        (*self).to_v8(scope)
    }
}

impl<'s, T: FromV8<'s>> FromV8<'s> for Vec<T> {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        let array =
            v8::Local::<v8::Array>::try_from(value).map_err(|_| expected("an array", value))?;
        let _depth = Depth::enter()?;
        // `length` is the script's word, not its memory: grow as elements are read.
        let len = limits::checked_len(scope, array.length())?;
        let mut elements = Vec::with_capacity(limits::reserve_for(len));
        let mut budget = limits::ElementBudget::default();
        for index in 0..len {
            budget.before_element(scope, index)?;
            elements.push(__derive::element(scope, array, index)?);
        }
        Ok(elements)
    }
}

impl<T: ToV8> ToV8 for Vec<T> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        __derive::array_from(scope, self.into_iter())
    }
}

impl<'s, T: FromV8<'s>> FromV8<'s> for Box<[T]> {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        Vec::<T>::from_v8(scope, value).map(Vec::into_boxed_slice)
    }
}

impl<T: ToV8> ToV8 for Box<[T]> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        self.into_vec().to_v8(scope)
    }
}

/// Tuples are arrays of their length.
macro_rules! tuples {
    ($($len:literal: ($($name:ident $index:tt),+);)*) => {$(
        impl<'s, $($name: FromV8<'s>),+> FromV8<'s> for ($($name,)+) {
            fn from_v8(
                scope: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
            ) -> Result<Self, OpError> {
                let array = __derive::array(value, $len, concat!("an array of ", stringify!($len), " elements"))?;
                let _depth = Depth::enter()?;
                Ok(($(__derive::element::<$name>(scope, array, $index)?,)+))
            }
        }

        impl<$($name: ToV8),+> ToV8 for ($($name,)+) {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let values = [$(__derive::element_value(scope, self.$index, $index)?),+];
                Ok(__derive::array_of(scope, &values))
            }
        }
    )*};
}

tuples! {
    1: (A 0);
    2: (A 0, B 1);
    3: (A 0, B 1, C 2);
    4: (A 0, B 1, C 2, D 3);
    5: (A 0, B 1, C 2, D 3, E 4);
    6: (A 0, B 1, C 2, D 3, E 4, F 5);
    7: (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    8: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    9: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    10: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    11: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    12: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}

/// String-keyed maps are objects (their own enumerable string keys).
macro_rules! maps {
    ($($map:ident),*) => {$(
        impl<'s, T: FromV8<'s>> FromV8<'s> for std::collections::$map<String, T> {
            fn from_v8(
                scope: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
            ) -> Result<Self, OpError> {
                let object = __derive::object(value, "an object")?;
                let _depth = Depth::enter()?;
                let keys = __derive::own_keys(scope, object)?;
                let len = limits::checked_len(scope, keys.length())?;
                let mut map = Self::default();
                let mut budget = limits::ElementBudget::default();
                for index in 0..len {
                    budget.before_element(scope, index)?;
                    let key = keys
                        .get_index(scope, index)
                        .ok_or_else(__derive::threw)?;
                    let name = key.to_rust_string_lossy(scope);
                    let value = object.get(scope, key).ok_or_else(__derive::threw)?;
                    let value = T::from_v8(scope, value)
                        .map_err(|error| ValueError::at_key(error, &name))?;
                    map.insert(name, value);
                }
                Ok(map)
            }
        }

        impl<T: ToV8> ToV8 for std::collections::$map<String, T> {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let object = v8::Object::new(scope);
                for (key, value) in self {
                    let value = value
                        .to_v8(scope)
                        .map_err(|error| ValueError::at_key(error, &key))?;
                    let key = v8::String::new(scope, &key)
                        .ok_or_else(|| OpError::range_error("a key longer than V8 allows"))?;
                    __derive::define(scope, object, key.into(), value)?;
                }
                Ok(object.into())
            }
        }
    )*};
}

maps!(HashMap, BTreeMap);

impl<'s, T> FromV8<'s> for v8::Global<T>
where
    v8::Local<'s, T>: TryFrom<v8::Local<'s, v8::Value>>,
{
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        let local = v8::Local::<T>::try_from(value)
            .map_err(|_| expected("a value of the handle's type", value))?;
        Ok(v8::Global::new(scope, local))
    }
}

impl<T> ToV8 for v8::Global<T>
where
    for<'l> v8::Local<'l, T>: Into<v8::Local<'l, v8::Value>>,
{
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Local::new(scope, &self).into())
    }
}

/// A handle of any scope, as a handle of the caller's.
impl<T> ToV8 for v8::Local<'_, T>
where
    for<'l> v8::Local<'l, T>: Into<v8::Local<'l, v8::Value>>,
{
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Local::new(scope, self).into())
    }
}
