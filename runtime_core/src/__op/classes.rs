//! Class instances (see `crate::class`): wrapping a Rust value into its JavaScript object on
//! cppgc, unwrapping receivers and `#[cppgc]` arguments (type-checked), making instances for
//! `#[cppgc]` returns, and the constructor trampolines.

use std::any::TypeId;
use std::collections::HashMap;
use std::ffi::CStr;

use super::kinds::{kind, IntoReturn};
use super::{FastApiCallbackOptions, SlowCall, Thrown};
use crate::class::Trace;
use crate::ops::OpCtx;

/// The cppgc tag of every opwire instance: the Rust type is checked through the header.
const TAG: u16 = 1;

/// A Rust value on cppgc behind a header saying what it is. The header is 16-aligned (cppgc's
/// largest alignment) and 32 bytes long, so the value sits at offset 32 for every `T`, and the
/// instance itself at the same offset in cppgc's allocation: an instance of unknown type is
/// read as `Instance<()>` to learn its type before anything else is read.
///
/// The value is dropped by `Instance`'s own `Drop`, which cppgc's finalizer runs from C++: a
/// panic there would cross an `extern "C"` frame and abort the process, so it is caught and
/// reported (see `report_drop_panic`).
#[repr(C)]
pub struct Instance<T> {
    header: Header,
    value: std::mem::ManuallyDrop<T>,
}

impl<T> Drop for Instance<T> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here; nothing reads the value after its instance's `Drop`.
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            std::mem::ManuallyDrop::drop(&mut self.value)
        }));
        if let Err(payload) = dropped {
            report_drop_panic(std::any::type_name::<T>(), &*payload);
        }
    }
}

/// A panic in the `Drop` of a value that V8 owned (a class instance collected, a pending
/// op's future dropped by the event loop): nobody's call to throw into, so it is written to
/// standard error, and the process goes on.
#[cold]
pub(crate) fn report_drop_panic(what: &str, payload: &(dyn std::any::Any + Send)) {
    let message = super::call::panic_text(payload);
    eprintln!("opwire: the Drop of {what} panicked (caught): {message}");
}

#[repr(C, align(16))]
struct Header {
    type_id: TypeId,
    /// `T::BASE`: how the value is seen as one of its base classes.
    base: Option<crate::class::Upcast>,
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == 32);
    assert!(std::mem::offset_of!(Instance<()>, value) == 32);
    assert!(std::mem::offset_of!(Instance<u8>, value) == 32);
    assert!(std::mem::offset_of!(Instance<u128>, value) == 32);
};

// SAFETY: `trace` visits what the value declares through `Trace`; the header holds no
// references.
unsafe impl<T: Trace> v8::cppgc::GarbageCollected for Instance<T> {
    fn trace(&self, visitor: &mut v8::cppgc::Visitor) {
        self.value.trace(visitor);
    }

    fn get_name(&self) -> &'static CStr {
        c"opwire class instance"
    }
}

/// Wraps `value` into `object` (made from its class's template), on the isolate's C++ heap.
pub(crate) fn wrap<T: Trace + 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
    value: T,
) {
    let heap = isolate
        .get_cpp_heap()
        .expect("V8 gives every isolate a C++ heap") as *const _;
    // SAFETY: the heap is the isolate's, alive as long as it; the pointer made is stored into
    // the object at once (the object then keeps the instance alive).
    unsafe {
        let instance = v8::cppgc::make_garbage_collected(
            &*heap,
            Instance {
                header: Header {
                    type_id: TypeId::of::<T>(),
                    base: T::BASE,
                },
                value: std::mem::ManuallyDrop::new(value),
            },
        );
        v8::Object::wrap::<TAG, Instance<T>>(isolate, object, &instance);
    }
}

/// The `T` that `value` wraps, if it is an instance of `T`'s class (or of a JavaScript
/// subclass of it).
///
/// The reference is valid while `value` is reachable: for the call that received it.
#[inline(always)]
pub(crate) fn unwrap<'a, T: 'static>(
    isolate: &mut v8::Isolate,
    value: v8::Local<'_, v8::Value>,
) -> Option<&'a T> {
    let object = v8::Local::<v8::Object>::try_from(value).ok()?;
    if !object.is_api_wrapper() {
        return None;
    }
    unwrap_wrapper(isolate, object)
}

