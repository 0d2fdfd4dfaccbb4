//! Support for `#[op]`-generated code. Not a public API: names and signatures change with
//! the macro. Every conversion strategy the macro can pick is one function here, so the
//! generated code stays small and the logic is tested once.

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use std::borrow::Cow;

use crate::convert::FromJsNumber;
use crate::ops::{OpCtx, StaticStrEntry};
use crate::strings::{is_ascii, latin1_to_string, narrow_to_latin1_in, utf16_to_string};
use crate::{ByteString, OpState};
use crate::{ErrorProperty, FromV8, OpDecl, OpError, ToV8};

pub use crate::strings::StringBuffer;
pub use v8::fast_api::{FastApiCallbackOptions, FastApiOneByteString};

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
    match catch_unwind(AssertUnwindSafe(|| body(&mut call))) {
        Ok(_) => {
            if op_ctx.termination.is_requested() {
                // Let V8 act on the request now: the script stops where the op returns.
                crate::runtime::check_interrupts(call.scope);
            }
        }
        Err(payload) => call.throw_panic(payload),
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

/// Why a shared borrow of the op state failed (both paths throw it, after the op's name).
const STATE_HELD_EXCLUSIVELY: &str = "OpState is borrowed mutably elsewhere";
/// Why an exclusive borrow of the op state failed.
const STATE_HELD: &str = "OpState is already borrowed";

/// `&OpState` on the fast path; if something holds the state exclusively (an op that called
/// into JavaScript, the embedder across a script), throws the slow path's error (`None`).
///
/// # Safety
/// As [`fast_op_ctx`].
#[inline(always)]
pub unsafe fn fast_state<'a>(
    op_ctx: &'a OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<Ref<'a, OpState>> {
    let state = op_ctx.state.try_borrow().ok();
    if state.is_none() {
        // SAFETY: forwarded from the caller.
        unsafe { fast_throw_state_borrowed(op_ctx, options, STATE_HELD_EXCLUSIVELY) };
    }
    state
}

/// `&mut OpState` on the fast path; see [`fast_state`].
///
/// # Safety
/// As [`fast_op_ctx`].
#[inline(always)]
pub unsafe fn fast_state_mut<'a>(
    op_ctx: &'a OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<RefMut<'a, OpState>> {
    let state = op_ctx.state.try_borrow_mut().ok();
    if state.is_none() {
        // SAFETY: forwarded from the caller.
        unsafe { fast_throw_state_borrowed(op_ctx, options, STATE_HELD) };
    }
    state
}

#[cold]
#[inline(never)]
unsafe fn fast_throw_state_borrowed(
    op_ctx: &OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
    what: &str,
) {
    // SAFETY: forwarded from the caller.
    let scope_source = unsafe { &*options };
    v8::callback_scope!(unsafe scope, scope_source);
    throw_error_of_class(scope, "Error", &format!("{}: {what}", op_ctx.decl.name));
}

impl OpCtx {
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

/// `<op>: argument <n> (<name>) must be <expected>, received <kind>`.
fn arg_type_error_message(
    decl: &OpDecl,
    index: i32,
    expected: &str,
    value: v8::Local<'_, v8::Value>,
) -> String {
    let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
    format!(
        "{}: argument {} ({name}) must be {expected}, received {}",
        decl.name,
        index + 1,
        describe_received(value)
    )
}

/// Runs `f`, which may run JavaScript, under a `TryCatch`: if JavaScript threw (or execution
/// is terminating), that exception is thrown on, unchanged, and `f`'s result is dropped
/// (`Thrown`): whatever error the Rust side makes of the failure must not replace it.
#[inline(always)]
fn keep_pending_exception<'s, R>(
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
fn panic_message(decl: &OpDecl, payload: &(dyn Any + Send)) -> String {
    let detail = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)");
    format!("{} panicked: {detail}", decl.name)
}

/// Makes an error object of `class` (a built-in constructor where there is one, else an
/// `Error` named `class`).
fn new_error<'s>(
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

fn set_error_property(
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

fn throw_error_of_class(scope: &mut v8::PinScope<'_, '_>, class: &str, message: &str) {
    let error = new_error(scope, class, message);
    scope.throw_exception(error);
}

/// Throws `error`; with `prefix`, its message becomes `<prefix>: <message>`.
fn throw_op_error(scope: &mut v8::PinScope<'_, '_>, error: &OpError, prefix: Option<&str>) {
    let message = error.message();
    let message = match prefix {
        Some(prefix) => Cow::Owned(format!("{prefix}: {message}")),
        None => message,
    };
    let exception = new_error(scope, &error.class(), &message);
    error.properties(&mut |name, value| set_error_property(scope, exception, name, value));
    scope.throw_exception(exception);
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
        let message =
            arg_type_error_message(self.op_ctx.decl, index, expected, self.args.get(index));
        throw_error_of_class(self.scope, "TypeError", &message);
        Thrown(())
    }

    fn throw_type_error(&mut self, message: &str) -> Thrown {
        throw_error_of_class(self.scope, "TypeError", message);
        Thrown(())
    }

    /// Throws a plain `Error`.
    #[cold]
    #[inline(never)]
    pub fn throw_error(&mut self, message: &str) -> Thrown {
        throw_error_of_class(self.scope, "Error", message);
        Thrown(())
    }

    /// Throws what an op's `Err` says: its class, message and properties.
    #[cold]
    #[inline(never)]
    pub fn throw_op_error(&mut self, error: OpError) -> Thrown {
        throw_op_error(self.scope, &error, None);
        Thrown(())
    }

    #[cold]
    #[inline(never)]
    fn throw_panic(&mut self, payload: Box<dyn Any + Send>) {
        let message = panic_message(self.op_ctx.decl, &*payload);
        self.throw_error(&message);
    }

    /// A Number argument converted to `T`, or a `TypeError`.
    #[inline(always)]
    fn arg_number<T: FromJsNumber>(&mut self, index: i32) -> Result<T, Thrown> {
        let value = self.args.get(index);
        match v8::Local::<v8::Number>::try_from(value) {
            Ok(number) => Ok(T::from_js_number(number.value())),
            Err(_) => Err(self.throw_arg_type_error(index, T::EXPECTED)),
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
        self.arg_number(index)
    }

    /// `i16`: a Number, `ToInt32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_i16(&mut self, index: i32) -> Result<i16, Thrown> {
        self.arg_number(index)
    }

    /// `i8`: a Number, `ToInt32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_i8(&mut self, index: i32) -> Result<i8, Thrown> {
        self.arg_number(index)
    }

    /// `u32`: a Number, `ToUint32`.
    #[inline(always)]
    pub fn arg_u32(&mut self, index: i32) -> Result<u32, Thrown> {
        self.arg_number(index)
    }

    /// `u16`: a Number, `ToUint32` wrapped to 16 bits.
    #[inline(always)]
    pub fn arg_u16(&mut self, index: i32) -> Result<u16, Thrown> {
        self.arg_number(index)
    }

    /// `u8`: a Number, `ToUint32` wrapped to 8 bits.
    #[inline(always)]
    pub fn arg_u8(&mut self, index: i32) -> Result<u8, Thrown> {
        self.arg_number(index)
    }

    /// `f64`: a Number, as is.
    #[inline(always)]
    pub fn arg_f64(&mut self, index: i32) -> Result<f64, Thrown> {
        self.arg_number(index)
    }

    /// `f32`: a Number, rounded to the nearest `f32`.
    #[inline(always)]
    pub fn arg_f32(&mut self, index: i32) -> Result<f32, Thrown> {
        self.arg_number(index)
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
            self.throw_error(&format!("{}: {STATE_HELD_EXCLUSIVELY}", op_ctx.decl.name))
        })
    }

    /// `&mut OpState`: an exclusive borrow; throws if anything else holds it.
    #[inline(always)]
    pub fn state_mut(&mut self) -> Result<RefMut<'s, OpState>, Thrown> {
        let op_ctx = self.op_ctx;
        op_ctx
            .state
            .try_borrow_mut()
            .map_err(|_| self.throw_error(&format!("{}: {STATE_HELD}", op_ctx.decl.name)))
    }

    /// `Rc<RefCell<OpState>>`.
    #[inline(always)]
    pub fn state_rc(&self) -> Rc<RefCell<OpState>> {
        self.op_ctx.state.clone()
    }

    /// Returns a boolean.
    #[inline(always)]
    pub fn ret_bool(&mut self, value: bool) -> Result<(), Thrown> {
        self.rv.set_bool(value);
        Ok(())
    }

    /// Returns an `i32` Number.
    #[inline(always)]
    pub fn ret_i32(&mut self, value: i32) -> Result<(), Thrown> {
        self.rv.set_int32(value);
        Ok(())
    }

    /// Returns a `u32` Number.
    #[inline(always)]
    pub fn ret_u32(&mut self, value: u32) -> Result<(), Thrown> {
        self.rv.set_uint32(value);
        Ok(())
    }

    /// Returns an `f64` Number.
    #[inline(always)]
    pub fn ret_f64(&mut self, value: f64) -> Result<(), Thrown> {
        self.rv.set_double(value);
        Ok(())
    }

    /// Returns an `i64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_i64(&mut self, value: i64) -> Result<(), Thrown> {
        let bigint = v8::BigInt::new_from_i64(self.scope, value);
        self.rv.set(bigint.into());
        Ok(())
    }

    /// Returns a `u64` BigInt.
    #[inline(always)]
    pub fn ret_bigint_u64(&mut self, value: u64) -> Result<(), Thrown> {
        let bigint = v8::BigInt::new_from_u64(self.scope, value);
        self.rv.set(bigint.into());
        Ok(())
    }

    // ---- strings ---------------------------------------------------------------------------

    #[inline(always)]
    fn arg_v8_string(
        &mut self,
        index: i32,
        expected: &str,
    ) -> Result<v8::Local<'s, v8::String>, Thrown> {
        v8::Local::<v8::String>::try_from(self.args.get(index))
            .map_err(|_| self.throw_arg_type_error(index, expected))
    }

    /// `#[string] &str` in an op that cannot run JavaScript: one-byte ASCII is borrowed in
    /// place (zero copy); anything else is transcoded into `buffer`.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap while it holds the result
    /// (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[inline(always)]
    pub unsafe fn arg_str<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<&'b str, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = buffer.view.insert(v8::ValueView::new(self.scope, string));
        let in_place = matches!(view.data(), v8::ValueViewData::OneByte(bytes) if is_ascii(bytes));
        if in_place {
            // (Borrowed again here: returning the first borrow would hold `buffer` for the
            // rest of the function.)
            let Some(view) = buffer.view.as_ref() else {
                unreachable!("set above")
            };
            let v8::ValueViewData::OneByte(bytes) = view.data() else {
                unreachable!("checked above")
            };
            // SAFETY: ASCII is UTF-8. The view keeps the string flat and unmoved while it lives
            // in `buffer`, and no JavaScript or GC runs during this op's call.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        let view = buffer.view.take().expect("set above");
        // Known not to be ASCII: no second scan.
        Ok(match view.data() {
            v8::ValueViewData::OneByte(latin1) => buffer.latin1_to_utf8(latin1),
            v8::ValueViewData::TwoByte(units) => buffer.utf16_to_utf8(units),
        })
    }

    /// `#[string] &str` in an op that takes the scope, or that has several string arguments:
    /// JavaScript or another argument's flattening may move the string, so it is always copied
    /// (or transcoded) into `buffer`.
    #[inline(always)]
    pub fn arg_str_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<&'b str, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = v8::ValueView::new(self.scope, string);
        Ok(buffer.copy_utf8(view.data()))
    }

    /// `#[string] Cow<str>`: as [`SlowCall::arg_str`], borrowed.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap while it holds the result
    /// (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[inline(always)]
    pub unsafe fn arg_cow_str<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, str>, Thrown> {
        // SAFETY: forwarded from the caller.
        unsafe { self.arg_str(index, buffer) }.map(Cow::Borrowed)
    }

    /// `#[string] Cow<str>` in an op that takes the scope: as [`SlowCall::arg_str_copied`].
    #[inline(always)]
    pub fn arg_cow_str_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, str>, Thrown> {
        self.arg_str_copied(index, buffer).map(Cow::Borrowed)
    }

    /// `#[string] String`: one allocation of the exact UTF-8 length, written in one pass.
    #[inline(always)]
    pub fn arg_string(&mut self, index: i32) -> Result<String, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = v8::ValueView::new(self.scope, string);
        Ok(match view.data() {
            v8::ValueViewData::OneByte(latin1) => latin1_to_string(latin1),
            v8::ValueViewData::TwoByte(units) => utf16_to_string(units),
        })
    }

    #[cold]
    fn throw_not_latin1(&mut self, index: i32) -> Thrown {
        let decl = self.op_ctx.decl;
        let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
        let message = format!(
            "{}: argument {} ({name}) must be a string of characters up to U+00FF, received a string with wider characters",
            decl.name,
            index + 1
        );
        self.throw_type_error(&message)
    }

    /// `#[string(onebyte)] Cow<[u8]>` in an op that cannot run JavaScript: one-byte content
    /// borrowed in place; a string with a character above U+00FF throws.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap while it holds the result
    /// (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[inline(always)]
    pub unsafe fn arg_onebyte<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = buffer.view.insert(v8::ValueView::new(self.scope, string));
        if let v8::ValueViewData::OneByte(_) = view.data() {
            // (Borrowed again: see `arg_str`.)
            let Some(view) = buffer.view.as_ref() else {
                unreachable!("set above")
            };
            let v8::ValueViewData::OneByte(bytes) = view.data() else {
                unreachable!("checked above")
            };
            return Ok(Cow::Borrowed(bytes));
        }
        let view = buffer.view.take().expect("set above");
        self.arg_onebyte_copied_from(index, view, buffer)
    }

    /// `#[string(onebyte)] Cow<[u8]>` in an op that takes the scope: copied into `buffer`.
    #[inline(always)]
    pub fn arg_onebyte_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = v8::ValueView::new(self.scope, string);
        self.arg_onebyte_copied_from(index, view, buffer)
    }

    /// Copies (one-byte) or narrows (two-byte, all at most U+00FF) a string's content into
    /// `buffer`; the view goes before anything is thrown.
    fn arg_onebyte_copied_from<'b>(
        &mut self,
        index: i32,
        view: v8::ValueView<'s>,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let copied = match view.data() {
            v8::ValueViewData::OneByte(bytes) => {
                let room = buffer.room(bytes.len());
                let room = &mut room[..bytes.len()];
                for (slot, &byte) in room.iter_mut().zip(bytes) {
                    slot.write(byte);
                }
                // SAFETY: every byte of `room` was written above.
                Some(unsafe { std::slice::from_raw_parts(room.as_ptr().cast::<u8>(), room.len()) })
            }
            v8::ValueViewData::TwoByte(units) => {
                narrow_to_latin1_in(units, buffer.room(units.len()))
            }
        };
        drop(view);
        match copied {
            Some(bytes) => Ok(Cow::Borrowed(bytes)),
            None => Err(self.throw_not_latin1(index)),
        }
    }

    /// `ByteString`: the Latin-1 bytes, one allocation; a character above U+00FF throws.
    #[inline(always)]
    pub fn arg_bytestring(&mut self, index: i32) -> Result<ByteString, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = v8::ValueView::new(self.scope, string);
        let bytes = match view.data() {
            v8::ValueViewData::OneByte(bytes) => Some(bytes.to_vec()),
            v8::ValueViewData::TwoByte(units) => {
                units.iter().map(|&unit| u8::try_from(unit).ok()).collect()
            }
        };
        drop(view);
        bytes
            .map(ByteString)
            .ok_or_else(|| self.throw_not_latin1(index))
    }

    #[cold]
    fn throw_too_long(&mut self) -> Thrown {
        let message = format!(
            "{}: the returned string is longer than V8 allows",
            self.op_ctx.decl.name
        );
        let message =
            v8::String::new(self.scope, &message).unwrap_or_else(|| v8::String::empty(self.scope));
        let exception = v8::Exception::range_error(self.scope, message);
        self.scope.throw_exception(exception);
        Thrown(())
    }

    #[inline(always)]
    fn set_string(&mut self, string: Option<v8::Local<'s, v8::String>>) -> Result<(), Thrown> {
        match string {
            Some(string) => {
                self.rv.set(string.into());
                Ok(())
            }
            None => Err(self.throw_too_long()),
        }
    }

    /// Returns a string: ASCII as a one-byte string (no UTF-8 decoding), anything else from
    /// UTF-8.
    #[inline(always)]
    pub fn ret_str(&mut self, value: &str) -> Result<(), Thrown> {
        let string = if is_ascii(value.as_bytes()) {
            v8::String::new_from_one_byte(self.scope, value.as_bytes(), v8::NewStringType::Normal)
        } else {
            v8::String::new_from_utf8(self.scope, value.as_bytes(), v8::NewStringType::Normal)
        };
        self.set_string(string)
    }

    /// Returns an owned `String`; see [`SlowCall::ret_str`].
    #[inline(always)]
    pub fn ret_string(&mut self, value: String) -> Result<(), Thrown> {
        self.ret_str(&value)
    }

    /// Returns a `&'static str`: ASCII becomes an external string pointing at the static bytes
    /// (no copy); anything else is copied from UTF-8. The op keeps the V8 string of the last
    /// static string it returned, so returning the same one again makes nothing new.
    #[inline(always)]
    pub fn ret_static_str(&mut self, value: &'static str) -> Result<(), Thrown> {
        if let Some(entry) = &*self.op_ctx.static_str_cache.borrow() {
            if std::ptr::eq(entry.address, value.as_ptr()) && entry.len == value.len() {
                let string = v8::Local::new(self.scope, &entry.string);
                self.rv.set(string.into());
                return Ok(());
            }
        }
        let string = if is_ascii(value.as_bytes()) {
            v8::String::new_external_onebyte_static(self.scope, value.as_bytes())
        } else {
            v8::String::new_from_utf8(self.scope, value.as_bytes(), v8::NewStringType::Normal)
        };
        if let Some(string) = string {
            *self.op_ctx.static_str_cache.borrow_mut() = Some(StaticStrEntry {
                address: value.as_ptr(),
                len: value.len(),
                string: v8::Global::new(self.scope, string),
            });
        }
        self.set_string(string)
    }

    /// Returns a `Cow<'static, str>`: borrowed as [`SlowCall::ret_static_str`], owned as
    /// [`SlowCall::ret_str`].
    #[inline(always)]
    pub fn ret_cow_str(&mut self, value: Cow<'static, str>) -> Result<(), Thrown> {
        match value {
            Cow::Borrowed(value) => self.ret_static_str(value),
            Cow::Owned(value) => self.ret_str(&value),
        }
    }

    /// Returns an `Option<String>`: `None` is `null`.
    #[inline(always)]
    pub fn ret_option_string(&mut self, value: Option<String>) -> Result<(), Thrown> {
        match value {
            Some(value) => self.ret_str(&value),
            None => {
                self.rv.set_null();
                Ok(())
            }
        }
    }

    /// Returns a `ByteString` as a one-byte string of its Latin-1 bytes.
    #[inline(always)]
    pub fn ret_bytestring(&mut self, value: ByteString) -> Result<(), Thrown> {
        let string = v8::String::new_from_one_byte(self.scope, &value, v8::NewStringType::Normal);
        self.set_string(string)
    }
}

