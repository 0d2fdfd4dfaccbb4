//! The call and throw machinery: a slow call's `SlowCall` (scope, op context and return value,
//! each read only when needed), the guards that turn panics into exceptions, metering, and the
//! errors both paths throw (built here once, so that both paths say the same).

use std::any::Any;
use std::borrow::Cow;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ops::metrics::{OpMetricsEvent, OpMetricsSource};
use crate::ops::OpCtx;
use crate::values::callback_values::{callback_isolate, InCallback};
use crate::{ErrorProperty, OpDecl, OpError};

use super::FastApiCallbackOptions;

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
#[inline(always)]
pub unsafe fn slow_call(
    info: *const v8::FunctionCallbackInfo,
    body: impl for<'a, 's> FnOnce(&mut SlowCall<'a, 's>) -> Result<(), Thrown>,
) -> bool {
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
#[inline(always)]
pub unsafe fn slow_call_isolate(
    info: *const v8::FunctionCallbackInfo,
    body: impl for<'a, 's> FnOnce(&mut SlowCall<'a, 's>) -> Result<(), Thrown>,
) -> bool {
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
// 77% of the callback's own samples on that load). Optimized as a function of its own first,
// the scope is built in place (figures in BENCHMARKS.md).
#[inline]
pub unsafe fn slow_call_scoped(
    info: *const v8::FunctionCallbackInfo,
    body: impl for<'a, 's> FnOnce(&mut SlowCall<'a, 's>) -> Result<(), Thrown>,
) -> bool {
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

#[inline(always)]
pub(super) fn run_guarded<'a, 's>(
    call: &mut SlowCall<'a, 's>,
    body: impl FnOnce(&mut SlowCall<'a, 's>) -> Result<(), Thrown>,
) -> bool {
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

/// The `FunctionCallback` of every op with a metrics observer or a stack trace callback:
/// the stack reported first, then the op's own callback between the dispatch and outcome
/// events. One function for all ops, so each op's body is compiled once. Whether the call
/// threw is what its slow call noted (`run_guarded`, on its cold paths): that the call with
/// this very `FunctionCallbackInfo` did not complete (a call nested in it has its own).
///
/// # Safety
/// V8 calls it with a `FunctionCallbackInfo` whose data is the op's context (`Runtime`
/// registers it so).
pub unsafe extern "C" fn metered_slow_fn(info: *const v8::FunctionCallbackInfo) {
    // SAFETY: V8 keeps `info` alive for the duration of the callback; its data is the op's
    // context (see `Runtime::new`).
    let op_ctx = unsafe {
        op_ctx_from_data(v8::FunctionCallbackArguments::from_function_callback_info(&*info).data())
    };
    if let Some(callback) = &op_ctx.stack_trace {
        // SAFETY: as above.
        report_stack(unsafe { &*info }, op_ctx.decl, callback);
    }
    op_ctx.metered(OpMetricsSource::Slow, || {
        SLOW_CALL_THREW.set(std::ptr::null());
        // SAFETY: the op's own callback, with the info of its own call.
        unsafe { (op_ctx.decl.slow_fn)(info) };
        let threw = std::ptr::eq(SLOW_CALL_THREW.replace(std::ptr::null()), info);
        (!threw).then_some(())
    });
}

thread_local! {
    /// The info of the last slow call that threw (see `run_guarded`).
    static SLOW_CALL_THREW: std::cell::Cell<*const v8::FunctionCallbackInfo> =
        const { std::cell::Cell::new(std::ptr::null()) };
}

#[cold]
#[inline(never)]
fn note_slow_call_threw(info: &v8::FunctionCallbackInfo) {
    SLOW_CALL_THREW.set(info);
}

/// Hands the JavaScript stack of this call to an op's stack trace callback.
#[cold]
#[inline(never)]
fn report_stack(info: &v8::FunctionCallbackInfo, decl: &OpDecl, callback: &crate::OpStackTraceFn) {
    let frames = {
        // SAFETY: the call's `FunctionCallbackInfo`, inside its callback.
        v8::callback_scope!(unsafe scope, info);
        v8::scope!(let scope, scope);
        crate::ops::stack_trace::capture(scope)
    };
    callback(decl, &frames);
}

/// # Safety
/// `data` must be the External that `Runtime::new` made for an op's `OpCtx`.
#[inline(always)]
pub(crate) unsafe fn op_ctx_from_data<'a>(data: v8::Local<'_, v8::Value>) -> &'a OpCtx {
    // SAFETY: the caller guarantees `data` is an External holding a live `OpCtx`.
    unsafe {
        let external = v8::Local::<v8::External>::cast_unchecked(data);
        &*(external.value() as *const OpCtx)
    }
}

/// The op context of a fast call.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to a fast function registered by
/// `Runtime`.
#[inline(always)]
pub unsafe fn fast_op_ctx<'a>(options: *mut FastApiCallbackOptions<'_>) -> &'a OpCtx {
    // SAFETY: V8 passes valid options whose data is the op's External (see `Runtime::new`).
    unsafe { op_ctx_from_data((*options).data) }
}

