//! The call frames: a slow call's `SlowCall` (scope, op context and return value, each read
//! only when needed), a fast call's options, the guards that turn panics into exceptions, and
//! the metered fast call. The errors both paths throw are made in `crate::errors::throw`; the
//! metering itself is `crate::ops::metrics`.

use std::any::Any;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::FastApiCallbackOptions;
use crate::errors::throw::{panic_text, throw_error_of_class, throw_op_error};
use crate::ops::messages::{arg_error_prefix, arg_type_error_message, panic_message};
use crate::ops::metrics::{
    metered_fast_dispatch, metered_fast_outcome, note_fast_call_threw, note_slow_call_threw,
};
use crate::ops::{op_ctx_from_data, OpCtx};
use crate::values::callback_values::{callback_isolate, InCallback};
use crate::OpError;

/// A JavaScript exception is pending on the isolate; the op must return without a value.
#[derive(Debug)]
pub struct Thrown(pub(super) ());

/// The slow path of one op call: the arguments, the return value, and the isolate or a handle
/// scope for ops that need one. Nothing is read from V8 before it is needed: an op that takes
/// no arguments and returns nothing costs no more than a hand-written `FunctionCallback`.
pub struct SlowCall<'a, 's> {
    pub(super) info: &'s v8::FunctionCallbackInfo,
    pub(super) args: v8::FunctionCallbackArguments<'s>,
    /// What of V8 the call holds, as the op's kinds need (the IR decides); the cold paths that
    /// throw make a scope of their own when there is none.
    pub(super) access: Access<'a, 's>,
}

/// What of V8 a slow call holds.
pub(super) enum Access<'a, 's> {
    /// Nothing: the op reads its arguments and sets numbers only.
    Nothing,
    /// The isolate: strings are read through it (a `ValueView` needs no handle scope), and
    /// the return values `crate::values::callback_values` makes are made through it.
    Isolate(v8::Isolate),
    /// A handle scope: the op takes one, makes other values on the V8 heap, or runs
    /// JavaScript.
    Scope(&'a mut v8::PinScope<'s, 's>),
}

/// Runs one slow call holding nothing of V8 (for ops none of whose kinds need the isolate)
/// and turns a panic into a thrown `Error` naming the op. Returns whether the call completed
/// without throwing.
///
/// # Safety
/// `info` must be the `FunctionCallbackInfo` V8 passed to a callback registered by
/// `Runtime`, whose data is the op's `OpCtx`.
#[ops_macro::inline_hot]
pub unsafe fn slow_call(info: *const v8::FunctionCallbackInfo, body: SlowBody) -> bool {
    // SAFETY: V8 keeps `info` alive for the duration of the callback.
    let info = unsafe { &*info };
    let mut call = SlowCall {
        info,
        args: v8::FunctionCallbackArguments::from_function_callback_info(info),
        access: Access::Nothing,
    };
    run_guarded(&mut call, body)
}

/// As [`slow_call`], holding the isolate (one V8 call; the return value and the function's
/// data are read when used).
///
/// # Safety
/// As [`slow_call`].
#[ops_macro::inline_hot]
pub unsafe fn slow_call_isolate(info: *const v8::FunctionCallbackInfo, body: SlowBody) -> bool {
    // SAFETY: V8 keeps `info` alive for the duration of the callback.
    let info = unsafe { &*info };
    // SAFETY: the isolate running this callback, used on its thread during the callback.
    let isolate = unsafe { v8::Isolate::from_raw_isolate_ptr_unchecked(callback_isolate(info)) };
    let mut call = SlowCall {
        info,
        args: v8::FunctionCallbackArguments::from_function_callback_info(info),
        access: Access::Isolate(isolate),
    };
    run_guarded(&mut call, body)
}

/// As [`slow_call`], with a handle scope for the call.
///
/// # Safety
/// As [`slow_call`].
//
// `#[inline]`, never `#[inline(always)]`: always-inlined into the op's `extern "C"` callback,
// LLVM built the scope in a temporary and copied it into place, and that copy read a byte
// `make_new_scope` had just stored with a wider load, which stalls on store forwarding (perf:
// most of the callback's own samples on that load). Optimized as a function of its own first,
// the scope is built in place (figures in BENCHMARKS.md).
#[inline]
pub unsafe fn slow_call_scoped(info: *const v8::FunctionCallbackInfo, body: SlowBody) -> bool {
    // SAFETY: V8 keeps `info` alive for the duration of the callback.
    let info = unsafe { &*info };
    // (Made from the info, not from `get_parts`, which does more: BENCHMARKS.md.)
    // SAFETY: the call's `FunctionCallbackInfo`, inside its callback.
    v8::callback_scope!(unsafe scope, info);
    let mut call = SlowCall {
        info,
        args: v8::FunctionCallbackArguments::from_function_callback_info(info),
        access: Access::Scope(scope),
    };
    run_guarded(&mut call, body)
}

/// An op's slow-call body (`slow_call_body`, which `#[op]` writes).
///
/// A function pointer, not a closure type: the unwinding machinery around it
/// (`catch_unwind`'s instances) is then one for all ops, where it was one per op to compile.
/// Optimized code calls the body directly all the same: the pointer is a constant once
/// `run_guarded` is inlined into the op's callback.
pub type SlowBody = for<'a, 's> fn(&mut SlowCall<'a, 's>) -> Result<(), Thrown>;

#[ops_macro::inline_hot]
pub(super) fn run_guarded(call: &mut SlowCall<'_, '_>, body: SlowBody) -> bool {
    // The landing pad costs nothing until a panic (bench-ops: `op_void_nofast` against
    // `floor_raw_slow_call`).
    match catch_unwind(AssertUnwindSafe(|| body(call))) {
        Ok(Ok(())) => true,
        Ok(Err(Thrown(()))) => {
            note_slow_call_threw(call.info);
            false
        }
        Err(payload) => {
            call.throw_panic(payload);
            note_slow_call_threw(call.info);
            false
        }
    }
}

/// The op context of a fast call.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to the running call of a fast
/// function registered by `Runtime` (whose data is the op's `OpCtx`).
#[ops_macro::inline_hot]
pub unsafe fn fast_op_ctx<'a>(options: *mut FastApiCallbackOptions<'_>) -> &'a OpCtx {
    // SAFETY: V8 passes valid options whose data is the op's External (see `op_template`).
    unsafe { op_ctx_from_data((*options).data) }
}

