//! Memory a runtime's native objects hold outside V8 (a codec's state, a parser's tables),
//! counted as the isolate's external memory: a memory budget counts it, and V8 collects sooner
//! as it grows. An object the collector frees gives its share back from its `Drop`, which has
//! no isolate to tell: the release waits in an atomic, settled with V8 at the next hold and,
//! in a runtime with a memory budget, after each collection and before the budget decides the
//! runtime is over.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A runtime's count of what its native objects hold (in its
/// [`OpState`](crate::OpState): `state.borrow::<ExternalMemory>()`).
#[derive(Clone, Default)]
pub struct ExternalMemory {
    /// Bytes given back by dropped [`HeldMemory`]s, not yet told to V8.
    released: Arc<AtomicI64>,
}

impl ExternalMemory {
    /// Counts `bytes` an object now holds; the share goes back when the [`HeldMemory`] drops
    /// (or at once with [`HeldMemory::release`]).
    pub fn hold(&self, isolate: &mut v8::Isolate, bytes: usize) -> HeldMemory {
        self.settle(isolate);
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        isolate.adjust_amount_of_external_allocated_memory(bytes);
        HeldMemory {
            bytes,
            released: self.released.clone(),
        }
    }

    /// Tells V8 of what dropped shares gave back.
    pub(crate) fn settle(&self, isolate: &mut v8::Isolate) {
        let released = self.released.swap(0, Ordering::Relaxed);
        if released != 0 {
            isolate.adjust_amount_of_external_allocated_memory(-released);
        }
    }
}

/// One object's share of a runtime's [`ExternalMemory`]: counted while it lives.
#[must_use = "dropping the share gives it back"]
pub struct HeldMemory {
    bytes: i64,
    released: Arc<AtomicI64>,
}

impl HeldMemory {
    /// Gives the share back now (the object freed what it held while the runtime ran it).
    pub fn release(mut self, isolate: &mut v8::Isolate) {
        isolate.adjust_amount_of_external_allocated_memory(-self.bytes);
        self.bytes = 0;
    }
}

impl Drop for HeldMemory {
    fn drop(&mut self) {
        // Atomic: a collector's finalizer may run on a thread of V8's choosing.
        if self.bytes != 0 {
            self.released.fetch_add(self.bytes, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn external(isolate: &mut v8::Isolate) -> i64 {
        isolate.adjust_amount_of_external_allocated_memory(0)
    }

    #[test]
    fn a_share_counts_while_held_and_goes_back_released_or_dropped() {
        crate::init_v8();
        let isolate = &mut v8::Isolate::new(Default::default());
        let memory = ExternalMemory::default();
        let start = external(isolate);
        let first = memory.hold(isolate, 1 << 20);
        let second = memory.hold(isolate, 1 << 10);
        assert_eq!(external(isolate) - start, (1 << 20) + (1 << 10));
        first.release(isolate);
        assert_eq!(external(isolate) - start, 1 << 10);
        // Dropped: given back when next settled.
        drop(second);
        assert_eq!(external(isolate) - start, 1 << 10);
        memory.settle(isolate);
        assert_eq!(external(isolate) - start, 0);
    }
}
