//! Buffers: the bytes of views and ArrayBuffers, borrowed or copied, on both paths side by
//! side; `Vec<u8>`/`Box<[u8]>` returns as Uint8Arrays over Rust memory.

use std::ops::Range;

use crate::OpError;

use super::kinds::{kind, IntoValue};
use super::{call::*, handles::*};
use super::{FastApiCallbackOptions, SlowCall, Thrown};
use crate::errors::throw::throw_error_of_class;

/// Room for the bytes of an on-heap typed array, which V8 copies out rather than lend
/// (`ArrayBufferView::GetContents`): small arrays only.
pub(super) const ON_HEAP_STORAGE: usize = v8::TYPED_ARRAY_MAX_SIZE_IN_HEAP;

/// Room for the bytes of a small typed array that lives on the V8 heap: V8 copies those out
/// rather than lend them (`ArrayBufferView::GetContents`). A shared `#[buffer] &[u8]` borrow
/// of such an array borrows the copy, so reading it allocates nothing. Aligned for any typed
/// array's elements.
#[repr(C, align(16))]
pub struct BufferStorage(pub(super) [u8; ON_HEAP_STORAGE]);

impl BufferStorage {
    /// Empty storage.
    #[ops_macro::inline_hot]
    pub fn new() -> Self {
        Self([0; ON_HEAP_STORAGE])
    }
}

impl Default for BufferStorage {
    fn default() -> Self {
        Self::new()
    }
}

/// What `#[buffer]` byte arguments accept: the bytes of any view, as deno_core does (a
/// Uint8Array, a Uint8ClampedArray, a DataView, another typed array's raw bytes). Checking for
/// a view is an instance-type range check; checking for a Uint8Array alone costs V8 a switch
/// over elements kinds, about half of a fast `&[u8]` call (BENCHMARKS.md).
pub(super) const BYTES_VIEW: &str = "a Uint8Array or another ArrayBufferView";

/// Where a view's bytes are.
pub(super) enum Contents {
    /// Off the V8 heap, in place.
    InPlace(*mut u8, usize),
    /// On the V8 heap: this many bytes were copied into the storage.
    Copied(usize),
    /// None: the view is detached, or empty over a buffer without memory.
    Absent,
}

#[ops_macro::inline_hot]
pub(super) fn view_contents(
    view: v8::Local<'_, v8::ArrayBufferView>,
    storage: &mut [u8; ON_HEAP_STORAGE],
) -> Contents {
    let storage_start = storage.as_mut_ptr();
    // SAFETY: `storage` is large enough for any on-heap array (V8 checks it).
    let (data, len) = unsafe { view.get_contents_raw_parts(storage) };
    if data.is_null() {
        Contents::Absent
    } else if ON_HEAP_STORAGE != 0 && data == storage_start {
        // (A V8 built without on-heap typed arrays, as rusty_v8's is, never takes this branch,
        // and the constant lets the compiler drop it.)
        Contents::Copied(len)
    } else {
        Contents::InPlace(data, len)
    }
}

/// # Safety
/// `data` must be non-null (dangling when `len` is 0) and point to `len` initialised bytes
/// that stay valid and unaliased for `'a`.
pub(super) unsafe fn bytes_mut<'a>(data: *mut u8, len: usize) -> &'a mut [u8] {
    // SAFETY: the contract gives what `from_raw_parts_mut` needs: a non-null pointer (any is
    // aligned for `u8`) to `len` initialised bytes of one allocation, valid and borrowed by nothing
    // else for `'a`.
    unsafe { std::slice::from_raw_parts_mut(data, len) }
}

/// # Safety
/// `data` must be non-null (dangling when `len` is 0) and point to `len` initialised bytes
/// that stay valid and unwritten for `'a`.
pub(super) unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    // SAFETY: the contract gives what `from_raw_parts` needs: a non-null pointer (any is aligned
    // for `u8`) to `len` initialised bytes of one allocation, valid and unwritten for `'a`.
    unsafe { std::slice::from_raw_parts(data, len) }
}

/// Whether an empty view's buffer is detached (a view of an empty buffer is not).
pub(super) fn view_is_detached(
    scope: &mut v8::PinScope<'_, '_>,
    view: v8::Local<'_, v8::ArrayBufferView>,
) -> bool {
    // A detached view always has its buffer: asking for it allocates nothing.
    view.has_buffer()
        && view
            .buffer(scope)
            .is_some_and(|buffer| buffer.was_detached())
}

