//! Errors both ways across the boundary: [`JsError`](crate::JsError), JavaScript's errors as
//! Rust values (`js_error.rs`), and [`OpError`](crate::OpError), the Rust errors ops throw
//! into JavaScript (`op_error.rs`); `throw.rs` makes the error objects both paths throw.

#![deny(unsafe_code)]

pub(crate) mod frames;
pub(crate) mod js_error;
pub(crate) use js_error::OutOfMemory;
pub(crate) mod op_error;
pub(crate) mod throw;
