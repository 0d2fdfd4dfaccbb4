//! The serde format's error: an [`OpError`] (usually a located [`ValueError`]).

use std::fmt;

use crate::structured::ValueError;
use crate::OpError;

/// An error reading or writing a value through serde.
pub struct Error(OpError);

impl Error {
    pub(super) fn into_op_error(self) -> OpError {
        self.0
    }

    pub(super) fn at_key(self, key: &str) -> Self {
        Error(ValueError::at_key(self.0, key))
    }

    pub(super) fn at_index(self, index: u32) -> Self {
        Error(ValueError::at_index(self.0, index))
    }
}

impl From<OpError> for Error {
    fn from(error: OpError) -> Self {
        Error(error)
    }
}

impl From<ValueError> for Error {
    fn from(error: ValueError) -> Self {
        Error(error.into())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {}

impl ::serde::de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(OpError::type_error(message.to_string()))
    }
}

impl ::serde::ser::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(OpError::type_error(message.to_string()))
    }
}
