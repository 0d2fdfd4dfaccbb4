//! The bytes of a WebIDL `BufferSource` an op was handed as a handle: ops that also make V8
//! values (a string from the bytes) cannot borrow them through the op layer, which refuses a
//! borrow that JavaScript could detach; these ops run no JavaScript while they read.

use runtime_core::v8;

/// The bytes of `value` (an ArrayBuffer, a SharedArrayBuffer or a view of either); empty for
/// anything else and for a detached buffer.
///
/// # Safety
///
/// No JavaScript may run while the slice is alive (it could detach or resize the buffer);
/// allocating on the V8 heap is fine (backing stores do not move).
pub(crate) unsafe fn bytes_of<'a>(value: v8::Local<'a, v8::Value>) -> &'a [u8] {
    let (data, length) = if let Ok(view) = v8::Local::<v8::ArrayBufferView>::try_from(value) {
        (view.data().cast::<u8>(), view.byte_length())
    } else if let Ok(buffer) = v8::Local::<v8::ArrayBuffer>::try_from(value) {
        (
            buffer
                .data()
                .map_or(std::ptr::null_mut(), |data| data.as_ptr().cast()),
            buffer.byte_length(),
        )
    } else if let Ok(buffer) = v8::Local::<v8::SharedArrayBuffer>::try_from(value) {
        (
            buffer
                .get_backing_store()
                .data()
                .map_or(std::ptr::null_mut(), |data| data.as_ptr().cast()),
            buffer.byte_length(),
        )
    } else {
        (std::ptr::null_mut(), 0)
    };
    if data.is_null() || length == 0 {
        return &[];
    }
    // SAFETY: V8 gives the view's or buffer's live memory, `length` bytes from `data`; the
    // caller runs no JavaScript that could detach it while the slice is alive.
    unsafe { std::slice::from_raw_parts(data, length) }
}

/// The bytes of `view`, to write.
///
/// # Safety
///
/// As [`bytes_of`]; and no other slice of the same memory may be alive.
pub(crate) unsafe fn bytes_of_mut<'a>(view: v8::Local<'a, v8::ArrayBufferView>) -> &'a mut [u8] {
    let data = view.data().cast::<u8>();
    let length = view.byte_length();
    if data.is_null() || length == 0 {
        return &mut [];
    }
    // SAFETY: as in `bytes_of`, and the caller holds no other slice of this memory.
    unsafe { std::slice::from_raw_parts_mut(data, length) }
}
