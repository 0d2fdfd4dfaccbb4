//! runtime_core's own globals, each an ordinary [`Extension`] with internal ops and a
//! [`GlobalScript`](crate::GlobalScript), as a host's own would be: the console (`console.rs`), the timers (`timers.rs`) and,
//! under a memory budget, the wrappers of what grows memory outside the runtime's allocator
//! (`memory.rs`).
//! `Runtime` installs every extension's global the same way and names none of them.
//!
//! A global is an install script (compiled from a code cache kept for the process) that
//! evaluates to a function; the runtime calls it with an object of the extension's internal
//! ops (and the install scripts' shared `internals`), when a context is made. What it returns, a global that keeps
//! something (the timers keep `fire(id)`) is given, then and when a runtime starts from a
//! snapshot of that context (the snapshot carries it). Its TypeScript declarations join the
//! runtime's.

#![deny(unsafe_code)]

pub mod console;
mod memory;
mod timers;

use std::sync::Arc;

use crate::isolate::memory_budget::MemoryBudget;
use crate::Extension;

/// The built-in globals a runtime with these options has, in install order: the memory
/// wrappers first (before any script could reach what they wrap), the console, the timers.
pub(crate) fn builtins(
    console: Option<console::ConsoleFn>,
    memory_budget: Option<Arc<MemoryBudget>>,
    precise_timers: bool,
) -> Vec<Extension> {
    let mut builtins = Vec::with_capacity(3);
    builtins.extend(memory_budget.map(memory::extension));
    builtins.extend(console.map(console::extension));
    builtins.push(timers::extension(precise_timers));
    builtins
}
