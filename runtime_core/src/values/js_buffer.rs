//! Buffers an op keeps beyond its call without copying: [`JsBuffer`] shares JavaScript's
//! memory (which JavaScript may still write), [`DetachedBuffer`] takes it (JavaScript's buffer
//! is detached: the op owns the bytes).
//!
//! deno_core's `JsBuffer` derefs to `&[u8]` while JavaScript can still write the bytes (between
//! an async op's polls, from inside a callback, or from another thread once sent): a Rust
//! reference to memory that changes under it, which Rust does not allow (the compiler may keep
//! stale reads). Here the shared kind lends its bytes as `&[Cell<u8>]` (memory that may change,
//! on one thread: exactly what it is) and stays on the isolate's thread; `as_bytes` gives
//! `&[u8]` to callers who promise, `unsafe`, that no JavaScript runs meanwhile. Only the
//! detached kind, which nothing else reaches, derefs to `[u8]` and is `Send`.

use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::ops::{Deref, DerefMut, Range};

use crate::values::element::Element;

/// Bytes `range` of a backing store, kept alive.
struct StoreRange {
    store: v8::SharedRef<v8::BackingStore>,
    range: Range<usize>,
}

impl StoreRange {
    fn new(store: v8::SharedRef<v8::BackingStore>, range: Range<usize>) -> Self {
        debug_assert!(range.end <= store.byte_length());
        Self { store, range }
    }

    fn len(&self) -> usize {
        self.range.len()
    }

    /// The first byte (dangling for a store without memory, which is empty).
    fn data(&self) -> *mut u8 {
        match self.store.data() {
            // SAFETY: `range` is within the store.
            Some(data) => unsafe { data.as_ptr().cast::<u8>().add(self.range.start) },
            None => std::ptr::NonNull::dangling().as_ptr(),
        }
    }

    fn into_parts(self) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
        (self.store, self.range)
    }
}

/// JavaScript's memory behind a typed array (`#[buffer] V8Slice<u32>`, ...), kept alive
/// without a copy, its elements read and written as cells. `V8Slice<u8>` is [`JsBuffer`].
/// Memory not aligned for `T` (only Rust-made memory can be) is a `TypeError`, as for borrows.
/// Returned, it becomes a typed array of `T` over the same memory.
pub struct V8Slice<T: Element> {
    bytes: StoreRange,
    /// JavaScript on this thread writes the memory: it stays here.
    _not_send: PhantomData<*const T>,
}

/// JavaScript's memory behind a view or an ArrayBuffer, kept alive without a copy:
/// `#[buffer] JsBuffer` (any view), `#[arraybuffer] JsBuffer`, `#[anybuffer] JsBuffer`.
/// Returned, it becomes a Uint8Array over the same memory (`#[arraybuffer]`: an ArrayBuffer).
/// Shared memory (a SharedArrayBuffer) and resizable ArrayBuffers are refused with a
/// `TypeError`: other threads could write the first, shrinking could unmap the second.
pub type JsBuffer = V8Slice<u8>;

impl<T: Element> V8Slice<T> {
    /// The bytes `range` of `store`, aligned for `T` and a whole number of elements (the
    /// caller checked).
    pub(crate) fn new(store: v8::SharedRef<v8::BackingStore>, range: Range<usize>) -> Self {
        let slice = Self {
            bytes: StoreRange::new(store, range),
            _not_send: PhantomData,
        };
        debug_assert!(slice.bytes.len().is_multiple_of(size_of::<T>()));
        debug_assert!(slice.is_empty() || (slice.data() as usize).is_multiple_of(align_of::<T>()));
        slice
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / size_of::<T>()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first element (dangling, and aligned, when there are none).
    fn data(&self) -> *mut T {
        if self.bytes.len() == 0 {
            std::ptr::NonNull::dangling().as_ptr()
        } else {
            self.bytes.data().cast()
        }
    }

    /// The elements, as cells: read and write them; JavaScript sees the writes, and its own
    /// writes show here.
    pub fn as_cells(&self) -> &[Cell<T>] {
        // SAFETY: the store lives as long as `self`, the range is within it and aligned for
        // `T` (checked when made); every bit pattern is a `T`; `Cell` allows the memory to
        // change under the borrow, and a `V8Slice` is neither `Send` nor `Sync` (and never
        // shared memory), so only this thread, which also runs the JavaScript, touches it.
        unsafe { std::slice::from_raw_parts(self.data().cast::<Cell<T>>(), self.len()) }
    }

    /// The elements as a plain slice, without a copy.
    ///
    /// # Safety
    /// Nothing may write the memory while the slice is used: no JavaScript may run (no call into
    /// V8 that can run it, no `await` in an async op), and no cell of [`as_cells`] be set.
    ///
    /// [`as_cells`]: V8Slice::as_cells
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: as `as_cells`; the caller keeps the memory unwritten.
        unsafe { std::slice::from_raw_parts(self.data(), self.len()) }
    }

