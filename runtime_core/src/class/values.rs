//! Instances as plain values, for what a host passes in and reads back outside ops (a call's
//! arguments, its answer): [`Wrapped`] makes one, [`Held`] reads one back, type-checked as an
//! op's `#[cppgc]` argument is.

use super::instance::{hold, Held};
use super::templates::new_instance;
use super::Trace;
use crate::{FromV8, OpError, ToV8};

/// `value` as a new instance of `T`'s class (a plain wrapper object when `T` is no class), as
/// an op's `#[cppgc] T` return makes it: a host hands a native object to JavaScript in a
/// call's arguments (a request's body source, say), which ops then take as `#[cppgc] &T`.
pub struct Wrapped<T>(pub T);

impl<T: Trace + 'static> ToV8 for Wrapped<T> {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        new_instance(scope, self.0)
            .map(Into::into)
            .ok_or_else(|| OpError::type_error("making the wrapper object threw"))
    }
}

/// An instance of `T`'s class (or a class derived from it), held: anything else is a
/// `TypeError`.
impl<'s, T: Trace + 'static> FromV8<'s> for Held<T> {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        v8::Local::<v8::Object>::try_from(value)
            .ok()
            .filter(|object| object.is_api_wrapper())
            .and_then(|object| hold::<T>(scope, object))
            .ok_or_else(|| {
                OpError::type_error(format!(
                    "expected an instance of {}",
                    std::any::type_name::<T>()
                ))
            })
    }
}
