//! Support for `#[op]`-generated code. Not a public API: names and signatures change with
//! the macro. Every conversion strategy the macro can pick is one function here, so the
//! generated code stays small and the logic is tested once.

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use crate::convert::{to_int32, to_uint32};
use crate::ops::OpCtx;
use crate::OpState;

pub use v8::fast_api::FastApiCallbackOptions;

/// A JavaScript exception is pending on the isolate; the op must return without a value.
#[derive(Debug)]
pub struct Thrown(());

/// The slow path of one op call: the scope, the arguments and the return value.
pub struct SlowCall<'a, 's> {
    scope: &'a mut v8::PinScope<'s, 's>,
    args: v8::FunctionCallbackArguments<'s>,
    rv: v8::ReturnValue<'s, v8::Value>,
    op_ctx: &'s OpCtx,
}

/// Runs one slow call: sets up the scope, counts the call when counters are on, runs `body`
/// and turns a panic into a thrown `Error` naming the op.
///
/// # Safety
/// `info` must be the `FunctionCallbackInfo` V8 passed to a callback registered by
/// `Runtime`, whose data is the op's `OpCtx`.
#[inline(always)]
pub unsafe fn slow_call(
    info: *const v8::FunctionCallbackInfo,
    body: impl for<'a, 's> FnOnce(&mut SlowCall<'a, 's>) -> Result<(), Thrown>,
) {
    // SAFETY: V8 keeps `info` alive for the duration of the callback.
    let info = unsafe { &*info };
    let args = v8::FunctionCallbackArguments::from_function_callback_info(info);
    let rv = v8::ReturnValue::from_function_callback_info(info);
    // SAFETY: `Runtime::new` registers every op with its `OpCtx` as an External data value,
    // and the `OpCtx` outlives the isolate.
    let op_ctx = unsafe { op_ctx_from_data(args.data()) };
    if op_ctx.counting {
        op_ctx.slow_calls.set(op_ctx.slow_calls.get() + 1);
    }
    v8::callback_scope!(unsafe scope, info);
    let mut call = SlowCall {
        scope,
        args,
        rv,
        op_ctx,
    };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&mut call))) {
        call.throw_panic(payload);
    }
}

/// # Safety
/// `data` must be the External that `Runtime::new` made for an op's `OpCtx`.
#[inline(always)]
unsafe fn op_ctx_from_data<'a>(data: v8::Local<'_, v8::Value>) -> &'a OpCtx {
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

/// Counts one fast call (the `counted` fast function variant only).
///
/// # Safety
/// As [`fast_op_ctx`].
#[inline(always)]
pub unsafe fn count_fast_call(options: *mut FastApiCallbackOptions<'_>) {
    // SAFETY: forwarded from the caller.
    let op_ctx = unsafe { fast_op_ctx(options) };
    op_ctx.fast_calls.set(op_ctx.fast_calls.get() + 1);
}

impl OpCtx {
    /// The op state, shared, for a fast call. Fast calls cannot run JavaScript, so no op can
    /// hold a conflicting borrow while one runs, unless the embedder holds one across a script.
    #[inline(always)]
    pub fn fast_state(&self) -> Ref<'_, OpState> {
        self.state.borrow()
    }

    /// The op state, exclusively, for a fast call; see [`OpCtx::fast_state`].
    #[inline(always)]
    pub fn fast_state_mut(&self) -> RefMut<'_, OpState> {
        self.state.borrow_mut()
    }

    /// The shared op state handle.
    #[inline(always)]
    pub fn state_rc(&self) -> Rc<RefCell<OpState>> {
        self.state.clone()
    }
}

