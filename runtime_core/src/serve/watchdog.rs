//! Terminates JavaScript that keeps the thread past one entry's limit: a loop V8 runs does not
//! yield to any timer of the host's. Armed around each entry into the runtime (a call started,
//! a turn of the loop), checked by a thread every few milliseconds. The deadline is an atomic
//! (nanoseconds since `start`, 0 when disarmed): arming and disarming cost a store each, where
//! [`TerminationHandle::terminate_at`](crate::TerminationHandle::terminate_at) takes a
//! process-wide lock and allocates per deadline.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::TerminationHandle;

/// How often the thread looks at the deadline.
const TICK: Duration = Duration::from_millis(5);

pub(super) struct Watchdog {
    start: Instant,
    deadline: Arc<AtomicU64>,
    /// Set once the watchdog's `terminate()` returned.
    fired: Arc<AtomicBool>,
}

impl Watchdog {
    /// A watchdog of the runtime `termination` stops; its thread ends with it.
    pub(super) fn new(termination: TerminationHandle) -> Self {
        let start = Instant::now();
        let deadline = Arc::new(AtomicU64::new(0));
        let fired = Arc::new(AtomicBool::new(false));
        let watched = Arc::downgrade(&deadline);
        let fired_here = fired.clone();
        let spawned = std::thread::Builder::new()
            .name("opwire-watchdog".to_owned())
            .spawn(move || {
                while let Some(deadline) = watched.upgrade() {
                    let at = deadline.load(Ordering::Acquire);
                    let now = start.elapsed().as_nanos() as u64;
                    // Taken (set to 0) before terminating: an entry disarmed first is never
                    // terminated.
                    if at != 0
                        && now >= at
                        && deadline
                            .compare_exchange(at, 0, Ordering::AcqRel, Ordering::Acquire)
                            .is_ok()
                    {
                        termination.terminate();
                        fired_here.store(true, Ordering::Release);
                    }
                    drop(deadline);
                    std::thread::sleep(TICK);
                }
            });
        if spawned.is_err() {
            // No thread: entries run without a limit; the host's own deadlines still hold.
            log::warn!("opwire: no watchdog thread could be started for a server");
        }
        Self {
            start,
            deadline,
            fired,
        }
    }

    /// Arms the deadline `limit` from now; returns now (for [`Watchdog::since`]).
    pub(super) fn arm(&self, limit: Duration) -> Duration {
        let now = self.start.elapsed();
        let at = (now + limit).as_nanos().max(1) as u64;
        self.deadline.store(at, Ordering::Release);
        now
    }

    /// The time since `armed` (what [`Watchdog::arm`] returned): one reading of the clock.
    pub(super) fn since(&self, armed: Duration) -> Duration {
        self.start.elapsed().saturating_sub(armed)
    }

    /// Disarms. If the watchdog took the deadline first, waits until its termination was
    /// requested and returns `true`.
    pub(super) fn disarm(&self) -> bool {
        if self.deadline.swap(0, Ordering::AcqRel) != 0 {
            return false;
        }
        while !self.fired.swap(false, Ordering::AcqRel) {
            std::thread::yield_now();
        }
        true
    }
}
