//! V8 handles, externals, user types (`FromV8`/`ToV8`) and the op state, on both paths.

use std::cell::{Ref, RefCell, RefMut};
use std::ffi::c_void;
use std::rc::Rc;

use crate::ops::OpCtx;
use crate::{FromV8, OpError, OpState, ToV8};

use super::call::*;
use super::kinds::{kind, IntoFast, IntoReturn, IntoValue};
use super::{FastApiCallbackOptions, SlowCall, Thrown};
use crate::errors::throw::{throw_error_of_class, throw_op_error};

/// Why a shared borrow of the op state failed (both paths throw it, after the op's name).
pub(super) const STATE_HELD_EXCLUSIVELY: &str = "OpState is borrowed mutably elsewhere";

/// Why an exclusive borrow of the op state failed.
pub(super) const STATE_HELD: &str = "OpState is already borrowed";

/// `&OpState` on the fast path; if something holds the state exclusively (an op that called
/// into JavaScript, the embedder across a script), throws the slow path's error (`None`).
///
/// # Safety
/// As [`fast_op_ctx`].
#[ops_macro::inline_hot]
pub unsafe fn fast_state<'a>(
    op_ctx: &'a OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<Ref<'a, OpState>> {
    let state = op_ctx.state.try_borrow().ok();
    if state.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_op_ctx`), which is `fast_throw_state_borrowed`'s contract too.
        unsafe { fast_throw_state_borrowed(op_ctx, options, STATE_HELD_EXCLUSIVELY) };
    }
    state
}

/// `&mut OpState` on the fast path; see [`fast_state`].
///
/// # Safety
/// As [`fast_op_ctx`].
#[ops_macro::inline_hot]
pub unsafe fn fast_state_mut<'a>(
    op_ctx: &'a OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<RefMut<'a, OpState>> {
    let state = op_ctx.state.try_borrow_mut().ok();
    if state.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_op_ctx`), which is `fast_throw_state_borrowed`'s contract too.
        unsafe { fast_throw_state_borrowed(op_ctx, options, STATE_HELD) };
    }
    state
}

/// Throws that the op state is borrowed (`what`) from a fast call.
///
/// # Safety
/// As [`fast_op_ctx`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_state_borrowed(
    op_ctx: &OpCtx,
    options: *mut FastApiCallbackOptions<'_>,
    what: &str,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and `fast_scope!` opens
    // its scope from them inside that call.
    let scope_source = unsafe { &*options };
    fast_scope!(scope, scope_source);
    throw_error_of_class(scope, "Error", &format!("{}: {what}", op_ctx.decl.name));
}

impl OpCtx {
    /// The shared op state handle.
    #[ops_macro::inline_hot]
    pub fn state_rc(&self) -> Rc<RefCell<OpState>> {
        self.state.clone()
    }
}

/// `v8::Local<T>` on the fast path: checked as the slow path checks, throwing the same error.
///
/// # Safety
/// As [`fast_call_guarded`].
#[ops_macro::inline_hot]
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
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract, as `fast_call_guarded`), which is all
            // `fast_throw_arg_type_error` requires.
            unsafe { fast_throw_arg_type_error(options, index, expected, value) };
            None
        }
    }
}

/// `Option<v8::Local<T>>` on the fast path: `undefined`/`null` is `None`, else checked as
/// [`fast_local`] checks.
///
/// # Safety
/// As [`fast_call_guarded`].
#[ops_macro::inline_hot]
pub unsafe fn fast_option_local<'a, T>(
    value: v8::Local<'a, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    expected: &str,
) -> Option<Option<v8::Local<'a, T>>>
where
    v8::Local<'a, T>: TryFrom<v8::Local<'a, v8::Value>>,
{
    if value.is_null_or_undefined() {
        return Some(None);
    }
    // SAFETY: this fn's contract is `fast_local`'s (both as `fast_call_guarded`), passed on
    // unchanged.
    unsafe { fast_local(value, options, index, expected) }.map(Some)
}

