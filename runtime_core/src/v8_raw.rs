//! rusty_v8's private surface, in one room: the bindings of its archive that the `v8` crate
//! keeps private (each declared as rusty_v8 152.2.0 declares it, the file named beside it, an
//! isolate pointer as its `repr(transparent)` wrapper `UnsafeRawIsolatePtr`, so every
//! declaration of a symbol in the program agrees), and the two layouts of its types
//! this crate relies on, asserted at compile time and tested on a live isolate. A `v8` upgrade
//! reviews this file: nothing else in the crate names a private symbol or transmutes a `v8`
//! type.
//!
//! What uses them and why: values made inside a `FunctionCallback` without pinning a scope
//! (`values/callback_values.rs`), a string's view built in place (`values/string_view.rs`),
//! simdutf writing into uninitialised memory (`values/simdutf_raw.rs`), the isolate left
//! entered between calls (`isolate/entry.rs`), and the context of a panicking options-free
//! fast call (`__op/call.rs`), and a regular expression's flags read without running a
//! script's `flags` getter (`inspect/forms.rs`).

use std::mem::{align_of, size_of, transmute_copy};
use std::ptr::NonNull;

/// simdutf's `result` (rusty_v8's `src/simdutf.rs` declares the same): an error code (0:
/// none) and the bytes written, or the input position of the error.
#[repr(C)]
pub(crate) struct ConvertResult {
    pub(crate) error: i32,
    pub(crate) count: usize,
}

unsafe extern "C" {
    // `src/function.rs`, behind the crate-private `FunctionCallbackInfo::get_isolate_ptr`.
    pub(crate) fn v8__FunctionCallbackInfo__GetIsolate(
        info: *const v8::FunctionCallbackInfo,
    ) -> v8::UnsafeRawIsolatePtr;
    // `src/bigint.rs`.
    pub(crate) fn v8__BigInt__New(
        isolate: v8::UnsafeRawIsolatePtr,
        value: i64,
    ) -> *const v8::BigInt;
    pub(crate) fn v8__BigInt__NewFromUnsigned(
        isolate: v8::UnsafeRawIsolatePtr,
        value: u64,
    ) -> *const v8::BigInt;
    // `src/string.rs`: null beyond `String::MAX_LENGTH` (V8's `NEW_STRING`).
    pub(crate) fn v8__String__NewFromOneByte(
        isolate: v8::UnsafeRawIsolatePtr,
        data: *const u8,
        new_type: v8::NewStringType,
        length: i32,
    ) -> *const v8::String;
    // `src/string.rs`, what `v8::ValueView::new` calls: constructs a `String::ValueView` at
    // `buf`.
    pub(crate) fn v8__String__ValueView__CONSTRUCT(
        buf: *mut v8::ValueView<'_>,
        isolate: v8::UnsafeRawIsolatePtr,
        string: *const v8::String,
    );
    // `src/handle.rs` (for any `Data`): a new handle to what `other` points at.
    pub(crate) fn v8__Local__New(
        isolate: v8::UnsafeRawIsolatePtr,
        other: *const v8::Data,
    ) -> *const v8::Data;
    // `src/external.rs`.
    pub(crate) fn v8__External__New(
        isolate: v8::UnsafeRawIsolatePtr,
        value: *mut std::ffi::c_void,
    ) -> *const v8::External;
    // `src/isolate.rs`, `src/locker.rs` and `src/scope/raw.rs`.
    pub(crate) fn v8__Isolate__GetCurrent() -> *mut v8::RealIsolate;
    pub(crate) fn v8__Isolate__TryGetCurrent() -> *mut v8::RealIsolate;
    pub(crate) fn v8__Isolate__Exit(isolate: *mut v8::RealIsolate);
    pub(crate) fn v8__Isolate__GetCurrentContext(
        isolate: *mut v8::RealIsolate,
    ) -> *const v8::Context;
    // `src/simdutf.rs`: what `v8::simdutf::convert_latin1_to_utf8` and
    // `convert_utf16le_to_utf8_with_errors` call.
    // V8's own API, which rusty_v8 does not bind: `v8::RegExp::GetFlags() const`
    // (`include/v8-regexp.h`), under its Itanium name; the receiver is `this`, the `Flags`
    // enum an `int` (the bits of `v8::RegExpCreationFlags`).
    #[cfg(not(target_env = "msvc"))]
    #[link_name = "_ZNK2v86RegExp8GetFlagsEv"]
    fn v8__RegExp__GetFlags(this: *const v8::RegExp) -> i32;
    pub(crate) fn simdutf__convert_latin1_to_utf8(
        input: *const u8,
        length: usize,
        output: *mut u8,
    ) -> usize;
    pub(crate) fn simdutf__convert_utf16le_to_utf8_with_errors(
        input: *const u16,
        length: usize,
        output: *mut u8,
    ) -> ConvertResult;
}

