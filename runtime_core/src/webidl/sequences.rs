//! `sequence<T>` as `Vec<T>`: read through the iterator protocol, as the spec requires (so
//! arrays, sets, generators and any iterable work; a getter or iterator that throws
//! propagates); `record<DOMString, V>` as a string-keyed map.

use super::{error, WebIdlConverter};
use crate::structured::__derive::threw;
use crate::structured::{limits, Depth, Keys, ValueError};
use crate::OpError;

static ITERATOR_KEYS: Keys<3> = Keys::new(["next", "done", "value"]);

impl<'s, T: WebIdlConverter<'s>> WebIdlConverter<'s> for Vec<T> {
    type Options = T::Options;

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &T::Options,
    ) -> Result<Self, OpError> {
        let not_a_sequence = || error("can not be converted to a sequence");
        let object = v8::Local::<v8::Object>::try_from(value).map_err(|_| not_a_sequence())?;
        let _depth = Depth::enter()?;
        let iterator_key = v8::Symbol::get_iterator(scope);
        let method = object.get(scope, iterator_key.into()).ok_or_else(threw)?;
        let method = v8::Local::<v8::Function>::try_from(method).map_err(|_| not_a_sequence())?;
        let iterator = method.call(scope, value, &[]).ok_or_else(threw)?;
        let iterator = v8::Local::<v8::Object>::try_from(iterator).map_err(|_| not_a_sequence())?;
        let [next_key, done_key, value_key] = ITERATOR_KEYS.get(scope);
        let next = iterator.get(scope, next_key.into()).ok_or_else(threw)?;
        let next = v8::Local::<v8::Function>::try_from(next).map_err(|_| not_a_sequence())?;
        let mut items = Vec::new();
        let mut budget = limits::ElementBudget::default();
        loop {
            let result = next.call(scope, iterator.into(), &[]).ok_or_else(threw)?;
            let result = v8::Local::<v8::Object>::try_from(result)
                .map_err(|_| error("has an iterator whose result is not an object"))?;
            let done = result.get(scope, done_key.into()).ok_or_else(threw)?;
            if done.boolean_value(scope) {
                return Ok(items);
            }
            let item = result.get(scope, value_key.into()).ok_or_else(threw)?;
            let index = u32::try_from(items.len()).unwrap_or(u32::MAX);
            budget.before_element(scope, index)?;
            items.push(
                T::convert(scope, item, options)
                    .map_err(|error| ValueError::at_index(error, index))?,
            );
        }
    }
}

/// `record<DOMString, V>` as a string-keyed map: the object's own enumerable string keys, in
/// the object's order (`HashMap` loses it; `BTreeMap` sorts).
macro_rules! records {
    ($($map:ident),*) => {$(
        impl<'s, V: WebIdlConverter<'s>> WebIdlConverter<'s> for std::collections::$map<String, V> {
            type Options = V::Options;

            fn convert(
                scope: &mut v8::PinScope<'s, '_>,
                value: v8::Local<'s, v8::Value>,
                options: &V::Options,
            ) -> Result<Self, OpError> {
                let object = v8::Local::<v8::Object>::try_from(value)
                    .map_err(|_| error("can not be converted to a record"))?;
                let _depth = Depth::enter()?;
                let keys = crate::structured::__derive::own_keys(scope, object)?;
                let len = limits::checked_len(scope, keys.length())?;
                let mut record = Self::default();
                let mut budget = limits::ElementBudget::default();
                for index in 0..len {
                    budget.before_element(scope, index)?;
                    let key = keys.get_index(scope, index).ok_or_else(threw)?;
                    let name = key.to_rust_string_lossy(scope);
                    let item = object.get(scope, key).ok_or_else(threw)?;
                    let item = V::convert(scope, item, options)
                        .map_err(|error| ValueError::at_key(error, &name))?;
                    record.insert(name, item);
                }
                Ok(record)
            }
        }
    )*};
}

records!(HashMap, BTreeMap);
