//! A one-shot signal on the runtime's thread that ends a future early, dropping it
//! unfinished: a `fetch()` request's abort (`transport.rs`), the closing of a request body a
//! handler is reading (`fetch_handler/request_body.rs`).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::task::{Poll, Waker};

#[derive(Default)]
pub(crate) struct CancelSignal {
    cancelled: Cell<bool>,
    /// The waker of the future [`CancelSignal::unless`] is running, if it waits.
    waiting: RefCell<Option<Waker>>,
}

impl CancelSignal {
    /// Signals: the future waiting ends now, and any later one at once.
    pub(crate) fn cancel(&self) {
        self.cancelled.set(true);
        let waiting = self.waiting.borrow_mut().take();
        if let Some(waiting) = waiting {
            waiting.wake();
        }
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// `future`'s output, or `cancelled()`'s once the signal comes first (`future` is then
    /// dropped unfinished).
    pub(crate) async fn unless<T>(
        &self,
        future: impl Future<Output = T>,
        cancelled: impl FnOnce() -> T,
    ) -> T {
        let mut future = pin!(future);
        let mut cancelled = Some(cancelled);
        std::future::poll_fn(|cx| {
            if self.cancelled.get() {
                let cancelled = cancelled.take().expect("polled after it was ready");
                return Poll::Ready(cancelled());
            }
            if let Poll::Ready(done) = future.as_mut().poll(cx) {
                return Poll::Ready(done);
            }
            *self.waiting.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}
