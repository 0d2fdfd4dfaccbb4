//! One memory budget per runtime ([`RuntimeOptions::memory_limit`](crate::RuntimeOptions)):
//! its JavaScript heap and what its scripts hold outside it, together.
//!
//! - ArrayBuffers' memory (typed arrays, `DataView`s, what V8 allocates for them) comes from
//!   the runtime's own allocator, which refuses an allocation that would pass the budget
//!   (but the few bytes V8 cannot survive being refused): the script gets V8's `RangeError`
//!   ("Array buffer allocation failed"), or ends as out of memory after V8's last-resort
//!   collection, before any byte is touched.
//! - Memory V8 takes from the system itself (resizable and growable buffers, WebAssembly
//!   memories) is asked for first by the runtime's wrappers of the functions that grow it
//!   ([`MemoryBudget::room_for`]), a `RangeError` when it does not fit.
//! - After every garbage collection, the heap and all external memory V8 accounts are added
//!   up; past the budget, all garbage is collected at the script's next check (dead buffers
//!   V8 had not yet swept counted too) and, still past it, the script is terminated as out of
//!   memory. That also bounds what a WebAssembly module grows from its own code, which no
//!   wrapper sees: at the next collection (V8 collects as external memory grows), the module
//!   stops at its next loop.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::external_memory::ExternalMemory;
use crate::TerminationHandle;

/// Alignment of ArrayBuffer memory (what `malloc` gives; V8 asks for no more).
const ALIGN: usize = 16;

/// Allocations this small are never refused (only counted): V8 ends the process when one
/// fails where it moves a typed array of at most 64 bytes off its heap (`.buffer`), which a
/// script can make happen with its budget full. The check after collections still holds.
const NEVER_REFUSED: usize = 64;

/// A runtime's budget. Shared with its allocator, which V8 may call from other threads (a
/// buffer freed by the background sweeper).
pub(crate) struct MemoryBudget {
    limit: usize,
    /// Bytes the allocator has lent and not had back.
    lent: AtomicUsize,
    /// The heap's size after the last collection (or at the start).
    heap: AtomicUsize,
    /// Set when a buffer was refused, until V8's near-heap-limit callback reads it (V8 calls
    /// it as it collects for the buffer), a buffer is lent, or the call ends.
    refused: AtomicBool,
    /// A collection found the runtime over its budget and asked for the interrupt that
    /// confirms it ([`confirm_over_budget`]), which has not run yet.
    confirm_asked: AtomicBool,
    /// That interrupt's own collection is running (its findings are not another's).
    confirming: AtomicBool,
    termination: TerminationHandle,
    /// What the runtime's native objects hold: what dropped ones gave back is settled before
    /// each check.
    external: ExternalMemory,
}

impl MemoryBudget {
    pub(crate) fn new(
        limit: usize,
        termination: TerminationHandle,
        external: ExternalMemory,
    ) -> Arc<Self> {
        Arc::new(Self {
            limit,
            lent: AtomicUsize::new(0),
            heap: AtomicUsize::new(0),
            refused: AtomicBool::new(false),
            confirm_asked: AtomicBool::new(false),
            confirming: AtomicBool::new(false),
            termination,
            external,
        })
    }

    /// The allocator V8 gives the runtime's ArrayBuffers, counting against this budget.
    pub(crate) fn allocator(self: &Arc<Self>) -> v8::UniqueRef<v8::Allocator> {
        static VTABLE: v8::RustAllocatorVtable<MemoryBudget> = v8::RustAllocatorVtable {
            allocate,
            allocate_uninitialized,
            free,
            drop: drop_budget,
        };
        let handle = Arc::into_raw(self.clone());
        // SAFETY: `handle` is a strong reference V8's allocator keeps until it calls `drop`,
        // which gives it back; the vtable's functions honour the allocator's contract.
        unsafe { v8::new_rust_allocator(handle, &VTABLE) }
    }

    /// Whether `bytes` more fit, by V8's own count of the heap and of the external memory
    /// its buffers hold (exact, read now).
    pub(crate) fn room_for(&self, isolate: &mut v8::Isolate, bytes: f64) -> bool {
        let used = used(isolate);
        bytes <= 0.0 || (used as f64) + bytes <= self.limit as f64
    }

    /// Takes `len` bytes of the budget, if they fit beside the heap (or are too few to refuse).
    fn take(&self, len: usize) -> bool {
        if len <= NEVER_REFUSED {
            self.lent.fetch_add(len, Ordering::Relaxed);
            return true;
        }
        let heap = self.heap.load(Ordering::Relaxed);
        let mut lent = self.lent.load(Ordering::Relaxed);
        loop {
            let total = lent.saturating_add(len).saturating_add(heap);
            if total > self.limit {
                self.refused.store(true, Ordering::Relaxed);
                return false;
            }
            match self.lent.compare_exchange_weak(
                lent,
                lent + len,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.forget_refusal();
                    return true;
                }
                Err(now) => lent = now,
            }
        }
    }

    /// Whether a buffer was refused since this was last asked (see [`MemoryBudget::refused`]).
    pub(crate) fn take_refusal(&self) -> bool {
        self.refused.load(Ordering::Relaxed) && self.refused.swap(false, Ordering::Relaxed)
    }

    /// Forgets a refusal (a load first: none is the rule).
    #[inline]
    pub(crate) fn forget_refusal(&self) {
        if self.refused.load(Ordering::Relaxed) {
            self.refused.store(false, Ordering::Relaxed);
        }
    }

    /// Registers the after-collection check on `isolate`; `self` must outlive the
    /// registration (the runtime keeps it beside its isolate).
    pub(crate) fn watch(self: &Arc<Self>, isolate: &mut v8::Isolate) {
        self.heap.store(
            isolate.get_heap_statistics().used_heap_size(),
            Ordering::Relaxed,
        );
        isolate.add_gc_epilogue_callback(
            after_collection,
            Arc::as_ptr(self) as *mut c_void,
            v8::GCType::kGCTypeAll,
        );
    }
}