/// What the `received` part of a `TypeError` says about a value.
fn describe_received(value: v8::Local<'_, v8::Value>) -> &'static str {
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

impl<'a, 's> SlowCall<'a, 's> {
    /// The scope, for ops that take one.
    #[inline(always)]
    pub fn scope(&mut self) -> &mut v8::PinScope<'s, 's> {
        self.scope
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
        let decl = self.op_ctx.decl;
        let received = describe_received(self.args.get(index));
        let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
        let message = format!(
            "{}: argument {} ({name}) must be {expected}, received {received}",
            decl.name,
            index + 1
        );
        self.throw_type_error(&message)
    }

    fn throw_type_error(&mut self, message: &str) -> Thrown {
        let message =
            v8::String::new(self.scope, message).unwrap_or_else(|| v8::String::empty(self.scope));
        let exception = v8::Exception::type_error(self.scope, message);
        self.scope.throw_exception(exception);
        Thrown(())
    }

    /// Throws a plain `Error`.
    #[cold]
    #[inline(never)]
    pub fn throw_error(&mut self, message: &str) -> Thrown {
        let message =
            v8::String::new(self.scope, message).unwrap_or_else(|| v8::String::empty(self.scope));
        let exception = v8::Exception::error(self.scope, message);
        self.scope.throw_exception(exception);
        Thrown(())
    }

    #[cold]
    #[inline(never)]
    fn throw_panic(&mut self, payload: Box<dyn Any + Send>) {
        let detail = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(non-string panic payload)");
        let message = format!("{} panicked: {detail}", self.op_ctx.decl.name);
        self.throw_error(&message);
    }

    #[inline(always)]
    fn arg_number(&mut self, index: i32, expected: &str) -> Result<f64, Thrown> {
        let value = self.args.get(index);
        match v8::Local::<v8::Number>::try_from(value) {
            Ok(number) => Ok(number.value()),
            Err(_) => Err(self.throw_arg_type_error(index, expected)),
        }
    }

    /// `bool`: `ToBoolean`, as V8's fast path does; never throws.
    #[inline(always)]
    pub fn arg_bool(&mut self, index: i32) -> Result<bool, Thrown> {
        Ok(self.args.get(index).boolean_value(self.scope))
    }

    /// `i32`: a Number, `ToInt32`.
    #[inline(always)]
    pub fn arg_i32(&mut self, index: i32) -> Result<i32, Thrown> {
        self.arg_number(index, "a number (i32)").map(to_int32)
    }

    /// `i16`: a Number, `ToInt32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_i16(&mut self, index: i32) -> Result<i16, Thrown> {
        self.arg_number(index, "a number (i16)")
            .map(|n| to_int32(n) as i16)
    }

    /// `i8`: a Number, `ToInt32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_i8(&mut self, index: i32) -> Result<i8, Thrown> {
        self.arg_number(index, "a number (i8)")
            .map(|n| to_int32(n) as i8)
    }

    /// `u32`: a Number, `ToUint32`.
    #[inline(always)]
    pub fn arg_u32(&mut self, index: i32) -> Result<u32, Thrown> {
        self.arg_number(index, "a number (u32)").map(to_uint32)
    }

    /// `u16`: a Number, `ToUint32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_u16(&mut self, index: i32) -> Result<u16, Thrown> {
        self.arg_number(index, "a number (u16)")
            .map(|n| to_uint32(n) as u16)
    }

    /// `u8`: a Number, `ToUint32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_u8(&mut self, index: i32) -> Result<u8, Thrown> {
        self.arg_number(index, "a number (u8)")
            .map(|n| to_uint32(n) as u8)
    }

    /// `f64`: a Number, as is.
    #[inline(always)]
    pub fn arg_f64(&mut self, index: i32) -> Result<f64, Thrown> {
        self.arg_number(index, "a number (f64)")
    }

    /// `f32`: a Number, rounded to the nearest `f32`.
    #[inline(always)]
    pub fn arg_f32(&mut self, index: i32) -> Result<f32, Thrown> {
        self.arg_number(index, "a number (f32)").map(|n| n as f32)
    }

    /// `#[bigint] i64`: a BigInt, `BigInt.asIntN(64, x)`.
    #[inline(always)]
    pub fn arg_bigint_i64(&mut self, index: i32) -> Result<i64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.i64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, "a BigInt (i64)")),
        }
    }

    /// `#[bigint] u64`: a BigInt, `BigInt.asUintN(64, x)`.
    #[inline(always)]
    pub fn arg_bigint_u64(&mut self, index: i32) -> Result<u64, Thrown> {
        match v8::Local::<v8::BigInt>::try_from(self.args.get(index)) {
            Ok(bigint) => Ok(bigint.u64_value().0),
            Err(_) => Err(self.throw_arg_type_error(index, "a BigInt (u64)")),
        }
    }

    /// `&OpState`: a shared borrow; throws if an op or the embedder holds it exclusively.
    #[inline(always)]
    pub fn state(&mut self) -> Result<Ref<'s, OpState>, Thrown> {
        let op_ctx = self.op_ctx;
        op_ctx.state.try_borrow().map_err(|_| {
            self.throw_error(&format!(
                "{}: OpState is borrowed mutably elsewhere",
                op_ctx.decl.name
            ))
        })
    }

    /// `&mut OpState`: an exclusive borrow; throws if anything else holds it.
    #[inline(always)]
    pub fn state_mut(&mut self) -> Result<RefMut<'s, OpState>, Thrown> {
        let op_ctx = self.op_ctx;
        op_ctx.state.try_borrow_mut().map_err(|_| {
            self.throw_error(&format!(
                "{}: OpState is already borrowed",
                op_ctx.decl.name
            ))
        })
    }

    /// `Rc<RefCell<OpState>>`.
    #[inline(always)]
    pub fn state_rc(&self) -> Rc<RefCell<OpState>> {
        self.op_ctx.state.clone()
    }

    /// Returns a boolean.
    #[inline(always)]
    pub fn ret_bool(&mut self, value: bool) {
        self.rv.set_bool(value);
    }

    /// Returns an `i32` Number.
    #[inline(always)]
    pub fn ret_i32(&mut self, value: i32) {
        self.rv.set_int32(value);
    }

    /// Returns a `u32` Number.
    #[inline(always)]
    pub fn ret_u32(&mut self, value: u32) {
        self.rv.set_uint32(value);
    }

    /// Returns an `f64` Number.
    #[inline(always)]
    pub fn ret_f64(&mut self, value: f64) {
        self.rv.set_double(value);
    }

    /// Returns an `i64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_i64(&mut self, value: i64) {
        let bigint = v8::BigInt::new_from_i64(self.scope, value);
        self.rv.set(bigint.into());
    }

    /// Returns a `u64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_u64(&mut self, value: u64) {
        let bigint = v8::BigInt::new_from_u64(self.scope, value);
        self.rv.set(bigint.into());
    }
}
