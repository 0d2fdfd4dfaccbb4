//! A small built-in `console`: `log`, `info` and `debug` to standard output, `warn` and `error`
//! to standard error (or to the embedder's own sink), formatting values as Node does for the
//! common cases: strings as they are at the top level and quoted inside, numbers (`-0`), BigInts
//! (`1n`), arrays and plain objects (`{ a: 1, b: 'x' }`, two levels deep), functions
//! (`[Function: f]`), errors (their stack). Format specifiers (`%s`) are not interpreted. `RuntimeOptions::console: None` leaves it out.

use std::rc::Rc;

use crate::{op, Extension, OpState};

/// Where a console line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleLevel {
    /// `console.log`, `console.info`, `console.debug`.
    Log,
    /// `console.warn`, `console.error`.
    Error,
}

/// Receives each console line, formatted, without its newline.
pub type ConsoleFn = Rc<dyn Fn(ConsoleLevel, &str)>;

/// The default console: standard output and standard error.
pub fn stdio() -> ConsoleFn {
    Rc::new(|level, line| match level {
        ConsoleLevel::Log => println!("{line}"),
        ConsoleLevel::Error => eprintln!("{line}"),
    })
}

/// The sink, kept in the op state.
struct Sink(ConsoleFn);

#[op(fast)]
fn op_console_print(state: &OpState, #[string] line: &str, to_stderr: bool) {
    let level = if to_stderr {
        ConsoleLevel::Error
    } else {
        ConsoleLevel::Log
    };
    (state.borrow::<Sink>().0)(level, line);
}

/// The extension behind `console`, printing to `sink`.
pub(crate) fn extension(sink: ConsoleFn) -> Extension {
    Extension::new("console")
        .internal_ops(&[op_console_print::DECL])
        .state(move |state| {
            state.put(Sink(sink));
        })
}

/// Installs `globalThis.console` over `print(line, toStderr)` (an internal op: scripts see
/// only `console`).
pub(crate) const CONSOLE_JS: &str = r#"(function (internalOps) {
  "use strict";
  const print = internalOps.op_console_print;

  function inspect(value, depth, nested) {
    switch (typeof value) {
      case "string": return nested ? "'" + value.replace(/'/g, "\\'") + "'" : value;
      case "number": return Object.is(value, -0) ? "-0" : String(value);
      case "bigint": return value + "n";
      case "undefined": return "undefined";
      case "boolean": return String(value);
      case "symbol": return value.toString();
      case "function": return value.name ? "[Function: " + value.name + "]" : "[Function (anonymous)]";
    }
    if (value === null) return "null";
    if (value instanceof Error) return value.stack || String(value);
    if (value instanceof Map) {
      if (depth > 2) return "[Map]";
      const entries = [...value].map(([k, v]) => inspect(k, depth + 1, true) + " => " + inspect(v, depth + 1, true));
      return "Map(" + value.size + ") " + (entries.length ? "{ " + entries.join(", ") + " }" : "{}");
    }
    if (value instanceof Set) {
      if (depth > 2) return "[Set]";
      const items = [...value].map((item) => inspect(item, depth + 1, true));
      return "Set(" + value.size + ") " + (items.length ? "{ " + items.join(", ") + " }" : "{}");
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const name = value.constructor ? value.constructor.name : "TypedArray";
      const shown = Array.from(value.subarray(0, 100), (item) => inspect(item, depth + 1, true));
      if (value.length > 100) shown.push("... " + (value.length - 100) + " more items");
      return name + "(" + value.length + ") " + (shown.length ? "[ " + shown.join(", ") + " ]" : "[]");
    }
    if (value instanceof ArrayBuffer) return "ArrayBuffer { byteLength: " + value.byteLength + " }";
    if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (Array.isArray(value)) {
      if (depth > 2) return "[Array]";
      if (value.length === 0) return "[]";
      return "[ " + value.map((item) => inspect(item, depth + 1, true)).join(", ") + " ]";
    }
    if (depth > 2) return "[Object]";
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    const name = Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null
      ? "" : (value.constructor && value.constructor.name ? value.constructor.name + " " : "");
    const body = keys.map((key) => {
      const shown = /^[A-Za-z_$][\w$]*$/.test(key) ? key : "'" + key + "'";
      return shown + ": " + inspect(value[key], depth + 1, true);
    });
    return name + "{ " + body.join(", ") + " }";
  }

  function line(args) {
    return args.map((arg) => inspect(arg, 0, false)).join(" ");
  }

  globalThis.console = {
    log: (...args) => print(line(args), false),
    info: (...args) => print(line(args), false),
    debug: (...args) => print(line(args), false),
    warn: (...args) => print(line(args), true),
    error: (...args) => print(line(args), true),
  };
})"#;