/// An ArrayBuffer's memory (`None` if detached; an empty buffer may have no memory: dangling).
///
/// A detached buffer has length 0, so only an empty one is asked whether it is detached: the
/// common case costs two V8 calls, not three.
#[ops_macro::inline_hot]
pub(super) fn array_buffer_memory(
    buffer: v8::Local<'_, v8::ArrayBuffer>,
) -> Option<(*mut u8, usize)> {
    let len = buffer.byte_length();
    let data = (len > 0).then(|| buffer.data()).flatten();
    match data {
        Some(data) => Some((data.as_ptr().cast(), len)),
        None if buffer.was_detached() => None,
        None => Some((std::ptr::NonNull::dangling().as_ptr(), 0)),
    }
}

/// Throws the slow path's detached-buffer `TypeError` for argument `index` from a fast call.
///
/// # Safety
/// As [`fast_call_guarded`].
#[cold]
#[inline(never)]
pub(super) unsafe fn fast_throw_detached(options: *mut FastApiCallbackOptions<'_>, index: i32) {
    // SAFETY: per this fn's contract `options` points to the running fast call's options, of an op
    // `Runtime` registered: live for the call, so it may be borrowed here, and its data is the
    // `OpCtx` that `fast_op_ctx` requires.
    let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
    fast_scope!(scope, scope_source);
    let message = format!(
        "{}: {} is backed by a detached ArrayBuffer",
        decl.name,
        crate::ops::messages::argument(decl, index)
    );
    throw_error_of_class(scope, "TypeError", &message);
}

/// For a view whose contents are absent: `true` if it is merely empty, else throws that it is
/// detached. Makes a scope: a rare path.
///
/// # Safety
/// As [`fast_call_guarded`].
pub(super) unsafe fn fast_empty_unless_detached(
    view: v8::Local<'_, v8::ArrayBufferView>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> bool {
    let detached = {
        // SAFETY: per this fn's contract `options` points to the running fast call's options, of an
        // op `Runtime` registered: live for the call, so it may be borrowed here, and `fast_scope!`
        // opens its scope from them inside that call.
        let scope_source = unsafe { &*options };
        fast_scope!(scope, scope_source);
        view_is_detached(scope, view)
    };
    if detached {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_call_guarded`), which is all `fast_throw_detached` requires.
        unsafe { fast_throw_detached(options, index) };
    }
    !detached
}

/// `#[buffer] &[u8]` on the fast path: in place, or copied into `storage` for a small array
/// on the V8 heap; no allocation either way.
///
/// # Safety
/// As [`fast_call_guarded`]; the result must not outlive the fast call.
#[ops_macro::inline_hot]
pub unsafe fn fast_buffer<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    storage: &'a mut BufferStorage,
) -> Option<&'a [u8]> {
    // SAFETY: this fn's contract includes `fast_call_guarded`'s: `options` is the running fast
    // call's options, of an op `Runtime` registered, all `fast_local` requires.
    let view: v8::Local<v8::ArrayBufferView> =
        unsafe { fast_local(value, options, index, BYTES_VIEW)? };
    match view_contents(view, &mut storage.0) {
        // SAFETY: the view's off-heap memory, unmoved during the fast call. Built shared, as on
        // the slow path: two shared arguments may view the same bytes.
        Contents::InPlace(data, len) => Some(unsafe { bytes(data, len) }),
        Contents::Copied(len) => Some(&storage.0[..len]),
        Contents::Absent => {
            // SAFETY: this fn's contract includes `fast_call_guarded`'s, which is
            // `fast_empty_unless_detached`'s contract.
            unsafe { fast_empty_unless_detached(view, options, index) }.then_some(&[])
        }
    }
}

