//! Typed arrays of every element type: `#[buffer] &[T]` / `&mut [T]` borrowed, `#[buffer(copy)]
//! Vec<T>` / `Box<[T]>` copied, `Vec<T>` / `Box<[T]>` returned without a copy. One generic path
//! through the [`Element`] trait, built on the byte path of `buffers` (`u8` itself keeps that
//! path, which accepts any view). A borrow needs the memory aligned for `T`: JavaScript's own
//! arrays always are, but a buffer made from Rust bytes may not be; a misaligned one throws a
//! `TypeError` (never undefined behaviour) and `#[buffer(copy)]` takes it anyway.

use std::mem::{align_of, size_of};

use super::buffers::{fast_buffer, fast_buffer_mut};
use super::call::{fast_op_ctx, fast_throw_arg_type_error};
use crate::errors::throw::throw_error_of_class;
use crate::values::element::Element;
use crate::OpError;

use super::kinds::{kind, IntoValue};
use super::{BufferStorage, FastApiCallbackOptions, SlowCall, Thrown};
/// The bytes as elements, if they are aligned for `T` (an empty slice always is).
fn cast<T: Element>(bytes: &[u8]) -> Option<&[T]> {
    if bytes.is_empty() {
        return Some(&[]);
    }
    let aligned = (bytes.as_ptr() as usize).is_multiple_of(align_of::<T>());
    (aligned && bytes.len().is_multiple_of(size_of::<T>())).then(|| {
        // SAFETY: aligned, a whole number of elements, and every bit pattern is a `T`.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len() / size_of::<T>()) }
    })
}

/// Likewise, mutably.
fn cast_mut<T: Element>(bytes: &mut [u8]) -> Option<&mut [T]> {
    if bytes.is_empty() {
        return Some(&mut []);
    }
    let aligned = (bytes.as_ptr() as usize).is_multiple_of(align_of::<T>());
    (aligned && bytes.len().is_multiple_of(size_of::<T>())).then(|| {
        // SAFETY: as `cast`, and the borrow is the bytes' only one.
        unsafe {
            std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len() / size_of::<T>())
        }
    })
}

/// A copy of the bytes as elements, whatever their alignment.
fn copy<T: Element>(bytes: &[u8]) -> Vec<T> {
    let mut values = vec![T::default(); bytes.len() / size_of::<T>()];
    let len = values.len() * size_of::<T>();
    // SAFETY: `values` has room for `len` bytes, every bit pattern is a `T`, and the two do
    // not overlap (one is new).
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), values.as_mut_ptr().cast(), len) };
    values
}

pub(super) fn misaligned_message(decl: &crate::OpDecl, index: i32, expected: &str) -> String {
    format!(
        "{}: {} must be {expected} aligned for its element type; this one's \
         memory is not (a buffer made from Rust bytes): copy it with #[buffer(copy)]",
        decl.name,
        crate::ops::messages::argument(decl, index)
    )
}

/// Throws the slow path's misaligned-memory `TypeError` for argument `index` from a fast call.
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_misaligned(
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    expected: &str,
) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    throw_error_of_class(
        scope,
        "TypeError",
        &misaligned_message(decl, index, expected),
    );
}

/// Throws unless `value` is an array of `T` (`false` then).
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[ops_macro::inline_hot]
pub(super) unsafe fn fast_check_array<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> bool {
    let is_array = T::is_array(&value);
    if !is_array {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_call_guarded`), which is all `fast_throw_arg_type_error`
        // requires.
        unsafe { fast_throw_arg_type_error(options, index, T::EXPECTED, value) };
    }
    is_array
}

/// `#[buffer] &[T]` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed<'a, T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    storage: &'a mut BufferStorage,
) -> Option<&'a [T]> {
    // SAFETY: this fn's contract is `fast_buffer`'s, passed on unchanged (the result borrows what
    // `fast_buffer` returned, for the same `'a`); it includes `fast_call_guarded`'s, all
    // `fast_check_array` requires.
    let bytes = unsafe {
        if !fast_check_array::<T>(value, options, index) {
            return None;
        }
        fast_buffer(value, options, index, storage)?
    };
    let values = cast(bytes);
    if values.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_buffer`), which is all `fast_throw_misaligned` requires (as
        // `fast_call_guarded`).
        unsafe { fast_throw_misaligned(options, index, T::EXPECTED) };
    }
    values
}

/// `#[buffer] &mut [T]` on the fast path.
///
/// # Safety
/// As [`fast_buffer_mut`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_mut<'a, T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [T]> {
    // SAFETY: this fn's contract is `fast_buffer_mut`'s, passed on unchanged (the result reborrows
    // what `fast_buffer_mut` returned, for the same `'a`); it includes `fast_call_guarded`'s, all
    // `fast_check_array` requires.
    let bytes = unsafe {
        if !fast_check_array::<T>(value, options, index) {
            return None;
        }
        fast_buffer_mut(value, options, index)?
    };
    let values = cast_mut(bytes);
    if values.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_buffer_mut`), which is all `fast_throw_misaligned` requires (as
        // `fast_call_guarded`).
        unsafe { fast_throw_misaligned(options, index, T::EXPECTED) };
    }
    values
}

/// `#[buffer(copy)] Vec<T>` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_vec<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Vec<T>> {
    let mut storage = BufferStorage::new();
    // SAFETY: this fn's contract is `fast_buffer`'s, which includes `fast_call_guarded`'s (all
    // `fast_check_array` requires); the borrow `fast_buffer` returns ends with the copy, inside
    // this call.
    unsafe {
        if !fast_check_array::<T>(value, options, index) {
            return None;
        }
        fast_buffer(value, options, index, &mut storage).map(copy)
    }
}

