//! Values made from the isolate alone, inside a `FunctionCallback`.
//!
//! rusty_v8 makes a handle only through one of its scopes, and pinning a `CallbackScope` is a third
//! of a slow call that does nothing else (BENCHMARKS.md). V8 itself runs every `FunctionCallback`
//! inside a `HandleScope` of its own, so a value made through the isolate during the callback,
//! while no handle scope opened in it is open, is rooted there until the callback returns: long
//! enough to become its return value. These call rusty_v8's own bindings, the ones its scoped
//! constructors call, for the return values an op makes most: BigInts, one-byte strings, externals
//! and the handle of a kept static string. (Text that needs decoding, and buffers, go through
//! rusty_v8 in a scope.)

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::v8_raw::{
    local_from_handle, v8__BigInt__New, v8__BigInt__NewFromUnsigned, v8__External__New,
    v8__FunctionCallbackInfo__GetIsolate, v8__Local__New, v8__String__NewFromOneByte,
};

/// The isolate running the callback `info` was passed to: one V8 call (`get_parts`, which
/// also reads the function's data, costs three times as many instructions).
#[ops_macro::inline_hot]
pub(crate) fn callback_isolate(info: &v8::FunctionCallbackInfo) -> v8::UnsafeRawIsolatePtr {
    // SAFETY: `info` is a live `FunctionCallbackInfo`; V8 only reads it.
    unsafe { v8__FunctionCallbackInfo__GetIsolate(info) }
}

/// A `Local` of a handle V8 made (`None`: an empty one).
///
/// # Safety
/// `handle` must be null or a handle to a `T` that stays rooted for `'s`.
#[ops_macro::inline_hot]
unsafe fn local<'s, T>(handle: *const T) -> Option<v8::Local<'s, T>> {
    // SAFETY: a non-null `handle` is, by this fn's contract, a handle rooted for `'s`, which is
    // what `local_from_handle` requires.
    NonNull::new(handle.cast_mut()).map(|handle| unsafe { local_from_handle(handle) })
}

/// A V8 `FunctionCallback` running for `'s`: what values are made in.
#[derive(Clone, Copy)]
pub(crate) struct InCallback<'s> {
    isolate: v8::UnsafeRawIsolatePtr,
    callback: PhantomData<&'s ()>,
}

impl<'s> InCallback<'s> {
    /// # Safety
    /// A `FunctionCallback` of `isolate` must be running on this thread for all of `'s`, and
    /// no handle scope opened during it may be open while values are made through this (V8
    /// puts a new handle in the innermost scope open, which must be the callback's own).
    #[ops_macro::inline_hot]
    pub(crate) unsafe fn new(isolate: v8::UnsafeRawIsolatePtr) -> Self {
        Self {
            isolate,
            callback: PhantomData,
        }
    }

    /// A BigInt of `value`.
    #[ops_macro::inline_hot]
    pub(crate) fn bigint_from_i64(self, value: i64) -> v8::Local<'s, v8::BigInt> {
        // SAFETY: `new`'s contract: the handle is made in the callback's own handle scope,
        // which stays open for `'s`. (V8's `BigInt::New` aborts rather than return empty.)
        unsafe { local(v8__BigInt__New(self.isolate, value)) }.expect("V8 made a BigInt")
    }

    /// A BigInt of `value`.
    #[ops_macro::inline_hot]
    pub(crate) fn bigint_from_u64(self, value: u64) -> v8::Local<'s, v8::BigInt> {
        // SAFETY: as `bigint_from_i64`.
        unsafe { local(v8__BigInt__NewFromUnsigned(self.isolate, value)) }
            .expect("V8 made a BigInt")
    }

    /// A string of `latin1`'s bytes, one character each; `None` if longer than V8 allows.
    #[ops_macro::inline_hot]
    pub(crate) fn one_byte_string(self, latin1: &[u8]) -> Option<v8::Local<'s, v8::String>> {
        let length = i32::try_from(latin1.len()).ok()?;
        // SAFETY: as `bigint_from_i64`; V8 reads `length` bytes of `latin1`, and returns an
        // empty handle (`None`) beyond `String::MAX_LENGTH`.
        unsafe {
            local(v8__String__NewFromOneByte(
                self.isolate,
                latin1.as_ptr(),
                v8::NewStringType::Normal,
                length,
            ))
        }
    }

    /// An External of `value`.
    #[ops_macro::inline_hot]
    pub(crate) fn external(self, value: *mut c_void) -> v8::Local<'s, v8::External> {
        // SAFETY: as `bigint_from_i64`; V8 keeps the pointer without reading it.
        unsafe { local(v8__External__New(self.isolate, value)) }.expect("V8 made an External")
    }

    /// A handle to the string a global handle of this isolate keeps.
    ///
    /// # Safety
    /// `global` must be the storage cell of a live `v8::Global` of the callback's isolate (the
    /// place `v8::Global::open` returns, which stays put for the `Global`'s life).
    #[ops_macro::inline_hot]
    pub(crate) unsafe fn string_of(self, global: NonNull<v8::String>) -> v8::Local<'s, v8::String> {
        // SAFETY: as `bigint_from_i64`; `global` is a live handle of this isolate (the
        // caller's contract), so the new handle is of the string it keeps.
        let handle = unsafe { v8__Local__New(self.isolate, global.as_ptr().cast()) };
        // SAFETY: as above; a handle made of a live one is never empty.
        unsafe { local(handle.cast::<v8::String>()) }.expect("V8 made a handle")
    }
}
