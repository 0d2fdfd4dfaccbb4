//! Async ops: the call starts the op's future (the op's JavaScript wrapper makes its promise
//! if it goes pending, see [`crate::event_loop::async_wrap`]); the future is polled during the
//! call (eager, deferred) or first by the event loop (lazy), and its outcome settles the
//! promise through the result's [`IntoValue`] impl.

use std::any::Any;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::{addr_of_mut, NonNull};
use std::task::{Context, Poll};

use crate::event_loop::{AsyncMode, PendingOp, Started};
use crate::ops::OpCtx;
use crate::OpError;

use super::kinds::IntoValue;
use super::{SlowCall, Thrown};
use crate::errors::throw::{new_error, op_error_value};
use crate::ops::messages::panic_message;

/// What an async op's output settles its promise with: the macro maps `Result`, `Option` and
/// `()` outputs to this.
pub enum Settlement<T> {
    /// Resolved with the value, made by `T`'s `IntoValue`.
    Value(T),
    /// Resolved with `undefined`.
    Undefined,
    /// Resolved with `null` (`None`).
    Null,
    /// Rejected with the error (`Err`).
    Error(OpError),
}

/// One async op: its future, how its output becomes a settlement, and its promise.
struct OpFuture<F, S, T, K> {
    /// Structurally pinned: the only field polled in place.
    future: F,
    settle: Option<S>,
    outcome: Option<Settlement<T>>,
    resolver: Option<v8::Global<v8::PromiseResolver>>,
    /// The op's context, which outlives every pending op (`Runtime` drops them first).
    op_ctx: *const OpCtx,
    kind: PhantomData<fn() -> K>,
}

impl<F, S, T, K> OpFuture<F, S, T, K> {
    fn op_ctx(&self) -> &OpCtx {
        // SAFETY: see the field.
        unsafe { &*self.op_ctx }
    }
}

/// What the promise settles with: `Ok` resolves, `Err` rejects. The op's own `Err` is the
/// error a sync op throws; a conversion's error is prefixed with the op's name, as a sync op's
/// return throws it; a panic names the op.
fn outcome_value<'s, T: IntoValue<K>, K>(
    scope: &mut v8::PinScope<'s, '_>,
    decl: &crate::OpDecl,
    outcome: Settlement<T>,
) -> Result<v8::Local<'s, v8::Value>, v8::Local<'s, v8::Value>> {
    let value = catch_unwind(AssertUnwindSafe(|| match outcome {
        Settlement::Value(value) => value.into_value(scope).map_err(|error| (error, true)),
        Settlement::Undefined => Ok(v8::undefined(scope).into()),
        Settlement::Null => Ok(v8::null(scope).into()),
        Settlement::Error(error) => Err((error, false)),
    }));
    match value {
        Ok(Ok(value)) => Ok(value),
        Ok(Err((error, prefixed))) => {
            let prefix = prefixed.then_some(decl.name);
            Err(op_error_value(scope, &error, prefix))
        }
        Err(payload) => Err(panic_value(scope, decl, &*payload)),
    }
}

fn panic_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    decl: &crate::OpDecl,
    payload: &(dyn Any + Send),
) -> v8::Local<'s, v8::Value> {
    new_error(scope, "Error", &panic_message(decl, payload))
}

impl<F, S, T, K> PendingOp for OpFuture<F, S, T, K>
where
    F: Future,
    S: FnOnce(F::Output) -> Settlement<T>,
    T: IntoValue<K>,
{
    fn poll_op(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.outcome.is_some() {
            return Poll::Ready(());
        }
        // SAFETY: `future` is structurally pinned (never moved out of a pinned `OpFuture`);
        // the other fields are not.
        let this = unsafe { self.get_unchecked_mut() };
        let decl = this.op_ctx().decl;
        // SAFETY: as above.
        let future = unsafe { Pin::new_unchecked(&mut this.future) };
        let settle = &mut this.settle;
        // The output's mapping runs user code too (`OpError::from`): under the same guard.
        let polled = catch_unwind(AssertUnwindSafe(|| match future.poll(cx) {
            Poll::Pending => None,
            Poll::Ready(output) => {
                let settle = settle.take().expect("an op's future finishes once");
                Some(settle(output))
            }
        }));
        let outcome = match polled {
            Ok(None) => return Poll::Pending,
            Ok(Some(outcome)) => outcome,
            Err(payload) => Settlement::Error(OpError::generic(panic_message(decl, &*payload))),
        };
        this.outcome = Some(outcome);
        Poll::Ready(())
    }

    fn take_outcome<'s>(
        self: Pin<&mut Self>,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, v8::Local<'s, v8::Value>> {
        // SAFETY: `outcome` is not structurally pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let decl = this.op_ctx().decl;
        let outcome = this.outcome.take().unwrap_or(Settlement::Undefined);
        outcome_value(scope, decl, outcome)
    }

    fn take_plain_outcome(self: Pin<&mut Self>) -> Option<Result<(), OpError>> {
        // SAFETY: `outcome` is not structurally pinned.
        let this = unsafe { self.get_unchecked_mut() };
        match this.outcome.take() {
            Some(Settlement::Undefined) => Some(Ok(())),
            Some(Settlement::Error(error)) => Some(Err(error)),
            other => {
                this.outcome = other;
                None
            }
        }
    }

    fn op_name(&self) -> &'static str {
        self.op_ctx().decl.name
    }

    fn keep_resolver(self: Pin<&mut Self>, resolver: v8::Global<v8::PromiseResolver>) {
        // SAFETY: `resolver` is not structurally pinned.
        unsafe { self.get_unchecked_mut() }.resolver = Some(resolver);
    }

    fn take_resolver(self: Pin<&mut Self>) -> Option<v8::Global<v8::PromiseResolver>> {
        // SAFETY: as above.
        unsafe { self.get_unchecked_mut() }.resolver.take()
    }
}

