//! How `#[op]` and the derives name a type for the declarations file ([`crate::TsType`]):
//! `(&&TsProbe::<T>::NEW).ts_input("T")` is the type's declaration where `T: FromV8`, and a
//! `missing` one where not, by autoref specialization. Without it, a type lacking its impl would
//! get a second error pointing at `#[op]`; the conversion already reports it at the argument.

use std::marker::PhantomData;

use crate::{FromV8, ToV8, TsType};

/// Stands for `T` in the calls above.
pub struct TsProbe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> TsProbe<T> {
    pub const NEW: Self = Self(PhantomData);
}

/// Where `T: FromV8`: found first, on `&&TsProbe<T>`.
pub trait TsInput {
    fn ts_input(&self, name: &'static str) -> TsType;
}

impl<T: FromV8<'static>> TsInput for &TsProbe<T> {
    fn ts_input(&self, name: &'static str) -> TsType {
        TsType::input::<T>(name)
    }
}

/// Otherwise: found after one dereference.
pub trait TsInputMissing {
    fn ts_input(&self, name: &'static str) -> TsType;
}

impl<T: ?Sized> TsInputMissing for TsProbe<T> {
    fn ts_input(&self, name: &'static str) -> TsType {
        TsType::missing(name, true)
    }
}

/// Where `T: ToV8`.
pub trait TsOutput {
    fn ts_output(&self, name: &'static str) -> TsType;
}

impl<T: ToV8> TsOutput for &TsProbe<T> {
    fn ts_output(&self, name: &'static str) -> TsType {
        TsType::output::<T>(name)
    }
}

/// Otherwise.
pub trait TsOutputMissing {
    fn ts_output(&self, name: &'static str) -> TsType;
}

impl<T: ?Sized> TsOutputMissing for TsProbe<T> {
    fn ts_output(&self, name: &'static str) -> TsType {
        TsType::missing(name, false)
    }
}