// ---- fast-path string arguments (V8 passes sequential one-byte strings only) ---------------

/// The bytes of a fast call's one-byte string argument.
///
/// # Safety
/// `string` must be the `FastApiOneByteString` V8 passed to the running fast call.
#[inline(always)]
unsafe fn fast_latin1<'a>(string: *const FastApiOneByteString) -> &'a [u8] {
    // SAFETY: V8 passes a valid string whose bytes stay put for the fast call (no GC runs).
    unsafe { (*string).as_bytes() }
}

/// `#[string] &str` on the fast path: ASCII in place, Latin-1 transcoded into `buffer`.
///
/// # Safety
/// As for the bytes of the fast call's string argument; the result must not outlive the fast call.
#[inline(always)]
pub unsafe fn fast_str<'b>(
    string: *const FastApiOneByteString,
    buffer: &'b mut StringBuffer<'_>,
) -> &'b str {
    // SAFETY: forwarded from the caller.
    let latin1: &'b [u8] = unsafe { fast_latin1(string) };
    if is_ascii(latin1) {
        // SAFETY: ASCII is UTF-8.
        return unsafe { std::str::from_utf8_unchecked(latin1) };
    }
    buffer.latin1_to_utf8(latin1)
}

/// `#[string] Cow<str>` on the fast path: as [`fast_str`], borrowed.
///
/// # Safety
/// As [`fast_str`].
#[inline(always)]
pub unsafe fn fast_cow_str<'b>(
    string: *const FastApiOneByteString,
    buffer: &'b mut StringBuffer<'_>,
) -> Cow<'b, str> {
    // SAFETY: forwarded from the caller.
    Cow::Borrowed(unsafe { fast_str(string, buffer) })
}

