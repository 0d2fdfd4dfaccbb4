//! Structured values: [`FromV8`](crate::FromV8) and [`ToV8`](crate::ToV8) for the std types
//! (booleans, numbers, strings, `Option`, `Vec`, `Box`, `Box<[T]>`, tuples up to 12,
//! `HashMap`/`BTreeMap<String, T>`, `v8::Global`), and what `#[derive(FromV8, ToV8)]` calls.
//!
//! Numbers convert as op arguments do (`i32`: `ToInt32`, `f64` as is); the 64-bit and
//! pointer-sized integers as `#[number]` ones (a Number, exact up to 2^53 - 1: beyond, a
//! `RangeError`). `Option` is `null`/`undefined` for `None`; `Vec`, `Box<[T]>` and tuples are
//! arrays; maps are objects (own enumerable string keys).
//!
//! A value that does not convert is a [`ValueError`] saying where (`headers[2].name must be a
//! string, received a number`); an exception a getter or proxy throws on the way propagates
//! unchanged. Values nested deeper than [`MAX_DEPTH`] (a cyclic object) are a `RangeError`.

pub(crate) mod keys;
pub mod limits;
mod std_impls;
mod value_error;

pub use keys::Keys;
pub use value_error::{Depth, ValueError, MAX_DEPTH};

/// A copy of the bytes of an ArrayBufferView or an ArrayBuffer; `None` for any other value.
pub(crate) fn copied_bytes(value: v8::Local<'_, v8::Value>) -> Option<Vec<u8>> {
    if let Ok(view) = v8::Local::<v8::ArrayBufferView>::try_from(value) {
        let mut bytes = vec![0; view.byte_length()];
        view.copy_contents(&mut bytes);
        return Some(bytes);
    }
    let buffer = v8::Local::<v8::ArrayBuffer>::try_from(value).ok()?;
    let store = buffer.get_backing_store();
    Some(store.iter().map(std::cell::Cell::get).collect())
}

/// What `#[derive(FromV8, ToV8)]` calls. Not a public API.
#[doc(hidden)]
pub mod __derive {
    pub use super::{Depth, Keys, ValueError};
    use crate::{FromV8, OpError, ToV8};

    /// The error for a property read that threw: the exception itself is what the caller
    /// sees (conversions run under a `TryCatch` that throws it on), this only stops the
    /// conversion.
    #[cold]
    pub fn threw() -> OpError {
        OpError::generic("a property read threw")
    }

