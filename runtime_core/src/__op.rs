//! Support for `#[op]`-generated code. Not a public API: names and signatures change with
//! the macro. Every conversion strategy the macro can pick is one function here, so the
//! generated code stays small and the logic is tested once.

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use std::borrow::Cow;

use crate::convert::{to_int32, to_uint32};
use crate::ops::{OpCtx, StaticStrEntry};
use crate::strings::{is_ascii, latin1_to_string, narrow_to_latin1_in, utf16_to_string};
use crate::{ByteString, OpState};

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
    #[inline(always)]
    pub fn arg_str<'b>(
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
        Ok(buffer.copy_utf8(view.data()))
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
    #[inline(always)]
    pub fn arg_cow_str<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, str>, Thrown> {
        self.arg_str(index, buffer).map(Cow::Borrowed)
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
    #[inline(always)]
    pub fn arg_onebyte<'b>(
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
        self.arg_onebyte_copied_from(index, string, buffer)
    }

    /// `#[string(onebyte)] Cow<[u8]>` in an op that takes the scope: copied into `buffer`.
    #[inline(always)]
    pub fn arg_onebyte_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        self.arg_onebyte_copied_from(index, string, buffer)
    }

    fn arg_onebyte_copied_from<'b>(
        &mut self,
        index: i32,
        string: v8::Local<'s, v8::String>,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        buffer.view = None;
        let view = v8::ValueView::new(self.scope, string);
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