/// `#[string] String` on the fast path: one allocation of the exact UTF-8 length.
///
/// # Safety
/// As for the bytes of the fast call's string argument.
#[inline(always)]
pub unsafe fn fast_string(string: *const FastApiOneByteString) -> String {
    // SAFETY: forwarded from the caller.
    latin1_to_string(unsafe { fast_latin1(string) })
}

/// `#[string(onebyte)] Cow<[u8]>` on the fast path: the bytes in place.
///
/// # Safety
/// As [`fast_str`].
#[inline(always)]
pub unsafe fn fast_onebyte<'b>(string: *const FastApiOneByteString) -> Cow<'b, [u8]> {
    // SAFETY: forwarded from the caller.
    Cow::Borrowed(unsafe { fast_latin1(string) })
}

/// `ByteString` on the fast path: the bytes, one allocation.
///
/// # Safety
/// As for the bytes of the fast call's string argument.
#[inline(always)]
pub unsafe fn fast_bytestring(string: *const FastApiOneByteString) -> ByteString {
    // SAFETY: forwarded from the caller.
    ByteString(unsafe { fast_latin1(string) }.to_vec())
}

// ---- values, buffers, externals, user types, errors ---------------------------------------

/// Room for the bytes of an on-heap typed array, which V8 copies out rather than lend
/// (`ArrayBufferView::GetContents`): small arrays only.
const ON_HEAP_STORAGE: usize = v8::TYPED_ARRAY_MAX_SIZE_IN_HEAP;

