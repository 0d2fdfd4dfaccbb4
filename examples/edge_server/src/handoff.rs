//! Requests handed from connection tasks to the one task that starts them, and each start
//! handed back, on one thread: a queue and a slot per request, with no channel's atomics and
//! one allocation a request (the slot). The starting task is given the waker of the task
//! awaiting each start, so it can poll what it started once on that task's behalf: a call that
//! waits (on a timer, an op) then wakes its connection task only when it is answered or times
//! out, not once more to say that it started. If the starting task goes (it panicked), every
//! request waiting and every later one is told so, rather than waiting for good.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Where requests `T` wait for the starting task, which hands back an `S` for each.
pub struct Handoff<T, S> {
    queued: RefCell<VecDeque<Rc<Slot<T, S>>>>,
    /// The starting task's waker, while it waits for requests.
    starter: RefCell<Option<Waker>>,
    /// Set when the starting task has gone.
    closed: Cell<bool>,
}

/// One request on its way: the request until it is taken, then what its start gave.
struct Slot<T, S> {
    request: Cell<Option<T>>,
    started: Cell<Option<S>>,
    /// The waker of the task awaiting the start.
    waker: RefCell<Option<Waker>>,
}

impl<T, S> Default for Handoff<T, S> {
    fn default() -> Self {
        Self {
            queued: RefCell::new(VecDeque::new()),
            starter: RefCell::new(None),
            closed: Cell::new(false),
        }
    }
}

impl<T, S> Handoff<T, S> {
    /// Hands `request` over; resolves to what starting it gave, or `None` if the starting task
    /// went first.
    pub fn hand(&self, request: T) -> Handed<'_, T, S> {
        Handed {
            handoff: self,
            request: Some(request),
            slot: None,
        }
    }

    /// The starting task: forever, every request queued since it last ran is given to
    /// `start` with the waker of the task awaiting it, in one go. `start` gives what the
    /// task gets and whether to wake it now (`false` when what it gets has been polled with
    /// that waker and will wake it). A request whose awaiting task went away is not started.
    pub async fn serve(&self, mut start: impl FnMut(T, &Waker) -> (S, bool)) {
        let _closes = CloseOnDrop(self);
        std::future::poll_fn(|cx| {
            *self.starter.borrow_mut() = Some(cx.waker().clone());
            loop {
                // Left in the queue until started (so that a start that panics leaves it
                // there to be told), and not borrowed meanwhile: starting may hand over more.
                let Some(slot) = self.queued.borrow().front().cloned() else {
                    return Poll::<()>::Pending;
                };
                let request = slot.request.take();
                let waker = slot.waker.borrow().clone();
                // Only the queue and this hold it: its task went away.
                let (Some(request), Some(waker), false) =
                    (request, waker, Rc::strong_count(&slot) == 2)
                else {
                    self.queued.borrow_mut().pop_front();
                    continue;
                };
                let (started, wake) = start(request, &waker);
                self.queued.borrow_mut().pop_front();
                slot.started.set(Some(started));
                if wake {
                    waker.wake();
                }
            }
        })
        .await
    }
}

/// Closes a handoff when its starting task's future goes (a panic unwinds through it): the
/// tasks waiting are woken to find it closed.
struct CloseOnDrop<'h, T, S>(&'h Handoff<T, S>);

impl<T, S> Drop for CloseOnDrop<'_, T, S> {
    fn drop(&mut self) {
        self.0.closed.set(true);
        let queued = std::mem::take(&mut *self.0.queued.borrow_mut());
        for slot in queued {
            let waker = slot.waker.borrow_mut().take();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// The future of a request's start ([`Handoff::hand`]).
pub struct Handed<'h, T, S> {
    handoff: &'h Handoff<T, S>,
    request: Option<T>,
    slot: Option<Rc<Slot<T, S>>>,
}

// A request is only moved, never pinned: a `Handed` moves whatever its `T`.
impl<T, S> Unpin for Handed<'_, T, S> {}

impl<T, S> Future for Handed<'_, T, S> {
    type Output = Option<S>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S>> {
        if self.handoff.closed.get() {
            return Poll::Ready(self.slot.take().and_then(|slot| slot.started.take()));
        }
        if let Some(request) = self.request.take() {
            let slot = Rc::new(Slot {
                request: Cell::new(Some(request)),
                started: Cell::new(None),
                waker: RefCell::new(Some(cx.waker().clone())),
            });
            self.handoff.queued.borrow_mut().push_back(slot.clone());
            self.slot = Some(slot);
            // Outside the borrow: a waker is another's code.
            let starter = self.handoff.starter.borrow_mut().take();
            if let Some(starter) = starter {
                starter.wake();
            }
            return Poll::Pending;
        }
        let slot = self.slot.as_ref().expect("polled after it was ready");
        if let Some(started) = slot.started.take() {
            self.slot = None;
            return Poll::Ready(Some(started));
        }
        let mut waker = slot.waker.borrow_mut();
        if !waker
            .as_ref()
            .is_some_and(|kept| kept.will_wake(cx.waker()))
        {
            *waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each request gets what its start gave; one whose awaiting future went away before the
    /// starting task ran is not started.
    #[test]
    fn each_request_gets_its_start_and_a_dropped_one_is_not_started() {
        let tokio = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        let handoff = Rc::new(Handoff::<u32, u32>::default());
        let started = Rc::new(RefCell::new(Vec::new()));
        let (kept, gone, answers) = local.block_on(&tokio, async {
            let starter = handoff.clone();
            let seen = started.clone();
            tokio::task::spawn_local(async move {
                starter
                    .serve(|request, _| {
                        seen.borrow_mut().push(request);
                        (request * 10, true)
                    })
                    .await
            });
            let mut first = handoff.hand(1);
            let mut second = handoff.hand(2);
            let mut third = handoff.hand(3);
            // Queued (each polled once), then the second is dropped before any start.
            let waker = Waker::noop();
            let mut context = Context::from_waker(waker);
            assert!(Pin::new(&mut first).poll(&mut context).is_pending());
            assert!(Pin::new(&mut second).poll(&mut context).is_pending());
            assert!(Pin::new(&mut third).poll(&mut context).is_pending());
            drop(second);
            let answers = (first.await, third.await);
            (
                started.borrow().clone(),
                handoff.queued.borrow().len(),
                answers,
            )
        });
        assert_eq!(kept, vec![1, 3]);
        assert_eq!(gone, 0);
        assert_eq!(answers, (Some(10), Some(30)));
    }

    /// When the starting task goes (it panicked), the requests waiting, and any handed later,
    /// are told it went: none waits for good.
    #[test]
    fn requests_are_told_when_the_starting_task_goes() {
        let tokio = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        let handoff = Rc::new(Handoff::<u32, u32>::default());
        let (waiting, later) = local.block_on(&tokio, async {
            let starter = handoff.clone();
            let started = tokio::task::spawn_local(async move {
                starter.serve(|_, _| panic!("a start that fails")).await
            });
            let waiting = handoff.hand(1).await;
            assert!(started.await.unwrap_err().is_panic());
            (waiting, handoff.hand(2).await)
        });
        assert_eq!((waiting, later), (None, None));
    }
}
