//! What runtime_core does with a V8 isolate below any runtime: starting V8 (`platform.rs`),
//! entering a runtime's isolate and leaving it entered between calls (`entry.rs`),
//! stopping a script from any thread and letting V8 act on it (`termination.rs`), heap limits
//! that terminate instead of crashing (`heap_limit.rs`), memory budgets and what native objects
//! hold outside V8 (`memory_budget.rs`, `external_memory.rs`), running scripts (`scripts.rs`), and
//! the stacks of their errors, source-mapped (`stack_formatter.rs`, `source_maps.rs`), read
//! without running a tenant's code (`properties.rs`, `thrown.rs`), and the tasks V8 posts to
//! an isolate's thread (`tasks.rs`).

pub(crate) mod alarms;
pub(crate) mod current_stack;
pub(crate) mod entry;
pub(crate) mod external_memory;
pub(crate) mod heap_limit;
pub(crate) mod memory_budget;
pub(crate) mod platform;
mod properties;
pub(crate) mod scripts;
pub(crate) mod source_maps;
pub(crate) mod stack_formatter;
pub(crate) mod tasks;
pub(crate) mod termination;
mod thrown;

pub(crate) use properties::{data_property, own_field, string_head};
pub(crate) use thrown::stack_head as error_stack_head;
