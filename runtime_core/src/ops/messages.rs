//! What errors say of an op: which argument, and that it panicked. Both paths build their
//! messages here, so that a call says the same on either.

use std::any::Any;

use crate::errors::throw::{describe_received, panic_text};
use crate::OpDecl;

/// `<op>: argument <n> (<name>)`: what a conversion's error is prefixed with.
pub(crate) fn arg_error_prefix(decl: &OpDecl, index: i32) -> String {
    format!("{}: {}", decl.name, argument(decl, index))
}

/// `argument <n> (<name>)`, or `argument <n>` for a `_` argument.
pub(crate) fn argument(decl: &OpDecl, index: i32) -> String {
    match decl.arg_names.get(index as usize).copied() {
        Some("") => format!("argument {}", index + 1),
        name => format!("argument {} ({})", index + 1, name.unwrap_or("?")),
    }
}

/// `<op>: argument <n> (<name>) must be <expected>, received <kind>`.
pub(crate) fn arg_type_error_message(
    decl: &OpDecl,
    index: i32,
    expected: &str,
    value: v8::Local<'_, v8::Value>,
) -> String {
    format!(
        "{}: {} must be {expected}, received {}",
        decl.name,
        argument(decl, index),
        describe_received(value)
    )
}

/// `<op> panicked: <message>`.
pub(crate) fn panic_message(decl: &OpDecl, payload: &(dyn Any + Send)) -> String {
    format!("{} panicked: {}", decl.name, panic_text(payload))
}