/// Room for the bytes of a small typed array that lives on the V8 heap: V8 copies those out
/// rather than lend them (`ArrayBufferView::GetContents`). A shared `#[buffer] &[u8]` borrow
/// of such an array borrows the copy, so reading it allocates nothing.
pub struct BufferStorage([u8; ON_HEAP_STORAGE]);

impl BufferStorage {
    /// Empty storage.
    #[inline(always)]
    pub fn new() -> Self {
        Self([0; ON_HEAP_STORAGE])
    }
}

impl Default for BufferStorage {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a view's bytes are.
enum Contents {
    /// Off the V8 heap, in place.
    InPlace(*mut u8, usize),
    /// On the V8 heap: this many bytes were copied into the storage.
    Copied(usize),
    /// None: the view is detached, or empty over a buffer without memory.
    Absent,
}

fn view_contents(
    view: v8::Local<'_, v8::ArrayBufferView>,
    storage: &mut [u8; ON_HEAP_STORAGE],
) -> Contents {
    let storage_start = storage.as_mut_ptr();
    // SAFETY: `storage` is large enough for any on-heap array (V8 checks it).
    let (data, len) = unsafe { view.get_contents_raw_parts(storage) };
    if data.is_null() {
        Contents::Absent
    } else if data == storage_start {
        Contents::Copied(len)
    } else {
        Contents::InPlace(data, len)
    }
}

/// # Safety
/// `data` and `len` must describe memory that stays valid and unaliased for `'a`.
unsafe fn bytes_mut<'a>(data: *mut u8, len: usize) -> &'a mut [u8] {
    // SAFETY: forwarded from the caller.
    unsafe { std::slice::from_raw_parts_mut(data, len) }
}

/// # Safety
/// `data` and `len` must describe memory that stays valid and unwritten for `'a`.
unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    // SAFETY: forwarded from the caller.
    unsafe { std::slice::from_raw_parts(data, len) }
}

