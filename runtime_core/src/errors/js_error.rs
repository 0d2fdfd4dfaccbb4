//! Errors thrown by JavaScript, as Rust values.

use std::fmt;

use crate::{JsLocation, JsStackFrame};

/// What stopped a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsErrorKind {
    /// It threw an exception that nothing caught.
    Exception,
    /// It was terminated ([`crate::TerminationHandle`], or `terminate_execution` on the
    /// isolate): no exception value, nothing JavaScript could catch.
    Terminated,
    /// It was terminated because V8's heap reached its limit
    /// ([`RuntimeOptions::heap_limits`](crate::RuntimeOptions::heap_limits)), or the runtime
    /// held more than its [`memory_limit`](crate::RuntimeOptions::memory_limit): instead of the
    /// process dying of V8's out-of-memory error, the script stops and the runtime lives on.
    OutOfMemory,
    /// The runtime diagnosed it for the host: no JavaScript threw it and none could catch it
    /// (a call's promise that can never settle, a result that does not convert, a snapshot
    /// refused, a main module not found). Displayed without "Uncaught".
    Host,
}

/// A JavaScript exception that escaped a script, or the script's termination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsError {
    /// Whether the script threw or was terminated.
    pub kind: JsErrorKind,
    /// The exception's class: its `name` property for an Error object (`"TypeError"`,
    /// `"RangeError"`, an embedder's own name...), empty for a thrown non-object.
    pub class_name: String,
    /// The exception's `message` property, or the thrown value as a string.
    pub message: String,
    /// The exception's `stack` property, when it has one.
    pub stack: Option<String>,
    /// The stack's frames, innermost first, source-mapped (empty for a thrown non-error, or an
    /// error whose stack a script's `Error.prepareStackTrace` formatted).
    pub frames: Vec<JsStackFrame>,
    /// Where it happened: the first frame with a position, or the position V8 gave a syntax
    /// error (boxed: a `JsError` stays small in the `Result`s that carry it).
    pub location: Option<Box<JsLocation>>,
}

/// Why a script was stopped as out of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutOfMemory {
    /// V8's heap reached its limit.
    Heap,
    /// The heap and what the runtime's buffers hold passed its memory budget.
    Budget,
}

impl JsError {
    /// An exception of `class` made on the Rust side (no stack).
    pub(crate) fn exception(class: &str, message: &str) -> Self {
        Self {
            kind: JsErrorKind::Exception,
            class_name: class.to_owned(),
            message: message.to_owned(),
            stack: None,
            frames: Vec::new(),
            location: None,
        }
    }

    /// A diagnosis for the host ([`JsErrorKind::Host`]): the runtime's, or a host's own (a
    /// `serve::MakeRuntime` that could not make its runtime, say).
    pub fn host(class: &str, message: &str) -> Self {
        Self {
            kind: JsErrorKind::Host,
            ..Self::exception(class, message)
        }
    }

    /// The error of a value a call into JavaScript gave or took (`what`: "the result", "an
    /// argument") that did not convert.
    pub(crate) fn conversion(what: &str, error: &crate::OpError) -> Self {
        Self::host(&error.class(), &format!("{what}: {}", error.message()))
    }

    /// The error of a script that V8 stopped: no exception value.
    pub(crate) fn terminated() -> Self {
        Self {
            kind: JsErrorKind::Terminated,
            class_name: String::new(),
            message: "execution terminated".to_owned(),
            stack: None,
            frames: Vec::new(),
            location: None,
        }
    }

    /// This stop's error with the stack it stopped in (innermost frame first): where a loop
    /// spun, or what allocated when the heap ran out.
    pub(crate) fn stopped_at(mut self, frames: Vec<JsStackFrame>) -> Self {
        self.location = frames.iter().find_map(JsStackFrame::location).map(Box::new);
        self.frames = frames;
        self
    }

    /// The error of a script stopped for want of memory: the heap reached its limit, or the
    /// heap and the buffers together passed the runtime's memory budget.
    pub(crate) fn out_of_memory(cause: OutOfMemory) -> Self {
        let message = match cause {
            OutOfMemory::Heap => "execution terminated: the JavaScript heap reached its limit",
            OutOfMemory::Budget => {
                "execution terminated: the runtime's memory (its JavaScript heap and its \
                 buffers' memory together) passed its memory limit"
            }
        };
        Self {
            kind: JsErrorKind::OutOfMemory,
            class_name: String::new(),
            message: message.to_owned(),
            stack: None,
            frames: Vec::new(),
            location: None,
        }
    }

    /// Whether the script was stopped rather than threw: terminated, or out of memory.
    pub fn is_terminated(&self) -> bool {
        matches!(
            self.kind,
            JsErrorKind::Terminated | JsErrorKind::OutOfMemory
        )
    }
}

impl fmt::Display for JsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_terminated() {
            write!(f, "{}", self.message)?;
        } else if self.kind == JsErrorKind::Host {
            write!(f, "{}: {}", self.class_name, self.message)?;
        } else if self.class_name.is_empty() {
            write!(f, "Uncaught {}", self.message)?;
        } else {
            write!(f, "Uncaught {}: {}", self.class_name, self.message)?;
        }
        if self.frames.is_empty() {
            if let Some(location) = &self.location {
                write!(f, "\n    at {location}")?;
            }
        }
        for frame in &self.frames {
            write!(f, "\n    at {frame}")?;
        }
        Ok(())
    }
}

impl std::error::Error for JsError {}