/// `#[buffer(copy)] Box<[T]>` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_box<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<Box<[T]>> {
    // SAFETY: this fn's contract is `fast_typed_vec`'s (both as `fast_buffer`), passed on
    // unchanged.
    unsafe { fast_typed_vec(value, options, index) }.map(Vec::into_boxed_slice)
}

impl<'a, 's> SlowCall<'a, 's> {
    pub(super) fn check_array<T: Element>(&mut self, index: i32) -> Result<(), Thrown> {
        if T::is_array(&self.args.get(index)) {
            Ok(())
        } else {
            Err(self.throw_arg_type_error(index, T::EXPECTED))
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn throw_misaligned(&mut self, index: i32, expected: &str) -> Thrown {
        let decl = self.op_ctx().decl;
        let message = misaligned_message(decl, index, expected);
        self.throw_type_error(&message)
    }

    /// `#[buffer] &[T]`: the elements of a typed array of `T`, borrowed.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_typed<'b, T: Element>(
        &mut self,
        index: i32,
        storage: &'b mut BufferStorage,
    ) -> Result<&'b [T], Thrown> {
        self.check_array::<T>(index)?;
        // SAFETY: this fn's contract is `arg_buffer`'s (no JavaScript runs while the bytes are
        // held); the elements returned borrow the same bytes, so that holds for them too.
        let bytes = unsafe { self.arg_buffer(index, storage)? };
        cast(bytes).ok_or_else(|| self.throw_misaligned(index, T::EXPECTED))
    }

    /// `#[buffer] &mut [T]`: likewise, mutably.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer_mut`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_typed_mut<T: Element>(&mut self, index: i32) -> Result<&'s mut [T], Thrown> {
        self.check_array::<T>(index)?;
        // SAFETY: this fn's contract is `arg_buffer_mut`'s (no JavaScript while the bytes are held,
        // no other argument borrowing them); the elements returned reborrow the same bytes.
        let bytes = unsafe { self.arg_buffer_mut(index)? };
        match cast_mut(bytes) {
            Some(values) => Ok(values),
            None => Err(self.throw_misaligned(index, T::EXPECTED)),
        }
    }

    /// `#[buffer(copy)] Vec<T>`: a copy of a typed array's elements.
    #[ops_macro::inline_hot]
    pub fn arg_typed_vec<T: Element>(&mut self, index: i32) -> Result<Vec<T>, Thrown> {
        self.check_array::<T>(index)?;
        let mut storage = BufferStorage::new();
        // SAFETY: the borrow ends with the copy, before anything else runs.
        unsafe { self.arg_buffer(index, &mut storage) }.map(copy)
    }

    /// `#[buffer(copy)] Box<[T]>`: likewise.
    #[ops_macro::inline_hot]
    pub fn arg_typed_box<T: Element>(&mut self, index: i32) -> Result<Box<[T]>, Thrown> {
        self.arg_typed_vec(index).map(Vec::into_boxed_slice)
    }
}

/// A typed array of `T` over `store`'s memory.
fn typed_value<'s, T: Element>(
    scope: &mut v8::PinScope<'s, '_>,
    store: v8::UniqueRef<v8::BackingStore>,
) -> Result<v8::Local<'s, v8::Value>, OpError> {
    let len = store.byte_length();
    typed_range_value::<T>(scope, store.make_shared(), 0..len)
}