/// Whether an empty view's buffer is detached (a view of an empty buffer is not).
fn view_is_detached(
    scope: &mut v8::PinScope<'_, '_>,
    view: v8::Local<'_, v8::ArrayBufferView>,
) -> bool {
    // A detached view always has its buffer: asking for it allocates nothing.
    view.has_buffer()
        && view
            .buffer(scope)
            .is_some_and(|buffer| buffer.was_detached())
}

/// An ArrayBuffer's memory (`None` if detached; an empty buffer may have no memory: dangling).
fn array_buffer_memory(buffer: v8::Local<'_, v8::ArrayBuffer>) -> Option<(*mut u8, usize)> {
    if buffer.was_detached() {
        return None;
    }
    Some(match buffer.data() {
        Some(data) => (data.as_ptr().cast(), buffer.byte_length()),
        None => (std::ptr::NonNull::dangling().as_ptr(), 0),
    })
}

impl<'a, 's> SlowCall<'a, 's> {
    /// Whether argument `index` is `undefined` (or missing) or `null`: `None` for `Option<T>`.
    #[inline(always)]
    pub fn is_nullish(&self, index: i32) -> bool {
        self.args.get(index).is_null_or_undefined()
    }

    /// The isolate, for ops that take `&mut v8::Isolate`.
    #[inline(always)]
    pub fn isolate(&mut self) -> &mut v8::Isolate {
        self.scope
    }

    /// `v8::Local<T>`: checked to be a `T`.
    #[inline(always)]
    pub fn arg_local<T>(&mut self, index: i32, expected: &str) -> Result<v8::Local<'s, T>, Thrown>
    where
        v8::Local<'s, T>: TryFrom<v8::Local<'s, v8::Value>>,
    {
        v8::Local::<T>::try_from(self.args.get(index))
            .map_err(|_| self.throw_arg_type_error(index, expected))
    }