    /// The value as an object, or a `TypeError` saying `what` was expected.
    #[inline]
    pub fn object<'s>(
        value: v8::Local<'s, v8::Value>,
        what: &'static str,
    ) -> Result<v8::Local<'s, v8::Object>, OpError> {
        v8::Local::<v8::Object>::try_from(value)
            .map_err(|_| ValueError::expected(what, value).into())
    }

    /// The value as an array of `len` elements, or a `TypeError` saying `what` was expected.
    #[inline]
    pub fn array<'s>(
        value: v8::Local<'s, v8::Value>,
        len: u32,
        what: &'static str,
    ) -> Result<v8::Local<'s, v8::Array>, OpError> {
        v8::Local::<v8::Array>::try_from(value)
            .ok()
            .filter(|array| array.length() == len)
            .ok_or_else(|| ValueError::expected(what, value).into())
    }

    /// Property `key` (named `name` in errors) of `object`: `None` when it is `undefined`.
    #[inline]
    pub fn field<'s, T: FromV8<'s>>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: v8::Local<'s, v8::String>,
        name: &str,
    ) -> Result<Option<T>, OpError> {
        let value = property(scope, object, key)?;
        if value.is_undefined() {
            return Ok(None);
        }
        T::from_v8(scope, value)
            .map(Some)
            .map_err(|error| ValueError::at_key(error, name))
    }

    /// Property `key` of `object` as the derive reads it: `undefined` when only a built-in
    /// prototype defines it (see [`polluted`]).
    #[inline]
    pub fn property<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: v8::Local<'s, v8::String>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let value = object.get(scope, key.into()).ok_or_else(threw)?;
        if !value.is_undefined() && polluted(scope, object, key)? {
            return Ok(v8::undefined(scope).into());
        }
        Ok(value)
    }

    /// Whether `key`, defined on `object` or its prototype chain, is defined only on a
    /// built-in prototype (`Object.prototype`, `Array.prototype`): put
    /// there by a script, it is nobody's data and must not fill a field. Inherited values from
    /// any other prototype (a class's getters) are read, as deno's derive reads them.
    #[inline]
    pub fn polluted<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: v8::Local<'s, v8::String>,
    ) -> Result<bool, OpError> {
        if object
            .has_own_property(scope, key.into())
            .ok_or_else(threw)?
        {
            return Ok(false);
        }
        inherited_from_builtin(scope, object, key.into())
    }

    #[cold]
    #[inline(never)]
    fn inherited_from_builtin<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: v8::Local<'s, v8::Name>,
    ) -> Result<bool, OpError> {
        // The intrinsics, reached from fresh values: a script cannot swap them (unlike
        // `globalThis.Object`), and their prototypes are immutable.
        let object_prototype = v8::Object::new(scope).get_prototype(scope);
        let array_prototype = v8::Array::new(scope, 0).get_prototype(scope);
        let builtins = [object_prototype, array_prototype];
        let mut holder = object.get_prototype(scope);
        // A proxy's `getPrototypeOf` may loop: bounded as deeply as any value is.
        for _ in 0..super::MAX_DEPTH {
            let Some(prototype) = holder.and_then(|p| v8::Local::<v8::Object>::try_from(p).ok())
            else {
                return Ok(false);
            };
            if prototype.has_own_property(scope, key).ok_or_else(threw)? {
                let prototype: v8::Local<v8::Value> = prototype.into();
                return Ok(builtins.contains(&Some(prototype)));
            }
            holder = prototype.get_prototype(scope);
        }
        Ok(false)
    }

    /// Element `index` of `array`, converted.
    #[inline]
    pub fn element<'s, T: FromV8<'s>>(
        scope: &mut v8::PinScope<'s, '_>,
        array: v8::Local<'s, v8::Array>,
        index: u32,
    ) -> Result<T, OpError> {
        let value = array.get_index(scope, index).ok_or_else(threw)?;
        T::from_v8(scope, value).map_err(|error| ValueError::at_index(error, index))
    }

    /// `value` converted as the string naming an enum's variant.
    #[inline]
    pub fn variant_name(
        scope: &mut v8::PinScope<'_, '_>,
        value: v8::Local<'_, v8::Value>,
    ) -> Option<String> {
        let string = v8::Local::<v8::String>::try_from(value).ok()?;
        Some(crate::values::string_buffers::v8_to_string(scope, string))
    }

    /// A one-byte string's contents as a `&str` (ASCII in place, other Latin-1 transcoded into
    /// a stack buffer), handed to `f`: how `from_one_byte` reads a variant's name.
    #[inline]
    pub fn with_one_byte_str<R>(latin1: &[u8], f: impl FnOnce(&str) -> R) -> R {
        f(crate::values::string_buffers::Room::new().latin1_as_str(latin1))
    }

    /// A string that is none of an enum's forms (as [`unexpected`] says of one).
    #[cold]
    pub fn unexpected_string(what: &'static str) -> OpError {
        ValueError::expected_received(what, "a string").into()
    }

    /// A required field that is missing.
    #[cold]
    pub fn missing(name: &str, type_name: &'static str) -> OpError {
        ValueError::missing(name, type_name).into()
    }

    /// A value that is none of an enum's forms.
    #[cold]
    pub fn unexpected(what: &'static str, value: v8::Local<'_, v8::Value>) -> OpError {
        ValueError::expected(what, value).into()
    }

    /// `value` converted, for field `name`.
    #[inline]
    pub fn value<'s, T: ToV8>(
        scope: &mut v8::PinScope<'s, '_>,
        value: T,
        name: &str,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        value
            .to_v8(scope)
            .map_err(|error| ValueError::at_key(error, name))
    }

    /// `value` converted, for element `index`.
    #[inline]
    pub fn element_value<'s, T: ToV8>(
        scope: &mut v8::PinScope<'s, '_>,
        value: T,
        index: u32,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        value
            .to_v8(scope)
            .map_err(|error| ValueError::at_index(error, index))
    }

    /// An object with these properties (and a `null` prototype, as deno's derive), made in
    /// one call.
    #[inline]
    pub fn object_of<'s, const N: usize>(
        scope: &mut v8::PinScope<'s, '_>,
        keys: [v8::Local<'s, v8::String>; N],
        values: &[v8::Local<'s, v8::Value>; N],
    ) -> v8::Local<'s, v8::Value> {
        let null = v8::null(scope).into();
        let keys: [v8::Local<'s, v8::Name>; N] = keys.map(Into::into);
        v8::Object::with_prototype_and_properties(scope, null, &keys, values).into()
    }

    /// An empty object with a `null` prototype, for properties defined one by one.
    #[inline]
    pub fn null_object<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Object> {
        let null = v8::null(scope).into();
        v8::Object::with_prototype_and_properties(scope, null, &[], &[])
    }

    /// An array of `values`.
    #[inline]
    pub fn array_of<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        values: &[v8::Local<'s, v8::Value>],
    ) -> v8::Local<'s, v8::Value> {
        v8::Array::new_with_elements(scope, values).into()
    }

    /// Defines an own data property (no setter on the prototype chain runs).
    #[inline]
    pub fn define(
        scope: &mut v8::PinScope<'_, '_>,
        object: v8::Local<'_, v8::Object>,
        key: v8::Local<'_, v8::Name>,
        value: v8::Local<'_, v8::Value>,
    ) -> Result<(), OpError> {
        object
            .create_data_property(scope, key, value)
            .map(|_| ())
            .ok_or_else(threw)
    }

    /// An array of the `len` values `values` yields (converted one by one, each error located
    /// at its index). Up to 16 values are gathered on the stack, more in one temporary `Vec`:
    /// V8 makes the array from them in one call, so no setter on `Array.prototype` runs.
    pub fn array_from<'s, T: ToV8>(
        scope: &mut v8::PinScope<'s, '_>,
        values: impl ExactSizeIterator<Item = T>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        const ON_STACK: usize = 16;
        let len = values.len();
        if len > ON_STACK {
            let converted = values
                .enumerate()
                .map(|(index, value)| element_value(scope, value, index as u32))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(array_of(scope, &converted));
        }
        let mut values = values;
        let mut gathered = [std::mem::MaybeUninit::<v8::Local<'s, v8::Value>>::uninit(); ON_STACK];
        let mut filled = 0;
        for (slot, value) in gathered.iter_mut().zip(values.by_ref()) {
            slot.write(element_value(scope, value, filled as u32)?);
            filled += 1;
        }
        // SAFETY: the first `filled` slots were written just above; `Local` is `Copy` (nothing
        // to drop) and has the layout of the `MaybeUninit` that held it.
        let converted = unsafe {
            std::slice::from_raw_parts(gathered.as_ptr().cast::<v8::Local<'s, v8::Value>>(), filled)
        };
        // An iterator longer than it said (`len` is a promise, not a guarantee): the rest too.
        if let Some(next) = values.next() {
            let mut all = converted.to_vec();
            all.push(element_value(scope, next, filled as u32)?);
            for value in values {
                let index = all.len() as u32;
                all.push(element_value(scope, value, index)?);
            }
            return Ok(array_of(scope, &all));
        }
        Ok(array_of(scope, converted))
    }

    /// The object's own enumerable string keys.
    pub fn own_keys<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
    ) -> Result<v8::Local<'s, v8::Array>, OpError> {
        object
            .get_own_property_names(
                scope,
                v8::GetPropertyNamesArgs {
                    mode: v8::KeyCollectionMode::OwnOnly,
                    property_filter: v8::PropertyFilter::ONLY_ENUMERABLE
                        | v8::PropertyFilter::SKIP_SYMBOLS,
                    index_filter: v8::IndexFilter::IncludeIndices,
                    key_conversion: v8::KeyConversionMode::ConvertToString,
                },
            )
            .ok_or_else(threw)
    }

    /// Sets the tag of an internally tagged variant on its body, which must be an object.
    pub fn set_tag<'s>(
        scope: &mut v8::PinScope<'s, '_>,
        body: v8::Local<'s, v8::Value>,
        tag: v8::Local<'s, v8::String>,
        name: v8::Local<'s, v8::String>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let object = v8::Local::<v8::Object>::try_from(body).map_err(|_| {
            OpError::type_error("an internally tagged variant must convert to an object")
        })?;
        define(scope, object, tag.into(), name.into())?;
        Ok(body)
    }
}
