//! Terminates JavaScript that keeps the thread past one entry's limit: a loop V8 runs does not
//! yield to any timer of the host's. Armed around each entry into the runtime (a call started,
//! a turn of the loop), watched by a thread. The deadline is an atomic (nanoseconds since
//! `start`, 0 when disarmed): arming and disarming cost a store each, where
//! [`TerminationHandle::terminate_at`](crate::TerminationHandle::terminate_at) takes a
//! process-wide lock and allocates per deadline.
//!
//! The thread sleeps until the deadline it last saw, or, with none armed, for one limit (a
//! deadline armed meanwhile is at least that far off): an idle server's watchdog wakes once a
//! limit, not on a tick, and a deadline is kept to the microsecond.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::TerminationHandle;

/// The shortest the thread sleeps with no deadline armed: a limit under it may be overrun by
/// up to this much, where waking every limit would cost an idle server more.
const SHORTEST_IDLE: Duration = Duration::from_millis(5);

pub(super) struct Watchdog {
    start: Instant,
    limit: Duration,
    shared: Arc<Shared>,
    /// The watching thread, unparked to end when the watchdog drops.
    thread: Option<std::thread::Thread>,
}

/// What the watchdog and its thread share.
struct Shared {
    deadline: AtomicU64,
    /// Set once the thread's `terminate()` returned.
    fired: AtomicBool,
    /// Set when the watchdog drops: the thread ends.
    stopped: AtomicBool,
}

impl Watchdog {
    /// A watchdog of the runtime `termination` stops, each entry allowed `limit`; its thread
    /// ends with it.
    pub(super) fn new(termination: TerminationHandle, limit: Duration) -> Self {
        let start = Instant::now();
        let shared = Arc::new(Shared {
            deadline: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
        });
        let watched = shared.clone();
        let idle = limit.max(SHORTEST_IDLE);
        let spawned = std::thread::Builder::new()
            .name("opwire-watchdog".to_owned())
            .spawn(move || {
                while !watched.stopped.load(Ordering::Acquire) {
                    let at = watched.deadline.load(Ordering::Acquire);
                    let now = start.elapsed().as_nanos() as u64;
                    if at == 0 {
                        std::thread::park_timeout(idle);
                    } else if now < at {
                        std::thread::park_timeout(Duration::from_nanos(at - now));
                    } else if watched
                        .deadline
                        .compare_exchange(at, 0, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        // Taken (set to 0) before terminating: an entry disarmed first is
                        // never terminated.
                        termination.terminate();
                        watched.fired.store(true, Ordering::Release);
                    }
                }
            });
        let thread = match spawned {
            Ok(handle) => Some(handle.thread().clone()),
            Err(_) => {
                // No thread: entries run without a limit; the host's own deadlines still hold.
                log::warn!("opwire: no watchdog thread could be started for a server");
                None
            }
        };
        Self {
            start,
            limit,
            shared,
            thread,
        }
    }

    /// Arms the deadline one limit from now; returns now (for [`Watchdog::since`]).
    pub(super) fn arm(&self) -> Duration {
        let now = self.start.elapsed();
        let at = (now + self.limit).as_nanos().max(1) as u64;
        self.shared.deadline.store(at, Ordering::Release);
        now
    }

    /// The time since `armed` (what [`Watchdog::arm`] returned): one reading of the clock.
    pub(super) fn since(&self, armed: Duration) -> Duration {
        self.start.elapsed().saturating_sub(armed)
    }

    /// Disarms. If the watchdog took the deadline first, waits until its termination was
    /// requested and returns `true`.
    pub(super) fn disarm(&self) -> bool {
        if self.shared.deadline.swap(0, Ordering::AcqRel) != 0 {
            return false;
        }
        while !self.shared.fired.swap(false, Ordering::AcqRel) {
            std::thread::yield_now();
        }
        true
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::Release);
        if let Some(thread) = &self.thread {
            thread.unpark();
        }
    }
}
