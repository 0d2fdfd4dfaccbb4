//! A counting global allocator, for benchmarks and tests that prove an op allocates nothing
//! (or exactly once): allocations and bytes made by the measuring thread while counting is on.
//! Other threads (V8's platform workers) are not counted; V8's own heaps do not go through
//! Rust's allocator at all, so what is counted is what Rust code (ops, conversions) allocates.
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: alloc_counter::CountingAllocator =
//!     alloc_counter::CountingAllocator;
//!
//! let (_, allocs, bytes) = alloc_counter::count(|| do_work());
//! ```

#![warn(clippy::undocumented_unsafe_blocks, missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Wraps the system allocator and counts on the current thread.
pub struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn record(size: usize) {
    // `try_with`: during thread teardown the thread-locals may be gone; such allocations are
    // not the measured loop's.
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            ALLOCS.with(|allocs| allocs.set(allocs.get() + 1));
            BYTES.with(|bytes| bytes.set(bytes.get() + size as u64));
        }
    });
}

// SAFETY: every method forwards to `System` unchanged; counting touches only const-initialised
// thread-locals, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: `GlobalAlloc::alloc`'s contract (non-zero-size `layout`) binds our caller and
        // is exactly `System.alloc`'s; `record` has no bearing on it.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: `alloc_zeroed`'s contract (non-zero-size `layout`) binds our caller and is
        // exactly `System.alloc_zeroed`'s.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: per `realloc`'s contract `ptr` came from this allocator with `layout`, and
        // every block this allocator hands out is `System`'s (see the impl), so `System` may
        // resize it; `new_size`'s constraints are the caller's, unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: per `dealloc`'s contract `ptr` is a live block from this allocator with
        // `layout`, and every such block was allocated by `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations and bytes counted on this thread while `f` ran.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    let before = (ALLOCS.with(Cell::get), BYTES.with(Cell::get));
    COUNTING.with(|counting| counting.set(true));
    let result = f();
    COUNTING.with(|counting| counting.set(false));
    let allocs = ALLOCS.with(Cell::get) - before.0;
    let bytes = BYTES.with(Cell::get) - before.1;
    (result, allocs, bytes)
}
