//! [`FromV8`] and [`ToV8`] for the Rust types structured values are made of (booleans,
//! numbers, strings, `Option`, `Vec`, `Box`), so that `#[derive(FromV8, ToV8)]` structs nest
//! them and each other; and the helpers the derives call.
//!
//! Numbers convert as op arguments do (`i32`: `ToInt32`, `f64` as is); the 64-bit and
//! pointer-sized integers as `#[number]` ones (a Number, exact up to 2^53 - 1: beyond, a
//! `RangeError`). `Option` is `null`/`undefined` for `None`; `Vec` is an array.

use crate::convert::FromJsNumber;
use crate::{FromV8, OpError, ToV8};

fn expected(what: &str) -> OpError {
    OpError::type_error(format!("expected {what}"))
}

impl<'s> FromV8<'s> for bool {
    fn from_v8(
        _: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        if value.is_boolean() {
            Ok(value.is_true())
        } else {
            Err(expected("a boolean"))
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
                    .map_err(|_| expected(<$ty as FromJsNumber>::EXPECTED))
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
                    .map_err(|_| expected("a number"))
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
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        v8::Local::<v8::String>::try_from(value)
            .map(|string| string.to_rust_string_lossy(scope))
            .map_err(|_| expected("a string"))
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
        let array = v8::Local::<v8::Array>::try_from(value).map_err(|_| expected("an array"))?;
        (0..array.length())
            .map(|index| {
                let item = array
                    .get_index(scope, index)
                    .ok_or_else(|| OpError::generic("reading an array element threw"))?;
                T::from_v8(scope, item).map_err(|error| prefixed(&format!("[{index}]"), error))
            })
            .collect()
    }
}

impl<T: ToV8> ToV8 for Vec<T> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let array = v8::Array::new(scope, self.len() as i32);
        for (index, item) in self.into_iter().enumerate() {
            let item = item.to_v8(scope)?;
            // Defining elements of a fresh array runs no JavaScript.
            array.set_index(scope, index as u32, item);
        }
        Ok(array.into())
    }
}

/// `error` with its message prefixed by `at` (`a: `, `[2]: `), its class kept.
fn prefixed(at: &str, error: OpError) -> OpError {
    let message = format!("{at}: {}", error.message());
    OpError::new(error.class(), message)
}

/// What `#[derive(FromV8, ToV8)]` calls. Not a public API.
#[doc(hidden)]
pub mod __derive {
    use super::prefixed;
    use crate::{FromV8, OpError, ToV8};

    /// The value as an object, or a `TypeError` naming the type.
    pub fn object<'s>(
        value: v8::Local<'s, v8::Value>,
        type_name: &str,
    ) -> Result<v8::Local<'s, v8::Object>, OpError> {
        v8::Local::<v8::Object>::try_from(value)
            .map_err(|_| OpError::type_error(format!("expected an object ({type_name})")))
    }

    /// The value as an array of `len` elements, or a `TypeError` naming the type.
    pub fn array<'s>(
        value: v8::Local<'s, v8::Value>,
        len: u32,
        type_name: &str,
    ) -> Result<v8::Local<'s, v8::Array>, OpError> {
        v8::Local::<v8::Array>::try_from(value)
            .ok()
            .filter(|array| array.length() == len)
            .ok_or_else(|| {
                OpError::type_error(format!("expected an array of {len} elements ({type_name})"))
            })
    }

    /// Property `key` of `object`, converted; `None` when it is `undefined` (missing).
    pub fn field<'s, T: FromV8<'s>>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: &str,
    ) -> Result<Option<T>, OpError> {
        let name =
            v8::String::new(scope, key).ok_or_else(|| OpError::range_error("key too long"))?;
        let value = object
            .get(scope, name.into())
            .ok_or_else(|| OpError::generic(format!("reading '{key}' threw")))?;
        if value.is_undefined() {
            return Ok(None);
        }
        T::from_v8(scope, value)
            .map(Some)
            .map_err(|error| prefixed(key, error))
    }

    /// Element `index` of `array`, converted.
    pub fn element<'s, T: FromV8<'s>>(
        scope: &mut v8::PinScope<'s, '_>,
        array: v8::Local<'s, v8::Array>,
        index: u32,
    ) -> Result<T, OpError> {
        let value = array
            .get_index(scope, index)
            .ok_or_else(|| OpError::generic(format!("reading [{index}] threw")))?;
        T::from_v8(scope, value).map_err(|error| prefixed(&format!("[{index}]"), error))
    }

    /// A required field that is missing.
    pub fn missing(key: &str, type_name: &str) -> OpError {
        OpError::type_error(format!("missing required field '{key}' on '{type_name}'"))
    }

    /// Sets property `key` of `object` to `value` converted.
    pub fn set_field<T: ToV8>(
        scope: &mut v8::PinScope<'_, '_>,
        object: v8::Local<'_, v8::Object>,
        key: &str,
        value: T,
    ) -> Result<(), OpError> {
        let value = value.to_v8(scope).map_err(|error| prefixed(key, error))?;
        let name =
            v8::String::new(scope, key).ok_or_else(|| OpError::range_error("key too long"))?;
        // A data property of a fresh plain object: no setter runs.
        object.set(scope, name.into(), value);
        Ok(())
    }

    /// A fresh plain object.
    pub fn new_object<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Object> {
        v8::Object::new(scope)
    }

    /// A fresh array of `values`.
    pub fn new_array<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        values: &[v8::Local<'s, v8::Value>],
    ) -> v8::Local<'s, v8::Value> {
        v8::Array::new_with_elements(scope, values).into()
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
                let array = __derive::array(value, $len, "a tuple")?;
                Ok(($(__derive::element::<$name>(scope, array, $index)?,)+))
            }
        }

        impl<$($name: ToV8),+> ToV8 for ($($name,)+) {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let values = [$(self.$index.to_v8(scope)?),+];
                Ok(__derive::new_array(scope, &values))
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
                let object = __derive::object(value, "a map")?;
                let keys = object
                    .get_own_property_names(scope, Default::default())
                    .ok_or_else(|| OpError::generic("listing the object's keys threw"))?;
                let mut map = Self::default();
                for index in 0..keys.length() {
                    let key = keys
                        .get_index(scope, index)
                        .ok_or_else(|| OpError::generic("reading a key threw"))?;
                    let key = key.to_rust_string_lossy(scope);
                    if let Some(value) = __derive::field::<T>(scope, object, &key)? {
                        map.insert(key, value);
                    }
                }
                Ok(map)
            }
        }

        impl<T: ToV8> ToV8 for std::collections::$map<String, T> {
            fn to_v8<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let object = __derive::new_object(scope);
                for (key, value) in self {
                    __derive::set_field(scope, object, &key, value)?;
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
            .map_err(|_| expected("a value of the handle's type"))?;
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