    /// `#[from_v8] T`: through `T`'s `FromV8`; an `Err` throws, prefixed with the op and the
    /// argument.
    #[inline(always)]
    pub fn arg_from_v8<T: FromV8<'s>>(&mut self, index: i32) -> Result<T, Thrown> {
        let value = self.args.get(index);
        let decl = self.op_ctx.decl;
        keep_pending_exception(self.scope, |scope| T::from_v8(scope, value))?.map_err(|error| {
            let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
            let prefix = format!("{}: argument {} ({name})", decl.name, index + 1);
            throw_op_error(self.scope, &error, Some(&prefix));
            Thrown(())
        })
    }

    /// Runs the op's function, for fallible ops that take the scope or the isolate (and so can
    /// run JavaScript): an exception JavaScript threw during it wins over the op's `Err`.
    #[inline(always)]
    pub fn call_keeping_exceptions<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'s, 's>) -> R,
    ) -> Result<R, Thrown> {
        keep_pending_exception(self.scope, f)
    }

    fn arg_uint8_array(
        &mut self,
        index: i32,
    ) -> Result<v8::Local<'s, v8::ArrayBufferView>, Thrown> {
        let array: v8::Local<v8::Uint8Array> = self.arg_local(index, "a Uint8Array")?;
        Ok(array.into())
    }

    #[cold]
    fn throw_detached(&mut self, index: i32) -> Thrown {
        let decl = self.op_ctx.decl;
        let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
        self.throw_type_error(&format!(
            "{}: argument {} ({name}) is backed by a detached ArrayBuffer",
            decl.name,
            index + 1
        ))
    }

    /// `#[buffer] &[u8]`: a Uint8Array's bytes (any offset and length), borrowed; those of a
    /// small array on the V8 heap are copied into `storage` (no allocation).
    ///
    /// # Safety
    /// The op must not run JavaScript while it holds the bytes (the macro ensures it: ops that
    /// can run JavaScript cannot borrow buffers).
    #[inline(always)]
    pub unsafe fn arg_buffer<'b>(
        &mut self,
        index: i32,
        storage: &'b mut BufferStorage,
    ) -> Result<&'b [u8], Thrown> {
        let view = self.arg_uint8_array(index)?;
        match view_contents(view, &mut storage.0) {
            // SAFETY: the view's off-heap memory, unmoved while no JavaScript runs.
            Contents::InPlace(data, len) => Ok(unsafe { bytes(data, len) }),
            Contents::Copied(len) => Ok(&storage.0[..len]),
            Contents::Absent if !view_is_detached(self.scope, view) => Ok(&[]),
            Contents::Absent => Err(self.throw_detached(index)),
        }
    }

    /// `#[buffer] &mut [u8]`: a Uint8Array's bytes, borrowed mutably. A small array on the V8
    /// heap is first moved off it (asking for its `ArrayBuffer` does that, allocating once per
    /// array), so that writes reach JavaScript.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`]; and no other argument may borrow the same memory (the
    /// macro ensures it: a `&mut [u8]` is the op's only buffer or handle that could).
    #[inline(always)]
    pub unsafe fn arg_buffer_mut(&mut self, index: i32) -> Result<&'s mut [u8], Thrown> {
        let view = self.arg_uint8_array(index)?;
        let mut storage = [0; ON_HEAP_STORAGE];
        let contents = match view_contents(view, &mut storage) {
            Contents::Copied(0) => return Ok(&mut []),
            Contents::Copied(_) => {
                view.buffer(self.scope);
                view_contents(view, &mut storage)
            }
            contents => contents,
        };
        match contents {
            // SAFETY: the view's off-heap memory, unmoved while no JavaScript runs, borrowed by
            // no other argument.
            Contents::InPlace(data, len) => Ok(unsafe { bytes_mut(data, len) }),
            Contents::Absent if !view_is_detached(self.scope, view) => Ok(&mut []),
            // Detached, or (V8 aborts first, in practice) still on the heap after moving.
            Contents::Absent | Contents::Copied(_) => Err(self.throw_detached(index)),
        }
    }

    /// `#[buffer(copy)] Vec<u8>`: a copy of a Uint8Array's bytes.
    #[inline(always)]
    pub fn arg_buffer_vec(&mut self, index: i32) -> Result<Vec<u8>, Thrown> {
        let mut storage = BufferStorage::new();
        // SAFETY: the borrow ends with the copy, before anything else runs.
        unsafe { self.arg_buffer(index, &mut storage) }.map(<[u8]>::to_vec)
    }

    /// `#[buffer(copy)] Box<[u8]>`: likewise.
    #[inline(always)]
    pub fn arg_buffer_box(&mut self, index: i32) -> Result<Box<[u8]>, Thrown> {
        self.arg_buffer_vec(index).map(Vec::into_boxed_slice)
    }

    /// `#[arraybuffer] &[u8]`: an ArrayBuffer's bytes, borrowed.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`].
    #[inline(always)]
    pub unsafe fn arg_arraybuffer(&mut self, index: i32) -> Result<&'s [u8], Thrown> {
        let buffer: v8::Local<v8::ArrayBuffer> = self.arg_local(index, "an ArrayBuffer")?;
        match array_buffer_memory(buffer) {
            // SAFETY: the buffer's off-heap memory, unmoved while no JavaScript runs.
            Some((data, len)) => Ok(unsafe { bytes(data, len) }),
            None => Err(self.throw_detached(index)),
        }
    }

    /// `#[arraybuffer] &mut [u8]`: an ArrayBuffer's bytes, borrowed mutably.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer_mut`].
    #[inline(always)]
    pub unsafe fn arg_arraybuffer_mut(&mut self, index: i32) -> Result<&'s mut [u8], Thrown> {
        let buffer: v8::Local<v8::ArrayBuffer> = self.arg_local(index, "an ArrayBuffer")?;
        match array_buffer_memory(buffer) {
            // SAFETY: the buffer's off-heap memory, unmoved while no JavaScript runs, borrowed
            // by no other argument.
            Some((data, len)) => Ok(unsafe { bytes_mut(data, len) }),
            None => Err(self.throw_detached(index)),
        }
    }

    /// `*mut c_void`: an External's pointer, or null for `null`.
    #[inline(always)]
    pub fn arg_external_mut(&mut self, index: i32) -> Result<*mut c_void, Thrown> {
        let value = self.args.get(index);
        if value.is_null() {
            return Ok(std::ptr::null_mut());
        }
        let external: v8::Local<v8::External> = self.arg_local(index, "an External or null")?;
        Ok(external.value())
    }

    /// `*const c_void`: likewise.
    #[inline(always)]
    pub fn arg_external(&mut self, index: i32) -> Result<*const c_void, Thrown> {
        self.arg_external_mut(index)
            .map(|pointer| pointer.cast_const())
    }

    /// Returns `null` (`Option` returns' `None`).
    #[inline(always)]
    pub fn ret_null(&mut self) -> Result<(), Thrown> {
        self.rv.set_null();
        Ok(())
    }

    fn set_bytes(&mut self, store: v8::UniqueRef<v8::BackingStore>) -> Result<(), Thrown> {
        let len = store.byte_length();
        let buffer = v8::ArrayBuffer::with_backing_store(self.scope, &store.make_shared());
        match v8::Uint8Array::new(self.scope, buffer, 0, len) {
            Some(array) => {
                self.rv.set(array.into());
                Ok(())
            }
            None => {
                let message = format!(
                    "{}: the returned bytes are more than a Uint8Array holds",
                    self.op_ctx.decl.name
                );
                throw_error_of_class(self.scope, "RangeError", &message);
                Err(Thrown(()))
            }
        }
    }

    /// Returns a `Vec<u8>` as a Uint8Array over the vector's memory (no copy).
    #[inline(always)]
    pub fn ret_bytes_vec(&mut self, value: Vec<u8>) -> Result<(), Thrown> {
        self.set_bytes(v8::ArrayBuffer::new_backing_store_from_vec(value))
    }

    /// Returns a `Box<[u8]>` as a Uint8Array over its memory (no copy).
    #[inline(always)]
    pub fn ret_bytes_box(&mut self, value: Box<[u8]>) -> Result<(), Thrown> {
        self.set_bytes(v8::ArrayBuffer::new_backing_store_from_boxed_slice(value))
    }

    /// Returns a pointer as an External; null as `null`.
    #[inline(always)]
    pub fn ret_external(&mut self, value: *const c_void) -> Result<(), Thrown> {
        if value.is_null() {
            self.rv.set_null();
        } else {
            let external = v8::External::new(self.scope, value.cast_mut());
            self.rv.set(external.into());
        }
        Ok(())
    }

    /// Returns a `T: ToV8`; an `Err` throws.
    #[inline(always)]
    pub fn ret_to_v8<T: ToV8>(&mut self, value: T) -> Result<(), Thrown> {
        match keep_pending_exception(self.scope, |scope| value.to_v8(scope))? {
            Ok(value) => {
                self.rv.set(value);
                Ok(())
            }
            Err(error) => Err(self.throw_op_error(error)),
        }
    }
}

