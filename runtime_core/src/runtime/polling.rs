//! The methods of [`Runtime`] that drive its event loop, and await a promise from Rust.

use std::future::Future;
use std::task::{Context, Poll};

use crate::{JsError, Runtime};

impl Runtime {
    /// Runs one turn of the event loop: settles the async ops that are done (their promises'
    /// handlers run), and is `Ready` once no op is pending. `Err` with the first promise
    /// rejected with no handler (its stack kept).
    ///
    /// `cx`'s waker stays with the runtime after any return, `Ready` included: an op that
    /// finishes later, a timer, a call started with [`Runtime::start_call`] or a termination
    /// wakes it. A host that polls the loop beside its own work (a server's task) can go idle
    /// on `Ready(Ok(()))` and be woken when there is work again; each poll replaces the waker.
    pub fn poll_event_loop(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), JsError>> {
        let event_loop = self.inner.event_loop.clone();
        event_loop.set_waker(cx.waker());
        self.termination.register_waker(cx.waker());
        let ((polled, stopped), spent) = self.with_scope_spent(|scope| {
            let polled = event_loop.poll(scope, cx);
            let stopped = event_loop
                .terminating(scope)
                .then(|| JsError::terminated_in(scope));
            (polled, stopped)
        });
        match (polled, stopped) {
            (Poll::Ready(Err(error)), _) | (_, Some(error)) => Poll::Ready(Err(error)),
            // A request that came as the turn ended: spent now, so it is this turn's (as a
            // script's request is the script's).
            (_, None) if spent.is_some() => Poll::Ready(Err(spent.expect("checked to be some"))),
            (polled, None) => polled,
        }
    }

    /// Runs the event loop until no op is pending (or a promise is rejected with no handler).
    pub fn run_event_loop(&mut self) -> impl Future<Output = Result<(), JsError>> + '_ {
        std::future::poll_fn(move |cx| self.poll_event_loop(cx))
    }

    /// Awaits a JavaScript value from Rust, driving the event loop: a promise's value once it
    /// is fulfilled (its error if rejected); any other value as is. (One scope per poll: the
    /// promise is looked at before and after the loop's turn, in the turn's scope.)
    pub fn resolve(
        &mut self,
        value: v8::Global<v8::Value>,
    ) -> impl Future<Output = Result<v8::Global<v8::Value>, JsError>> + '_ {
        // Whether the promise was seen pending: from then on only a turn that ran JavaScript
        // can have settled it (nothing else runs on the runtime while this borrows it).
        let mut seen_pending = false;
        std::future::poll_fn(move |cx| {
            let event_loop = self.inner.event_loop.clone();
            event_loop.set_waker(cx.waker());
            self.termination.register_waker(cx.waker());
            // `Err`: settled. `Ok((looped, looked))`: the turn's outcome, and whether the
            // promise was looked at after it (not while terminating, when an error's
            // properties read empty: then once the termination is spent).
            let (turned, spent) = self.with_scope_spent(|scope| {
                if !seen_pending {
                    if let Some(outcome) = event_loop.outcome(scope, &value) {
                        return Err(outcome);
                    }
                    // The embedder awaits it: its rejection is handled here, and must not
                    // surface as unhandled in a later turn (after this future is dropped, say,
                    // by a timeout) and fail whatever drives the loop then.
                    mark_awaited(scope, &value);
                }
                let (looped, ran_js) = event_loop.poll_turn(scope, cx);
                let stopped = matches!(&looped, Poll::Ready(Err(error)) if error.is_terminated());
                if !ran_js || stopped {
                    return Ok((looped, true));
                }
                if scope.is_execution_terminating() {
                    return Ok((looped, false));
                }
                match event_loop.outcome(scope, &value) {
                    Some(outcome) => Err(outcome),
                    None => Ok((looped, true)),
                }
            });
            seen_pending = true;
            let looped = match turned {
                Err(outcome) => return Poll::Ready(outcome),
                Ok((Poll::Ready(Err(error)), _)) if error.is_terminated() => {
                    return Poll::Ready(Err(error))
                }
                // A request that came as the turn ended (see `poll_event_loop`).
                Ok(_) if spent.is_some() => {
                    return Poll::Ready(Err(spent.expect("checked to be some")))
                }
                Ok((looped, true)) => looped,
                Ok((looped, false)) => {
                    match self.with_scope(|scope| event_loop.outcome(scope, &value)) {
                        Some(outcome) => return Poll::Ready(outcome),
                        None => looped,
                    }
                }
            };
            match looped {
                Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) => Poll::Ready(Err(JsError::host(
                    "Error",
                    "the promise is still pending, but no op is: it never settles",
                ))),
                Poll::Pending => Poll::Pending,
            }
        })
    }
}

impl Runtime {
    /// Cancels what the runtime's JavaScript left waiting: every pending async op (its future
    /// is dropped), every timer, ref'd or not, and every `import()` still loading. Their
    /// promises never settle, so the JavaScript that awaits them never runs on (and is
    /// collected), and rejections not yet reported are forgotten. For a host that gave up on
    /// a call (a timeout around `call_and_await`) or finished a request, so that the next one
    /// starts clean: nothing of the abandoned work runs later. What the scripts stored in
    /// globals stays. Every call in flight ([`Runtime::start_call`]) fails.
    pub fn cancel_pending_work(&mut self) {
        let event_loop = self.inner.event_loop.clone();
        event_loop.calls.fail_all(&JsError::host(
            "Error",
            "the call was cancelled (Runtime::cancel_pending_work)",
        ));
        self.with_scope(|scope| {
            event_loop.cancel_pending();
            event_loop.cancel_sources(scope);
        });
    }

    /// Polls `poll` in the runtime's scope until it is ready; a termination requested
    /// meanwhile (which wakes it) ends it with its error.
    pub(crate) fn poll_until<'a, T: 'a>(
        &'a mut self,
        mut poll: impl FnMut(&mut v8::PinScope<'_, '_>, &mut Context<'_>) -> Poll<Result<T, JsError>>
            + 'a,
    ) -> impl Future<Output = Result<T, JsError>> + 'a {
        std::future::poll_fn(move |cx| {
            self.termination.register_waker(cx.waker());
            match self.with_scope_spent(|scope| poll(scope, cx)) {
                (_, Some(error)) => Poll::Ready(Err(error)),
                (polled, None) => polled,
            }
        })
    }
}

/// Marks a pending promise as handled (a flag V8 keeps on it: no reaction, no allocation), so
/// that its rejection is never reported as unhandled.
fn mark_awaited(scope: &mut v8::PinScope<'_, '_>, value: &v8::Global<v8::Value>) {
    let value = v8::Local::new(scope, value);
    if let Ok(promise) = v8::Local::<v8::Promise>::try_from(value) {
        promise.mark_as_handled();
    }
}