/// Runs a fast call through the op's metrics observer: dispatch, then completion or error.
/// `call` is the op's plain fast function; whether it threw is what `fast_return` noted (a
/// fast call runs no JavaScript, so no other op's call comes between).
///
/// # Safety
/// As [`fast_op_ctx`]; the op must have an observer (`Runtime` registers this variant only
/// then).
#[inline(always)]
pub unsafe fn metered_fast_call<R>(
    options: *mut FastApiCallbackOptions<'_>,
    call: impl FnOnce() -> R,
) -> R {
    // SAFETY: forwarded from the caller.
    let op_ctx = unsafe { fast_op_ctx(options) };
    metered_fast_dispatch(op_ctx);
    let result = call();
    metered_fast_outcome(op_ctx);
    result
}

/// The dispatch event of a metered fast call (out of line: one copy for all ops).
#[inline(never)]
fn metered_fast_dispatch(op_ctx: &OpCtx) {
    FAST_CALL_THREW.set(false);
    if let Some(metrics) = &op_ctx.metrics {
        metrics(op_ctx, OpMetricsEvent::Dispatched, OpMetricsSource::Fast);
    }
}

/// The outcome event of a metered fast call: whether `fast_return` noted a throw.
#[inline(never)]
fn metered_fast_outcome(op_ctx: &OpCtx) {
    let outcome = if FAST_CALL_THREW.replace(false) {
        OpMetricsEvent::Error
    } else {
        OpMetricsEvent::Completed
    };
    if let Some(metrics) = &op_ctx.metrics {
        metrics(op_ctx, outcome, OpMetricsSource::Fast);
    }
}

thread_local! {
    /// Set by a fast function that threw (see `fast_return`); read by `metered_fast_call`.
    static FAST_CALL_THREW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cold]
#[inline(never)]
fn note_fast_call_threw() {
    FAST_CALL_THREW.set(true);
}

#[cold]
#[inline(never)]
pub(super) fn no_scope() -> ! {
    unreachable!("the macro gives the isolate or a handle scope to every op whose kinds need one")
}

/// What the `received` part of a `TypeError` says about a value (ops' arguments and structured
/// values alike).
pub(crate) fn describe_received(value: v8::Local<'_, v8::Value>) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_boolean() {
        "a boolean"
    } else if value.is_number() {
        "a number"
    } else if value.is_big_int() {
        "a BigInt"
    } else if value.is_string() {
        "a string"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_function() {
        "a function"
    } else if value.is_array() {
        "an array"
    } else {
        "an object"
    }
}

/// `<op>: argument <n> (<name>)`: what a conversion's error is prefixed with.
pub(super) fn arg_error_prefix(decl: &OpDecl, index: i32) -> String {
    format!("{}: {}", decl.name, argument(decl, index))
}

/// `argument <n> (<name>)`, or `argument <n>` for a `_` argument.
pub(super) fn argument(decl: &OpDecl, index: i32) -> String {
    match decl.arg_names.get(index as usize).copied() {
        Some("") => format!("argument {}", index + 1),
        name => format!("argument {} ({})", index + 1, name.unwrap_or("?")),
    }
}

/// `<op>: argument <n> (<name>) must be <expected>, received <kind>`.
pub(super) fn arg_type_error_message(
    decl: &OpDecl,
    index: i32,
    expected: &str,
    value: v8::Local<'_, v8::Value>,
) -> String {
    format!(
        "{}: {} must be {expected}, received {}",
        decl.name,
        argument(decl, index),
        describe_received(value)
    )
}

/// Runs `f`, which may run JavaScript, under a `TryCatch`: if JavaScript threw (or execution
/// is terminating), that exception is thrown on, unchanged, and `f`'s result is dropped
/// (`Thrown`): whatever error the Rust side makes of the failure must not replace it.
#[inline(always)]
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

/// `<op> panicked: <message>`.
pub(super) fn panic_message(decl: &OpDecl, payload: &(dyn Any + Send)) -> String {
    format!("{} panicked: {}", decl.name, panic_text(payload))
}

/// A panic's message (`panic!`'s text), or what stands for one.
pub(super) fn panic_text(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)")
}

