//! The tasks V8 posts to an isolate's thread: FinalizationRegistry callbacks,
//! `Atomics.waitAsync`'s settlements, its own heap work, an inspector's heap snapshot. V8's
//! default platform queues them until the embedder pumps its queue, and nothing did: the
//! runtime's platform hands each to the queue of the runtime whose isolate it is for, wakes
//! that runtime's event loop, and the loop runs them on its turns (one flag read when none
//! came). Delayed tasks wait in their runtime's queue too, behind one alarm for the earliest,
//! and go with it: at most [`MAX_DELAYED`] of them, the earliest kept (a tenant's
//! `Atomics.waitAsync` with a timeout posts one, and V8 leaves a cancelled one queued until
//! its time; V8's own timers are seconds away). A task for an isolate no runtime owns, or
//! posted after its runtime closed the queue (before its isolate is disposed, or made into a
//! snapshot), is dropped unrun, as V8 drops the tasks of an isolate it shuts down.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::task::Waker;
use std::time::{Duration, Instant};

use super::alarms::{self, AlarmId};

/// The tasks a queue holds before it grows.
const QUEUED: usize = 16;
/// The most delayed tasks one isolate has waiting; more are dropped unrun.
pub(crate) const MAX_DELAYED: usize = 10_000;

/// A task V8 posted, and whether it may run inside a nested message loop (an inspector's
/// pause, with JavaScript on the stack).
struct Posted {
    task: v8::Task,
    nestable: bool,
}

#[derive(Default)]
struct Waiting {
    /// By time, then by order of posting.
    tasks: BTreeMap<(Instant, u64), Posted>,
    posted: u64,
    /// The alarm set for the earliest: its time, its number among this queue's alarms, and
    /// its id.
    alarm: Option<(Instant, u64, AlarmId)>,
    alarms_set: u64,
}

/// One isolate's queue of V8's tasks. The platform posts from any thread; the runtime runs
/// them on its own.
#[derive(Default)]
pub(crate) struct IsolateTasks {
    queue: Mutex<VecDeque<Posted>>,
    delayed: Mutex<Waiting>,
    /// Set when a task is queued, cleared when the queue is taken: what a turn reads.
    posted: AtomicBool,
    /// Set by `close`: nothing more is queued.
    closed: AtomicBool,
    /// The waker of the runtime's event loop (kept, woken by reference: the loop sets it
    /// only when its own changes).
    waker: Mutex<Option<Waker>>,
}

/// The queues by isolate address. Weak: a runtime owns its queue, and an alarm finds the
/// queue it was set for, or none, never a later isolate's at the same address.
fn registry() -> MutexGuard<'static, HashMap<usize, Weak<IsolateTasks>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<usize, Weak<IsolateTasks>>>> = OnceLock::new();
    REGISTRY
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The address V8 names an isolate by in its task runners.
fn address(isolate: &v8::Isolate) -> usize {
    // SAFETY: the raw pointer is only compared, never dereferenced.
    let raw = unsafe { isolate.as_raw_isolate_ptr() };
    crate::v8_raw::real_isolate(raw) as usize
}

impl IsolateTasks {
    /// The queue of `isolate`'s tasks, from now until [`IsolateTasks::close`].
    pub(crate) fn register(isolate: &v8::Isolate) -> Arc<Self> {
        let tasks = Arc::new(Self {
            // Room for the few V8 posts at once: queueing allocates nothing then.
            queue: Mutex::new(VecDeque::with_capacity(QUEUED)),
            ..Self::default()
        });
        registry().insert(address(isolate), Arc::downgrade(&tasks));
        tasks
    }

    /// Before the isolate goes: tasks posted from now on are dropped, and so are those
    /// queued or delayed (V8 cancelled them, or is about to), and the alarm.
    pub(crate) fn close(self: &Arc<Self>, isolate: &v8::Isolate) {
        {
            let mut registry = registry();
            let key = address(isolate);
            if registry
                .get(&key)
                .is_some_and(|queued| Weak::ptr_eq(queued, &Arc::downgrade(self)))
            {
                registry.remove(&key);
            }
        }
        self.closed.store(true, Ordering::Release);
        let queued = std::mem::take(&mut *locked(&self.queue));
        let waiting = std::mem::take(&mut *locked(&self.delayed));
        if let Some((_, _, alarm)) = waiting.alarm {
            alarms::cancel(alarm);
        }
        drop((queued, waiting));
    }

    fn push(&self, posted: Posted) {
        {
            let mut queue = locked(&self.queue);
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            queue.push_back(posted);
        }
        self.posted.store(true, Ordering::Release);
        self.wake();
    }

    /// Keeps `posted` until `at`, behind one alarm for the earliest; past [`MAX_DELAYED`]
    /// the latest is dropped.
    fn push_delayed(self: &Arc<Self>, at: Instant, posted: Posted) {
        let dropped = {
            let mut waiting = locked(&self.delayed);
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            waiting.posted += 1;
            let order = waiting.posted;
            waiting.tasks.insert((at, order), posted);
            let dropped = if waiting.tasks.len() > MAX_DELAYED {
                waiting.tasks.pop_last()
            } else {
                None
            };
            self.set_alarm(&mut waiting);
            dropped
        };
        // Outside the lock: deleting a task is V8's code.
        drop(dropped);
    }

