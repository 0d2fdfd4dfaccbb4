//! The `#[serde]` kind: values made and read through serde (see `crate::serde`).

/// An async op's `#[serde]` result (settled under a `TryCatch`, as `ToV8` ones).
impl<T: ::serde::Serialize> super::IntoValue<super::kind::Serde> for T {
    const MAY_RUN_JS: bool = true;

    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, crate::OpError> {
        crate::serde::to_v8(scope, &self)
    }
}

/// A `#[serde]` return: as a `ToV8` one, through [`Serde`](crate::serde::Serde).
impl<T: ::serde::Serialize> super::IntoReturn<super::kind::Serde> for T {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut super::SlowCall<'_, '_>) -> Result<(), super::Thrown> {
        super::IntoReturn::<super::kind::ToV8>::set_return(crate::serde::Serde(self), call)
    }
}
