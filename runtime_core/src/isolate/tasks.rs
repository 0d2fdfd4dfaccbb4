//! The tasks V8 posts to an isolate's thread: FinalizationRegistry callbacks,
//! `Atomics.waitAsync`'s settlements, its own heap work, an inspector's heap snapshot. V8's
//! default platform queues them until the embedder pumps its queue, and nothing did: the
//! runtime's platform hands each to the queue of the runtime whose isolate it is for, wakes
//! that runtime's event loop, and the loop runs them on its turns (one flag read when none
//! came). A delayed task waits on the alarm thread until its time. A task for an isolate no
//! runtime owns (a snapshot creator's, one being disposed) is dropped unrun, as V8 drops the
//! tasks of an isolate it shuts down.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use std::task::Waker;

/// The tasks a queue holds before it grows.
const QUEUED: usize = 16;

/// One isolate's queue of V8's tasks. The platform posts from any thread; the runtime runs
/// them on its own.
#[derive(Default)]
pub(crate) struct IsolateTasks {
    queue: Mutex<VecDeque<v8::Task>>,
    /// Set when a task is queued, cleared when the queue is taken: what a turn reads.
    posted: AtomicBool,
    /// The waker of the runtime's event loop (kept, woken by reference: the loop sets it
    /// only when its own changes).
    waker: Mutex<Option<Waker>>,
}

/// The queues by isolate address. Weak: a runtime owns its queue, and a delayed task finds
/// the queue it was posted to, or none, never a later isolate's at the same address.
fn registry() -> std::sync::MutexGuard<'static, HashMap<usize, Weak<IsolateTasks>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<usize, Weak<IsolateTasks>>>> = OnceLock::new();
    REGISTRY
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
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
    /// queued (V8 cancelled them, or is about to).
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
        let queued = std::mem::take(&mut *self.lock());
        drop(queued);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<v8::Task>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, task: v8::Task) {
        self.lock().push_back(task);
        self.posted.store(true, Ordering::Release);
        self.wake();
    }

    fn wake(&self) {
        let waker = self.waker.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(waker) = &*waker {
            waker.wake_by_ref();
        }
    }

    /// Keeps the waker of the event loop, to wake when a task comes (the loop calls this
    /// when its waker changes).
    pub(crate) fn set_waker(&self, waker: &Waker) {
        *self.waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(waker.clone());
    }

    /// Runs the tasks queued now, at most `max`, in order, on the isolate's thread (a task
    /// may run JavaScript). How many ran; those left, and those the tasks posted, wake the
    /// loop again.
    pub(crate) fn run(&self, max: usize) -> usize {
        // A load first: no task is the rule, and a swap would write every turn.
        if !self.posted.load(Ordering::Acquire) || !self.posted.swap(false, Ordering::AcqRel) {
            return 0;
        }
        let count = self.lock().len().min(max);
        for _ in 0..count {
            // Not locked while a task runs: it may post another.
            let Some(task) = self.lock().pop_front() else {
                return count;
            };
            task.run();
        }
        if !self.lock().is_empty() {
            self.posted.store(true, Ordering::Release);
            self.wake();
        }
        count
    }
}

/// The runtime's platform: V8's default one, whose foreground tasks come here.
pub(crate) struct Platform;

impl Platform {
    /// The queue `isolate` (V8's pointer) has, if a runtime owns it.
    fn queue_of(isolate: *mut c_void) -> Option<Arc<IsolateTasks>> {
        registry().get(&(isolate as usize)).and_then(Weak::upgrade)
    }

    fn post(isolate: *mut c_void, task: v8::Task) {
        if let Some(queue) = Self::queue_of(isolate) {
            queue.push(task);
        }
    }

    fn post_delayed(isolate: *mut c_void, task: v8::Task, delay_in_seconds: f64) {
        let Some(queue) = Self::queue_of(isolate) else {
            return;
        };
        let delay = Duration::try_from_secs_f64(delay_in_seconds).unwrap_or(Duration::ZERO);
        let Some(at) = Instant::now().checked_add(delay) else {
            return;
        };
        let queue = Arc::downgrade(&queue);
        super::alarms::set(at, move || {
            if let Some(queue) = queue.upgrade() {
                queue.push(task);
            }
        });
    }
}

impl v8::PlatformImpl for Platform {
    fn post_task(&self, isolate: *mut c_void, task: v8::Task) {
        Self::post(isolate, task);
    }

    fn post_non_nestable_task(&self, isolate: *mut c_void, task: v8::Task) {
        Self::post(isolate, task);
    }

    fn post_delayed_task(&self, isolate: *mut c_void, task: v8::Task, delay_in_seconds: f64) {
        Self::post_delayed(isolate, task, delay_in_seconds);
    }

    fn post_non_nestable_delayed_task(
        &self,
        isolate: *mut c_void,
        task: v8::Task,
        delay_in_seconds: f64,
    ) {
        Self::post_delayed(isolate, task, delay_in_seconds);
    }

    /// The platform is made without idle tasks: V8 posts none.
    fn post_idle_task(&self, _isolate: *mut c_void, task: v8::IdleTask) {
        drop(task);
    }
}