/// Makes an error object of `class` (a built-in constructor where there is one, else an
/// `Error` named `class`).
pub(super) fn new_error<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    class: &str,
    message: &str,
) -> v8::Local<'s, v8::Value> {
    let text = v8::String::new(scope, message).unwrap_or_else(|| v8::String::empty(scope));
    let error = match class {
        "TypeError" => v8::Exception::type_error(scope, text),
        "RangeError" => v8::Exception::range_error(scope, text),
        "SyntaxError" => v8::Exception::syntax_error(scope, text),
        "ReferenceError" => v8::Exception::reference_error(scope, text),
        _ => v8::Exception::error(scope, text),
    };
    if !matches!(
        class,
        "Error" | "TypeError" | "RangeError" | "SyntaxError" | "ReferenceError"
    ) {
        set_error_property(
            scope,
            error,
            "name",
            ErrorProperty::String(Cow::Borrowed(class)),
        );
    }
    error
}

pub(super) fn set_error_property(
    scope: &mut v8::PinScope<'_, '_>,
    error: v8::Local<'_, v8::Value>,
    name: &str,
    value: ErrorProperty<'_>,
) {
    let Ok(object) = v8::Local::<v8::Object>::try_from(error) else {
        return;
    };
    let Some(key) = v8::String::new(scope, name) else {
        return;
    };
    let value: v8::Local<v8::Value> = match value {
        ErrorProperty::String(text) => match v8::String::new(scope, &text) {
            Some(text) => text.into(),
            None => return,
        },
        ErrorProperty::Number(number) => v8::Number::new(scope, number).into(),
        ErrorProperty::Bool(flag) => v8::Boolean::new(scope, flag).into(),
    };
    // Setting a data property on a fresh error object cannot run JavaScript.
    let _ = object.set(scope, key.into(), value);
}

pub(crate) fn throw_error_of_class(scope: &mut v8::PinScope<'_, '_>, class: &str, message: &str) {
    let error = new_error(scope, class, message);
    scope.throw_exception(error);
}

/// The error object of `error` (its class, message and properties); with `prefix`, its
/// message is `<prefix>: <message>`.
pub(super) fn op_error_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: &OpError,
    prefix: Option<&str>,
) -> v8::Local<'s, v8::Value> {
    let message = error.message();
    let message = match prefix {
        Some(prefix) => Cow::Owned(format!("{prefix}: {message}")),
        None => message,
    };
    let exception = new_error(scope, &error.class(), &message);
    error.properties(&mut |name, value| set_error_property(scope, exception, name, value));
    exception
}

/// Throws `error`; with `prefix`, its message becomes `<prefix>: <message>`.
pub(super) fn throw_op_error(
    scope: &mut v8::PinScope<'_, '_>,
    error: &OpError,
    prefix: Option<&str>,
) {
    let exception = op_error_value(scope, error, prefix);
    scope.throw_exception(exception);
}

/// What a fast function returns after it has thrown; V8 ignores it.
pub trait FastDefault {
    /// The value.
    fn fast_default() -> Self;
}

macro_rules! fast_default_zero {
    ($($ty:ty),*) => {$(
        impl FastDefault for $ty {
            #[inline(always)]
            fn fast_default() -> Self {
                Default::default()
            }
        }
    )*};
}

fast_default_zero!(bool, i32, u32, i64, u64, f32, f64);

impl FastDefault for () {
    #[inline(always)]
    fn fast_default() -> Self {}
}

/// What a fast function hands V8: the value, or (after throwing) anything of its type.
#[inline(always)]
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
    #[inline(always)]
    fn fast_default() -> Self {
        std::ptr::null_mut()
    }
}

/// Runs a fast call's body; a panic is thrown as an `Error` naming the op (`None` then).
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to a fast function registered by
/// `Runtime`.
#[inline(always)]
pub unsafe fn fast_call_guarded<R>(
    options: *mut FastApiCallbackOptions<'_>,
    body: impl FnOnce() -> R,
) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => Some(result),
        Err(payload) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_panic(options, payload) };
            None
        }
    }
}

#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_panic(
    options: *mut FastApiCallbackOptions<'_>,
    payload: Box<dyn Any + Send>,
) {
    // SAFETY: forwarded from the caller.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    v8::callback_scope!(unsafe scope, scope_source);
    throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
}

/// As [`fast_call_guarded`], for a fast function that takes no callback options (its op
/// cannot throw but by panicking): a panic is thrown in the isolate running the call.
///
/// # Safety
/// Must be called inside a fast call V8 made (its isolate is the thread's current one, and
/// the calling function's context its current context).
#[inline(always)]
pub unsafe fn fast_call_guarded_current<R>(
    op_name: &'static str,
    body: impl FnOnce() -> R,
) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => Some(result),
        Err(payload) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_panic_current(op_name, payload) };
            None
        }
    }
}

// The v8 crate binds these in its `binding.cc` and keeps the bindings private; the archive it
// links exports them. Only the cold path of a panic in an options-free fast call uses them.
unsafe extern "C" {
    fn v8__Isolate__GetCurrent() -> *mut v8::RealIsolate;
    fn v8__Isolate__GetCurrentContext(isolate: *mut v8::RealIsolate) -> *const v8::Context;
}

