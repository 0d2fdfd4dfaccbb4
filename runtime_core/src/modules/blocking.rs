//! A few threads, shared by the process, for the file reads of module loaders: a read never
//! blocks a runtime's thread, and its future is woken when the read is done. Threads are
//! started as reads need them (at most [`MAX_THREADS`]) and end after a while without work.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// At most this many reads at once, for all runtimes of the process.
const MAX_THREADS: usize = 4;
/// How long an idle thread waits for work before it ends.
const IDLE: Duration = Duration::from_secs(5);

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
    idle: usize,
}

struct Pool {
    queue: Mutex<Queue>,
    work: Condvar,
}

static POOL: Pool = Pool {
    queue: Mutex::new(Queue {
        jobs: VecDeque::new(),
        threads: 0,
        idle: 0,
    }),
    work: Condvar::new(),
};

/// Runs `job` on a pool thread; the future is its result (`None` if it panicked).
pub(crate) fn run<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Outcome<T> {
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        done: false,
        waker: None,
        dropped: false,
    }));
    let filled = slot.clone();
    let job: Job = Box::new(move || {
        // Nobody waits any more (the load was dropped: a cancelled import, a runtime gone):
        // its read is not done, and leaves the threads to others.
        if filled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .dropped
        {
            return;
        }
        let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).ok();
        let mut slot = filled.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value = value;
        slot.done = true;
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    });
    let mut queue = POOL.queue.lock().unwrap_or_else(PoisonError::into_inner);
    queue.jobs.push_back(job);
    if queue.idle == 0 && queue.threads < MAX_THREADS {
        let spawned = std::thread::Builder::new()
            .name("opwire-module-read".to_owned())
            .spawn(work);
        if spawned.is_ok() {
            queue.threads += 1;
        }
    }
    drop(queue);
    POOL.work.notify_one();
    Outcome { slot }
}

fn work() {
    let mut queue = POOL.queue.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = queue.jobs.pop_front() {
            drop(queue);
            job();
            queue = POOL.queue.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        queue.idle += 1;
        let (next, waited) = POOL
            .work
            .wait_timeout(queue, IDLE)
            .unwrap_or_else(PoisonError::into_inner);
        queue = next;
        queue.idle -= 1;
        if waited.timed_out() && queue.jobs.is_empty() {
            queue.threads -= 1;
            return;
        }
    }
}

struct Slot<T> {
    value: Option<T>,
    done: bool,
    waker: Option<Waker>,
    /// The outcome was dropped.
    dropped: bool,
}

/// The result of a job given to [`run`].
pub(crate) struct Outcome<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> Drop for Outcome<T> {
    fn drop(&mut self) {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .dropped = true;
    }
}

impl<T> Future for Outcome<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.done {
            return Poll::Ready(slot.value.take());
        }
        if !slot
            .waker
            .as_ref()
            .is_some_and(|kept| kept.will_wake(cx.waker()))
        {
            slot.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}
