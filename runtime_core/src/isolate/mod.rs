//! What runtime_core does with a V8 isolate below any runtime: starting V8 (`platform.rs`),
//! entering a runtime's isolate and leaving it entered between calls (`entry.rs`),
//! stopping a script from any thread and letting V8 act on it (`termination.rs`), heap limits
//! that terminate instead of crashing (`heap_limit.rs`), running scripts (`scripts.rs`), and
//! the stacks of their errors, source-mapped (`stack_formatter.rs`, `source_maps.rs`), and the
//! tasks V8 posts to an isolate's thread (`tasks.rs`).

pub(crate) mod alarms;
pub(crate) mod entry;
pub(crate) mod heap_limit;
pub(crate) mod memory_budget;
pub(crate) mod platform;
pub(crate) mod scripts;
pub(crate) mod source_maps;
pub(crate) mod stack_formatter;
pub(crate) mod tasks;
pub(crate) mod termination;
mod thrown;

pub(crate) use thrown::{data_property, own_field, stack_head as error_stack_head};

/// At most the first `max` UTF-16 units of `text`, and how many more it has: only what is
/// kept is copied out of the heap (a tenant's string may be hundreds of megabytes).
pub(crate) fn string_head(
    scope: &mut v8::PinScope<'_, '_>,
    text: v8::Local<'_, v8::String>,
    max: usize,
) -> (String, usize) {
    let length = text.length();
    if length <= max {
        return (text.to_rust_string_lossy(scope), 0);
    }
    let mut head = vec![0u16; max];
    text.write_v2(scope, 0, &mut head, v8::WriteFlags::empty());
    (String::from_utf16_lossy(&head), length - max)
}