/// As [`unwrap`], for an object known to be an API wrapper: a receiver, which V8 checked
/// against the class's signature (so made from its template) before calling.
#[inline(always)]
pub(crate) fn unwrap_wrapper<'a, T: 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
) -> Option<&'a T> {
    // SAFETY: every opwire instance is an `Instance<_>` under `TAG`; `Instance<()>` has the
    // header at the same offset (see `Instance`), and the pointer is not kept.
    let untyped = unsafe { v8::Object::unwrap::<TAG, Instance<()>>(isolate, object) }?;
    let allocation = v8::cppgc::GetRustObj::<Instance<()>>::get_rust_obj(&untyped).cast::<u8>();
    // SAFETY: `untyped` points to a live instance (the object holds it).
    let instance: &Instance<()> = unsafe { untyped.as_ref() };
    let header = &instance.header;
    // The value's address, derived from the allocation's pointer (not from the 32-byte
    // `&Instance<()>`, whose provenance ends at the header): the same offset for every `T`.
    let offset = (instance as *const Instance<()> as usize) - (allocation as usize)
        + std::mem::offset_of!(Instance<()>, value);
    let value = allocation.wrapping_add(offset).cast::<()>();
    let value = if header.type_id == TypeId::of::<T>() {
        value
    } else {
        // An instance of a class derived from `T`'s?
        // SAFETY: `base` is the upcast `wrap` stored for the instance's own type, and `value`
        // points to a live value of it.
        unsafe { (header.base?)(value, TypeId::of::<T>()) }?
    };
    // SAFETY: the header says the value is a `T` (or its upcast found the `T` inside it); the
    // object keeps it alive while the caller's handle to it lives.
    Some(unsafe { &*value.cast::<T>() })
}

/// Per isolate: each registered class's template, by Rust type (for `#[cppgc]` returns), and
/// the template of plain wrapper objects (for types that are no class).
#[derive(Default)]
pub(crate) struct ClassTemplates(
    pub(crate) HashMap<TypeId, v8::Global<v8::FunctionTemplate>>,
    pub(crate) Option<v8::Global<v8::FunctionTemplate>>,
);

#[cold]
fn plain_template(scope: &mut v8::PinScope<'_, '_>) -> v8::Global<v8::FunctionTemplate> {
    let template = v8::FunctionTemplate::new(scope, illegal_constructor);
    let global = v8::Global::new(scope, template);
    if scope.get_slot::<ClassTemplates>().is_none() {
        scope.set_slot(ClassTemplates::default());
    }
    let templates = scope.get_slot_mut::<ClassTemplates>().expect("set above");
    templates.1 = Some(global.clone());
    global
}

/// Makes a new instance of `T`'s class around `value` (a plain object with the wrapped value,
/// as deno's, for a type that is not a registered class).
fn new_instance<'s, T: Trace + 'static>(
    scope: &mut v8::PinScope<'s, '_>,
    value: T,
) -> Option<v8::Local<'s, v8::Object>> {
    let template = scope
        .get_slot::<ClassTemplates>()
        .and_then(|templates| templates.0.get(&TypeId::of::<T>()).or(templates.1.as_ref()))
        .cloned();
    let template = match template {
        Some(template) => template,
        None => plain_template(scope),
    };
    let template = v8::Local::new(scope, template);
    // An instance made from the instance template: the constructor does not run.
    let object = template.instance_template(scope).new_instance(scope)?;
    wrap(scope, object, value);
    Some(object)
}

impl<'a, 's> SlowCall<'a, 's> {
    /// The receiver (`this`) as a `&T`. V8 checked it against the class's signature; an
    /// instance whose constructor threw before it was wrapped is a `TypeError`.
    #[inline(always)]
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
    #[inline(always)]
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
#[inline(always)]
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
/// `options` must be the `FastApiCallbackOptions` V8 passed to this fast call, and `receiver`
/// its receiver.
#[inline(always)]
pub unsafe fn fast_receiver<'s, T: 'static>(
    receiver: v8::Local<'s, v8::Object>,
    options: *mut FastApiCallbackOptions<'_>,
) -> Option<&'s T> {
    // SAFETY: forwarded from the caller.
    let mut isolate = unsafe { options_isolate(options) };
    let instance = unwrap_wrapper::<T>(&mut isolate, receiver);
    if instance.is_none() {
        // SAFETY: forwarded from the caller.
        unsafe { fast_throw_receiver_error(options) };
    }
    instance
}

/// `#[cppgc] &T` on the fast path; `None` after throwing the slow path's `TypeError`.
///
/// # Safety
/// `options` must be the `FastApiCallbackOptions` V8 passed to this fast call.
#[inline(always)]
pub unsafe fn fast_cppgc<'s, T: 'static>(
    value: v8::Local<'s, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    class: &str,
) -> Option<&'s T> {
    // SAFETY: forwarded from the caller.
    let mut isolate = unsafe { options_isolate(options) };
    let instance = unwrap::<T>(&mut isolate, value);
    if instance.is_none() {
        let expected = format!("an instance of {class}");
        // SAFETY: forwarded from the caller.
        unsafe { super::call::fast_throw_arg_type_error(options, index, &expected, value) };
    }
    instance
}