/// The heap's size and the external memory V8 accounts (every ArrayBuffer, fixed or
/// resizable, WebAssembly memories, external strings).
fn used(isolate: &mut v8::Isolate) -> usize {
    let heap = isolate.get_heap_statistics().used_heap_size();
    let external = isolate.adjust_amount_of_external_allocated_memory(0).max(0) as usize;
    heap.saturating_add(external)
}

/// After each collection: the heap's size for the allocator, and a termination if the
/// runtime holds more than its budget.
unsafe extern "C" fn after_collection(
    mut isolate: v8::UnsafeRawIsolatePtr,
    _: v8::GCType,
    _: v8::GCCallbackFlags,
    data: *mut c_void,
) {
    // SAFETY: `data` is the budget `watch` registered, alive while registered; V8 calls this
    // on the isolate's thread, with the isolate.
    let (budget, isolate) = unsafe {
        (
            &*(data as *const MemoryBudget),
            v8::Isolate::ref_from_raw_isolate_ptr_mut(&mut isolate),
        )
    };
    budget.external.settle(isolate);
    let heap = isolate.get_heap_statistics().used_heap_size();
    budget.heap.store(heap, Ordering::Relaxed);
    // Over, it may be only for garbage: V8 sweeps dead buffers after the collection, and
    // their memory (buffers an op made, which no allocation refused and so had collected
    // early) still counts now. A collection of everything, sweeping done, tells; it cannot
    // run inside this callback, so an interrupt runs it at the script's next check.
    if used(isolate) > budget.limit
        && !budget.confirming.load(Ordering::Relaxed)
        && !budget.confirm_asked.swap(true, Ordering::Relaxed)
    {
        isolate
            .thread_safe_handle()
            .request_interrupt(confirm_over_budget, data);
    }
}

/// The interrupt [`after_collection`] asks for: collects all garbage, then terminates the
/// script as out of memory if the runtime still holds more than its budget.
unsafe extern "C" fn confirm_over_budget(mut isolate: v8::UnsafeRawIsolatePtr, data: *mut c_void) {
    // SAFETY: `data` is the registered budget, alive while its isolate is (an interrupt left
    // pending when the isolate goes never runs); V8 calls this on the isolate's thread, with
    // the isolate.
    let (budget, isolate) = unsafe {
        (
            &*(data as *const MemoryBudget),
            v8::Isolate::ref_from_raw_isolate_ptr_mut(&mut isolate),
        )
    };
    budget.confirming.store(true, Ordering::Relaxed);
    isolate.low_memory_notification();
    budget.external.settle(isolate);
    budget.confirming.store(false, Ordering::Relaxed);
    budget.confirm_asked.store(false, Ordering::Relaxed);
    if used(isolate) > budget.limit {
        budget
            .termination
            .terminate_out_of_memory(super::termination::OutOfMemory::Budget);
    }
}

fn layout(len: usize) -> Option<std::alloc::Layout> {
    std::alloc::Layout::from_size_align(len, ALIGN).ok()
}

/// Memory for a buffer of `len` bytes, or null past the budget (V8 then throws a
/// `RangeError`). A buffer of no bytes takes no memory.
unsafe extern "C" fn allocate(budget: &MemoryBudget, len: usize) -> *mut c_void {
    // SAFETY: as `allocate_with`'s contract.
    unsafe { allocate_with(budget, len, std::alloc::alloc_zeroed) }
}

unsafe extern "C" fn allocate_uninitialized(budget: &MemoryBudget, len: usize) -> *mut c_void {
    // SAFETY: as `allocate_with`'s contract.
    unsafe { allocate_with(budget, len, std::alloc::alloc) }
}

/// # Safety
/// `alloc` must be `std::alloc::alloc` or `alloc_zeroed`.
unsafe fn allocate_with(
    budget: &MemoryBudget,
    len: usize,
    alloc: unsafe fn(std::alloc::Layout) -> *mut u8,
) -> *mut c_void {
    if len == 0 {
        return std::ptr::without_provenance_mut(ALIGN);
    }
    let Some(layout) = layout(len) else {
        return std::ptr::null_mut();
    };
    if !budget.take(len) {
        return std::ptr::null_mut();
    }
    // SAFETY: a layout of a non-zero size.
    let memory = unsafe { alloc(layout) };
    if memory.is_null() {
        budget.lent.fetch_sub(len, Ordering::Relaxed);
    }
    memory.cast()
}

unsafe extern "C" fn free(budget: &MemoryBudget, data: *mut c_void, len: usize) {
    if len == 0 || data.is_null() {
        return;
    }
    let Some(layout) = layout(len) else {
        return;
    };
    // SAFETY: V8 frees what `allocate` gave it, with the length it asked for.
    unsafe { std::alloc::dealloc(data.cast(), layout) };
    budget.lent.fetch_sub(len, Ordering::Relaxed);
}

unsafe extern "C" fn drop_budget(budget: *const MemoryBudget) {
    // SAFETY: the strong reference `allocator` gave V8, given back once.
    drop(unsafe { Arc::from_raw(budget) });
}
