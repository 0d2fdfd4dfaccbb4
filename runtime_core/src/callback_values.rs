//! Values made from the isolate alone, inside a `FunctionCallback`.
//!
//! rusty_v8 makes a handle only through one of its scopes, and pinning a `CallbackScope` is a
//! third of a slow call that does nothing else (bench-ops: `op_v8_scope` 9.4 ns against
//! `op_void_nofast` 6.2). V8 itself runs every `FunctionCallback` inside a `HandleScope` of its
//! own, so a value made through the isolate during the callback is rooted there until the
//! callback returns: long enough to become its return value. These call rusty_v8's own
//! bindings, the ones its scoped constructors call, for the return values an op makes most:
//! BigInts, one-byte strings, externals and the handle of a kept static string. (Text that
//! needs decoding and buffers go through rusty_v8 in a scope.)

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

unsafe extern "C" {
    // rusty_v8's binding behind its crate-private `FunctionCallbackInfo::get_isolate_ptr`.
    fn v8__FunctionCallbackInfo__GetIsolate(
        info: *const v8::FunctionCallbackInfo,
    ) -> v8::UnsafeRawIsolatePtr;
    // rusty_v8's bindings (its `src/bigint.rs` declares them, returning `*const BigInt`; V8's
    // `BigInt::New` and `NewFromUnsigned` never return an empty handle: they abort when out of
    // memory). A `Local` is a non-null pointer to the handle, `#[repr(C)]`.
    fn v8__BigInt__New<'s>(
        isolate: v8::UnsafeRawIsolatePtr,
        value: i64,
    ) -> v8::Local<'s, v8::BigInt>;
    fn v8__BigInt__NewFromUnsigned<'s>(
        isolate: v8::UnsafeRawIsolatePtr,
        value: u64,
    ) -> v8::Local<'s, v8::BigInt>;
    // Declared by rusty_v8's `src/string.rs` returning `*const String`, empty only for a
    // length beyond `String::MAX_LENGTH` (V8's `NEW_STRING`), which the caller excludes.
    fn v8__String__NewFromOneByte<'s>(
        isolate: v8::UnsafeRawIsolatePtr,
        data: *const u8,
        new_type: v8::NewStringType,
        length: i32,
    ) -> v8::Local<'s, v8::String>;
    // Declared by rusty_v8's `src/handle.rs` (for any `Data`) returning `*const Data`: a new
    // handle to what `other` points at; never empty for a live handle.
    fn v8__Local__New<'s>(
        isolate: v8::UnsafeRawIsolatePtr,
        other: *const v8::String,
    ) -> v8::Local<'s, v8::String>;
    // Declared by rusty_v8's `src/external.rs` returning `*const External`; never empty.
    fn v8__External__New<'s>(
        isolate: v8::UnsafeRawIsolatePtr,
        value: *mut c_void,
    ) -> v8::Local<'s, v8::External>;
}

/// The isolate running the callback `info` was passed to: one V8 call (`get_parts`, which
/// also reads the function's data, costs three times as many instructions).
#[inline(always)]
pub(crate) fn callback_isolate(info: &v8::FunctionCallbackInfo) -> v8::UnsafeRawIsolatePtr {
    // SAFETY: `info` is a live `FunctionCallbackInfo`; V8 only reads it.
    unsafe { v8__FunctionCallbackInfo__GetIsolate(info) }
}

/// A V8 `FunctionCallback` running for `'s`: what values are made in.
#[derive(Clone, Copy)]
pub(crate) struct InCallback<'s> {
    isolate: v8::UnsafeRawIsolatePtr,
    callback: PhantomData<&'s ()>,
}

impl<'s> InCallback<'s> {
    /// # Safety
    /// A `FunctionCallback` of `isolate` must be running on this thread for all of `'s`.
    #[inline(always)]
    pub(crate) unsafe fn new(isolate: v8::UnsafeRawIsolatePtr) -> Self {
        Self {
            isolate,
            callback: PhantomData,
        }
    }

    /// A BigInt of `value`.
    #[inline(always)]
    pub(crate) fn bigint_from_i64(self, value: i64) -> v8::Local<'s, v8::BigInt> {
        // SAFETY: the isolate's callback runs for `'s` (`new`'s contract), so V8's handle scope
        // for it is open, and the handle stays there for as long as the `Local` may be used.
        unsafe { v8__BigInt__New(self.isolate, value) }
    }

    /// A BigInt of `value`.
    #[inline(always)]
    pub(crate) fn bigint_from_u64(self, value: u64) -> v8::Local<'s, v8::BigInt> {
        // SAFETY: as `bigint_from_i64`.
        unsafe { v8__BigInt__NewFromUnsigned(self.isolate, value) }
    }

    /// A string of `latin1`'s bytes, one character each; `None` if longer than V8 allows.
    #[inline(always)]
    pub(crate) fn one_byte_string(self, latin1: &[u8]) -> Option<v8::Local<'s, v8::String>> {
        if latin1.len() > v8::String::MAX_LENGTH {
            return None;
        }
        // SAFETY: as `bigint_from_i64`; V8 reads `latin1.len()` bytes of `latin1` (a length
        // within `MAX_LENGTH`, below `i32::MAX`, for which V8 makes the string).
        Some(unsafe {
            v8__String__NewFromOneByte(
                self.isolate,
                latin1.as_ptr(),
                v8::NewStringType::Normal,
                latin1.len() as i32,
            )
        })
    }

    /// An External of `value`.
    #[inline(always)]
    pub(crate) fn external(self, value: *mut c_void) -> v8::Local<'s, v8::External> {
        // SAFETY: as `bigint_from_i64`; V8 keeps the pointer without reading it.
        unsafe { v8__External__New(self.isolate, value) }
    }

    /// A handle to the string a global handle of this isolate keeps.
    ///
    /// # Safety
    /// `global` must point at a live `v8::Global` of the callback's isolate (the place
    /// `v8::Global::open` returns, which stays put for the `Global`'s life).
    #[inline(always)]
    pub(crate) unsafe fn string_of(self, global: NonNull<v8::String>) -> v8::Local<'s, v8::String> {
        // SAFETY: as `bigint_from_i64`; `global` is a live handle of this isolate (the
        // caller's contract).
        unsafe { v8__Local__New(self.isolate, global.as_ptr()) }
    }
}