/// The start of a fast call through the op's metrics observer: its dispatch event. The call
/// then runs the op's plain fast function and ends with [`metered_fast_end`]; whether it threw
/// is what `fast_return` noted (a fast call runs no JavaScript, so no other op's call comes
/// between). Two plain calls, not a function taking a closure: nothing here is compiled again
/// for each op.
///
/// # Safety
/// As [`fast_op_ctx`]; the op must have an observer (`Runtime` registers this variant only
/// then).
#[ops_macro::inline_hot]
pub unsafe fn metered_fast_begin<'a>(options: *mut FastApiCallbackOptions<'_>) -> &'a OpCtx {
    // SAFETY: `options` is V8's options for the running call of a fast function `Runtime`
    // registered (this fn's contract, "as `fast_op_ctx`"): exactly what `fast_op_ctx` requires.
    let op_ctx = unsafe { fast_op_ctx(options) };
    metered_fast_dispatch(op_ctx);
    op_ctx
}

/// The end of a metered fast call (see [`metered_fast_begin`]): its outcome event.
#[ops_macro::inline_hot]
pub fn metered_fast_end(op_ctx: &OpCtx) {
    metered_fast_outcome(op_ctx);
}

#[cold]
#[inline(never)]
pub(super) fn no_scope() -> ! {
    unreachable!("the macro gives the isolate or a handle scope to every op whose kinds need one")
}

/// Runs `f`, which may run JavaScript, under a `TryCatch`: if JavaScript threw (or execution
/// is terminating), that exception is thrown on, unchanged, and `f`'s result is dropped
/// (`Thrown`): whatever error the Rust side makes of the failure must not replace it.
#[ops_macro::inline_hot]
pub(super) fn keep_pending_exception<'s, R>(
    scope: &mut v8::PinScope<'s, 's>,
    f: impl FnOnce(&mut v8::PinScope<'s, 's>) -> R,
) -> Result<R, Thrown> {
    v8::tc_scope!(let try_catch, scope);
    let result = f(try_catch);
    if try_catch.has_caught() {
        // A termination is thrown on by the `TryCatch` itself when it goes.
        if !try_catch.has_terminated() {
            try_catch.rethrow();
        }
        return Err(Thrown(()));
    }
    Ok(result)
}

/// What a fast function returns after it has thrown; V8 ignores it.
pub trait FastDefault {
    /// The value.
    fn fast_default() -> Self;
}

