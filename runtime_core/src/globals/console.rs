//! A small built-in `console`: `log`, `info` and `debug` to standard output, `warn` and `error` to
//! standard error (or to the embedder's own sink), strings as they are and every other value as
//! Node's `util.inspect` prints it ([`crate::inspect`]). Format specifiers (`%s`) are not
//! interpreted. `RuntimeOptions::console: None` leaves it out.

use std::rc::Rc;

use crate::GlobalScript;
use crate::{op, Extension, OpState};

/// Which method printed a console line: a host's sink can tell a warning from an error and
/// `info` from `debug` (a log level each, as a logger has them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleLevel {
    /// `console.log`.
    Log,
    /// `console.info`.
    Info,
    /// `console.debug`.
    Debug,
    /// `console.warn`.
    Warn,
    /// `console.error`.
    Error,
}

impl ConsoleLevel {
    /// In the order `console.js` numbers them.
    const ALL: [ConsoleLevel; 5] = [
        ConsoleLevel::Log,
        ConsoleLevel::Info,
        ConsoleLevel::Debug,
        ConsoleLevel::Warn,
        ConsoleLevel::Error,
    ];

    /// Whether the default console writes it to standard error (`warn`, `error`), as Node does.
    pub fn is_stderr(self) -> bool {
        matches!(self, ConsoleLevel::Warn | ConsoleLevel::Error)
    }
}

/// Receives each console line, formatted, without its newline.
pub type ConsoleFn = Rc<dyn Fn(ConsoleLevel, &str)>;

/// The default console: standard output and standard error (the one place the library
/// prints, because the host asked for it).
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub fn stdio() -> ConsoleFn {
    Rc::new(|level: ConsoleLevel, line| {
        if level.is_stderr() {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    })
}

/// The sink, kept in the op state.
struct Sink(ConsoleFn);

#[op(fast)]
fn op_console_print(state: &OpState, #[string] line: &str, level: u32) {
    // Only `console.js` calls it, with its levels' numbers.
    let level = ConsoleLevel::ALL
        .get(level as usize)
        .copied()
        .unwrap_or(ConsoleLevel::Log);
    (state.borrow::<Sink>().0)(level, line);
}

/// A value as `util.inspect` prints it: no code of the value's runs.
#[op]
#[string]
fn op_console_inspect<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    value: v8::Local<'s, v8::Value>,
) -> String {
    crate::inspect::inspect(scope, value, &crate::inspect::InspectOptions::default())
}

/// The extension behind `console`, printing to `sink`.
pub(crate) fn extension(sink: ConsoleFn) -> Extension {
    Extension::new("console")
        .internal_ops(&[op_console_print::DECL, op_console_inspect::DECL])
        .global(
            GlobalScript::new("<console>", include_str!("console.js"))
                .typescript(include_str!("console.d.ts")),
        )
        .state(move |state| {
            state.put(Sink(sink));
        })
}