/// Starts an async op that speaks [`AsyncCall::Status`](super::AsyncCall::Status), on either
/// path: `Ok(0)` when it finished during the call with `undefined`, `Ok(1)` when it did not
/// (left for its wrapper to claim the promise of), `Err` when it failed during the call
/// (thrown, so rejected). The
/// macro gives this protocol to eager ops only when they return nothing; an eager op that
/// finishes with a value anyway is settled by the loop.
#[ops_macro::inline_hot]
pub fn start_async_status<K, T, F, S>(
    op_ctx: &OpCtx,
    mode: AsyncMode,
    future: F,
    settle: S,
) -> Result<i32, OpError>
where
    K: 'static,
    T: IntoValue<K> + 'static,
    F: Future + 'static,
    S: FnOnce(F::Output) -> Settlement<T> + 'static,
{
    match start::<K, T, F, S>(op_ctx, mode, future, settle) {
        Started::Plain(outcome) => outcome.map(|()| 0),
        Started::Boxed(op, ready) => {
            op_ctx.event_loop.leave_unclaimed(op, ready);
            Ok(1)
        }
    }
}

#[ops_macro::inline_hot]
fn start<K, T, F, S>(op_ctx: &OpCtx, mode: AsyncMode, future: F, settle: S) -> Started
where
    K: 'static,
    T: IntoValue<K> + 'static,
    F: Future + 'static,
    S: FnOnce(F::Output) -> Settlement<T> + 'static,
{
    let write = |place: NonNull<OpFuture<F, S, T, K>>| {
        let place = place.as_ptr();
        // SAFETY: `place` is memory for an `OpFuture`, unused; each field is written once.
        unsafe {
            addr_of_mut!((*place).future).write(future);
            addr_of_mut!((*place).settle).write(Some(settle));
            addr_of_mut!((*place).outcome).write(None);
            addr_of_mut!((*place).resolver).write(None);
            addr_of_mut!((*place).op_ctx).write(op_ctx);
            addr_of_mut!((*place).kind).write(PhantomData);
        }
    };
    // SAFETY: `write` initializes every field of the `OpFuture`.
    unsafe { op_ctx.event_loop.start(&op_ctx.op_memory, write, mode) }
}

/// [`start_async_status`] on the fast path: the status, or `None` once it threw.
///
/// # Safety
/// As [`super::fast_op_ctx`].
#[ops_macro::inline_hot]
pub unsafe fn fast_async_status(
    options: *mut super::FastApiCallbackOptions<'_>,
    started: Result<i32, OpError>,
) -> Option<i32> {
    match started {
        Ok(status) => Some(status),
        Err(error) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract, as `fast_op_ctx`), which is `fast_throw_op_error`'s contract (as
            // `fast_call_guarded`).
            unsafe { super::fast_throw_op_error(options, error) };
            None
        }
    }
}

impl<'a, 's> SlowCall<'a, 's> {
    /// [`start_async_status`] on the slow path: the status is the call's return value.
    #[ops_macro::inline_hot]
    pub fn start_async_status<K, T, F, S>(
        &mut self,
        mode: AsyncMode,
        future: F,
        settle: S,
    ) -> Result<(), Thrown>
    where
        K: 'static,
        T: IntoValue<K> + 'static,
        F: Future + 'static,
        S: FnOnce(F::Output) -> Settlement<T> + 'static,
    {
        match start_async_status::<K, T, F, S>(self.op_ctx(), mode, future, settle) {
            Ok(status) => {
                self.rv().set_int32(status);
                Ok(())
            }
            Err(error) => Err(self.throw_op_error(error)),
        }
    }

    /// Starts an async op: runs `future` as `mode` says (`settle` maps its output to how the
    /// promise settles). Done during the call (eager): its value is the call's return value
    /// (its error thrown), which the JavaScript wrapper makes a settled promise of. Else the
    /// call leaves the op, and returns the wrappers' marker: the wrapper then makes the promise
    /// and hands it to the op (see [`crate::event_loop::async_wrap`]).
    #[ops_macro::inline_hot]
    pub fn start_async<K, T, F, S>(
        &mut self,
        mode: AsyncMode,
        future: F,
        settle: S,
    ) -> Result<(), Thrown>
    where
        K: 'static,
        T: IntoValue<K> + 'static,
        F: Future + 'static,
        S: FnOnce(F::Output) -> Settlement<T> + 'static,
    {
        let op_ctx: &'s OpCtx = self.op_ctx();
        let (mut op, ready) = match start::<K, T, F, S>(op_ctx, mode, future, settle) {
            Started::Plain(Ok(())) => {
                self.rv().set_undefined();
                return Ok(());
            }
            Started::Plain(Err(error)) => return Err(self.throw_op_error(error)),
            Started::Boxed(op, ready) => (op, ready),
        };
        if ready && mode == AsyncMode::Eager {
            // (A conversion that runs JavaScript and throws leaves its exception pending: the
            // wrapper rejects with it.)
            let outcome = op.as_mut().take_outcome(self.scope());
            return match outcome {
                Ok(value) => {
                    self.rv().set(value);
                    Ok(())
                }
                Err(error) => {
                    self.scope().throw_exception(error);
                    Err(Thrown(()))
                }
            };
        }
        let left = op_ctx.event_loop.leave_marked(self.scope(), op, ready);
        self.rv().set(left);
        Ok(())
    }
}