/// A view's bytes in place on the fast path, as a pointer and a length (no Rust reference is
/// made: raw pointer arguments use this too). A small array on the V8 heap is first moved off
/// it (which allocates; the macro gives no fast path to ops that also take strings, whose bytes
/// V8 passes as pointers into its heap). Empty: a dangling pointer.
///
/// # Safety
/// As [`fast_call_guarded`].
#[ops_macro::inline_hot]
pub(super) unsafe fn fast_view_in_place(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<(*mut u8, usize)> {
    // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
    // fn's contract, as `fast_call_guarded`), which is all `fast_local` requires.
    let view: v8::Local<v8::ArrayBufferView> =
        unsafe { fast_local(value, options, index, BYTES_VIEW)? };
    let mut storage = [0; ON_HEAP_STORAGE];
    let empty = (std::ptr::NonNull::dangling().as_ptr(), 0);
    let contents = match view_contents(view, &mut storage) {
        Contents::Copied(0) => return Some(empty),
        Contents::Copied(_) => {
            // SAFETY: per this fn's contract `options` points to the running fast call's options,
            // of an op `Runtime` registered: live for the call, so it may be borrowed here, and
            // `fast_scope!` opens its scope from them inside that call.
            let scope_source = unsafe { &*options };
            fast_scope!(scope, scope_source);
            view.buffer(scope);
            view_contents(view, &mut storage)
        }
        contents => contents,
    };
    match contents {
        Contents::InPlace(data, len) => Some((data, len)),
        Contents::Absent => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract, as `fast_call_guarded`), which is all
            // `fast_empty_unless_detached` requires.
            unsafe { fast_empty_unless_detached(view, options, index) }.then_some(empty)
        }
        // Still on the heap after moving (V8 aborts first, in practice): as the slow path.
        Contents::Copied(_) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract, as `fast_call_guarded`), which is all `fast_throw_detached`
            // requires.
            unsafe { fast_throw_detached(options, index) };
            None
        }
    }
}

/// `#[buffer] &mut [u8]` on the fast path: the bytes in place (see `fast_view_in_place`).
///
/// # Safety
/// As [`fast_buffer`]; and no other argument may borrow the same memory.
#[ops_macro::inline_hot]
pub unsafe fn fast_buffer_mut<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [u8]> {
    // SAFETY: this fn's contract covers `fast_view_in_place`'s (as `fast_call_guarded`). For
    // `bytes_mut`: the view's off-heap memory (non-null, dangling when empty), which no GC moves
    // and no JavaScript frees or touches during a fast call, which the result does not outlive, and
    // which no other argument borrows (contract).
    unsafe { fast_view_in_place(value, options, index).map(|(data, len)| bytes_mut(data, len)) }
}

/// The owned types a buffer's bytes are copied into (`#[buffer(copy)]`,
/// `#[arraybuffer(copy)]`): one exact allocation each.
pub trait CopiedBytes: Sized {
    /// A copy of `bytes`.
    fn copy_of(bytes: &[u8]) -> Self;
}

impl CopiedBytes for Vec<u8> {
    #[ops_macro::inline_hot]
    fn copy_of(bytes: &[u8]) -> Self {
        bytes.to_vec()
    }
}

impl CopiedBytes for Box<[u8]> {
    #[ops_macro::inline_hot]
    fn copy_of(bytes: &[u8]) -> Self {
        bytes.into()
    }
}

impl CopiedBytes for bytes::Bytes {
    #[ops_macro::inline_hot]
    fn copy_of(bytes: &[u8]) -> Self {
        bytes::Bytes::copy_from_slice(bytes)
    }
}

impl CopiedBytes for bytes::BytesMut {
    #[ops_macro::inline_hot]
    fn copy_of(bytes: &[u8]) -> Self {
        bytes::BytesMut::from(bytes)
    }
}

/// `#[buffer(copy)] T` on the fast path: a copy of a view's bytes.
///
/// # Safety
/// As [`fast_call_guarded`].
#[ops_macro::inline_hot]
pub unsafe fn fast_buffer_copy<T: CopiedBytes>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<T> {
    let mut storage = BufferStorage::new();
    // SAFETY: this fn's contract (as `fast_call_guarded`) is the first half of `fast_buffer`'s; the
    // second (the result must not outlive the fast call) holds: the borrow ends with the copy,
    // inside this call.
    unsafe { fast_buffer(value, options, index, &mut storage) }.map(T::copy_of)
}