    /// Sets the alarm for the earliest delayed task, if none is set for it or earlier.
    fn set_alarm(self: &Arc<Self>, waiting: &mut Waiting) {
        let Some(&(at, _)) = waiting.tasks.keys().next() else {
            return;
        };
        if waiting.alarm.is_some_and(|(set_for, _, _)| set_for <= at) {
            return;
        }
        if let Some((_, _, alarm)) = waiting.alarm.take() {
            alarms::cancel(alarm);
        }
        waiting.alarms_set += 1;
        let number = waiting.alarms_set;
        let tasks = Arc::downgrade(self);
        let alarm = alarms::set(at, move || {
            if let Some(tasks) = tasks.upgrade() {
                tasks.move_due(number);
            }
        });
        waiting.alarm = Some((at, number, alarm));
    }

    /// On the alarm thread, alarm `number` fired: the delayed tasks due go to the queue, and
    /// the alarm for the next is set.
    fn move_due(self: &Arc<Self>, number: u64) {
        let now = Instant::now();
        let mut due = Vec::new();
        {
            let mut waiting = locked(&self.delayed);
            if waiting.alarm.is_some_and(|(_, set, _)| set == number) {
                waiting.alarm = None;
            }
            while waiting
                .tasks
                .first_key_value()
                .is_some_and(|(&(at, _), _)| at <= now)
            {
                if let Some((_, posted)) = waiting.tasks.pop_first() {
                    due.push(posted);
                }
            }
            self.set_alarm(&mut waiting);
        }
        for posted in due {
            self.push(posted);
        }
    }

    fn wake(&self) {
        // Cloned out of the lock: a waker is the host's code.
        let waker = locked(&self.waker).clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Keeps the waker of the event loop, to wake when a task comes (the loop calls this
    /// when its waker changes).
    pub(crate) fn set_waker(&self, waker: &Waker) {
        *locked(&self.waker) = Some(waker.clone());
    }

    /// Whether a task waits to be run (delayed ones not yet due are not).
    #[inline]
    pub(crate) fn has_queued(&self) -> bool {
        self.posted.load(Ordering::Acquire)
    }

    /// Runs the tasks queued now, at most `max`, in order, on the isolate's thread (a task
    /// may run JavaScript); with `nested`, only those that may run inside a nested message
    /// loop (the others wait for the loop); none more once `stopped` says the runtime is
    /// being terminated. How many ran; those left, and those the tasks posted, wake the loop
    /// again.
    pub(crate) fn run(&self, max: usize, nested: bool, stopped: &dyn Fn() -> bool) -> usize {
        // A load first: no task is the rule, and a swap would write every turn.
        if !self.has_queued() || !self.posted.swap(false, Ordering::AcqRel) {
            return 0;
        }
        if stopped() {
            self.posted.store(true, Ordering::Release);
            return 0;
        }
        let mut ran = 0;
        let mut left = locked(&self.queue).len().min(max);
        // Non-nestable tasks at the front, left for the loop (nested only).
        let mut skipped = 0;
        while left > 0 {
            let posted = {
                let mut queue = locked(&self.queue);
                if nested {
                    let found = queue
                        .iter()
                        .skip(skipped)
                        .take(left)
                        .position(|posted| posted.nestable);
                    match found {
                        Some(index) => {
                            left -= index + 1;
                            skipped += index;
                            queue.remove(skipped)
                        }
                        None => None,
                    }
                } else {
                    left -= 1;
                    queue.pop_front()
                }
            };
            let Some(posted) = posted else {
                break;
            };
            // Not locked while a task runs: it may post another.
            posted.task.run();
            ran += 1;
            if stopped() {
                break;
            }
        }
        if !locked(&self.queue).is_empty() {
            self.posted.store(true, Ordering::Release);
            self.wake();
        }
        ran
    }
}

/// The runtime's platform: V8's default one, whose foreground tasks come here.
pub(crate) struct Platform;

impl Platform {
    /// The queue `isolate` (V8's pointer) has, if a runtime owns it.
    fn queue_of(isolate: *mut c_void) -> Option<Arc<IsolateTasks>> {
        registry().get(&(isolate as usize)).and_then(Weak::upgrade)
    }

    fn post(isolate: *mut c_void, task: v8::Task, nestable: bool) {
        if let Some(queue) = Self::queue_of(isolate) {
            queue.push(Posted { task, nestable });
        }
    }

    fn post_delayed(isolate: *mut c_void, task: v8::Task, delay_in_seconds: f64, nestable: bool) {
        let Some(queue) = Self::queue_of(isolate) else {
            return;
        };
        let delay = Duration::try_from_secs_f64(delay_in_seconds).unwrap_or(Duration::ZERO);
        let Some(at) = Instant::now().checked_add(delay) else {
            return;
        };
        queue.push_delayed(at, Posted { task, nestable });
    }
}

impl v8::PlatformImpl for Platform {
    fn post_task(&self, isolate: *mut c_void, task: v8::Task) {
        Self::post(isolate, task, true);
    }

    fn post_non_nestable_task(&self, isolate: *mut c_void, task: v8::Task) {
        Self::post(isolate, task, false);
    }

    fn post_delayed_task(&self, isolate: *mut c_void, task: v8::Task, delay_in_seconds: f64) {
        Self::post_delayed(isolate, task, delay_in_seconds, true);
    }

    fn post_non_nestable_delayed_task(
        &self,
        isolate: *mut c_void,
        task: v8::Task,
        delay_in_seconds: f64,
    ) {
        Self::post_delayed(isolate, task, delay_in_seconds, false);
    }

    /// The platform is made without idle tasks: V8 posts none.
    fn post_idle_task(&self, _isolate: *mut c_void, task: v8::IdleTask) {
        drop(task);
    }
}
