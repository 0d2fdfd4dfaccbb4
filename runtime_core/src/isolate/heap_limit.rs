//! What a runtime does when V8's heap nears its limit: V8's default is a fatal
//! out-of-memory error that ends the process (every tenant of a host with it). A runtime
//! instead terminates the script, with [`JsErrorKind::OutOfMemory`](crate::JsErrorKind), lends
//! the heap room to unwind, and takes the room back once the call has returned.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::memory_budget::MemoryBudget;
use crate::TerminationHandle;

/// V8's heap limits for one runtime, in bytes (`v8::CreateParams::heap_limits`): the heap
/// starts at `initial` and may grow to `max`; past `max` the script is terminated with
/// [`JsErrorKind::OutOfMemory`](crate::JsErrorKind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapLimits {
    /// The initial size of the heap.
    pub initial: usize,
    /// The largest the heap may grow to.
    pub max: usize,
}

/// The runtime's side of V8's near-heap-limit callback (boxed: V8 holds its address).
pub(crate) struct NearHeapLimit {
    termination: TerminationHandle,
    /// The limit before the first loan; 0 when no loan is out.
    limit_before_loan: AtomicUsize,
    /// The runtime's memory budget, if it has one: V8 also calls back while it collects for
    /// a buffer the budget refused, with a heap that holds little.
    budget: Option<Arc<MemoryBudget>>,
}

impl NearHeapLimit {
    pub(crate) fn new(
        termination: TerminationHandle,
        budget: Option<Arc<MemoryBudget>>,
    ) -> Box<Self> {
        Box::new(Self {
            termination,
            limit_before_loan: AtomicUsize::new(0),
            budget,
        })
    }

    /// Registers the callback on `isolate`. `self` must outlive the registration (the
    /// runtime keeps the box beside its isolate, and drops it after).
    pub(crate) fn register(&self, isolate: &mut v8::Isolate) {
        isolate.add_near_heap_limit_callback(near_heap_limit, self as *const Self as *mut c_void);
    }

    /// After the outermost call returned: if the heap was lent room, takes it back (V8 sets a
    /// limit no lower than what is live).
    #[inline]
    pub(crate) fn restore(&self, isolate: &mut v8::Isolate) {
        if let Some(budget) = &self.budget {
            budget.forget_refusal();
        }
        // A load first: no loan is the rule, and a swap would write every call.
        if self.limit_before_loan.load(Ordering::Relaxed) == 0 {
            return;
        }
        let limit = self.limit_before_loan.swap(0, Ordering::Relaxed);
        if limit != 0 {
            // The stopped script's garbage goes first: V8 restores no limit below what is
            // live, so with it still there the limit would ratchet up at each loan, and the
            // next call would meet it at once.
            isolate.low_memory_notification();
            isolate.remove_near_heap_limit_callback(near_heap_limit, limit);
            self.register(isolate);
        }
    }
}

/// The largest object V8 makes: a string of 2^29 - 24 two-byte characters, a fixed array of
/// about 2^27 elements.
const LARGEST_OBJECT: usize = 1 << 30;

/// Terminates the script and lends the heap room to unwind, unless V8 calls back while it
/// collects for a buffer the memory budget refused: that buffer is the budget's to refuse (a
/// `RangeError` once V8 has collected), its garbage is no reason to stop the script, and the
/// budget's check after each collection still bounds the heap and buffers together. The script
/// stops at V8's next interrupt check, but a builtin that allocates without checking (`JSON.stringify` of a huge
/// string, `fill` of a huge array) runs on until it returns, and V8 ends the process if an
/// allocation of it does not fit: so each loan leaves room for the largest object V8 makes,
/// and doubles the limit at least.
unsafe extern "C" fn near_heap_limit(data: *mut c_void, current: usize, _initial: usize) -> usize {
    // SAFETY: `data` is the `NearHeapLimit` that `register` passed, alive while registered.
    let state = unsafe { &*(data as *const NearHeapLimit) };
    let for_a_buffer = state
        .budget
        .as_ref()
        .is_some_and(|budget| budget.take_refusal());
    if !for_a_buffer {
        state
            .termination
            .terminate_out_of_memory(super::termination::OutOfMemory::Heap);
    }
    let _ =
        state
            .limit_before_loan
            .compare_exchange(0, current, Ordering::Relaxed, Ordering::Relaxed);
    current
        .saturating_mul(2)
        .max(current.saturating_add(LARGEST_OBJECT))
}