/// An ArrayBuffer argument's memory on the fast path, or the slow path's `TypeError`.
///
/// # Safety
/// As [`fast_call_guarded`].
#[ops_macro::inline_hot]
pub(super) unsafe fn fast_arraybuffer_memory(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<(*mut u8, usize)> {
    // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
    // fn's contract, as `fast_call_guarded`), which is all `fast_local` requires.
    let buffer: v8::Local<v8::ArrayBuffer> =
        unsafe { fast_local(value, options, index, "an ArrayBuffer")? };
    let memory = array_buffer_memory(buffer);
    if memory.is_none() {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_call_guarded`), which is all `fast_throw_detached` requires.
        unsafe { fast_throw_detached(options, index) };
    }
    memory
}

/// `#[arraybuffer] &[u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer`].
#[ops_macro::inline_hot]
pub unsafe fn fast_arraybuffer<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a [u8]> {
    // SAFETY: this fn's contract covers `fast_arraybuffer_memory`'s (as `fast_call_guarded`). For
    // `bytes`: the buffer's off-heap memory (non-null, dangling when empty), which no GC moves and
    // no JavaScript frees or writes during a fast call, which the result does not outlive
    // (contract).
    unsafe { fast_arraybuffer_memory(value, options, index).map(|(data, len)| bytes(data, len)) }
}

/// `#[arraybuffer] &mut [u8]` on the fast path.
///
/// # Safety
/// As [`fast_buffer_mut`].
#[ops_macro::inline_hot]
pub unsafe fn fast_arraybuffer_mut<'a>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<&'a mut [u8]> {
    // SAFETY: this fn's contract covers `fast_arraybuffer_memory`'s (as `fast_call_guarded`). For
    // `bytes_mut`: the buffer's off-heap memory (non-null, dangling when empty), which no GC moves
    // and no JavaScript frees or touches during a fast call, which the result does not outlive, and
    // which no other argument borrows (contract).
    unsafe {
        fast_arraybuffer_memory(value, options, index).map(|(data, len)| bytes_mut(data, len))
    }
}

impl<'a, 's> SlowCall<'a, 's> {
    pub(super) fn arg_bytes_view(
        &mut self,
        index: i32,
    ) -> Result<v8::Local<'s, v8::ArrayBufferView>, Thrown> {
        self.arg_local(index, BYTES_VIEW)
    }

    #[cold]
    pub(super) fn throw_detached(&mut self, index: i32) -> Thrown {
        let decl = self.op_ctx().decl;
        self.throw_type_error(&format!(
            "{}: {} is backed by a detached ArrayBuffer",
            decl.name,
            crate::ops::messages::argument(decl, index)
        ))
    }

    /// `#[buffer] &[u8]`: a Uint8Array's bytes (any offset and length), borrowed; those of a
    /// small array on the V8 heap are copied into `storage` (no allocation).
    ///
    /// # Safety
    /// The op must not run JavaScript while it holds the bytes (the macro ensures it: ops that
    /// can run JavaScript cannot borrow buffers).
    #[ops_macro::inline_hot]
    pub unsafe fn arg_buffer<'b>(
        &mut self,
        index: i32,
        storage: &'b mut BufferStorage,
    ) -> Result<&'b [u8], Thrown> {
        let view = self.arg_bytes_view(index)?;
        match view_contents(view, &mut storage.0) {
            // SAFETY: the view's off-heap memory, unmoved while no JavaScript runs.
            Contents::InPlace(data, len) => Ok(unsafe { bytes(data, len) }),
            Contents::Copied(len) => Ok(&storage.0[..len]),
            Contents::Absent if !self.with_scope(|scope| view_is_detached(scope, view)) => Ok(&[]),
            Contents::Absent => Err(self.throw_detached(index)),
        }
    }

    /// A view's bytes in place, as a pointer and a length (no Rust reference is made: raw
    /// pointer arguments use this too). A small array on the V8 heap is first moved off it
    /// (asking for its `ArrayBuffer` does that, allocating once per array), so that writes
    /// reach JavaScript. Empty: a dangling pointer.
    #[ops_macro::inline_hot]
    pub(super) fn view_in_place(&mut self, index: i32) -> Result<(*mut u8, usize), Thrown> {
        let view = self.arg_bytes_view(index)?;
        let mut storage = [0; ON_HEAP_STORAGE];
        let empty = (std::ptr::NonNull::dangling().as_ptr(), 0);
        let contents = match view_contents(view, &mut storage) {
            Contents::Copied(0) => return Ok(empty),
            Contents::Copied(_) => {
                self.with_scope(|scope| view.buffer(scope).map(|_| ()));
                view_contents(view, &mut storage)
            }
            contents => contents,
        };
        match contents {
            Contents::InPlace(data, len) => Ok((data, len)),
            Contents::Absent if !self.with_scope(|scope| view_is_detached(scope, view)) => {
                Ok(empty)
            }
            // Detached, or (V8 aborts first, in practice) still on the heap after moving.
            Contents::Absent | Contents::Copied(_) => Err(self.throw_detached(index)),
        }
    }

    /// `#[buffer] &mut [u8]`: a view's bytes, borrowed mutably (see `view_in_place`).
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`]; and no other argument may borrow the same memory (the
    /// macro ensures it: a `&mut [u8]` is the op's only buffer or handle that could).
    #[ops_macro::inline_hot]
    pub unsafe fn arg_buffer_mut(&mut self, index: i32) -> Result<&'s mut [u8], Thrown> {
        // SAFETY: the view's off-heap memory, unmoved while no JavaScript runs, borrowed by
        // no other argument.
        self.view_in_place(index)
            .map(|(data, len)| unsafe { bytes_mut(data, len) })
    }

    /// `#[buffer(copy)] T`: a copy of a view's bytes.
    #[ops_macro::inline_hot]
    pub fn arg_buffer_copy<T: CopiedBytes>(&mut self, index: i32) -> Result<T, Thrown> {
        let mut storage = BufferStorage::new();
        // SAFETY: the borrow ends with the copy, before anything else runs.
        unsafe { self.arg_buffer(index, &mut storage) }.map(T::copy_of)
    }

    /// `#[arraybuffer] &[u8]`: an ArrayBuffer's bytes, borrowed.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_arraybuffer(&mut self, index: i32) -> Result<&'s [u8], Thrown> {
        let buffer: v8::Local<v8::ArrayBuffer> = self.arg_local(index, "an ArrayBuffer")?;
        match array_buffer_memory(buffer) {
            // SAFETY: the buffer's off-heap memory, unmoved while no JavaScript runs.
            Some((data, len)) => Ok(unsafe { bytes(data, len) }),
            None => Err(self.throw_detached(index)),
        }
    }

    /// `#[arraybuffer] &mut [u8]`: an ArrayBuffer's bytes, borrowed mutably.
    ///
    /// # Safety
    /// As [`SlowCall::arg_buffer_mut`].
    #[ops_macro::inline_hot]
    pub unsafe fn arg_arraybuffer_mut(&mut self, index: i32) -> Result<&'s mut [u8], Thrown> {
        let buffer: v8::Local<v8::ArrayBuffer> = self.arg_local(index, "an ArrayBuffer")?;
        match array_buffer_memory(buffer) {
            // SAFETY: the buffer's off-heap memory, unmoved while no JavaScript runs, borrowed
            // by no other argument.
            Some((data, len)) => Ok(unsafe { bytes_mut(data, len) }),
            None => Err(self.throw_detached(index)),
        }
    }
}

