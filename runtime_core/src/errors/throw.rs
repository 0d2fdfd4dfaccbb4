//! Making and throwing errors, in one place so that every path says the same: what a
//! `TypeError` says was received, error objects of a class, an `OpError`'s object, and what is
//! reported of a panic no call can throw. (What they say of an op's arguments and panics is
//! `crate::ops::messages`.)

use std::any::Any;
use std::borrow::Cow;

use crate::{ErrorProperty, OpError};

/// What the `received` part of a `TypeError` says about a value (ops' arguments and structured
/// values alike).
pub(crate) fn describe_received(value: v8::Local<'_, v8::Value>) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_boolean() {
        "a boolean"
    } else if value.is_number() {
        "a number"
    } else if value.is_big_int() {
        "a BigInt"
    } else if value.is_string() {
        "a string"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_function() {
        "a function"
    } else if value.is_array() {
        "an array"
    } else {
        "an object"
    }
}

/// A panic's message (`panic!`'s text), or what stands for one.
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)")
}

/// Makes an error object of `class` (a built-in constructor where there is one, else an
/// `Error` named `class`).
pub(crate) fn new_error<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    class: &str,
    message: &str,
) -> v8::Local<'s, v8::Value> {
    let text = v8::String::new(scope, message).unwrap_or_else(|| v8::String::empty(scope));
    let error = match class {
        "TypeError" => v8::Exception::type_error(scope, text),
        "RangeError" => v8::Exception::range_error(scope, text),
        "SyntaxError" => v8::Exception::syntax_error(scope, text),
        "ReferenceError" => v8::Exception::reference_error(scope, text),
        _ => v8::Exception::error(scope, text),
    };
    if !matches!(
        class,
        "Error" | "TypeError" | "RangeError" | "SyntaxError" | "ReferenceError"
    ) {
        set_error_property(
            scope,
            error,
            "name",
            ErrorProperty::String(Cow::Borrowed(class)),
        );
    }
    error
}

/// Sets `name` on `error` when it is an object (an error property of an [`OpError`]).
pub(crate) fn set_error_property(
    scope: &mut v8::PinScope<'_, '_>,
    error: v8::Local<'_, v8::Value>,
    name: &str,
    value: ErrorProperty<'_>,
) {
    let Ok(object) = v8::Local::<v8::Object>::try_from(error) else {
        return;
    };
    let Some(key) = v8::String::new(scope, name) else {
        return;
    };
    let value: v8::Local<v8::Value> = match value {
        ErrorProperty::String(text) => match v8::String::new(scope, &text) {
            Some(text) => text.into(),
            None => return,
        },
        ErrorProperty::Number(number) => v8::Number::new(scope, number).into(),
        ErrorProperty::Bool(flag) => v8::Boolean::new(scope, flag).into(),
    };
    // Setting a data property on a fresh error object cannot run JavaScript.
    let _ = object.set(scope, key.into(), value);
}

pub(crate) fn throw_error_of_class(scope: &mut v8::PinScope<'_, '_>, class: &str, message: &str) {
    let error = new_error(scope, class, message);
    scope.throw_exception(error);
}

/// The error object of `error` (its class, message and properties); with `prefix`, its
/// message is `<prefix>: <message>`.
pub(crate) fn op_error_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: &OpError,
    prefix: Option<&str>,
) -> v8::Local<'s, v8::Value> {
    let message = error.message();
    let message = match prefix {
        Some(prefix) => Cow::Owned(format!("{prefix}: {message}")),
        None => message,
    };
    let exception = new_error(scope, &error.class(), &message);
    error.properties(&mut |name, value| set_error_property(scope, exception, name, value));
    exception
}

/// Throws `error`; with `prefix`, its message becomes `<prefix>: <message>`.
pub(crate) fn throw_op_error(
    scope: &mut v8::PinScope<'_, '_>,
    error: &OpError,
    prefix: Option<&str>,
) {
    let exception = op_error_value(scope, error, prefix);
    scope.throw_exception(exception);
}

/// A panic in the `Drop` of a value that V8 owned (a class instance collected, a pending
/// op's future dropped by the event loop): nobody's call to throw into, so it is logged (the
/// `log` crate, at `error`: the host's logger decides where it goes), and the process goes on.
#[cold]
pub(crate) fn report_drop_panic(what: &str, payload: &(dyn Any + Send)) {
    let message = panic_text(payload);
    log::error!("opwire: the Drop of {what} panicked (caught): {message}");
}

/// The `FunctionCallback` of a constructor no script may call: a class's without a
/// `#[constructor]` (`new Foo()` throws; instances come from ops returning `#[cppgc] Foo`),
/// the ops object's template's.
pub(crate) fn illegal_constructor(
    scope: &mut v8::PinScope<'_, '_>,
    _args: v8::FunctionCallbackArguments<'_>,
    _rv: v8::ReturnValue<'_, v8::Value>,
) {
    throw_error_of_class(scope, "TypeError", "Illegal constructor");
}
