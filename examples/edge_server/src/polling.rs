//! How the worker's futures are polled: a call polled once, on its connection task's behalf,
//! by the task that started it; the event loop polled only when woken, in the `LocalSet`'s own
//! future; the starting task aborted with the future that spawned it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use runtime_core::serve::{ServeError, ServedCall};

/// A call as its connection task awaits it: in flight, or answered (refused included) when
/// first polled.
pub(crate) enum Answering<R> {
    InFlight(ServedCall<R>),
    Answered(Option<Result<R, ServeError>>),
}

impl<R> Answering<R> {
    /// `call` polled once with `waker` (its connection task's): a call in flight wakes that
    /// task when it is answered or times out.
    pub(crate) fn new(call: Result<ServedCall<R>, ServeError>, waker: &Waker) -> Self {
        let mut call = match call {
            Ok(call) => call,
            Err(refused) => return Self::Answered(Some(Err(refused))),
        };
        match Pin::new(&mut call).poll(&mut Context::from_waker(waker)) {
            Poll::Ready(outcome) => Self::Answered(Some(outcome)),
            Poll::Pending => Self::InFlight(call),
        }
    }

    pub(crate) fn is_answered(&self) -> bool {
        matches!(self, Self::Answered(_))
    }
}

// An answer is only moved, never pinned: an `Answering` moves whatever its `R`.
impl<R> Unpin for Answering<R> {}

impl<R> Future for Answering<R> {
    type Output = Result<R, ServeError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Self::InFlight(call) => Pin::new(call).poll(cx),
            Self::Answered(outcome) => {
                Poll::Ready(outcome.take().expect("polled after it was ready"))
            }
        }
    }
}

/// The waker of the loop `Worker::drive` polls: marks it woken, and wakes the future polling
/// it.
pub(crate) struct LoopWaker {
    woken: AtomicBool,
    polling: Mutex<Option<Waker>>,
}

impl LoopWaker {
    /// Woken to begin with: polled the first time.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            woken: AtomicBool::new(true),
            polling: Mutex::new(None),
        })
    }

    /// `waker` is the polling future's.
    pub(crate) fn set_polling(&self, waker: &Waker) {
        let mut polling = self
            .polling
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if !polling.as_ref().is_some_and(|kept| kept.will_wake(waker)) {
            *polling = Some(waker.clone());
        }
    }

    /// Whether it was woken since it was last polled.
    pub(crate) fn take_woken(&self) -> bool {
        self.woken.swap(false, Ordering::AcqRel)
    }
}

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        // Outside the lock: a waker is another's code.
        let polling = self
            .polling
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone();
        if let Some(waker) = polling {
            waker.wake();
        }
    }
}

/// A task aborted when this drops.
pub(crate) struct AbortOnDrop<T>(pub(crate) tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