impl<'a, 's> SlowCall<'a, 's> {
    /// `&OpState`: a shared borrow; throws if an op or the embedder holds it exclusively.
    #[ops_macro::inline_hot]
    pub fn state(&mut self) -> Result<Ref<'s, OpState>, Thrown> {
        let op_ctx = self.op_ctx();
        op_ctx.state.try_borrow().map_err(|_| {
            self.throw_error(&format!("{}: {STATE_HELD_EXCLUSIVELY}", op_ctx.decl.name))
        })
    }

    /// `&mut OpState`: an exclusive borrow; throws if anything else holds it.
    #[ops_macro::inline_hot]
    pub fn state_mut(&mut self) -> Result<RefMut<'s, OpState>, Thrown> {
        let op_ctx = self.op_ctx();
        op_ctx
            .state
            .try_borrow_mut()
            .map_err(|_| self.throw_error(&format!("{}: {STATE_HELD}", op_ctx.decl.name)))
    }

    /// `Rc<RefCell<OpState>>`.
    #[ops_macro::inline_hot]
    pub fn state_rc(&self) -> Rc<RefCell<OpState>> {
        self.op_ctx().state.clone()
    }

    /// `v8::Local<T>`: checked to be a `T`.
    #[ops_macro::inline_hot]
    pub fn arg_local<T>(&mut self, index: i32, expected: &str) -> Result<v8::Local<'s, T>, Thrown>
    where
        v8::Local<'s, T>: TryFrom<v8::Local<'s, v8::Value>>,
    {
        v8::Local::<T>::try_from(self.args.get(index))
            .map_err(|_| self.throw_arg_type_error(index, expected))
    }

    /// `v8::Global<T>`: checked to be a `T`, then kept in a global handle.
    #[ops_macro::inline_hot]
    pub fn arg_global<T>(&mut self, index: i32, expected: &str) -> Result<v8::Global<T>, Thrown>
    where
        v8::Local<'s, T>: TryFrom<v8::Local<'s, v8::Value>>,
    {
        let local = self.arg_local::<T>(index, expected)?;
        Ok(v8::Global::new(self.isolate(), local))
    }

    /// `#[from_v8] T`: through `T`'s `FromV8`; an `Err` throws, prefixed with the op and the
    /// argument.
    #[ops_macro::inline_hot]
    pub fn arg_from_v8<T: FromV8<'s>>(&mut self, index: i32) -> Result<T, Thrown> {
        let value = self.args.get(index);
        // (A `TryCatch` only where JavaScript may run: it is not free, see BENCHMARKS.md.)
        let read = if T::PRIMITIVES_RUN_NO_JS && !value.is_object() {
            T::from_v8(self.scope(), value)
        } else {
            keep_pending_exception(self.scope(), |scope| T::from_v8(scope, value))?
        };
        read.map_err(|error| self.throw_arg_error(index, error))
    }

    /// `#[webidl(default = .., options(..))] T`: `undefined` is `default()` when there is one;
    /// else by WebIDL rules, with the options `set_options` sets.
    #[ops_macro::inline_hot]
    pub fn arg_webidl<T: crate::webidl::WebIdlConverter<'s>>(
        &mut self,
        index: i32,
        default: Option<fn() -> T>,
        set_options: impl FnOnce(&mut T::Options),
    ) -> Result<T, Thrown> {
        let value = self.args.get(index);
        if let Some(default) = default.filter(|_| value.is_undefined()) {
            return Ok(default());
        }
        let mut options = T::Options::default();
        set_options(&mut options);
        keep_pending_exception(self.scope(), |scope| T::convert(scope, value, &options))?
            .map_err(|error| self.throw_arg_error(index, error))
    }

    /// Throws a conversion's error, prefixed with the op and the argument (the op context is
    /// read only here, off the happy path).
    #[cold]
    #[inline(never)]
    fn throw_arg_error(&mut self, index: i32, error: OpError) -> Thrown {
        let prefix = crate::ops::messages::arg_error_prefix(self.op_ctx().decl, index);
        self.with_scope(|scope| throw_op_error(scope, &error, Some(&prefix)));
        Thrown(())
    }

    /// `*mut c_void`: an External's pointer, or null for `null`.
    #[ops_macro::inline_hot]
    pub fn arg_external_mut(&mut self, index: i32) -> Result<*mut c_void, Thrown> {
        let value = self.args.get(index);
        // The External first: the common case then costs one check, not two.
        if let Ok(external) = v8::Local::<v8::External>::try_from(value) {
            return Ok(external.value());
        }
        if value.is_null() {
            return Ok(std::ptr::null_mut());
        }
        Err(self.throw_arg_type_error(index, "an External or null"))
    }

    /// `*const c_void`: likewise.
    #[ops_macro::inline_hot]
    pub fn arg_external(&mut self, index: i32) -> Result<*const c_void, Thrown> {
        self.arg_external_mut(index)
            .map(|pointer| pointer.cast_const())
    }

    /// Returns a `T: ToV8`; an `Err` throws.
    #[ops_macro::inline_hot]
    pub(super) fn ret_to_v8<T: ToV8>(&mut self, value: T) -> Result<(), Thrown> {
        match keep_pending_exception(self.scope(), |scope| value.to_v8(scope))? {
            Ok(value) => {
                self.rv().set(value);
                Ok(())
            }
            Err(error) => Err(self.throw_prefixed(error)),
        }
    }
}

