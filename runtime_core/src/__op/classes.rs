//! Class instances as op arguments and returns (see `crate::class`): receivers and
//! `#[cppgc]` arguments unwrapped (type-checked) on both paths, held ones, and new instances
//! for `#[cppgc]` returns.

use super::kinds::{kind, IntoReturn};
use super::{FastApiCallbackOptions, SlowCall, Thrown};
use crate::class::instance::{hold, unwrap, unwrap_wrapper, wrap, Held};
use crate::class::templates::new_instance;
use crate::class::Trace;

impl<'a, 's> SlowCall<'a, 's> {
    /// The receiver (`this`) as a `&T`. V8 checked it against the class's signature; an
    /// instance whose constructor threw before it was wrapped is a `TypeError`.
    #[ops_macro::inline_hot]
    pub fn receiver<T: 'static>(&mut self) -> Result<&'s T, Thrown> {
        let this = self.args.this();
        unwrap_wrapper::<T>(self.isolate(), this).ok_or_else(|| self.throw_receiver_error())
    }

    #[cold]
    #[inline(never)]
    fn throw_receiver_error(&mut self) -> Thrown {
        let message = receiver_error_message(self.op_ctx().decl);
        self.throw_type_error(&message)
    }

    /// `#[cppgc] &T` argument `index`.
    #[ops_macro::inline_hot]
    pub fn arg_cppgc<T: 'static>(&mut self, index: i32, class: &str) -> Result<&'s T, Thrown> {
        let value = self.args.get(index);
        match unwrap::<T>(self.isolate(), value) {
            Some(instance) => Ok(instance),
            None => Err(self.throw_arg_type_error(index, &format!("an instance of {class}"))),
        }
    }
}

/// The isolate of a fast call.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to the running fast call.
#[ops_macro::inline_hot]
unsafe fn options_isolate(options: *mut FastApiCallbackOptions<'_>) -> v8::Isolate {
    // SAFETY: V8 passes the options of this call, with its isolate, which is running it.
    unsafe {
        v8::Isolate::from_raw_isolate_ptr_unchecked(
            (*options).isolate_unchecked().as_raw_isolate_ptr(),
        )
    }
}

/// What both paths say of a receiver that is no initialized instance.
fn receiver_error_message(decl: &crate::OpDecl) -> String {
    format!(
        "{}: the receiver (this) is not an initialized instance",
        decl.name
    )
}

/// The receiver on the fast path; `None` after throwing.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to this fast call, of a fast
/// function registered by `Runtime` (whose data is the op's `OpCtx`), and `receiver` its
/// receiver.
#[ops_macro::inline_hot]
pub unsafe fn fast_receiver<'s, T: 'static>(
    receiver: v8::Local<'s, v8::Object>,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<&'s T> {
    // SAFETY: `options` is V8's options for the running fast call (this fn's contract), all
    // `options_isolate` requires.
    let mut isolate = unsafe { options_isolate(options) };
    let instance = unwrap_wrapper::<T>(&mut isolate, receiver);
    if instance.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract), which is `fast_throw_receiver_error`'s contract (as `fast_call_guarded`).
        unsafe { fast_throw_receiver_error(options) };
    }
    instance
}

/// `#[cppgc] &T` on the fast path; `None` after throwing the slow path's `TypeError`.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to this fast call, of a fast
/// function registered by `Runtime` (whose data is the op's `OpCtx`).
#[ops_macro::inline_hot]
pub unsafe fn fast_cppgc<'s, T: 'static>(
    value: v8::Local<'s, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    class: &str,
) -> Option<&'s T> {
    // SAFETY: `options` is V8's options for the running fast call (this fn's contract), all
    // `options_isolate` requires.
    let mut isolate = unsafe { options_isolate(options) };
    let instance = unwrap::<T>(&mut isolate, value);
    if instance.is_none() {
        let expected = format!("an instance of {class}");
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract), which is all `fast_throw_arg_type_error` requires (as
        // `fast_call_guarded`).
        unsafe { super::call::fast_throw_arg_type_error(options, index, &expected, value) };
    }
    instance
}

/// `#[cppgc] Option<&T>` on the fast path: `null`/`undefined` are `Some(None)`; `None` after
/// throwing.
///
/// # Safety
/// As [`fast_cppgc`].
#[ops_macro::inline_hot]
pub unsafe fn fast_option_cppgc<'s, T: 'static>(
    value: v8::Local<'s, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    class: &str,
) -> Option<Option<&'s T>> {
    if value.is_null_or_undefined() {
        return Some(None);
    }
    // SAFETY: this fn's contract is `fast_cppgc`'s, passed on unchanged.
    unsafe { fast_cppgc(value, options, index, class) }.map(Some)
}

/// Throws the slow path's receiver `TypeError` from a fast call.
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[cold]
#[inline(never)]
unsafe fn fast_throw_receiver_error(options: *mut FastApiCallbackOptions<'_>) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `super::fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, super::fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    crate::errors::throw::throw_error_of_class(scope, "TypeError", &receiver_error_message(decl));
}

/// `#[cppgc] T` returns: in a constructor called with `new`, `this` wraps the value; anywhere
/// else, a new instance of `T`'s class does.
impl<T: Trace + 'static> IntoReturn<kind::Cppgc> for T {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        let info = call.info;
        if !call.args.new_target().is_undefined() {
            let this = call.args.this();
            wrap(call.isolate(), this, self);
            return Ok(());
        }
        let made = call.with_scope(|scope| {
            new_instance(scope, self).map(|object| v8::Global::new(scope, object))
        });
        match made {
            Some(object) => {
                call.with_scope(|scope| {
                    let object = v8::Local::new(scope, object);
                    v8::ReturnValue::from_function_callback_info(info).set(object.into());
                });
                Ok(())
            }
            None => Err(call.throw_type_error("making the wrapper object threw")),
        }
    }
}

/// An async op's `#[cppgc] T` result: a new instance of `T`'s class wrapping it.
impl<T: Trace + 'static> super::kinds::IntoValue<kind::Cppgc> for T {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, crate::OpError> {
        new_instance(scope, self)
            .map(Into::into)
            .ok_or_else(|| crate::OpError::type_error("making the wrapper object threw"))
    }
}

impl<'a, 's> SlowCall<'a, 's> {
    /// An async method's receiver, held until the method settles.
    #[ops_macro::inline_hot]
    pub fn receiver_held<T: Trace + 'static>(&mut self) -> Result<Held<T>, Thrown> {
        let this = self.args.this();
        hold::<T>(self.isolate(), this).ok_or_else(|| self.throw_receiver_error())
    }

    /// `#[cppgc] Held<T>` argument `index`.
    #[ops_macro::inline_hot]
    pub fn arg_held<T: Trace + 'static>(
        &mut self,
        index: i32,
        class: &str,
    ) -> Result<Held<T>, Thrown> {
        let value = self.args.get(index);
        let held = v8::Local::<v8::Object>::try_from(value)
            .ok()
            .filter(|object| object.is_api_wrapper())
            .and_then(|object| hold::<T>(self.isolate(), object));
        match held {
            Some(held) => Ok(held),
            None => Err(self.throw_arg_type_error(index, &format!("an instance of {class}"))),
        }
    }
}