// The layouts relied on: a `Local` is a `#[repr(C)]` non-null pointer to its handle and a
// marker; an `UnsafeRawIsolatePtr` is a `#[repr(transparent)]` pointer to the isolate.
const _: () = {
    assert!(size_of::<v8::Local<'static, v8::Data>>() == size_of::<NonNull<v8::Data>>());
    assert!(align_of::<v8::Local<'static, v8::Data>>() == align_of::<NonNull<v8::Data>>());
    assert!(size_of::<Option<v8::Local<'static, v8::Data>>>() == size_of::<*const v8::Data>());
    assert!(size_of::<v8::UnsafeRawIsolatePtr>() == size_of::<*mut v8::RealIsolate>());
    assert!(align_of::<v8::UnsafeRawIsolatePtr>() == align_of::<*mut v8::RealIsolate>());
};

/// The `Local` of a handle V8 made (rusty_v8 has no public constructor from a pointer).
///
/// # Safety
/// `handle` must point at a handle to a `T` that stays rooted for `'s` (in a handle scope
/// open for `'s`, or V8's own scope of the running callback).
#[ops_macro::inline_hot]
pub(crate) unsafe fn local_from_handle<'s, T>(handle: NonNull<T>) -> v8::Local<'s, T> {
    // SAFETY: a `Local` is exactly a non-null handle pointer (asserted above for `Data`; the
    // type parameter changes nothing of the layout); the caller vouches for what it points at.
    unsafe { transmute_copy(&handle) }
}

/// The isolate an `UnsafeRawIsolatePtr` points at, as V8's C API takes it.
#[ops_macro::inline_hot]
pub(crate) fn real_isolate(isolate: v8::UnsafeRawIsolatePtr) -> *mut v8::RealIsolate {
    // SAFETY: the same pointer, in the type the bindings take (sizes asserted above); making
    // the raw pointer dereferences nothing.
    unsafe { std::mem::transmute::<v8::UnsafeRawIsolatePtr, *mut v8::RealIsolate>(isolate) }
}

/// A regular expression's flags, read from V8's object (no `flags` getter runs); `None`
/// where the archive's C++ names are not Itanium's.
pub(crate) fn regexp_flags(regexp: &v8::RegExp) -> Option<v8::RegExpCreationFlags> {
    #[cfg(not(target_env = "msvc"))]
    {
        // SAFETY: `regexp` is a live handle's object; `GetFlags` only reads it.
        let bits = unsafe { v8__RegExp__GetFlags(regexp) };
        Some(v8::RegExpCreationFlags::from_bits_truncate(bits))
    }
    #[cfg(target_env = "msvc")]
    {
        let _ = regexp;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts hold on a live isolate: what rusty_v8's own `Local` holds is the handle
    /// pointer, the bindings make handles that read back as rusty_v8's, and an isolate's raw
    /// pointer is the one V8 reports as current.
    #[test]
    fn rusty_v8s_layouts_are_as_declared() {
        crate::init_v8();
        let mut isolate = v8::Isolate::new(Default::default());
        // SAFETY: the pointer is only compared and passed to V8 while the isolate lives.
        let raw = real_isolate(unsafe { isolate.as_raw_isolate_ptr() });
        v8::scope!(let scope, &mut isolate);
        // SAFETY: reads V8's thread-local current isolate.
        assert_eq!(unsafe { v8__Isolate__TryGetCurrent() }, raw);
        let context = v8::Context::new(scope, Default::default());
        let scope = &mut v8::ContextScope::new(scope, context);
        // SAFETY: the scope's isolate has entered `context`, and a handle scope is open.
        let current = unsafe { v8__Isolate__GetCurrentContext(raw) };
        let current = NonNull::new(current.cast_mut()).expect("a context is entered");
        // SAFETY: a new handle, made just now in the open handle scope.
        let current: v8::Local<'_, v8::Context> = unsafe { local_from_handle(current) };
        assert!(
            current == context,
            "the same context, through another handle"
        );

        let number = v8::Number::new(scope, 42.5);
        let pointer = NonNull::from(&*number);
        // SAFETY: `number`'s handle, rooted in `scope` for this test.
        let again: v8::Local<'_, v8::Number> = unsafe { local_from_handle(pointer) };
        assert_eq!(again.value(), 42.5);
        assert!(again == number);

        // SAFETY: the isolate is live and in a handle scope, as the binding needs.
        let big = unsafe { v8__BigInt__New(scope.as_raw_isolate_ptr(), -7) };
        let big = NonNull::new(big.cast_mut()).expect("V8 made a BigInt");
        // SAFETY: made just now in the open handle scope.
        let big: v8::Local<'_, v8::BigInt> = unsafe { local_from_handle(big) };
        assert_eq!(big.i64_value(), (-7, true));

        let source = v8::String::new(scope, "a").unwrap();
        let flags = v8::RegExpCreationFlags::GLOBAL
            | v8::RegExpCreationFlags::HAS_INDICES
            | v8::RegExpCreationFlags::STICKY;
        let regexp = v8::RegExp::new(scope, source, flags).unwrap();
        assert_eq!(regexp_flags(&regexp), Some(flags));
    }
}
