//! The other ways to read a buffer argument: `#[anybuffer]` (an ArrayBuffer or any view),
//! `#[arraybuffer(copy)]`, and raw pointers to a view's bytes (deno's `#[buffer] *const u8`),
//! each built on the view and ArrayBuffer paths of `buffers`, on both paths.

use super::buffers::{
    fast_arraybuffer, fast_arraybuffer_mut, fast_buffer, fast_buffer_mut, fast_view_in_place,
};
use super::call::fast_throw_arg_type_error;
use super::{BufferSource, BufferStorage, CopiedBytes, FastApiCallbackOptions, SlowCall, Thrown};

/// Whether `value` is an ArrayBuffer (`Some(true)`), a view (`Some(false)`), or neither.
#[ops_macro::inline_hot]
fn any_buffer_kind(value: v8::Local<'_, v8::Value>) -> Option<bool> {
    if value.is_array_buffer() {
        Some(true)
    } else if value.is_array_buffer_view() {
        Some(false)
    } else {
        None
    }
}

/// A raw pointer to the bytes: null when there are none (as deno: V8 passes empty arrays so).
fn pointer_to((data, len): (*mut u8, usize)) -> *mut u8 {
    if len == 0 {
        std::ptr::null_mut()
    } else {
        data
    }
}

/// `#[anybuffer] &[u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_anybuffer<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    storage: &'a mut BufferStorage,
) -> Option<&'a [u8]> {
    // SAFETY: this fn's contract is `fast_buffer`'s, which is `fast_arraybuffer`'s too, and
    // includes `fast_call_guarded`'s, all `fast_throw_arg_type_error` requires.
    unsafe {
        match any_buffer_kind(value) {
            Some(true) => fast_arraybuffer(value, options, index),
            Some(false) => fast_buffer(value, options, index, storage),
            None => {
                fast_throw_arg_type_error(options, index, BufferSource::Any.expected(), value);
                None
            }
        }
    }
}

/// `#[anybuffer] &mut [u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer_mut`].
#[ops_macro::inline_hot]
pub unsafe fn fast_anybuffer_mut<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [u8]> {
    // SAFETY: this fn's contract is `fast_buffer_mut`'s, which is `fast_arraybuffer_mut`'s too, and
    // includes `fast_call_guarded`'s, all `fast_throw_arg_type_error` requires.
    unsafe {
        match any_buffer_kind(value) {
            Some(true) => fast_arraybuffer_mut(value, options, index),
            Some(false) => fast_buffer_mut(value, options, index),
            None => {
                fast_throw_arg_type_error(options, index, BufferSource::Any.expected(), value);
                None
            }
        }
    }
}

/// `#[arraybuffer(copy)] T` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_arraybuffer_copy<T: CopiedBytes>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<T> {
    // SAFETY: this fn's contract is `fast_arraybuffer`'s (both as `fast_buffer`); the borrow it
    // returns ends with the copy, inside this call.
    unsafe { fast_arraybuffer(value, options, index) }.map(T::copy_of)
}

/// `#[buffer] *mut u8` on the fast path: the view's bytes in place (a small array on the V8
/// heap moved off it first, as for `&mut [u8]`); null when empty. No reference is made.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_buffer_ptr(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*mut u8> {
    // SAFETY: this fn's contract (as `fast_buffer`) includes `fast_call_guarded`'s, all
    // `fast_view_in_place` requires; no reference to the bytes is made.
    unsafe { fast_view_in_place(value, options, index) }.map(pointer_to)
}