/// An External of the pointer; null is `null`.
impl IntoValue<kind::External> for *const c_void {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(if self.is_null() {
            v8::null(scope).into()
        } else {
            v8::External::new(scope, self.cast_mut()).into()
        })
    }
}

impl IntoValue<kind::External> for *mut c_void {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        IntoValue::<kind::External>::into_value(self.cast_const(), scope)
    }
}

/// An External of the pointer made from the isolate; null is `null`.
impl IntoReturn<kind::External> for *const c_void {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        if self.is_null() {
            call.rv().set_null();
        } else {
            let external = call.in_callback().external(self.cast_mut());
            call.rv().set(external.into());
        }
        Ok(())
    }
}

impl IntoReturn<kind::External> for *mut c_void {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        self.cast_const().set_return(call)
    }
}

// The Fast API returns a pointer as an External (null as `null`? no: V8 makes an External of
// any pointer; the fast path of an External return is the slow path's for non-null pointers,
// and the agreement tests pin null).
impl IntoFast<kind::External, *mut c_void> for *const c_void {
    #[ops_macro::inline_hot]
    fn into_fast(self) -> *mut c_void {
        self.cast_mut()
    }
}

impl IntoFast<kind::External, *mut c_void> for *mut c_void {
    #[ops_macro::inline_hot]
    fn into_fast(self) -> *mut c_void {
        self
    }
}

/// A handle the op made in the call's scope (an op returning one takes the scope).
impl<T> IntoReturn<kind::Handle> for v8::Local<'_, T>
where
    for<'l> v8::Local<'l, T>: Into<v8::Local<'l, v8::Value>>,
{
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.rv().set(self.into());
        Ok(())
    }
}

/// A handle kept across calls: opened in the call's scope.
impl<T> IntoReturn<kind::Handle> for v8::Global<T>
where
    for<'l> v8::Local<'l, T>: Into<v8::Local<'l, v8::Value>>,
{
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        let local = v8::Local::new(call.scope(), &self);
        call.rv().set(local.into());
        Ok(())
    }
}

/// An async op's `v8::Global` result.
impl<T> IntoValue<kind::Handle> for v8::Global<T>
where
    for<'l> v8::Local<'l, T>: Into<v8::Local<'l, v8::Value>>,
{
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Local::new(scope, &self).into())
    }
}

/// An async op's `#[to_v8]` result (settled under a `TryCatch`: JavaScript may run).
impl<T: ToV8> IntoValue<kind::ToV8> for T {
    const MAY_RUN_JS: bool = true;

    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        self.to_v8(scope)
    }
}

impl<T: ToV8> IntoReturn<kind::ToV8> for T {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.ret_to_v8(self)
    }
}

/// A `FromV8` argument on the fast path (registered only for types whose
/// `FromV8::READS_ONE_BYTE` is `true`; `#[serde]` ones through `Serde<T>`): V8 takes it only
/// when the argument is a sequential one-byte string, whose bytes `from_one_byte` reads as
/// `from_v8` reads that string, so both paths give the same value or throw the same error. A
/// string runs no JavaScript and its bytes stay put, which is what makes the fast call sound.
/// A panic in the conversion is thrown as an `Error` naming the op, as on the slow path.
///
/// # Safety
/// `string` and `options` must be what V8 passed to the running call of a fast function
/// registered by `Runtime` (whose options' data is the op's `OpCtx`).
#[ops_macro::inline_hot]
pub unsafe fn fast_from_one_byte<'s, T: FromV8<'s>>(
    string: *const super::FastApiOneByteString,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<T> {
    // SAFETY: V8 passes a valid string whose bytes stay put for the fast call (nothing here
    // allocates on its heap before they are read).
    let latin1 = unsafe { (*string).as_bytes() };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| T::from_one_byte(latin1))) {
        Ok(Ok(value)) => Some(value),
        Ok(Err(error)) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract), which is all `fast_throw_arg_error` requires (as
            // `fast_call_guarded`).
            unsafe { fast_throw_arg_error(options, index, error) };
            None
        }
        Err(payload) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract), which is all `fast_throw_panic` requires (as
            // `fast_call_guarded`); the panic was caught inside that call.
            unsafe { fast_throw_panic(options, payload) };
            None
        }
    }
}