macro_rules! fast_default_zero {
    ($($ty:ty),*) => {$(
        impl FastDefault for $ty {
            #[ops_macro::inline_hot]
            fn fast_default() -> Self {
                Default::default()
            }
        }
    )*};
}

fast_default_zero!(bool, i32, u32, i64, u64, f32, f64);

impl FastDefault for () {
    #[ops_macro::inline_hot]
    fn fast_default() -> Self {}
}

/// What a fast function hands V8: the value, or (after throwing) anything of its type.
#[ops_macro::inline_hot]
pub fn fast_return<R: FastDefault>(result: Option<R>) -> R {
    match result {
        Some(value) => value,
        None => {
            note_fast_call_threw();
            R::fast_default()
        }
    }
}

impl FastDefault for *mut c_void {
    #[ops_macro::inline_hot]
    fn fast_default() -> Self {
        std::ptr::null_mut()
    }
}

/// Runs a fast call's body; a panic is thrown as an `Error` naming the op (`None` then).
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to the running call of a fast
/// function registered by `Runtime` (whose data is the op's `OpCtx`).
#[ops_macro::inline_hot]
pub unsafe fn fast_call_guarded<R>(
    options: *mut FastApiCallbackOptions<'_>,
    body: impl FnOnce() -> R,
) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => Some(result),
        Err(payload) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract), as `fast_throw_panic`'s identical contract requires; the panic
            // was caught inside that call.
            unsafe { fast_throw_panic(options, payload) };
            None
        }
    }
}

/// Throws a panic of a fast call's body as an `Error` naming the op.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_panic(
    options: *mut FastApiCallbackOptions<'_>,
    payload: Box<dyn Any + Send>,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
}

/// As [`fast_call_guarded`], for a fast function that takes no callback options (its op
/// cannot throw but by panicking): a panic is thrown in the isolate running the call.
///
/// # Safety
/// Must be called inside a fast call V8 made (its isolate is the thread's current one, and
/// the calling function's context its current context).
#[ops_macro::inline_hot]
pub unsafe fn fast_call_guarded_current<R>(
    op_name: &'static str,
    body: impl FnOnce() -> R,
) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => Some(result),
        Err(payload) => {
            // SAFETY: this still runs inside the fast call V8 made (this fn's contract; the panic
            // was caught here), which is all `fast_throw_panic_current` requires.
            unsafe { fast_throw_panic_current(op_name, payload) };
            None
        }
    }
}

/// Throws a panic of an options-free fast call's body in the isolate running the call.
///
/// # Safety
/// As [`fast_call_guarded_current`]: must be called inside a fast call V8 made.
#[cold]
#[inline(never)]
unsafe fn fast_throw_panic_current(op_name: &'static str, payload: Box<dyn Any + Send>) {
    // SAFETY: the caller runs inside a fast call, so the thread's current isolate is the one
    // running it and has a current context (the caller's); both are live for the call.
    let context = unsafe {
        let isolate = crate::v8_raw::v8__Isolate__GetCurrent();
        let context = crate::v8_raw::v8__Isolate__GetCurrentContext(isolate);
        crate::v8_raw::local_from_handle(
            std::ptr::NonNull::new(context.cast_mut()).expect("a fast call has a context"),
        )
    };
    // SAFETY: the isolate's current context, entered by the running fast call.
    fast_scope!(scope, context);
    let message = format!("{op_name} panicked: {}", panic_text(&*payload));
    throw_error_of_class(scope, "Error", &message);
}

/// Throws what an op's `Err` says from a fast call.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub unsafe fn fast_throw_op_error(options: *mut FastApiCallbackOptions<'_>, error: OpError) {
    // SAFETY: this fn's contract and `fast_throw_error`'s are both "as `fast_call_guarded`":
    // `options` is the running fast call's options, of an op `Runtime` registered, passed on
    // unchanged.
    unsafe { fast_throw_error(options, error, None) }
}

/// Throws a conversion's error from a fast call, prefixed as the slow path prefixes it.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_arg_error(
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    error: OpError,
) {
    // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
    // fn's contract), which is what `fast_op_ctx` requires.
    let decl = unsafe { fast_op_ctx(options) }.decl;
    // SAFETY: the same `options` meets `fast_throw_error`'s contract, which is this fn's (both "as
    // `fast_call_guarded`").
    unsafe { fast_throw_error(options, error, Some(arg_error_prefix(decl, index))) }
}