#[cold]
#[inline(never)]
unsafe fn fast_throw_panic_current(op_name: &'static str, payload: Box<dyn Any + Send>) {
    // SAFETY: the caller runs inside a fast call, so the thread's current isolate is the one
    // running it and has a current context (the caller's); both are live for the call.
    let context = unsafe {
        let isolate = v8__Isolate__GetCurrent();
        let context = v8__Isolate__GetCurrentContext(isolate);
        // A `Local` is a non-null pointer to the handle (what the binding returns).
        std::mem::transmute::<std::ptr::NonNull<v8::Context>, v8::Local<'_, v8::Context>>(
            std::ptr::NonNull::new(context.cast_mut()).expect("a fast call has a context"),
        )
    };
    v8::callback_scope!(unsafe scope, context);
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
    // SAFETY: forwarded from the caller.
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
    // SAFETY: forwarded from the caller.
    let decl = unsafe { fast_op_ctx(options) }.decl;
    // SAFETY: forwarded from the caller.
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
    // SAFETY: forwarded from the caller.
    let scope_source = unsafe { &*options };
    v8::callback_scope!(unsafe scope, scope_source);
    // The error's class, message and properties are user code: a panic there must not cross
    // this `extern "C"` call's boundary either.
    // `error` moves into the closure, so that its (user) `Drop` runs inside the guard too.
    let thrown = catch_unwind(AssertUnwindSafe(|| {
        let error = error;
        throw_op_error(scope, &error, prefix.as_deref())
    }));
    if let Err(payload) = thrown {
        // SAFETY: forwarded from the caller.
        let decl = unsafe { fast_op_ctx(options) }.decl;
        throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
    }
}

#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_arg_type_error(
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    expected: &str,
    value: v8::Local<'_, v8::Value>,
) {
    // SAFETY: forwarded from the caller.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    v8::callback_scope!(unsafe scope, scope_source);
    throw_error_of_class(
        scope,
        "TypeError",
        &arg_type_error_message(decl, index, expected, value),
    );
}

impl<'a, 's> SlowCall<'a, 's> {
    /// The call's scope. Only ops whose kinds need one call this (the macro made it with
    /// [`slow_call_scoped`]).
    #[inline(always)]
    pub fn scope(&mut self) -> &mut v8::PinScope<'s, 's> {
        match &mut self.access {
            Access::Scope(scope) => scope,
            Access::Nothing | Access::Isolate(_) => no_scope(),
        }
    }

    /// The isolate, for ops that take `&mut v8::Isolate` and for reading strings.
    #[inline(always)]
    pub fn isolate(&mut self) -> &mut v8::Isolate {
        match &mut self.access {
            Access::Scope(scope) => scope,
            Access::Isolate(isolate) => isolate,
            Access::Nothing => no_scope(),
        }
    }

    /// The callback, for values made from the isolate alone (no scope of rusty_v8's needed).
    #[inline(always)]
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
                v8::callback_scope!(unsafe scope, info);
                f(scope)
            }
        }
    }

    /// The op's context (read from the function's data: only when needed).
    #[inline(always)]
    pub(super) fn op_ctx(&self) -> &'s OpCtx {
        // SAFETY: `Runtime::new` registers every op with its `OpCtx` as an External data value,
        // and the `OpCtx` outlives the isolate.
        unsafe { op_ctx_from_data(self.args.data()) }
    }

    /// The call's return value.
    #[inline(always)]
    pub(super) fn rv(&self) -> v8::ReturnValue<'s, v8::Value> {
        v8::ReturnValue::from_function_callback_info(self.info)
    }

    /// For ops that can reach the runtime's `TerminationHandle` (through the op state) or the
    /// isolate: a termination requested during the op takes effect as it returns.
    #[inline(always)]
    pub fn check_termination(&mut self) {
        if self.op_ctx().termination.is_requested() {
            self.act_on_interrupts();
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn act_on_interrupts(&mut self) {
        self.with_scope(crate::runtime::check_interrupts);
    }

    /// Argument `index` as V8 passed it (`undefined` when missing).
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
    pub fn is_nullish(&self, index: i32) -> bool {
        self.args.get(index).is_null_or_undefined()
    }

    /// Runs the op's function, for fallible ops that take the scope or the isolate (and so can
    /// run JavaScript): an exception JavaScript threw during it wins over the op's `Err`.
    #[inline(always)]
    pub fn call_keeping_exceptions<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'s, 's>) -> R,
    ) -> Result<R, Thrown> {
        keep_pending_exception(self.scope(), f)
    }

    /// Returns `null` (`Option` returns' `None`).
    #[inline(always)]
    pub fn ret_null(&mut self) -> Result<(), Thrown> {
        self.rv().set_null();
        Ok(())
    }
}
