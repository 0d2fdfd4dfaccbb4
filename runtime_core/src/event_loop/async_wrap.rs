//! The JavaScript side of async ops, as deno_core does it (`setUpAsyncStub`): each async op is
//! installed behind a wrapper that turns its raw result into a promise, following the protocol
//! of [`AsyncCall`]. An op that finishes during its call returns its value (or throws
//! its error), and the wrapper makes a settled promise of it in JavaScript: no promise made
//! through the V8 API, no handle kept. An op still running is left for its wrapper to claim,
//! which the call says by returning a marker object only the wrappers hold (or, with a fast
//! path, whose call can return only a number, the status `1`). The wrapper then makes the
//! promise in JavaScript, where optimized code allocates it inline, and hands it to the op
//! through `claim`, itself a fast call; the loop settles it through the V8 API. (Made by
//! `v8::PromiseResolver::new` during the call and claimed through a slow call instead, a round
//! trip costs about a third more: BENCHMARKS.md.)
//!
//! Every error of an async op, argument conversion and the receiver check included, rejects
//! its promise: an async op never throws. (deno keys its pending promises by an id in a ring
//! and settles them by calling back into JavaScript; tried here, that measured slower per loop
//! round trip than settling through the V8 API, though within this machine's run-to-run
//! noise.)
//!
//! Here, the protocol whole: its state in the loop ([`Claims`]), the loop's steps (a call
//! leaves an op, `claim` hands it its promise), the wrappers' installation and `claim` itself;
//! the wrappers are `async_wrap.js`.

use std::cell::RefCell;

use super::pool::BoxedOp;
use super::EventLoop;

/// The claim protocol's state in one event loop: the op a call left, until its wrapper claims
/// it with the promise it made, and the context's marker and `wrap` function.
#[derive(Default)]
pub(crate) struct Claims {
    /// The op a call left, and whether it is done (deferred).
    unclaimed: RefCell<Option<(BoxedOp, bool)>>,
    /// What a call speaking [`AsyncCall::Value`] returns when it left an op to claim: an
    /// object only the wrappers hold (set by [`AsyncWrap::install`]).
    left_marker: RefCell<Option<v8::Global<v8::Object>>>,
    /// The context's `wrap` function of async ops (set by [`AsyncWrap::install`]): an op's
    /// function made after the runtime started is wrapped by it.
    wrap: RefCell<Option<v8::Global<v8::Function>>>,
}

impl Claims {
    /// Whether no op waits to be claimed.
    #[inline]
    pub(super) fn nothing_left(&self) -> bool {
        self.unclaimed.borrow().is_none()
    }

    /// The op left unclaimed, if any.
    #[inline]
    pub(super) fn take_unclaimed(&self) -> Option<(BoxedOp, bool)> {
        self.unclaimed.take()
    }

    /// Drops the op left unclaimed.
    pub(super) fn cancel(&self) {
        drop(self.unclaimed.take());
    }

    /// Drops the handles kept (the runtime is ending, or being made a snapshot of).
    pub(super) fn forget(&self) {
        drop(self.left_marker.take());
        drop(self.wrap.take());
    }

    /// The marker the wrappers compare calls' values with (a snapshot keeps it).
    pub(crate) fn left_marker(&self) -> Option<v8::Global<v8::Object>> {
        self.left_marker.borrow().clone()
    }

    pub(crate) fn set_left_marker(&self, marker: v8::Global<v8::Object>) {
        *self.left_marker.borrow_mut() = Some(marker);
    }

    /// The function that wraps async ops, for ops made later (a snapshot keeps it).
    pub(crate) fn wrap(&self) -> Option<v8::Global<v8::Function>> {
        self.wrap.borrow().clone()
    }

    pub(crate) fn set_wrap(&self, wrap: v8::Global<v8::Function>) {
        *self.wrap.borrow_mut() = Some(wrap);
    }
}

/// The protocol's steps on the loop's side: a call leaves an op, its wrapper claims it.
impl EventLoop {
    /// Leaves an op for its wrapper to claim, at once, in the same turn of JavaScript (see
    /// [`async_wrap`]).
    pub(crate) fn leave_unclaimed(&self, op: BoxedOp, ready: bool) {
        let previous = self.claims.unclaimed.replace(Some((op, ready)));
        self.run_unclaimed(previous);
    }

