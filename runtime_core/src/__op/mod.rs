//! Support for `#[op]`-generated code. Not a public API: names and signatures change with
//! the macro. Every conversion strategy the macro can pick is one function here, so the
//! generated code stays small and the logic is tested once.

//!
//! One file per value family, each with its slow and fast conversions side by side (the rule
//! is that both agree): [`numbers`](self) (booleans, numbers, BigInts), strings, buffers, and
//! handles (V8 locals, externals, `FromV8`/`ToV8` user types, the op state); `call` holds the
//! machinery they share (the `SlowCall`, panics, throwing, metering).

mod async_ops;
mod buffer_sources;
mod buffers;
mod call;
mod classes;
mod handles;
mod kinds;
mod numbers;
mod owned_buffers;
mod strings;
mod typed_arrays;

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
pub use typed_arrays::*;

pub use crate::ops::{AsyncCall, FastFn, OpFlags};
pub use crate::values::string_buffers::StringBuffer;
pub use v8::fast_api::{FastApiCallbackOptions, FastApiOneByteString};