    /// A copy of the elements.
    pub fn to_vec(&self) -> Vec<T> {
        self.as_cells().iter().map(Cell::get).collect()
    }

    /// The store and byte range, to return it to JavaScript.
    pub(crate) fn into_parts(self) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
        self.bytes.into_parts()
    }
}

impl JsBuffer {
    /// The bytes as a plain slice, without a copy ([`V8Slice::as_slice`]).
    ///
    /// # Safety
    /// As [`V8Slice::as_slice`].
    pub unsafe fn as_bytes(&self) -> &[u8] {
        // SAFETY: `as_slice` needs the memory unwritten while the slice is used; this fn's
        // contract is that same requirement, on the caller, for the same (returned) slice.
        unsafe { self.as_slice() }
    }
}

impl<T: Element> std::fmt::Debug for V8Slice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("V8Slice").field("len", &self.len()).finish()
    }
}

/// Memory taken from JavaScript: `#[buffer(detach)] DetachedBuffer` detaches the argument's
/// ArrayBuffer (every view of it becomes empty) and owns its bytes, without a copy; an
/// ArrayBuffer that cannot be detached (WebAssembly memory, a SharedArrayBuffer) is a
/// `TypeError`. Derefs to the view's bytes; may go to another thread. Returned, it becomes a
/// Uint8Array over the same memory.
pub struct DetachedBuffer {
    bytes: StoreRange,
}

// SAFETY: the ArrayBuffer was detached, so no JavaScript value reaches the store: this is its
// only owner (`SharedRef` is an atomically counted `std::shared_ptr`, and a backing store may
// be freed on any thread: V8's allocators are thread-safe).
unsafe impl Send for DetachedBuffer {}
// SAFETY: as above; `&DetachedBuffer` gives only `&[u8]`.
unsafe impl Sync for DetachedBuffer {}

impl DetachedBuffer {
    pub(crate) fn new(store: v8::SharedRef<v8::BackingStore>, range: Range<usize>) -> Self {
        Self {
            bytes: StoreRange::new(store, range),
        }
    }

    pub(crate) fn into_parts(self) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
        self.bytes.into_parts()
    }
}

impl Deref for DetachedBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: memory only this value reaches, `len()` bytes of it.
        unsafe { std::slice::from_raw_parts(self.bytes.data(), self.bytes.len()) }
    }
}

/// For `bytes::Bytes::from_owner`: a detached buffer becomes a `Bytes` (a hyper body, say)
/// without a copy.
impl AsRef<[u8]> for DetachedBuffer {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl DerefMut for DetachedBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `deref`, borrowed exclusively through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.bytes.data(), self.bytes.len()) }
    }
}

impl std::fmt::Debug for DetachedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetachedBuffer")
            .field("len", &self.len())
            .finish()
    }
}

/// The store of a `bytes::Bytes`: its memory when it is the only handle to it, else a copy.
pub(crate) fn bytes_store(bytes: bytes::Bytes) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
    let unique = bytes
        .try_into_mut()
        .unwrap_or_else(|shared| bytes::BytesMut::from(&shared[..]));
    bytes_mut_store(unique)
}

/// The store of a `bytes::BytesMut`: its memory.
pub(crate) fn bytes_mut_store(
    bytes: bytes::BytesMut,
) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
    let len = bytes.len();
    let store = v8::ArrayBuffer::new_backing_store_from_bytes(Box::new(bytes)).make_shared();
    (store, 0..len)
}