/// A typed array of `T` over bytes `range` of `store`.
pub(super) fn typed_range_value<'s, T: Element>(
    scope: &mut v8::PinScope<'s, '_>,
    store: v8::SharedRef<v8::BackingStore>,
    range: std::ops::Range<usize>,
) -> Result<v8::Local<'s, v8::Value>, OpError> {
    let buffer = v8::ArrayBuffer::with_backing_store(scope, &store);
    T::new_array(scope, buffer, range.start, range.len() / size_of::<T>()).ok_or_else(|| {
        let array = &T::EXPECTED[T::EXPECTED.find(' ').map_or(0, |i| i + 1)..];
        OpError::range_error(format!("the returned elements are more than {array} holds"))
    })
}

// Not a copy: JavaScript gets the vector's memory.
impl<T: Element> IntoValue<kind::Buffer> for Vec<T> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        typed_value::<T>(scope, T::store_from_vec(self))
    }
}

impl<T: Element> IntoValue<kind::Buffer> for Box<[T]> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        typed_value::<T>(scope, T::store_from_vec(self.into_vec()))
    }
}

/// The typed array's elements in place as a pointer (null when empty): the array type
/// checked, the memory aligned for `T` (else a `TypeError`, as for `&[T]`). No reference is
/// made.
fn typed_pointer<T: Element>((data, len): (*mut u8, usize)) -> Option<*mut T> {
    if len == 0 {
        return Some(std::ptr::null_mut());
    }
    let data = data.cast::<T>();
    data.is_aligned().then_some(data)
}

/// `#[buffer] *mut T` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_ptr<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*mut T> {
    // SAFETY: this fn's contract (as `fast_buffer`) includes `fast_call_guarded`'s, all
    // `fast_check_array` and `fast_view_in_place` require; no reference to the memory is made.
    let memory = unsafe {
        if !fast_check_array::<T>(value, options, index) {
            return None;
        }
        super::buffers::fast_view_in_place(value, options, index)?
    };
    let pointer = typed_pointer::<T>(memory);
    if pointer.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_buffer`), which is all `fast_throw_misaligned` requires (as
        // `fast_call_guarded`).
        unsafe { fast_throw_misaligned(options, index, T::EXPECTED) };
    }
    pointer
}

/// `#[buffer] *const T` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_ptr_const<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<*const T> {
    // SAFETY: this fn's contract is `fast_typed_ptr`'s (both as `fast_buffer`), passed on
    // unchanged.
    unsafe { fast_typed_ptr::<T>(value, options, index) }.map(<*mut T>::cast_const)
}

impl SlowCall<'_, '_> {
    /// `#[buffer] *mut T`: a pointer to a typed array's elements (null when empty).
    #[ops_macro::inline_hot]
    pub fn arg_typed_ptr<T: Element>(&mut self, index: i32) -> Result<*mut T, Thrown> {
        self.check_array::<T>(index)?;
        let memory = self.view_in_place(index)?;
        typed_pointer::<T>(memory).ok_or_else(|| self.throw_misaligned(index, T::EXPECTED))
    }

    /// `#[buffer] *const T`: likewise.
    #[ops_macro::inline_hot]
    pub fn arg_typed_ptr_const<T: Element>(&mut self, index: i32) -> Result<*const T, Thrown> {
        self.arg_typed_ptr::<T>(index).map(<*mut T>::cast_const)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_need_alignment_copies_do_not() {
        let words = [0x0102_0304u32, 0x0506_0708];
        // SAFETY: the array's bytes, read as bytes.
        let bytes: &[u8] = unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), 8) };
        assert_eq!(cast::<u32>(bytes), Some(&words[..]));
        assert_eq!(cast::<u32>(&bytes[1..5]), None, "misaligned");
        assert_eq!(cast::<u32>(&bytes[..6]), None, "not whole elements");
        assert_eq!(cast::<u32>(&bytes[1..1]), Some(&[][..]), "empty is aligned");
        assert_eq!(copy::<u32>(&bytes[4..]), vec![0x0506_0708]);
        let shifted: Vec<u8> = std::iter::once(0).chain(bytes.iter().copied()).collect();
        assert_eq!(
            copy::<u32>(&shifted[1..]),
            words.to_vec(),
            "a copy takes any alignment"
        );
    }
}