/// `#[cppgc] Option<&T>` on the fast path: `null`/`undefined` are `Some(None)`; `None` after
/// throwing.
///
/// # Safety
/// As [`fast_cppgc`].
#[inline(always)]
pub unsafe fn fast_option_cppgc<'s, T: 'static>(
    value: v8::Local<'s, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    class: &str,
) -> Option<Option<&'s T>> {
    if value.is_null_or_undefined() {
        return Some(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { fast_cppgc(value, options, index, class) }.map(Some)
}

#[cold]
#[inline(never)]
unsafe fn fast_throw_receiver_error(options: *mut FastApiCallbackOptions<'_>) {
    // SAFETY: forwarded from the caller.
    let (scope_source, decl) = unsafe { (&*options, super::fast_op_ctx(options).decl) };
    v8::callback_scope!(unsafe scope, scope_source);
    super::call::throw_error_of_class(scope, "TypeError", &receiver_error_message(decl));
}

/// `#[cppgc] T` returns: in a constructor called with `new`, `this` wraps the value; anywhere
/// else, a new instance of `T`'s class does.
impl<T: Trace + 'static> IntoReturn<kind::Cppgc> for T {
    #[inline(always)]
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
    #[inline(always)]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, crate::OpError> {
        new_instance(scope, self)
            .map(Into::into)
            .ok_or_else(|| crate::OpError::type_error("making the wrapper object threw"))
    }
}

/// A class's `FunctionCallback` when it has a `#[constructor]`: `new` only, as JavaScript
/// classes are.
///
/// # Safety
/// V8 calls it with the class template's data, the constructor's `OpCtx`.
pub(crate) unsafe extern "C" fn constructor_trampoline(info: *const v8::FunctionCallbackInfo) {
    // SAFETY: V8 keeps `info` alive for the callback.
    let info_ref = unsafe { &*info };
    let args = v8::FunctionCallbackArguments::from_function_callback_info(info_ref);
    // SAFETY: the class's template data is its constructor's `OpCtx` (see `Runtime::new`).
    let op_ctx: &OpCtx = unsafe { super::call::op_ctx_from_data(args.data()) };
    if args.new_target().is_undefined() {
        v8::callback_scope!(unsafe scope, info_ref);
        let class = op_ctx.decl.name.trim_start_matches("new ");
        let message = format!("Class constructor {class} cannot be invoked without 'new'");
        super::call::throw_error_of_class(scope, "TypeError", &message);
        return;
    }
    // As `op_template` picks: the metered variant when the runtime observes the op.
    let slow_fn = if op_ctx.metrics.is_some() || op_ctx.stack_trace.is_some() {
        op_ctx.decl.slow_fn_metered()
    } else {
        op_ctx.decl.slow_fn
    };
    // SAFETY: forwarded: the constructor op's own callback, with its own data.
    unsafe { slow_fn(info) };
}

/// A class's `FunctionCallback` without a `#[constructor]`: `new Foo()` throws (instances come
/// from ops returning `#[cppgc] Foo`).
pub(crate) fn illegal_constructor(
    scope: &mut v8::PinScope<'_, '_>,
    _args: v8::FunctionCallbackArguments<'_>,
    _rv: v8::ReturnValue<'_, v8::Value>,
) {
    super::call::throw_error_of_class(scope, "TypeError", "Illegal constructor");
}

/// An instance kept alive beyond the call that received it (a cppgc persistent handle): what
/// an async method holds its receiver by, and what `#[cppgc] Held<T>` arguments are. Derefs to
/// the value: the `T` itself, or the `T` inside an instance of a class derived from `T`'s.
pub struct Held<T: Trace + 'static> {
    /// Keeps the instance (of `T`'s class or a derived one) alive; typed by its header alone.
    _instance: v8::cppgc::Persistent<Instance<()>>,
    value: std::ptr::NonNull<T>,
}

impl<T: Trace + 'static> std::ops::Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: `value` points into the instance `_instance` keeps alive; cppgc does not
        // move objects of the default space.
        unsafe { self.value.as_ref() }
    }
}

/// A persistent handle to `object`'s instance, if it is a `T` or an instance of a class
/// derived from `T`'s (upcast as a call's `&T` is).
fn hold<T: Trace + 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
) -> Option<Held<T>> {
    let value = std::ptr::NonNull::from(unwrap_wrapper::<T>(isolate, object)?);
    // SAFETY: as in `unwrap_wrapper`: read only as its header; the handle is made at once.
    let instance = unsafe { v8::Object::unwrap::<TAG, Instance<()>>(isolate, object) }?;
    Some(Held {
        _instance: v8::cppgc::Persistent::new(&instance),
        value,
    })
}

impl<'a, 's> SlowCall<'a, 's> {
    /// An async method's receiver, held until the method settles.
    #[inline(always)]
    pub fn receiver_held<T: Trace + 'static>(&mut self) -> Result<Held<T>, Thrown> {
        let this = self.args.this();
        hold::<T>(self.isolate(), this).ok_or_else(|| self.throw_receiver_error())
    }

    /// `#[cppgc] Held<T>` argument `index`.
    #[inline(always)]
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