/// Throws `error` (prefixed) from a fast call.
///
/// # Safety
/// As [`fast_call_guarded`].
unsafe fn fast_throw_error(
    options: *mut FastApiCallbackOptions<'_>,
    error: OpError,
    prefix: Option<String>,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and the source
    // `fast_scope!` needs inside that call.
    let scope_source = unsafe { &*options };
    fast_scope!(scope, scope_source);
    // The error's class, message and properties are user code: a panic there must not cross
    // this `extern "C"` call's boundary either.
    // `error` moves into the closure, so that its (user) `Drop` runs inside the guard too.
    let thrown = catch_unwind(AssertUnwindSafe(|| {
        let error = error;
        throw_op_error(scope, &error, prefix.as_deref())
    }));
    if let Err(payload) = thrown {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract), which is what `fast_op_ctx` requires.
        let decl = unsafe { fast_op_ctx(options) }.decl;
        throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
    }
}

/// Throws the slow path's `TypeError` for argument `index` from a fast call.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_arg_type_error(
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    expected: &str,
    value: v8::Local<'_, v8::Value>,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    throw_error_of_class(
        scope,
        "TypeError",
        &arg_type_error_message(decl, index, expected, value),
    );
}

impl<'a, 's> SlowCall<'a, 's> {
    /// The call's scope. Only ops whose kinds need one call this (the macro made it with
    /// [`slow_call_scoped`]).
    #[ops_macro::inline_hot]
    pub fn scope(&mut self) -> &mut v8::PinScope<'s, 's> {
        match &mut self.access {
            Access::Scope(scope) => scope,
            Access::Nothing | Access::Isolate(_) => no_scope(),
        }
    }

    /// The isolate, for ops that take `&mut v8::Isolate` and for reading strings.
    #[ops_macro::inline_hot]
    pub fn isolate(&mut self) -> &mut v8::Isolate {
        match &mut self.access {
            Access::Scope(scope) => scope,
            Access::Isolate(isolate) => isolate,
            Access::Nothing => no_scope(),
        }
    }

