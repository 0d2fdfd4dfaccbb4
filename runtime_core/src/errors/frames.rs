//! A JavaScript stack as Rust values: the frames of a [`JsError`](crate::JsError) and where it
//! happened, printed as V8 prints a stack.

use std::fmt;

/// One frame of a JavaScript stack, with its position mapped through the source map of its
/// file when the runtime has one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JsStackFrame {
    /// The function's name (`Class.method` for a method call, as V8 names it); `None` at the
    /// top level of a script or module, or for an anonymous function.
    pub function_name: Option<String>,
    /// The script or module URL (the original file's, when source-mapped); `None` for code
    /// made by `eval` or `new Function`.
    pub file_name: Option<String>,
    /// 1-based line.
    pub line_number: Option<u32>,
    /// 1-based column.
    pub column_number: Option<u32>,
    /// An `await` resumed here.
    pub is_async: bool,
    /// Called with `new`.
    pub is_constructor: bool,
}

/// Where an error happened: its first frame's position, or, for an error without frames (a
/// syntax error, say), the position V8 reported with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsLocation {
    /// The script or module URL.
    pub file_name: String,
    /// 1-based line.
    pub line_number: u32,
    /// 1-based column.
    pub column_number: u32,
}

impl JsStackFrame {
    /// This frame's position, if it has a file and a line.
    pub fn location(&self) -> Option<JsLocation> {
        Some(JsLocation {
            file_name: self.file_name.clone()?,
            line_number: self.line_number?,
            column_number: self.column_number.unwrap_or(1),
        })
    }
}

impl fmt::Display for JsLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.file_name, self.line_number, self.column_number
        )
    }
}

/// As V8 prints a frame after `    at `: `name (file:line:column)`, or the position alone.
impl fmt::Display for JsStackFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_async {
            f.write_str("async ")?;
        }
        if self.is_constructor {
            f.write_str("new ")?;
        }
        let file = self.file_name.as_deref().unwrap_or("<anonymous>");
        let position = match (self.line_number, self.column_number) {
            (Some(line), Some(column)) => format!("{file}:{line}:{column}"),
            (Some(line), None) => format!("{file}:{line}"),
            _ => file.to_owned(),
        };
        match &self.function_name {
            Some(name) => write!(f, "{name} ({position})"),
            None if self.is_constructor => write!(f, "<anonymous> ({position})"),
            None => f.write_str(&position),
        }
    }
}

/// A stack as V8 formats one: the error's header, then a line per frame.
pub(crate) fn format_stack(header: &str, frames: &[JsStackFrame]) -> String {
    let mut stack = header.to_owned();
    for frame in frames {
        stack.push_str("\n    at ");
        stack.push_str(&frame.to_string());
    }
    stack
}