/// `#[buffer] *const u8` on the fast path.
///
/// # Safety
/// As [`fast_buffer_mut`].
#[ops_macro::inline_hot]
pub unsafe fn fast_buffer_ptr_const(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*const u8> {
    // SAFETY: this fn's contract (as `fast_buffer_mut`) includes `fast_buffer`'s, which is
    // `fast_buffer_ptr`'s.
    unsafe { fast_buffer_ptr(value, options, index) }.map(<*mut u8>::cast_const)
}

/// `#[arraybuffer] *mut u8` on the fast path: the ArrayBuffer's bytes (null when empty).
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_arraybuffer_ptr(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*mut u8> {
    // SAFETY: this fn's contract (as `fast_buffer`) includes `fast_call_guarded`'s, all
    // `fast_arraybuffer_memory` requires; no reference to the bytes is made.
    unsafe { super::buffers::fast_arraybuffer_memory(value, options, index) }.map(pointer_to)
}

/// `#[arraybuffer] *const u8` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_arraybuffer_ptr_const(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*const u8> {
    // SAFETY: this fn's contract is `fast_arraybuffer_ptr`'s (both as `fast_buffer`), passed on
    // unchanged.
    unsafe { fast_arraybuffer_ptr(value, options, index) }.map(<*mut u8>::cast_const)
}

impl<'a, 's> SlowCall<'a, 's> {
    /// `#[arraybuffer] *mut u8`: a pointer to an ArrayBuffer's bytes (null when empty).
    #[ops_macro::inline_hot]
    pub fn arg_arraybuffer_ptr(&mut self, index: i32) -> Result<*mut u8, Thrown> {
        let buffer: v8::Local<v8::ArrayBuffer> = self.arg_local(index, "an ArrayBuffer")?;
        match super::buffers::array_buffer_memory(buffer) {
            Some(memory) => Ok(pointer_to(memory)),
            None => Err(self.throw_detached(index)),
        }
    }

    /// `#[arraybuffer] *const u8`: likewise.
    #[ops_macro::inline_hot]
    pub fn arg_arraybuffer_ptr_const(&mut self, index: i32) -> Result<*const u8, Thrown> {
        self.arg_arraybuffer_ptr(index).map(<*mut u8>::cast_const)
    }

    /// `#[anybuffer] &[u8]`: the bytes of an ArrayBuffer or of any view, borrowed.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_anybuffer<'b>(
        &mut self,
        index: i32,
        storage: &'b mut BufferStorage,
    ) -> Result<&'b [u8], Thrown>
    where
        's: 'b,
    {
        // SAFETY: this fn's contract is `arg_buffer`'s, which is `arg_arraybuffer`'s too (no
        // JavaScript runs while the bytes are held); the result is either one's.
        unsafe {
            match any_buffer_kind(self.args.get(index)) {
                Some(true) => self.arg_arraybuffer(index),
                Some(false) => self.arg_buffer(index, storage),
                None => Err(self.throw_arg_type_error(index, BufferSource::Any.expected())),
            }
        }
    }

    /// `#[anybuffer] &mut [u8]`: likewise, mutably.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer_mut`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_anybuffer_mut(&mut self, index: i32) -> Result<&'s mut [u8], Thrown> {
        // SAFETY: this fn's contract is `arg_buffer_mut`'s, which is `arg_arraybuffer_mut`'s too
        // (no JavaScript while the bytes are held, no other argument borrowing them).
        unsafe {
            match any_buffer_kind(self.args.get(index)) {
                Some(true) => self.arg_arraybuffer_mut(index),
                Some(false) => self.arg_buffer_mut(index),
                None => Err(self.throw_arg_type_error(index, BufferSource::Any.expected())),
            }
        }
    }

    /// `#[arraybuffer(copy)] T`: a copy of an ArrayBuffer's bytes.
    #[ops_macro::inline_hot]
    pub fn arg_arraybuffer_copy<T: CopiedBytes>(&mut self, index: i32) -> Result<T, Thrown> {
        // SAFETY: the borrow ends with the copy, before anything else runs.
        unsafe { self.arg_arraybuffer(index) }.map(T::copy_of)
    }

    /// `#[buffer] *mut u8`: a pointer to a view's bytes (null when empty); no reference is
    /// made, so it may point where another argument borrows.
    #[ops_macro::inline_hot]
    pub fn arg_buffer_ptr(&mut self, index: i32) -> Result<*mut u8, Thrown> {
        self.view_in_place(index).map(pointer_to)
    }

    /// `#[buffer] *const u8`: likewise.
    #[ops_macro::inline_hot]
    pub fn arg_buffer_ptr_const(&mut self, index: i32) -> Result<*const u8, Thrown> {
        self.arg_buffer_ptr(index).map(<*mut u8>::cast_const)
    }
}
