//! [`ValueError`]: a structured value that did not convert, with where (`headers[2].name`).

use std::borrow::Cow;

use crate::{ErrorProperty, JsErrorClass, OpError};

/// A value that did not convert: what was wrong, and where in the value (a path such as
/// `headers[2].name`, built up as the error returns through each level).
#[derive(Debug)]
pub struct ValueError {
    path: String,
    problem: Problem,
}

#[derive(Debug)]
enum Problem {
    /// The value had the wrong type.
    Expected {
        what: Cow<'static, str>,
        received: &'static str,
    },
    /// A required field was missing (`undefined`).
    Missing { type_name: &'static str },
    /// A `TypeError` said as a predicate of the value (`is not a finite number`).
    Phrase(Cow<'static, str>),
    /// Any other error (a `FromV8` impl's own, a `RangeError`): class and message kept.
    Other(OpError),
}

impl ValueError {
    /// `value` is not `what` (`"a string"`, `"an object (Request)"`).
    pub fn expected(what: impl Into<Cow<'static, str>>, value: v8::Local<'_, v8::Value>) -> Self {
        Self::expected_received(what, crate::errors::throw::describe_received(value))
    }

    /// As [`ValueError::expected`], with the value already described (`"a string"`): for
    /// readers that hold the value's contents, not its handle.
    pub(crate) fn expected_received(
        what: impl Into<Cow<'static, str>>,
        received: &'static str,
    ) -> Self {
        Self {
            path: String::new(),
            problem: Problem::Expected {
                what: what.into(),
                received,
            },
        }
    }

    /// A `TypeError` saying `phrase` of the value, as WebIDL's conversions word them
    /// (`is not a finite number`, `can not be converted to a sequence`).
    pub fn phrase(phrase: impl Into<Cow<'static, str>>) -> Self {
        Self {
            path: String::new(),
            problem: Problem::Phrase(phrase.into()),
        }
    }

    /// Required field `key` of `type_name` is missing.
    pub fn missing(key: &str, type_name: &'static str) -> Self {
        Self {
            path: key.to_owned(),
            problem: Problem::Missing { type_name },
        }
    }

    /// `error`, now located under property `key` (`key` + `.path` or `key[..]`).
    pub fn at_key(error: OpError, key: &str) -> OpError {
        Self::at(error, key)
    }

    /// `error`, now located under element `index`.
    pub fn at_index(error: OpError, index: u32) -> OpError {
        Self::at(error, &format!("[{index}]"))
    }

    /// `error` with `segment` put in front of its path (a `.` between two names).
    #[cold]
    fn at(mut error: OpError, segment: &str) -> OpError {
        let prepend = |path: &mut String| {
            if !(path.is_empty() || path.starts_with('[')) {
                path.insert(0, '.');
            }
            path.insert_str(0, segment);
        };
        if let Some(located) = error.downcast_mut::<ValueError>() {
            prepend(&mut located.path);
            return error;
        }
        let mut located = ValueError {
            path: String::new(),
            problem: Problem::Other(error),
        };
        prepend(&mut located.path);
        located.into()
    }
}

impl JsErrorClass for ValueError {
    fn class(&self) -> Cow<'static, str> {
        match &self.problem {
            Problem::Expected { .. } | Problem::Missing { .. } | Problem::Phrase(_) => {
                Cow::Borrowed("TypeError")
            }
            Problem::Other(error) => error.class(),
        }
    }

    fn message(&self) -> Cow<'_, str> {
        let path = &self.path;
        Cow::Owned(match &self.problem {
            Problem::Expected { what, received } if path.is_empty() => {
                format!("expected {what}, received {received}")
            }
            Problem::Expected { what, received } => {
                format!("{path} must be {what}, received {received}")
            }
            Problem::Phrase(phrase) if path.is_empty() => format!("the value {phrase}"),
            Problem::Phrase(phrase) => format!("{path} {phrase}"),
            Problem::Missing { type_name } => {
                format!("{path} is missing (a required field of '{type_name}')")
            }
            Problem::Other(error) if path.is_empty() => error.message().into_owned(),
            Problem::Other(error) => format!("{path}: {}", error.message()),
        })
    }

    fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        if let Problem::Other(error) = &self.problem {
            error.properties(add);
        }
    }
}

/// How deep structured conversions may nest: beyond, the value is refused with a
/// `RangeError` (a cyclic object would otherwise recurse until the stack overflows).
pub const MAX_DEPTH: u32 = 128;

thread_local! {
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One level of nesting, held while a container's contents convert.
pub struct Depth(());

impl Depth {
    /// Enters a level, or refuses one beyond [`MAX_DEPTH`].
    #[inline]
    pub fn enter() -> Result<Self, OpError> {
        DEPTH.with(|depth| {
            let level = depth.get();
            if level >= MAX_DEPTH {
                return Err(OpError::range_error(format!(
                    "a value nested more than {MAX_DEPTH} levels deep (is it cyclic?)"
                )));
            }
            depth.set(level + 1);
            Ok(Depth(()))
        })
    }
}

impl Drop for Depth {
    #[inline]
    fn drop(&mut self) {
        DEPTH.with(|depth| depth.set(depth.get() - 1));
    }
}
