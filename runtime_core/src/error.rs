//! Errors thrown by JavaScript, as Rust values.

use std::fmt;

/// A JavaScript exception that escaped a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsError {
    /// The exception's class: its `name` property for an Error object (`"TypeError"`,
    /// `"RangeError"`, an embedder's own name...), empty for a thrown non-object.
    pub class_name: String,
    /// The exception's `message` property, or the thrown value as a string.
    pub message: String,
    /// The exception's `stack` property, when it has one.
    pub stack: Option<String>,
}

impl JsError {
    /// Reads the class name, message and stack of a thrown value.
    pub(crate) fn from_exception(
        scope: &mut v8::PinScope<'_, '_>,
        exception: v8::Local<'_, v8::Value>,
    ) -> Self {
        let Ok(object) = v8::Local::<v8::Object>::try_from(exception) else {
            return Self {
                class_name: String::new(),
                message: exception.to_rust_string_lossy(scope),
                stack: None,
            };
        };
        let property = |name: &str| -> Option<String> {
            let key = v8::String::new(scope, name)?;
            let value = object.get(scope, key.into())?;
            (!value.is_null_or_undefined()).then(|| value.to_rust_string_lossy(scope))
        };
        let class_name = property("name").unwrap_or_default();
        let message = property("message");
        let stack = property("stack");
        Self {
            class_name,
            message: message.unwrap_or_else(|| exception.to_rust_string_lossy(scope)),
            stack,
        }
    }

    /// The error of a script that V8 stopped (e.g. `terminate_execution`): no exception value.
    pub(crate) fn terminated() -> Self {
        Self {
            class_name: String::new(),
            message: "execution terminated".to_owned(),
            stack: None,
        }
    }
}

impl fmt::Display for JsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.class_name.is_empty() {
            write!(f, "Uncaught {}", self.message)
        } else {
            write!(f, "Uncaught {}: {}", self.class_name, self.message)
        }
    }
}

impl std::error::Error for JsError {}
