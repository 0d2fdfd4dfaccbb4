//! The conversion traits generated code calls. The macro decides *how* a value crosses (its
//! kind: a marker type in [`kind`], picked by the IR's table from the type and its attribute);
//! the Rust type decides the rest by implementing these traits for that marker. So an alias
//! (`#[smi] ResourceId`) works without the macro knowing what it names, a type without an impl
//! is a compile error at the user's type, and a new type of an existing kind is one impl here.
//!
//! The impls live with their value family (numbers, strings, buffers, handles), slow and fast
//! side by side.

use crate::OpError;

use super::{FastApiCallbackOptions, SlowCall, Thrown};

/// An argument read on the slow path by kind `K`: converted, or a `TypeError` naming the op and
/// the argument thrown.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an op argument of this kind",
    label = "not convertible from JavaScript this way"
)]
pub trait FromArg<'s, K>: Sized {
    /// Reads JavaScript argument `index`.
    fn from_arg(call: &mut SlowCall<'_, 's>, index: i32) -> Result<Self, Thrown>;
}

/// A return value set on the slow path by kind `K` (an error thrown instead when it cannot be
/// made, e.g. a string longer than V8 allows).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an op's return value of this kind",
    label = "not convertible to JavaScript this way (a type of your own: `#[derive(runtime_core::ToV8)]` it, or implement `runtime_core::ToV8`)"
)]
pub trait IntoReturn<K>: Sized {
    /// Sets the call's return value.
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown>;
}

/// A value made on the V8 heap by kind `K`: what an async op's promise is resolved with, and,
/// for buffers, what a sync op returns (see the `IntoReturn` impls below). A sync op's
/// BigInts, ASCII and Latin-1 strings, externals and kept static strings are made from the
/// isolate alone (`crate::values::callback_values`). An `Err` is thrown (or rejects).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an op's result of this kind",
    label = "not convertible to JavaScript this way"
)]
pub trait IntoValue<K>: Sized {
    /// Whether making the value may run JavaScript (which may throw): `ToV8` conversions.
    const MAY_RUN_JS: bool = false;

    /// The value; an error's message is prefixed with the op's name when thrown.
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError>;
}

/// Sync returns of the kinds that make a value on the V8 heap: through [`IntoValue`].
macro_rules! returns_made_values {
    ($($marker:ident),*) => {$(
        impl<T: IntoValue<kind::$marker>> IntoReturn<kind::$marker> for T {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                match self.into_value(call.scope()) {
                    Ok(value) => {
                        call.rv().set(value);
                        Ok(())
                    }
                    Err(error) => Err(call.throw_prefixed(error)),
                }
            }
        }
    )*};
}

returns_made_values!(Buffer, ArrayBuffer);

/// An argument V8 converts itself on the fast path, passing it as `C` (the Fast API type the
/// IR's table names for kind `K`).
pub trait FromFast<K, C>: Sized {
    /// The Rust value, converted exactly as [`FromArg`] converts it.
    fn from_fast(value: C) -> Self;
}

/// A return value a fast function hands V8 as `C`, which cannot fail: what the macro's kind
/// table marks `FastRet::Value { throws: false }`. Generated code calls it with no options; a
/// kind the table marks so whose Rust types implement only [`IntoFastChecked`] does not
/// compile, so the table and these impls cannot disagree.
pub trait IntoFast<K, C>: Sized {
    /// The value, as [`IntoReturn`] would set it.
    fn into_fast(self) -> C;
}

/// A return value a fast function hands V8 as `C` after a check that may throw (a wide
/// integer beyond 2^53): what the kind table marks `FastRet::Value { throws: true }`.
pub trait IntoFastChecked<K, C>: Sized {
    /// The value, or `None` after throwing what [`IntoReturn`] would throw.
    ///
    /// # Safety
    /// `options` must be the `FastApiCallbackOptions` V8 passed to the running fast call, of an
    /// op `Runtime` registered (a throw reaches the op's context through it).
    unsafe fn into_fast_checked(self, options: *mut FastApiCallbackOptions<'_>) -> Option<C>;
}

/// The markers, each an uninhabited type in [`kind`], and the calls generated code makes, as
/// associated functions of each (`kind::Number::ret(call, value)`): short to read in an
/// expansion, and typed. Made from the contract list (`contract.rs`), which the macro's
/// `Marker` is made from too.
macro_rules! markers {
    ($($(#[$doc:meta])* $marker:ident,)*) => {
        /// How a value crosses, one marker per strategy. Uninhabited: only ever type
        /// arguments.
        pub mod kind {
            $($(#[$doc])* pub enum $marker {})*
        }
        $(markers!(@calls $marker);)*
    };
    (@calls $marker:ident) => {
        impl kind::$marker {
            /// Reads argument `index` into whatever the op takes there.
            #[ops_macro::inline_hot]
            pub fn arg<'s, T: FromArg<'s, Self>>(
                call: &mut SlowCall<'_, 's>,
                index: i32,
            ) -> Result<T, Thrown> {
                T::from_arg(call, index)
            }

            /// Sets the return value.
            #[ops_macro::inline_hot]
            pub fn ret<T: IntoReturn<Self>>(
                call: &mut SlowCall<'_, '_>,
                value: T,
            ) -> Result<(), Thrown> {
                value.set_return(call)
            }

            /// Converts a fast-call parameter.
            #[ops_macro::inline_hot]
            pub fn from_fast<C, T: FromFast<Self, C>>(value: C) -> T {
                T::from_fast(value)
            }

            /// Converts a fast return value that cannot fail.
            #[ops_macro::inline_hot]
            pub fn into_fast<C, T: IntoFast<Self, C>>(value: T) -> C {
                value.into_fast()
            }

            /// Converts a fast return value after its check; `None` after throwing.
            ///
            /// # Safety
            /// As [`IntoFastChecked::into_fast_checked`].
            #[ops_macro::inline_hot]
            pub unsafe fn into_fast_checked<C, T: IntoFastChecked<Self, C>>(
                value: T,
                options: *mut FastApiCallbackOptions<'_>,
            ) -> Option<C> {
                // SAFETY: this fn's contract is `into_fast_checked`'s, for the same `options`,
                // passed on unchanged.
                unsafe { value.into_fast_checked(options) }
            }
        }
    };
}

/// Reads the contract list (`contract.rs`): the markers, and each fast helper named (a listed
/// one this crate lacks does not compile; the slow helpers, `SlowCall` methods, are each
/// called by the every-kind test).
macro_rules! op_contract {
    (
        $(#[$markers_doc:meta])*
        markers { $($(#[$doc:meta])* $marker:ident,)* }
        $(#[$slow_doc:meta])*
        slow_helpers { $($slow:ident => $slow_fn:ident,)* }
        $(#[$fast_doc:meta])*
        fast_helpers { $($fast:ident => $fast_fn:ident,)* }
    ) => {
        markers! { $($(#[$doc])* $marker,)* }
        const _: () = {
            #[allow(unused_imports)]
            use crate::__op::{$($fast_fn as _,)*};
        };
    };
}

include!("contract.rs");