    /// As [`EventLoop::leave_unclaimed`], for a call speaking
    /// [`AsyncCall::Value`](async_wrap::AsyncCall::Value): the value it returns to say so.
    pub(crate) fn leave_marked<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        op: BoxedOp,
        ready: bool,
    ) -> v8::Local<'s, v8::Value> {
        self.leave_unclaimed(op, ready);
        let marker = self.claims.left_marker.borrow();
        let marker = marker
            .as_ref()
            .expect("set when the runtime installs its ops");
        v8::Local::new(scope, marker).into()
    }

    /// An op whose wrapper never claimed it (cut short by termination or a stack overflow)
    /// runs on in the loop, settling nothing.
    pub(super) fn run_unclaimed(&self, unclaimed: Option<(BoxedOp, bool)>) {
        if let Some((op, ready)) = unclaimed {
            self.push(op, ready);
        }
    }

    /// Hands `promise`, which the wrapper of the call that left an op made, to that op, for the
    /// loop to settle. `false` when no op was left or `promise` is none.
    pub(crate) fn claim(&self, isolate: &v8::Isolate, promise: v8::Local<'_, v8::Value>) -> bool {
        if !promise.is_promise() {
            return false;
        }
        let Some((mut op, ready)) = self.claims.unclaimed.take() else {
            return false;
        };
        // SAFETY: checked above.
        let settled = unsafe { v8::Local::<v8::Promise>::cast_unchecked(promise) }.state()
            != v8::PromiseState::Pending;
        // Settled already when its executor could not be called (the stack overflowed there:
        // the constructor rejects with the `RangeError`): then the op runs on, settling
        // nothing, as an op left unclaimed does. Settling the promise again would abort V8.
        if !settled {
            // SAFETY: a `Promise::Resolver` is the promise itself (V8's `Resolver::New` makes
            // a `JSPromise`, `GetPromise` returns `this`, `Resolve`/`Reject` act on the
            // `JSPromise`), and `promise` is one, checked above. Its executor kept no resolving
            // function: only the loop settles it.
            let resolver = unsafe { v8::Local::<v8::PromiseResolver>::cast_unchecked(promise) };
            op.as_mut()
                .keep_resolver(v8::Global::new(isolate, resolver));
        }
        self.push(op, ready);
        true
    }
}

/// How the raw call of an async op tells its JavaScript wrapper the outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncCall {
    /// The op's value when it finished during the call (its error thrown), else a marker
    /// object only the wrappers hold, and the wrapper then claims the promise of the op the
    /// call left. For async ops without a fast path.
    Value,
    /// A status, because a fast call can return neither a value nor a promise: `0` when the
    /// op finished during the call with `undefined`, `1` when it did not, and the wrapper then
    /// claims the promise of the op the call left (its error thrown, as above). Spoken on both
    /// paths of async ops with a fast path.
    Status,
}

/// `async_wrap.js`: evaluates to a function that takes `claim` and the marker `left` and gives
/// the wrapping function `wrap(op, status, method)`: `status` for
/// [`AsyncCall::Status`] ops, `method` for class methods (the receiver passed on).
pub(crate) const ASYNC_OPS_JS: &str = include_str!("async_wrap.js");

/// The wrapping of async ops in one context.
#[derive(Clone, Copy)]
pub(crate) struct AsyncWrap<'s>(v8::Local<'s, v8::Function>);

impl<'s> AsyncWrap<'s> {
    /// Runs [`ASYNC_OPS_JS`] in the context, with a `claim` function and a marker for
    /// `event_loop`.
    pub(crate) fn install(
        scope: &mut v8::PinScope<'s, '_>,
        event_loop: &crate::event_loop::EventLoop,
    ) -> Self {
        let factory =
            crate::isolate::scripts::run_builtin_script(scope, "<async ops>", ASYNC_OPS_JS)
                .ok()
                .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
                .expect("the async machinery evaluates to a function");
        let data = event_loop.as_function_data(scope);
        let claim = v8::FunctionTemplate::builder(claim_callback)
            .data(data.into())
            .length(1)
            .constructor_behavior(v8::ConstructorBehavior::Throw)
            .build_fast(scope, &CLAIM_FAST.0)
            .get_function(scope)
            .expect("instantiating a function template cannot throw");
        let left = v8::Object::new(scope);
        event_loop
            .claims
            .set_left_marker(v8::Global::new(scope, left));
        let receiver = v8::undefined(scope).into();
        let wrap = factory
            .call(scope, receiver, &[claim.into(), left.into()])
            .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
            .expect("the async machinery gives the wrapping function");
        event_loop.claims.set_wrap(v8::Global::new(scope, wrap));
        AsyncWrap(wrap)
    }