    /// The callback, for values made from the isolate alone (no scope of rusty_v8's needed).
    #[ops_macro::inline_hot]
    pub(super) fn in_callback(&mut self) -> InCallback<'s> {
        // SAFETY: a `SlowCall` lives inside its `FunctionCallback`, which runs for `'s` (the
        // lifetime of its info and arguments); it opens no handle scope (a `CallbackScope`
        // opens none, and `with_scope`'s is closed when it returns), and return values are
        // made after the op returned, its own scopes closed.
        unsafe { InCallback::new(self.isolate().as_raw_isolate_ptr()) }
    }

    /// Runs `f` in the call's scope, or in a new one: the paths that throw, and the rarer
    /// return values made through rusty_v8 (non-ASCII text, a static string made the first
    /// time).
    pub(super) fn with_scope<R>(&mut self, f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> R) -> R {
        match &mut self.access {
            Access::Scope(scope) => f(scope),
            Access::Nothing | Access::Isolate(_) => {
                let info = self.info;
                // SAFETY: `info` is the `FunctionCallbackInfo` of the callback this `SlowCall` runs
                // in (a `SlowCall` lives only inside it: see `slow_call`), so the scope is opened
                // inside that callback, the one use `CallbackScope::new` allows.
                v8::callback_scope!(unsafe scope, info);
                f(scope)
            }
        }
    }

    /// The op's context (read from the function's data: only when needed).
    #[ops_macro::inline_hot]
    pub(super) fn op_ctx(&self) -> &'s OpCtx {
        // SAFETY: `op_template` registers every op with its `OpCtx` as an External data value,
        // and the `OpCtx` outlives the isolate.
        unsafe { op_ctx_from_data(self.args.data()) }
    }

    /// The call's return value.
    #[ops_macro::inline_hot]
    pub(super) fn rv(&self) -> v8::ReturnValue<'s, v8::Value> {
        v8::ReturnValue::from_function_callback_info(self.info)
    }

    /// For ops that can reach the runtime's `TerminationHandle` (through the op state) or the
    /// isolate: a termination requested during the op takes effect as it returns.
    #[ops_macro::inline_hot]
    pub fn check_termination(&mut self) {
        if self.op_ctx().termination.is_requested() {
            self.act_on_interrupts();
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn act_on_interrupts(&mut self) {
        self.with_scope(crate::isolate::termination::check_interrupts);
    }

    /// Argument `index` as V8 passed it (`undefined` when missing).
    #[ops_macro::inline_hot]
    pub fn arg_value(&self, index: i32) -> v8::Local<'s, v8::Value> {
        self.args.get(index)
    }

    /// Throws `TypeError: <op>: argument <n> (<name>) must be <expected>, received <kind>`.
    #[cold]
    #[inline(never)]
    pub fn throw_arg_type_error(&mut self, index: i32, expected: &str) -> Thrown {
        let message =
            arg_type_error_message(self.op_ctx().decl, index, expected, self.args.get(index));
        self.with_scope(|scope| throw_error_of_class(scope, "TypeError", &message));
        Thrown(())
    }

    pub(super) fn throw_type_error(&mut self, message: &str) -> Thrown {
        self.with_scope(|scope| throw_error_of_class(scope, "TypeError", message));
        Thrown(())
    }

    /// `#[op(required(n))]`: a `TypeError` when the call passed fewer than `n` arguments.
    #[ops_macro::inline_hot]
    pub fn require_args(&mut self, n: u32) -> Result<(), Thrown> {
        let passed = self.args.length();
        if passed >= n as i32 {
            return Ok(());
        }
        let message = format!(
            "{}: {n} argument{} required, but only {passed} present",
            self.op_ctx().decl.name,
            if n == 1 { "" } else { "s" }
        );
        Err(self.throw_type_error(&message))
    }

    /// `#[op(validate(f))]`: `check` looks at the call's arguments before anything reads them;
    /// its `Err` is thrown (as an op's `Err` is) and the op is not called.
    #[ops_macro::inline_hot]
    pub fn validate<E>(
        &mut self,
        check: impl FnOnce(
            &mut v8::PinScope<'_, '_>,
            &v8::FunctionCallbackArguments<'_>,
        ) -> Result<(), E>,
    ) -> Result<(), Thrown>
    where
        crate::OpError: From<E>,
    {
        // A second view of the same arguments: the scope is borrowed mutably beside it.
        let args = v8::FunctionCallbackArguments::from_function_callback_info(self.info);
        match check(self.scope(), &args) {
            Ok(()) => Ok(()),
            Err(error) => Err(self.throw_op_error(crate::OpError::from(error))),
        }
    }

    /// Throws a plain `Error`.
    #[cold]
    #[inline(never)]
    pub fn throw_error(&mut self, message: &str) -> Thrown {
        self.with_scope(|scope| throw_error_of_class(scope, "Error", message));
        Thrown(())
    }

    /// Throws an error of the conversion of the op's result, its message prefixed with the op's
    /// name.
    #[cold]
    #[inline(never)]
    pub(super) fn throw_prefixed(&mut self, error: OpError) -> Thrown {
        let op = self.op_ctx().decl.name;
        self.with_scope(|scope| throw_op_error(scope, &error, Some(op)));
        Thrown(())
    }

    /// Throws what an op's `Err` says: its class, message and properties.
    #[cold]
    #[inline(never)]
    pub fn throw_op_error(&mut self, error: OpError) -> Thrown {
        self.with_scope(|scope| throw_op_error(scope, &error, None));
        Thrown(())
    }

    #[cold]
    #[inline(never)]
    pub(super) fn throw_panic(&mut self, payload: Box<dyn Any + Send>) {
        let message = panic_message(self.op_ctx().decl, &*payload);
        self.throw_error(&message);
    }

    /// Whether argument `index` is `undefined` (or missing) or `null`: `None` for `Option<T>`.
    #[ops_macro::inline_hot]
    pub fn is_nullish(&self, index: i32) -> bool {
        self.args.get(index).is_null_or_undefined()
    }

    /// Runs the op's function, for fallible ops that take the scope or the isolate (and so can
    /// run JavaScript): an exception JavaScript threw during it wins over the op's `Err`.
    #[ops_macro::inline_hot]
    pub fn call_keeping_exceptions<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'s, 's>) -> R,
    ) -> Result<R, Thrown> {
        keep_pending_exception(self.scope(), f)
    }

    /// Returns `null` (`Option` returns' `None`).
    #[ops_macro::inline_hot]
    pub fn ret_null(&mut self) -> Result<(), Thrown> {
        self.rv().set_null();
        Ok(())
    }
}
