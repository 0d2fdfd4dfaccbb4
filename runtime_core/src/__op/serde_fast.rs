//! `#[serde] T` on the fast path (the slow path reads it as a `FromV8` value: `Serde<T>`).

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::call::{fast_throw_arg_error, fast_throw_panic};
use super::{FastApiCallbackOptions, FastApiOneByteString};

/// `#[serde] T` on the fast path, which V8 takes only when the argument is a sequential
/// one-byte string (any other value takes the slow path): its bytes are read as the slow
/// path reads a string, so both give the same value or throw the same error. A string runs no
/// JavaScript and the bytes stay put, which is what makes this fast call sound. A panic in
/// `T`'s `Deserialize` is thrown as an `Error` naming the op, as on the slow path.
///
/// # Safety
/// `string` and `options` must be what V8 passed to the running fast call.
#[inline(always)]
pub unsafe fn fast_serde<T: ::serde::de::DeserializeOwned>(
    string: *const FastApiOneByteString,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<T> {
    // SAFETY: V8 passes a valid string whose bytes stay put for the fast call (nothing here
    // allocates on its heap before they are read).
    let latin1 = unsafe { (*string).as_bytes() };
    let read = catch_unwind(AssertUnwindSafe(|| {
        crate::serde::from_one_byte::<T>(latin1)
    }));
    match read {
        Ok(Ok(value)) => Some(value),
        Ok(Err(error)) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_arg_error(options, index, error) };
            None
        }
        Err(payload) => {
            // SAFETY: forwarded from the caller.
            unsafe { fast_throw_panic(options, payload) };
            None
        }
    }
}
