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
use std::ops::{Deref, DerefMut, Range};

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

/// JavaScript's memory behind a view or an ArrayBuffer, kept alive without a copy:
/// `#[buffer] JsBuffer` (any view), `#[arraybuffer] JsBuffer`, `#[anybuffer] JsBuffer`.
/// Returned, it becomes a Uint8Array over the same memory. Shared memory (a SharedArrayBuffer)
/// and resizable ArrayBuffers are refused with a `TypeError`: other threads could write the
/// first, shrinking could unmap the second.
pub struct JsBuffer {
    bytes: StoreRange,
    /// JavaScript on this thread writes the memory: it stays here.
    _not_send: PhantomData<*const u8>,
}

impl JsBuffer {
    /// The bytes `range` of `store`.
    pub(crate) fn new(store: v8::SharedRef<v8::BackingStore>, range: Range<usize>) -> Self {
        Self {
            bytes: StoreRange::new(store, range),
            _not_send: PhantomData,
        }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn data(&self) -> *mut u8 {
        self.bytes.data()
    }

    /// The bytes, as cells: read and write them; JavaScript sees the writes, and its own
    /// writes show here.
    pub fn as_cells(&self) -> &[Cell<u8>] {
        // SAFETY: the store lives as long as `self` and `range` is within it; `Cell` allows the
        // bytes to change under the borrow, and `JsBuffer` is neither `Send` nor `Sync` (it
        // holds a `SharedRef`, and the store is not shared memory), so only this thread, which
        // also runs the JavaScript, touches them.
        unsafe { std::slice::from_raw_parts(self.data().cast::<Cell<u8>>(), self.len()) }
    }

    /// The bytes as a plain slice, without a copy.
    ///
    /// # Safety
    /// Nothing may write the bytes while the slice is used: no JavaScript may run (no call into
    /// V8 that can run it, no `await` in an async op), and no cell of [`as_cells`] be set.
    ///
    /// [`as_cells`]: JsBuffer::as_cells
    pub unsafe fn as_bytes(&self) -> &[u8] {
        // SAFETY: as `as_cells`; the caller keeps the bytes unwritten.
        unsafe { std::slice::from_raw_parts(self.data(), self.len()) }
    }

    /// A copy of the bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        self.as_cells().iter().map(Cell::get).collect()
    }

    /// The store and range, to return it to JavaScript.
    pub(crate) fn into_parts(self) -> (v8::SharedRef<v8::BackingStore>, Range<usize>) {
        self.bytes.into_parts()
    }
}

impl std::fmt::Debug for JsBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsBuffer")
            .field("len", &self.len())
            .finish()
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
