//! One thread for the whole process that acts when a time comes: it wakes an event loop
//! whose next timer is due (when no tokio runtime drives it), fires the deadlines of
//! termination handles, and queues the earliest delayed task V8 posted for a runtime
//! (`tasks.rs`). Setting an alarm costs a lock and a heap push; a cancelled one is
//! dropped at once (its action) and its heap entry skipped when its time comes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

type Action = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Alarms {
    /// `(time, id)`, earliest first; an id no longer in `actions` was cancelled.
    due: BinaryHeap<Reverse<(Instant, u64)>>,
    actions: HashMap<u64, Action>,
    next_id: u64,
    /// Whether the thread runs.
    started: bool,
}

static ALARMS: Mutex<Option<Alarms>> = Mutex::new(None);
static CHANGED: Condvar = Condvar::new();

fn alarms() -> MutexGuard<'static, Option<Alarms>> {
    ALARMS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An alarm that has been set: [`cancel`] it, or let it fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AlarmId(u64);

/// Runs `action` on the alarm thread at `at` (at once if `at` has passed).
pub(crate) fn set(at: Instant, action: impl FnOnce() + Send + 'static) -> AlarmId {
    let mut guard = alarms();
    let alarms = guard.get_or_insert_with(Alarms::default);
    let id = alarms.next_id;
    alarms.next_id += 1;
    alarms.due.push(Reverse((at, id)));
    alarms.actions.insert(id, Box::new(action));
    if !alarms.started {
        let started = std::thread::Builder::new()
            .name("opwire-alarms".to_owned())
            .spawn(run);
        alarms.started = started.is_ok();
    }
    // A new earliest time: the thread waits for it instead.
    let earliest = alarms
        .due
        .peek()
        .is_some_and(|Reverse((_, first))| *first == id);
    drop(guard);
    if earliest {
        CHANGED.notify_one();
    }
    AlarmId(id)
}

/// Cancels an alarm; `true` if it had not fired (its action is dropped unrun).
pub(crate) fn cancel(id: AlarmId) -> bool {
    let removed = alarms()
        .as_mut()
        .and_then(|alarms| alarms.actions.remove(&id.0));
    removed.is_some()
}

fn run() {
    let mut guard = alarms();
    loop {
        let now = Instant::now();
        let mut fire = Vec::new();
        let next = {
            let alarms = guard.get_or_insert_with(Alarms::default);
            while let Some(&Reverse((at, id))) = alarms.due.peek() {
                if !alarms.actions.contains_key(&id) {
                    alarms.due.pop();
                    continue;
                }
                if at > now {
                    break;
                }
                alarms.due.pop();
                fire.extend(alarms.actions.remove(&id));
            }
            // Cancelled entries are dropped as they come up; a heap of mostly cancelled ones
            // (deadlines disarmed long before their time) is rebuilt.
            if alarms.due.len() > 2 * alarms.actions.len() + 64 {
                let actions = &alarms.actions;
                alarms
                    .due
                    .retain(|Reverse((_, id))| actions.contains_key(id));
            }
            alarms.due.peek().map(|Reverse((at, _))| *at)
        };
        if !fire.is_empty() {
            drop(guard);
            for action in fire {
                // An action is the runtime's own code (a waker, a termination): a panic in a
                // waker must not end the thread every runtime's alarms wait on.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(action));
            }
            guard = alarms();
            continue;
        }
        guard = match next {
            Some(at) => {
                let wait = at.saturating_duration_since(Instant::now());
                CHANGED
                    .wait_timeout(guard, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => CHANGED.wait(guard).unwrap_or_else(PoisonError::into_inner),
        };
    }
}
