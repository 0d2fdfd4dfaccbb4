//! Where pending ops live: memory kept by layout for the next op (`OpPool`), one block kept
//! per op for its next call (`OpMemory`), and the op placed in it (`BoxedOp`). An op that
//! completes during its call, and every op once the pool holds memory of its layout, costs no
//! allocation.

use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::ptr::NonNull;

use super::PendingOp;

/// A pending op in memory of the loop's pool: placed once, never moved until dropped (so it
/// is pinned), its memory then kept for the next op of the same layout. An op that completes
/// during its call, and every op once the pool holds memory of its layout, costs no
/// allocation.
pub(crate) struct BoxedOp {
    pub(super) op: NonNull<dyn PendingOp>,
    pub(super) layout: Layout,
    /// The loop whose pool the memory returns to; it outlives its ops (`Runtime` drops them
    /// first).
    pub(super) pool: *const OpPool,
}

impl BoxedOp {
    /// The op, pinned.
    pub(crate) fn as_mut(&mut self) -> Pin<&mut dyn PendingOp> {
        // SAFETY: the op lives in memory owned by `self` and never moves before `drop`.
        unsafe { Pin::new_unchecked(self.op.as_mut()) }
    }
}

impl Drop for BoxedOp {
    fn drop(&mut self) {
        // SAFETY: `op` was written in `EventLoop::start` and is dropped once, here; its memory then
        // goes back to the pool, which outlives it.
        // A panicking future's `Drop` is caught here, not in the embedder's executor (which
        // polls the loop) nor across V8's frames: it is reported, and the loop goes on.
        // SAFETY: as above; the op is read for its name before it is dropped.
        let name = unsafe { self.op.as_ref() }.op_name();
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: as above: dropped once, here.
            unsafe { std::ptr::drop_in_place(self.op.as_ptr()) }
        }));
        if let Err(payload) = dropped {
            crate::errors::throw::report_drop_panic(
                &format!("the future of async op {name}"),
                &*payload,
            );
        }
        // SAFETY: as above.
        unsafe { (*self.pool).give(self.layout, self.op.cast()) };
    }
}

/// Memory for pending ops, kept by layout.
#[derive(Default)]
pub(crate) struct OpPool {
    free: RefCell<Vec<(Layout, NonNull<u8>)>>,
}

/// How many blocks the pool keeps (10^5 ops pending at once give most of theirs back).
const POOL_LIMIT: usize = 256;

impl OpPool {
    /// Memory of `layout`, kept or new.
    pub(super) fn take(&self, layout: Layout) -> NonNull<u8> {
        let reused = {
            let mut free = self.free.borrow_mut();
            free.iter()
                .rposition(|(kept, _)| *kept == layout)
                .map(|index| free.swap_remove(index).1)
        };
        match reused {
            Some(memory) => memory,
            // Aligned for the layout: a zero-sized `T` is still written through it.
            None if layout.size() == 0 => {
                NonNull::new(std::ptr::without_provenance_mut(layout.align()))
                    .expect("an alignment is never zero")
            }
            // SAFETY: a non-zero size.
            None => NonNull::new(unsafe { std::alloc::alloc(layout) })
                .unwrap_or_else(|| std::alloc::handle_alloc_error(layout)),
        }
    }

    pub(super) fn give(&self, layout: Layout, memory: NonNull<u8>) {
        if layout.size() == 0 {
            return;
        }
        let mut free = self.free.borrow_mut();
        if free.len() < POOL_LIMIT {
            free.push((layout, memory));
        } else {
            // SAFETY: allocated in `take` with this layout.
            unsafe { std::alloc::dealloc(memory.as_ptr(), layout) };
        }
    }
}

impl Drop for OpPool {
    fn drop(&mut self) {
        for (layout, memory) in self.free.get_mut().drain(..) {
            // SAFETY: allocated in `take` with this layout, no longer in use.
            unsafe { std::alloc::dealloc(memory.as_ptr(), layout) };
        }
    }
}

/// Memory for one op future, kept by its op (`OpCtx`): an op done during its call gives its
/// memory back here, and the op's next call takes it without searching the pool.
#[derive(Default)]
pub(crate) struct OpMemory(Cell<Option<(Layout, NonNull<u8>)>>);

impl OpMemory {
    pub(super) fn take(&self, layout: Layout) -> Option<NonNull<u8>> {
        match self.0.take() {
            Some((kept, memory)) if kept == layout => Some(memory),
            other => {
                self.0.set(other);
                None
            }
        }
    }

    pub(super) fn keep(&self, layout: Layout, memory: NonNull<u8>, pool: &OpPool) {
        if let Some((layout, memory)) = self.0.replace(Some((layout, memory))) {
            pool.give(layout, memory);
        }
    }
}

impl Drop for OpMemory {
    fn drop(&mut self) {
        if let Some((layout, memory)) = self.0.take() {
            if layout.size() != 0 {
                // SAFETY: allocated by `OpPool::take` with this layout, no longer in use.
                unsafe { std::alloc::dealloc(memory.as_ptr(), layout) };
            }
        }
    }
}
