//! Reading a thrown value into a [`JsError`] without running the thrower's code: its `name`
//! and `message` are read as data properties only (an accessor, a proxy or an interceptor
//! that JavaScript wrote is never called), and its `stack` is the one the runtime's formatter
//! makes (`stack_formatter.rs`, from data properties too), with its frames. Formatting a stack for
//! the first time runs a script's own `Error.prepareStackTrace` if it set one, as V8 would;
//! that runs under the call's termination, and once a termination is requested nothing more
//! is read: one
//! `TerminationHandle::terminate()` always ends the call, as
//! [`JsErrorKind::Terminated`](crate::JsErrorKind::Terminated).

use super::properties::{data_property, own_field};
use super::termination::TerminationHandle;
use crate::{JsError, JsLocation, JsStackFrame};

impl JsError {
    /// Reads the class name, message and stack of a thrown value.
    pub(crate) fn from_exception(
        scope: &mut v8::PinScope<'_, '_>,
        exception: v8::Local<'_, v8::Value>,
    ) -> Self {
        // In this scope, for the reads to hold their handles here too.
        let exception = v8::Local::new(scope, exception);
        let error = read(scope, exception);
        if stopped(scope) {
            return Self::terminated_in(scope);
        }
        error
    }
}

/// Whether the runtime's JavaScript is being stopped: nothing more is read.
fn stopped(scope: &v8::Isolate) -> bool {
    scope.is_execution_terminating()
        || scope
            .get_slot::<TerminationHandle>()
            .is_some_and(TerminationHandle::is_requested)
}

fn read<'s>(scope: &mut v8::PinScope<'s, '_>, exception: v8::Local<'s, v8::Value>) -> JsError {
    let mut error = JsError::exception("", "");
    let object = match v8::Local::<v8::Object>::try_from(exception) {
        Ok(object) if object.is_proxy() => {
            // Nothing of a proxy is read: every read would be a trap.
            error.message = "[object Proxy]".to_owned();
            return error;
        }
        Ok(object) => object,
        Err(_) => {
            error.message = detail(scope, exception);
            return error;
        }
    };
    error.class_name = data_property(scope, object, "name")
        .filter(|value| value.is_string())
        .map(|value| value.to_rust_string_lossy(scope))
        .unwrap_or_default();
    error.message = match data_property(scope, object, "message") {
        Some(value) if value.is_string() || !value.is_object() && !value.is_undefined() => {
            detail(scope, value)
        }
        _ => detail(scope, exception),
    };
    if !stopped(scope) {
        error.stack = stack(scope, object);
        error.frames = super::stack_formatter::kept_frames(scope, object);
        error.location = match error.frames.iter().find_map(JsStackFrame::location) {
            Some(location) => Some(location),
            None => reported_location(scope, exception),
        }
        .map(Box::new);
    }
    error
}

/// The position V8 keeps with an error it made without frames (a syntax error's), mapped
/// through its file's source map.
fn reported_location(
    scope: &mut v8::PinScope<'_, '_>,
    exception: v8::Local<'_, v8::Value>,
) -> Option<JsLocation> {
    let message = v8::Exception::create_message(scope, exception);
    let file = message.get_script_resource_name(scope)?;
    if !file.is_string() {
        return None;
    }
    let mut frame = JsStackFrame {
        file_name: Some(file.to_rust_string_lossy(scope)),
        line_number: message.get_line_number(scope).map(|line| line as u32),
        column_number: Some(message.get_start_column() as u32 + 1),
        ..JsStackFrame::default()
    };
    super::source_maps::SourceMaps::apply(scope, std::slice::from_mut(&mut frame));
    frame.location()
}

/// A value as text, without calling into JavaScript (V8's side-effect-free conversion).
fn detail(scope: &mut v8::PinScope<'_, '_>, value: v8::Local<'_, v8::Value>) -> String {
    if let Ok(text) = v8::Local::<v8::String>::try_from(value) {
        return text.to_rust_string_lossy(scope);
    }
    value
        .to_detail_string(scope)
        .map(|text| text.to_rust_string_lossy(scope))
        .unwrap_or_default()
}

/// The error's stack: an own string, or what V8's own `stack` accessor formats (never a
/// getter JavaScript defined).
pub(crate) fn stack<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Object>,
) -> Option<String> {
    let stack = stack_text(scope, error)?;
    Some(stack.to_rust_string_lossy(scope))
}

/// The error's stack as [`stack`] reads it, but formatted, if it was not yet, by the runtime
/// alone (a script's `Error.prepareStackTrace` is not called), and only its first `max`
/// UTF-16 units copied out (with how many more there were).
pub(crate) fn stack_head<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Object>,
    max: usize,
) -> Option<(String, usize)> {
    let stack = super::stack_formatter::without_scripts_own(|| stack_text(scope, error))?;
    Some(super::properties::string_head(scope, stack, max))
}

fn stack_text<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Object>,
) -> Option<v8::Local<'s, v8::String>> {
    let key = v8::String::new(scope, "stack")?;
    let descriptor = error.get_own_property_descriptor(scope, key.into())?;
    let descriptor = v8::Local::<v8::Object>::try_from(descriptor).ok()?;
    if let Some(value) = own_field(scope, descriptor, "value") {
        return v8::Local::<v8::String>::try_from(value).ok();
    }
    let getter = own_field(scope, descriptor, "get")?;
    let getter = v8::Local::<v8::Function>::try_from(getter).ok()?;
    if getter != native_stack_getter(scope)? {
        return None;
    }
    let stack = getter.call(scope, error.into(), &[])?;
    v8::Local::<v8::String>::try_from(stack).ok()
}

/// V8's own `stack` accessor of errors of the current context (every error made by V8 has
/// it, from the error map), read off a fresh one.
fn native_stack_getter<'s>(
    scope: &mut v8::PinScope<'s, '_>,
) -> Option<v8::Local<'s, v8::Function>> {
    let empty = v8::String::empty(scope);
    let fresh = v8::Exception::error(scope, empty);
    let fresh = v8::Local::<v8::Object>::try_from(fresh).ok()?;
    let key = v8::String::new(scope, "stack")?;
    let descriptor = fresh.get_own_property_descriptor(scope, key.into())?;
    let descriptor = v8::Local::<v8::Object>::try_from(descriptor).ok()?;
    let getter = own_field(scope, descriptor, "get")?;
    v8::Local::<v8::Function>::try_from(getter).ok()
}