// ---- fast-path values, buffers, externals, errors -------------------------------------------

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
unsafe fn fast_throw_panic(options: *mut FastApiCallbackOptions<'_>, payload: Box<dyn Any + Send>) {
    // SAFETY: forwarded from the caller.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    v8::callback_scope!(unsafe scope, scope_source);
    throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
}

/// Throws what an op's `Err` says from a fast call.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub unsafe fn fast_throw_op_error(options: *mut FastApiCallbackOptions<'_>, error: OpError) {
    // SAFETY: forwarded from the caller.
    let scope_source = unsafe { &*options };
    v8::callback_scope!(unsafe scope, scope_source);
    // The error's class, message and properties are user code: a panic there must not cross
    // this `extern "C"` call's boundary either.
    // `error` moves into the closure, so that its (user) `Drop` runs inside the guard too.
    let thrown = catch_unwind(AssertUnwindSafe(|| {
        let error = error;
        throw_op_error(scope, &error, None)
    }));
    if let Err(payload) = thrown {
        // SAFETY: forwarded from the caller.
        let decl = unsafe { fast_op_ctx(options) }.decl;
        throw_error_of_class(scope, "Error", &panic_message(decl, &*payload));
    }
}

#[cold]
#[inline(never)]
unsafe fn fast_throw_arg_type_error(
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

#[cold]
#[inline(never)]
unsafe fn fast_throw_detached(options: *mut FastApiCallbackOptions<'_>, index: i32) {
    // SAFETY: forwarded from the caller.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    v8::callback_scope!(unsafe scope, scope_source);
    let name = decl.arg_names.get(index as usize).copied().unwrap_or("?");
    let message = format!(
        "{}: argument {} ({name}) is backed by a detached ArrayBuffer",
        decl.name,
        index + 1
    );
    throw_error_of_class(scope, "TypeError", &message);
}

/// `v8::Local<T>` on the fast path: checked as the slow path checks, throwing the same error.
///
/// # Safety
/// As [`fast_call_guarded`].
#[inline(always)]
pub unsafe fn fast_local<'a, T>(
    value: v8::Local<'a, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    expected: &str,
) -> Option<v8::Local<'a, T>>
where
    v8::Local<'a, T>: TryFrom<v8::Local<'a, v8::Value>>,
{
    match v8::Local::<T>::try_from(value) {
        Ok(local) => Some(local),
        Err(_) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_arg_type_error(options, index, expected, value) };
            None
        }
    }
}

/// For a view whose contents are absent: `true` if it is merely empty, else throws that it is
/// detached. Makes a scope: a rare path.
unsafe fn fast_empty_unless_detached(
    view: v8::Local<'_, v8::ArrayBufferView>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> bool {
    let detached = {
        // SAFETY: forwarded from the caller.
        let scope_source = unsafe { &*options };
        v8::callback_scope!(unsafe scope, scope_source);
        view_is_detached(scope, view)
    };
    if detached {
        // SAFETY: forwarded from the caller.
        unsafe { fast_throw_detached(options, index) };
    }
    !detached
}

