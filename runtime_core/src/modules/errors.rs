//! What a module that failed says: which module, and where in it.

use super::loader::ModuleLoadError;
use crate::JsError;

/// The error a `TryCatch` caught while compiling, linking or evaluating the module at `url`:
/// its exception (or the termination), its stack sure to name the module (and the line, where
/// V8 knows one).
macro_rules! caught {
    ($try_catch:expr, $url:expr) => {{
        let try_catch = $try_catch;
        if try_catch.has_terminated() || try_catch.is_execution_terminating() {
            $crate::JsError::terminated_in(try_catch)
        } else {
            let exception = try_catch.exception();
            let message = try_catch.message();
            $crate::modules::errors::error_at(try_catch, exception, message, $url)
        }
    }};
}
pub(crate) use caught;

/// A module that could not be resolved or loaded, as deno says it.
pub(crate) fn load_error(error: &ModuleLoadError, importer: &str) -> JsError {
    let message = if importer.is_empty() {
        format!("Module not found: {error}")
    } else {
        format!("Module not found: {error} (imported from {importer})")
    };
    JsError::exception("TypeError", &message)
}

/// A module refused for what it is, or for how it was imported.
pub(crate) fn refused(class: &str, message: &str, importer: &str) -> JsError {
    let message = if importer.is_empty() {
        message.to_owned()
    } else {
        format!("{message} (imported from {importer})")
    };
    JsError::exception(class, &message)
}

pub(crate) fn too_long(url: &str) -> JsError {
    JsError::exception(
        "RangeError",
        &format!("{url}: the source is too long for a V8 string"),
    )
}

pub(crate) fn error_at(
    scope: &mut v8::PinScope<'_, '_>,
    exception: Option<v8::Local<'_, v8::Value>>,
    message: Option<v8::Local<'_, v8::Message>>,
    url: &str,
) -> JsError {
    let Some(exception) = exception else {
        return JsError::exception("Error", &format!("{url}: failed without an exception"));
    };
    let mut error = JsError::from_exception(scope, exception);
    let located = error
        .stack
        .as_deref()
        .is_some_and(|stack| stack.contains(url));
    if !located {
        // A JSON document's parse error, or a parser's stack overflow, has a message of no
        // script: the module is named from `url`, and a line only where there is one.
        let place = message
            .and_then(|message| {
                let line = message.get_line_number(scope).filter(|&line| line > 0)?;
                let column = message.get_start_column() + 1;
                Some(format!("{url}:{line}:{column}"))
            })
            .unwrap_or_else(|| url.to_owned());
        let head = match error.stack.take() {
            Some(stack) => stack,
            None if error.class_name.is_empty() => error.message.clone(),
            None => format!("{}: {}", error.class_name, error.message),
        };
        // A head that names no place gets the module's; V8's own may end in one of no script.
        let head = head
            .lines()
            .filter(|line| !line.trim_start().starts_with("at undefined:"))
            .collect::<Vec<_>>()
            .join("\n");
        error.stack = Some(format!("{head}\n    at {place}"));
    }
    error
}

/// An exception of `error`'s class and message, made anew (a compile error's own is gone).
pub(crate) fn exception_of<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: &JsError,
) -> v8::Local<'s, v8::Value> {
    let class = match error.class_name.as_str() {
        "" => "Error",
        class => class,
    };
    crate::errors::throw::new_error(scope, class, &error.message)
}
