//! What a runtime with a memory limit installs: wrappers of the functions that grow memory V8
//! takes from the system itself (not through the runtime's allocator), each asking the
//! runtime's budget first (`memory_globals.js`), over one internal op.

use std::sync::Arc;

use crate::isolate::memory_budget::MemoryBudget;
use crate::{op, Extension, OpState};

/// The JavaScript of the wrappers.
pub(crate) const MEMORY_JS: &str = include_str!("memory_globals.js");

/// Whether `bytes` more fit in the runtime's memory budget.
#[op]
fn op_memory_fits(isolate: &mut v8::Isolate, state: &OpState, bytes: f64) -> bool {
    state.borrow::<Arc<MemoryBudget>>().room_for(isolate, bytes)
}

/// The extension behind the wrappers, over `budget`.
pub(crate) fn extension(budget: Arc<MemoryBudget>) -> Extension {
    Extension::new("memory")
        .internal_ops(&[op_memory_fits::DECL])
        .state(move |state| {
            state.put(budget);
        })
}