/// `#[buffer] &[u8]` on the fast path: in place, or copied into `storage` for a small array
/// on the V8 heap; no allocation either way.
///
/// # Safety
/// As [`fast_call_guarded`]; the result must not outlive the fast call.
#[inline(always)]
pub unsafe fn fast_buffer<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    storage: &'a mut BufferStorage,
) -> Option<&'a [u8]> {
    // SAFETY: forwarded from the caller.
    let array: v8::Local<v8::Uint8Array> =
        unsafe { fast_local(value, options, index, "a Uint8Array")? };
    let view = array.into();
    match view_contents(view, &mut storage.0) {
        // SAFETY: the view's off-heap memory, unmoved during the fast call. Built shared, as on
        // the slow path: two shared arguments may view the same bytes.
        Contents::InPlace(data, len) => Some(unsafe { bytes(data, len) }),
        Contents::Copied(len) => Some(&storage.0[..len]),
        // SAFETY: forwarded from the caller.
        Contents::Absent => {
            unsafe { fast_empty_unless_detached(view, options, index) }.then_some(&[])
        }
    }
}

/// `#[buffer] &mut [u8]` on the fast path: the bytes in place. A small array on the V8 heap
/// is first moved off it (which allocates; the macro gives no fast path to ops that also take
/// strings, whose bytes V8 passes as pointers into its heap).
///
/// # Safety
/// As [`fast_buffer`]; and no other argument may borrow the same memory.
#[inline(always)]
pub unsafe fn fast_buffer_mut<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [u8]> {
    // SAFETY: forwarded from the caller.
    let array: v8::Local<v8::Uint8Array> =
        unsafe { fast_local(value, options, index, "a Uint8Array")? };
    let view = array.into();
    let mut storage = [0; ON_HEAP_STORAGE];
    let contents = match view_contents(view, &mut storage) {
        Contents::Copied(0) => return Some(&mut []),
        Contents::Copied(_) => {
            // SAFETY: forwarded from the caller.
            let scope_source = unsafe { &*options };
            v8::callback_scope!(unsafe scope, scope_source);
            view.buffer(scope);
            view_contents(view, &mut storage)
        }
        contents => contents,
    };
    match contents {
        // SAFETY: the view's off-heap memory, unmoved during the fast call, borrowed by no
        // other argument.
        Contents::InPlace(data, len) => Some(unsafe { bytes_mut(data, len) }),
        // SAFETY: forwarded from the caller.
        Contents::Absent => {
            unsafe { fast_empty_unless_detached(view, options, index) }.then_some(&mut [])
        }
        // Still on the heap after moving (V8 aborts first, in practice): as the slow path.
        Contents::Copied(_) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_detached(options, index) };
            None
        }
    }
}

/// `#[buffer(copy)] Vec<u8>` on the fast path.
///
/// # Safety
/// As [`fast_call_guarded`].
#[inline(always)]
pub unsafe fn fast_buffer_vec(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Vec<u8>> {
    let mut storage = BufferStorage::new();
    // SAFETY: forwarded from the caller; the borrow ends with the copy.
    unsafe { fast_buffer(value, options, index, &mut storage) }.map(<[u8]>::to_vec)
}

/// `#[buffer(copy)] Box<[u8]>` on the fast path.
///
/// # Safety
/// As [`fast_call_guarded`].
#[inline(always)]
pub unsafe fn fast_buffer_box(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Box<[u8]>> {
    // SAFETY: forwarded from the caller.
    unsafe { fast_buffer_vec(value, options, index) }.map(Vec::into_boxed_slice)
}

/// An ArrayBuffer argument's memory on the fast path, or the slow path's `TypeError`.
unsafe fn fast_arraybuffer_memory(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<(*mut u8, usize)> {
    // SAFETY: forwarded from the caller.
    let buffer: v8::Local<v8::ArrayBuffer> =
        unsafe { fast_local(value, options, index, "an ArrayBuffer")? };
    let memory = array_buffer_memory(buffer);
    if memory.is_none() {
        // SAFETY: forwarded from the caller.
        unsafe { fast_throw_detached(options, index) };
    }
    memory
}

/// `#[arraybuffer] &[u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[inline(always)]
pub unsafe fn fast_arraybuffer<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a [u8]> {
    // SAFETY: forwarded from the caller; the buffer's off-heap memory, unmoved during the call.
    unsafe { fast_arraybuffer_memory(value, options, index).map(|(data, len)| bytes(data, len)) }
}

/// `#[arraybuffer] &mut [u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer_mut`].
#[inline(always)]
pub unsafe fn fast_arraybuffer_mut<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [u8]> {
    // SAFETY: forwarded from the caller; the buffer's off-heap memory, unmoved during the call,
    // borrowed by no other argument.
    unsafe {
        fast_arraybuffer_memory(value, options, index).map(|(data, len)| bytes_mut(data, len))
    }
}

/// `Option<number>` on the fast path: `undefined`/`null` is `None`, a Number converts as on
/// the slow path, anything else throws the slow path's `TypeError` (`None` then).
///
/// # Safety
/// As [`fast_call_guarded`].
#[inline(always)]
pub unsafe fn fast_option_number<T: FromJsNumber>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Option<T>> {
    if let Ok(number) = v8::Local::<v8::Number>::try_from(value) {
        return Some(Some(T::from_js_number(number.value())));
    }
    if value.is_null_or_undefined() {
        return Some(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { fast_throw_arg_type_error(options, index, T::EXPECTED, value) };
    None
}
