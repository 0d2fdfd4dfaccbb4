//! What a runtime does when V8's heap nears its limit: V8's default is a fatal
//! out-of-memory error that ends the process (every tenant of a host with it). A runtime
//! instead terminates the script, with [`JsErrorKind::OutOfMemory`](crate::JsErrorKind), lends
//! the heap room to unwind, and takes the room back once the call has returned.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    /// The isolate registered on (V8 calls back on its thread, with its data pointer only).
    isolate: Cell<Option<v8::UnsafeRawIsolatePtr>>,
}

impl NearHeapLimit {
    pub(crate) fn new(termination: TerminationHandle) -> Box<Self> {
        Box::new(Self {
            termination,
            limit_before_loan: AtomicUsize::new(0),
            isolate: Cell::new(None),
        })
    }

    /// Registers the callback on `isolate`. `self` must outlive the registration (the
    /// runtime keeps the box beside its isolate, and drops it after).
    pub(crate) fn register(&self, isolate: &mut v8::Isolate) {
        // SAFETY: the pointer is only turned back into the isolate inside its own callback.
        self.isolate
            .set(Some(unsafe { isolate.as_raw_isolate_ptr() }));
        isolate.add_near_heap_limit_callback(near_heap_limit, self as *const Self as *mut c_void);
    }

    /// Whether the heap itself is at `limit`: V8 also calls back when its count of the heap
    /// and the external memory together (ArrayBuffers) passes its global limit, though the
    /// heap holds little. That memory is not the heap's: a runtime's memory budget governs it
    /// (a buffer that does not fit is a `RangeError`), and with no budget it is the host's.
    fn heap_is_full(&self, limit: usize) -> bool {
        let Some(mut isolate) = self.isolate.get() else {
            return true;
        };
        // SAFETY: V8 calls this on the isolate's thread, with the isolate, which outlives the
        // registration.
        let isolate = unsafe { v8::Isolate::ref_from_raw_isolate_ptr_mut(&mut isolate) };
        let used = isolate.get_heap_statistics().used_heap_size();
        used.saturating_add(limit / HEAP_FULL_MARGIN) >= limit
    }

    /// After the outermost call returned: if the heap was lent room, takes it back (V8 sets a
    /// limit no lower than what is live).
    #[inline]
    pub(crate) fn restore(&self, isolate: &mut v8::Isolate) {
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

/// The heap is at its limit when it holds more than the limit less this fraction of it
/// (1/8: V8 calls back when its old generation, the heap less the young one, is at the
/// limit).
const HEAP_FULL_MARGIN: usize = 8;

/// Terminates the script and lends the heap room to unwind. The script stops at V8's next
/// interrupt check, but a builtin that allocates without checking (`JSON.stringify` of a huge
/// string, `fill` of a huge array) runs on until it returns, and V8 ends the process if an
/// allocation of it does not fit: so each loan leaves room for the largest object V8 makes,
/// and doubles the limit at least.
unsafe extern "C" fn near_heap_limit(data: *mut c_void, current: usize, _initial: usize) -> usize {
    // SAFETY: `data` is the `NearHeapLimit` that `register` passed, alive while registered.
    let state = unsafe { &*(data as *const NearHeapLimit) };
    if state.heap_is_full(current) {
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