/// An ArrayBuffer over the vector's memory (no copy).
impl IntoValue<kind::ArrayBuffer> for Vec<u8> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let len = self.len();
        let store = v8::ArrayBuffer::new_backing_store_from_vec(self).make_shared();
        Ok(store_buffer_value(scope, store, 0..len))
    }
}

impl IntoValue<kind::ArrayBuffer> for Box<[u8]> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        IntoValue::<kind::ArrayBuffer>::into_value(self.into_vec(), scope)
    }
}

/// `range` of `store` as an ArrayBuffer: the store itself when the range is all of it, else a
/// copy of the range (an ArrayBuffer cannot start inside its memory).
pub(super) fn store_buffer_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    store: v8::SharedRef<v8::BackingStore>,
    range: Range<usize>,
) -> v8::Local<'s, v8::Value> {
    let store = if range == (0..store.byte_length()) {
        store
    } else {
        let copy = match store.data() {
            // SAFETY: `range` is within the store, alive while `store` is; nothing writes it
            // during the copy (no JavaScript runs).
            Some(data) => unsafe {
                std::slice::from_raw_parts(data.as_ptr().cast::<u8>().add(range.start), range.len())
            }
            .to_vec(),
            None => Vec::new(),
        };
        v8::ArrayBuffer::new_backing_store_from_vec(copy).make_shared()
    };
    v8::ArrayBuffer::with_backing_store(scope, &store).into()
}