    /// The wrapping of `event_loop`'s context, once installed (or restored from a snapshot).
    pub(crate) fn of(
        scope: &mut v8::PinScope<'s, '_>,
        event_loop: &crate::event_loop::EventLoop,
    ) -> Option<Self> {
        let wrap = event_loop.claims.wrap()?;
        Some(AsyncWrap(v8::Local::new(scope, wrap)))
    }

    /// `function`'s wrapper, for an op speaking `call`; `method` passes the receiver on. `None`
    /// with the exception pending when the call could not be made (at the edge of the stack,
    /// or terminated).
    pub(crate) fn wrap(
        self,
        scope: &mut v8::PinScope<'s, '_>,
        function: v8::Local<'s, v8::Function>,
        call: AsyncCall,
        method: bool,
    ) -> Option<v8::Local<'s, v8::Value>> {
        let receiver = v8::undefined(scope).into();
        let status = v8::Boolean::new(scope, call == AsyncCall::Status).into();
        let method = v8::Boolean::new(scope, method).into();
        self.0
            .call(scope, receiver, &[function.into(), status, method])
    }
}

/// `claim(promise)` of the wrappers: hands the promise the wrapper made to the op the call
/// before left (see [`crate::event_loop::EventLoop::claim`]). Its data is the runtime's
/// `EventLoop`.
pub(crate) fn claim_callback(
    scope: &mut v8::PinScope<'_, '_>,
    args: v8::FunctionCallbackArguments<'_>,
    _rv: v8::ReturnValue<'_, v8::Value>,
) {
    // SAFETY: `AsyncWrap::install` makes this function with `as_function_data`.
    let Some(event_loop) = (unsafe { crate::event_loop::EventLoop::of_function_data(args.data()) })
    else {
        return;
    };
    if !event_loop.claim(scope, args.get(0)) {
        throw_nothing_to_claim(scope);
    }
}

/// [`claim_callback`] as a fast call: what the wrappers' optimized code calls.
extern "C" fn claim_fast(
    _receiver: v8::Local<'_, v8::Value>,
    promise: v8::Local<'_, v8::Value>,
    options: *mut v8::fast_api::FastApiCallbackOptions<'_>,
) {
    // SAFETY: V8 passes the options of this call: its isolate, which is running it, and the
    // function's data, the runtime's `EventLoop` (as in `claim_callback`).
    let (isolate, event_loop) = unsafe {
        let options = &*options;
        let data = v8::Local::<v8::External>::cast_unchecked(options.data);
        (
            options.isolate_unchecked(),
            &*(data.value() as *const crate::event_loop::EventLoop),
        )
    };
    if !event_loop.claim(isolate, promise) {
        // SAFETY: V8 passes the options of this call.
        v8::callback_scope!(unsafe scope, unsafe { &*options });
        throw_nothing_to_claim(scope);
    }
}

/// Only a wrapper calls `claim`, with its own promise, right after a call that left an op (or
/// while terminating, when it never runs).
#[cold]
fn throw_nothing_to_claim(scope: &mut v8::PinScope<'_, '_>) {
    crate::errors::throw::throw_error_of_class(scope, "Error", "no async op to claim");
}

const CLAIM_FAST_INFO: v8::fast_api::CFunctionInfo = v8::fast_api::CFunctionInfo::new(
    v8::fast_api::Type::Void.as_info(),
    &[
        v8::fast_api::Type::V8Value.as_info(),
        v8::fast_api::Type::V8Value.as_info(),
        v8::fast_api::Type::CallbackOptions.as_info(),
    ],
    v8::fast_api::Int64Representation::Number,
);

/// `claim`'s fast call, at one address: V8 keeps it, and a snapshot names it.
pub(crate) static CLAIM_FAST: CFunctions<1> = CFunctions([v8::fast_api::CFunction::new(
    claim_fast as *const std::ffi::c_void,
    &CLAIM_FAST_INFO,
)]);

/// Fast-call overloads in a `static`.
pub(crate) struct CFunctions<const N: usize>(pub(crate) [v8::fast_api::CFunction; N]);

// SAFETY: the functions and infos the pointers name are immutable, `'static` code and data.
unsafe impl<const N: usize> Sync for CFunctions<N> {}
