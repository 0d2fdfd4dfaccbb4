//! What a runtime with a memory limit installs: wrappers of the functions that grow memory V8
//! takes from the system itself (not through the runtime's allocator), each asking the
//! runtime's budget first (`memory.js`), over one internal op. They change no global's type:
//! no TypeScript declarations.

use std::sync::Arc;

use crate::isolate::memory_budget::MemoryBudget;
use crate::GlobalScript;
use crate::{op, Extension, OpState};

/// Whether `bytes` more fit in the runtime's memory budget.
#[op]
fn op_memory_fits(isolate: &mut v8::Isolate, state: &OpState, bytes: f64) -> bool {
    state.borrow::<Arc<MemoryBudget>>().room_for(isolate, bytes)
}

/// The extension behind the wrappers, over `budget`.
pub(crate) fn extension(budget: Arc<MemoryBudget>) -> Extension {
    Extension::new("memory")
        .internal_ops(&[op_memory_fits::DECL])
        .global(GlobalScript::new("<memory>", include_str!("memory.js")))
        .state(move |state| {
            state.put(budget);
        })
}
