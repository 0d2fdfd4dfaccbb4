//! Errors that ops throw: [`JsErrorClass`] says what JavaScript error a Rust error becomes, and
//! [`OpError`] holds any of them.

use std::borrow::Cow;
use std::fmt;

/// A property an error adds to the JavaScript error object (e.g. `code: "ENOENT"`).
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorProperty<'a> {
    /// A string.
    String(Cow<'a, str>),
    /// A Number.
    Number(f64),
    /// A boolean.
    Bool(bool),
}

/// What JavaScript error a Rust error becomes when an op returns it as `Err`.
///
/// ```
/// use std::borrow::Cow;
/// use runtime_core::{ErrorProperty, JsErrorClass};
///
/// #[derive(Debug)]
/// struct NotFound { path: String }
///
/// impl JsErrorClass for NotFound {
///     fn class(&self) -> Cow<'static, str> {
///         Cow::Borrowed("NotFound") // an embedder-defined name on an `Error`
///     }
///     fn message(&self) -> Cow<'_, str> {
///         Cow::Owned(format!("no such file: {}", self.path))
///     }
///     fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
///         add("code", ErrorProperty::String(Cow::Borrowed("ENOENT")));
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an error an op can throw",
    label = "an op's `Err` must implement `runtime_core::JsErrorClass`",
    note = "return `runtime_core::OpError` (`OpError::generic(msg)`, `OpError::type_error(msg)`, or `?` on any `JsErrorClass` error: `std::io::Error`, serde's, yours), or implement `JsErrorClass` for your error type (its class, message and properties)"
)]
pub trait JsErrorClass: fmt::Debug + std::any::Any {
    /// The class: `Error`, `TypeError`, `RangeError`, `SyntaxError`, `ReferenceError` (made
    /// with that constructor), or any other name (an `Error` whose `name` is that).
    fn class(&self) -> Cow<'static, str>;

    /// The message.
    fn message(&self) -> Cow<'_, str>;

    /// Extra properties of the error object, passed to `add` one by one.
    fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        let _ = add;
    }
}

/// Any [`JsErrorClass`] error, boxed once: `OpError::from(my_error)` places the concrete
/// error straight into its box (one allocation), and nothing reboxes it on the way to
/// JavaScript. Ops may return `Result<T, OpError>` or `Result<T, E>` for any `E: JsErrorClass`.
pub struct OpError(Box<dyn JsErrorClass>);

impl OpError {
    /// An error of `class` with `message`.
    pub fn new(class: impl Into<Cow<'static, str>>, message: impl Into<Cow<'static, str>>) -> Self {
        Self::from(SimpleError {
            class: class.into(),
            message: message.into(),
        })
    }

    /// A `TypeError`.
    pub fn type_error(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new("TypeError", message)
    }

    /// A `RangeError`.
    pub fn range_error(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new("RangeError", message)
    }

    /// A plain `Error`.
    pub fn generic(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new("Error", message)
    }

    /// The JavaScript class.
    pub fn class(&self) -> Cow<'static, str> {
        self.0.class()
    }

    /// The message.
    pub fn message(&self) -> Cow<'_, str> {
        self.0.message()
    }

    /// The extra properties; see [`JsErrorClass::properties`].
    pub fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        self.0.properties(add)
    }

    /// The concrete error, if it is an `E`.
    pub fn downcast_ref<E: JsErrorClass>(&self) -> Option<&E> {
        (self.0.as_ref() as &dyn std::any::Any).downcast_ref()
    }

    /// The concrete error, mutably, if it is an `E`.
    pub fn downcast_mut<E: JsErrorClass>(&mut self) -> Option<&mut E> {
        (self.0.as_mut() as &mut dyn std::any::Any).downcast_mut()
    }
}

impl<E: JsErrorClass> From<E> for OpError {
    fn from(error: E) -> Self {
        Self(Box::new(error))
    }
}

impl fmt::Debug for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class(), self.message())
    }
}

impl std::error::Error for OpError {}

/// The error behind [`OpError::new`].
#[derive(Debug)]
struct SimpleError {
    class: Cow<'static, str>,
    message: Cow<'static, str>,
}

impl JsErrorClass for SimpleError {
    fn class(&self) -> Cow<'static, str> {
        self.class.clone()
    }

    fn message(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.message)
    }
}

impl JsErrorClass for std::io::Error {
    fn class(&self) -> Cow<'static, str> {
        Cow::Borrowed("Error")
    }

    fn message(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }

    fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        add(
            "code",
            ErrorProperty::String(Cow::Owned(format!("{:?}", self.kind()))),
        );
    }
}
