//! The glue `#[op]`-generated code calls. Not a public API: names and signatures change with
//! the macro. Every conversion strategy the macro can pick is one function or trait impl here,
//! so the generated code stays small and the logic is tested once.
//!
//! Only glue: one file per value family, each with its slow and fast conversions side by side
//! (the rule is that both agree), and `call` with the call frames they share. What they stand
//! on is defined where it belongs and re-exported below for generated code: errors are made in
//! `crate::errors::throw`, metering and op contexts are `crate::ops`', class instances and
//! templates `crate::class`'s, the async modes the event loop's. Nothing outside this module
//! names anything in it.
//!
//! Two ways in. Returns, and the number-like arguments, go through a trait by kind marker
//! (`kinds.rs`: `FromArg`/`IntoReturn`/`FromFast`/`IntoFast`), so a new Rust type of an
//! existing kind is one impl, without the macro knowing it. The other arguments go through a
//! named helper (`SlowCall` methods and functions here, named by the IR's `SlowHelper` and
//! `FastHelper` enums, which a backend test checks are all reached): most of them *borrow* what
//! the generated frame owns (`&str` read in place or into the call's stack room, `&[u8]` of a
//! buffer borrowed for the call, `&mut` state, a scope), and a helper's signature ties the
//! borrow to storage the generated code declares first, which a trait returning `Self` by
//! value cannot express. The owned ones (`String`, `ByteString`, copies of buffers,
//! externals) could be markers; they stay helpers beside their borrowed forms, which share
//! their reading code.

/// Binds `$scope` to a scope for a fast call's cold path (an error to throw, a buffer to look
/// at): a callback scope from `$source` (the call's options, or its context), and a handle
/// scope in it. V8 opens no handle scope for a fast call, so handles made without one would
/// live on in the caller's (a script's) until it ended: a panicking op called a million times
/// in one loop kept a million errors alive.
macro_rules! fast_scope {
    ($scope:ident, $source:expr) => {
        v8::callback_scope!(unsafe $scope, $source);
        v8::scope!(let $scope, $scope);
    };
}

mod async_ops;
mod buffer_sources;
mod buffers;
mod call;
mod classes;
mod handles;
mod kinds;
mod numbers;
mod owned_buffers;
#[cfg(feature = "serde")]
mod serialized;
mod strings;
mod ts_probe;
mod typed_arrays;

/// The string buffers' sizes, for the tests that cross their edges.
pub use crate::values::string_buffers::{STRING_BUFFER_RETAIN_LIMIT, STRING_STACK_BUFFER_SIZE};
pub use async_ops::*;
pub use buffer_sources::*;
pub use buffers::*;
pub use call::*;
pub use classes::*;
pub use handles::*;
pub use kinds::*;
pub use numbers::*;
pub use owned_buffers::*;
pub use strings::*;
pub use ts_probe::*;
pub use typed_arrays::*;

pub use crate::event_loop::async_wrap::AsyncCall;
pub use crate::event_loop::AsyncMode;
pub use crate::ops::{FastFn, OpFlags};
pub use crate::values::element::Element;
pub use crate::values::string_buffers::StringBuffer;
pub use v8::fast_api::{FastApiCallbackOptions, FastApiOneByteString};
