//! The ops whose futures are not done, each in a slot with a waker of its own. A slot's waker
//! is made with the slot and serves every op the slot holds after, so an op going pending
//! costs no allocation (`futures_util`'s `FuturesUnordered`, used before, allocated a task
//! per op). A wake queues its slot; the loop polls the queued slots on its turn, never the
//! others.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Wake, Waker};

use futures_util::task::AtomicWaker;

use super::BoxedOp;

/// The slots kept when the table shrinks (10^5 ops pending at once leave no more behind).
const SLOTS_KEPT: usize = 256;

/// The table shrinks, once no op is pending, when it holds more slots than this: until then an
/// op going pending allocates nothing; past it, each new slot allocates its waker once. (Not
/// past [`SLOTS_KEPT`]: bursts a little above it would make their slots again each time.)
const SLOTS_SHRUNK_PAST: usize = 4 * SLOTS_KEPT;

/// What the slots' wakers share: the slots woken since the loop last looked, and the loop's
/// waker. (Wakers may be woken from any thread.)
#[derive(Default)]
struct WakeQueue {
    woken: Mutex<Vec<usize>>,
    loop_waker: AtomicWaker,
}

/// The waker of one slot. An op that wakes after it finished wakes the slot's next op, if any:
/// a spurious poll, which futures allow.
struct SlotWaker {
    slot: usize,
    /// In the queue already: a second wake before the loop looks adds nothing.
    queued: AtomicBool,
    queue: Arc<WakeQueue>,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel) {
            // (A lock poisoned by a panic elsewhere still holds a valid list.)
            let mut woken = self
                .queue
                .woken
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            woken.push(self.slot);
            drop(woken);
            self.queue.loop_waker.wake();
        }
    }
}

struct Slot {
    op: Option<BoxedOp>,
    waker: Waker,
    state: Arc<SlotWaker>,
}

/// The pending ops of one event loop.
#[derive(Default)]
pub(super) struct PendingOps {
    slots: Vec<Slot>,
    /// Slots holding no op.
    free: Vec<usize>,
    /// Slots given an op since the last turn: polled on the next, as if woken.
    fresh: Vec<usize>,
    /// How many ops are pending.
    len: usize,
    queue: Arc<WakeQueue>,
    /// The slots a turn polls (kept to reuse its memory).
    polling: Vec<usize>,
}

impl PendingOps {
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds an op, first polled on the loop's next turn.
    pub(super) fn push(&mut self, op: BoxedOp) {
        let index = match self.free.pop() {
            Some(index) => index,
            None => self.new_slot(),
        };
        let slot = &mut self.slots[index];
        debug_assert!(slot.op.is_none(), "a free slot holds no op");
        slot.op = Some(op);
        // Its waker would add nothing until the loop clears this.
        slot.state.queued.store(true, Ordering::Release);
        self.fresh.push(index);
        self.len += 1;
    }

    #[cold]
    fn new_slot(&mut self) -> usize {
        let index = self.slots.len();
        let state = Arc::new(SlotWaker {
            slot: index,
            queued: AtomicBool::new(false),
            queue: self.queue.clone(),
        });
        self.slots.push(Slot {
            op: None,
            waker: Waker::from(state.clone()),
            state,
        });
        index
    }

    /// Polls the ops woken or added since the last call, each with its slot's waker; those
    /// done go to `done`, in the order they finished. `cx`'s waker is woken at the next wake.
    pub(super) fn poll_woken(&mut self, cx: &Context<'_>, done: &mut Vec<BoxedOp>) {
        if self.len == 0 {
            // Nothing to poll; a wake now is from an op already done.
            return;
        }
        self.queue.loop_waker.register(cx.waker());
        let mut polling = std::mem::take(&mut self.polling);
        polling.append(&mut self.fresh);
        polling.append(
            &mut self
                .queue
                .woken
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for &index in &polling {
            // (A wake from an op of a slot since dropped names it; see `SLOTS_KEPT`.)
            let Some(slot) = self.slots.get_mut(index) else {
                continue;
            };
            // Cleared first: a wake during the poll queues the slot again. (A swap, as the
            // waker's: either the waker sees it cleared and queues the slot, or this sees the
            // waker's mark, and the poll then sees what the waker's side did before waking.)
            slot.state.queued.swap(false, Ordering::AcqRel);
            let Some(op) = slot.op.as_mut() else {
                continue;
            };
            if op
                .as_mut()
                .poll_op(&mut Context::from_waker(&slot.waker))
                .is_ready()
            {
                done.extend(slot.op.take());
                self.free.push(index);
                self.len -= 1;
            }
        }
        polling.clear();
        self.polling = polling;
        if self.len == 0 && self.slots.len() > SLOTS_SHRUNK_PAST {
            self.shrink();
        }
    }

    /// Drops the slots past [`SLOTS_KEPT`], all free, and the lists' room past as many.
    #[cold]
    fn shrink(&mut self) {
        self.slots.truncate(SLOTS_KEPT);
        self.slots.shrink_to_fit();
        self.free.retain(|&index| index < SLOTS_KEPT);
        self.free.shrink_to(SLOTS_KEPT);
        self.fresh.shrink_to(SLOTS_KEPT);
        self.polling.shrink_to(SLOTS_KEPT);
        self.queue
            .woken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .shrink_to(SLOTS_KEPT);
    }
}
