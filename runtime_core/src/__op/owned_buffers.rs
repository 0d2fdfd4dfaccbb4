//! `JsBuffer` (JavaScript's memory, shared and kept alive) and `DetachedBuffer` (taken from
//! JavaScript) arguments and returns, from a view, an ArrayBuffer, or either.

use std::ops::Range;

use crate::{DetachedBuffer, JsBuffer, OpError, V8Slice};

use super::buffers::{store_buffer_value, view_is_detached};
use super::call::{fast_op_ctx, fast_throw_arg_type_error};
use super::kinds::{kind, IntoValue};
use super::typed_arrays::{fast_check_array, fast_throw_misaligned, typed_range_value};
use super::{FastApiCallbackOptions, SlowCall, Thrown};
use crate::errors::throw::throw_error_of_class;
use crate::values::element::Element;
use crate::values::js_buffer::{bytes_mut_store, bytes_store};

/// Where the memory of a buffer argument may come from.
#[derive(Clone, Copy, Debug)]
pub enum BufferSource {
    /// A view (`#[buffer]`): any typed array or DataView.
    View,
    /// An ArrayBuffer (`#[arraybuffer]`).
    ArrayBuffer,
    /// Either (`#[anybuffer]`).
    Any,
}

impl BufferSource {
    /// What a `TypeError` says was expected.
    pub(super) fn expected(self) -> &'static str {
        match self {
            BufferSource::View => "a Uint8Array or another ArrayBufferView",
            BufferSource::ArrayBuffer => "an ArrayBuffer",
            BufferSource::Any => "an ArrayBuffer or an ArrayBufferView",
        }
    }

    /// The value as an ArrayBuffer (`Ok`) or a view (`Err`), if this source takes it.
    pub(super) fn classify<'s>(
        self,
        value: v8::Local<'s, v8::Value>,
    ) -> Option<Result<v8::Local<'s, v8::ArrayBuffer>, v8::Local<'s, v8::ArrayBufferView>>> {
        let as_buffer = || v8::Local::<v8::ArrayBuffer>::try_from(value).ok().map(Ok);
        let as_view = || {
            v8::Local::<v8::ArrayBufferView>::try_from(value)
                .ok()
                .map(Err)
        };
        match self {
            BufferSource::View => as_view(),
            BufferSource::ArrayBuffer => as_buffer(),
            BufferSource::Any => as_buffer().or_else(as_view),
        }
    }
}

/// Why a buffer argument was refused: the end of the `TypeError`'s message.
enum Refusal {
    /// Not of the source's type.
    WrongType,
    /// Anything else, said after the argument's name.
    Said(&'static str),
}

const DETACHED: &str = "is backed by a detached ArrayBuffer";

fn check_store(store: &v8::SharedRef<v8::BackingStore>) -> Result<(), Refusal> {
    if store.is_shared() {
        Err(Refusal::Said(
            "is shared memory, which other threads may write: take it with #[buffer(copy)]",
        ))
    } else if store.is_resizable_by_user_javascript() {
        Err(Refusal::Said(
            "is a resizable ArrayBuffer, whose memory may go when it shrinks: take a copy",
        ))
    } else {
        Ok(())
    }
}

/// The backing store and byte range of a buffer argument, kept alive; `is_detached` tells an
/// empty view's story (it needs a scope: a rare path).
#[ops_macro::inline_hot]
fn store_and_range<'s>(
    value: v8::Local<'s, v8::Value>,
    source: BufferSource,
    is_detached: impl FnOnce(v8::Local<'s, v8::ArrayBufferView>) -> bool,
) -> Result<(v8::SharedRef<v8::BackingStore>, Range<usize>), Refusal> {
    match source.classify(value).ok_or(Refusal::WrongType)? {
        Ok(buffer) => {
            if buffer.was_detached() {
                return Err(Refusal::Said(DETACHED));
            }
            let store = buffer.get_backing_store();
            check_store(&store)?;
            Ok((store, 0..buffer.byte_length()))
        }
        Err(view) => {
            let store = view.get_backing_store().ok_or(Refusal::Said(DETACHED))?;
            check_store(&store)?;
            let start = view.byte_offset();
            let len = view.byte_length();
            if len == 0 && is_detached(view) {
                return Err(Refusal::Said(DETACHED));
            }
            Ok((store, start..start + len))
        }
    }
}

fn refusal_message(decl: &crate::OpDecl, index: i32, what: &str) -> String {
    format!(
        "{}: {} {what}",
        decl.name,
        crate::ops::messages::argument(decl, index)
    )
}

/// `JsBuffer` on the fast path.
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[ops_macro::inline_hot]
pub unsafe fn fast_js_buffer(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    source: BufferSource,
) -> Option<JsBuffer> {
    let is_detached = |view: v8::Local<'_, v8::ArrayBufferView>| {
        // SAFETY: per this fn's contract `options` points to the running fast call's options, and
        // this closure runs only within this call (in `store_and_range`): they may be borrowed, and
        // `fast_scope!` opens its scope inside that call.
        let scope_source = unsafe { &*options };
        fast_scope!(scope, scope_source);
        view_is_detached(scope, view)
    };
    match store_and_range(value, source, is_detached) {
        Ok((store, range)) => Some(JsBuffer::new(store, range)),
        Err(refusal) => {
            // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered
            // (this fn's contract, as `fast_call_guarded`), which is all `fast_refuse` requires.
            unsafe { fast_refuse(options, index, source, value, refusal) };
            None
        }
    }
}

/// Throws the slow path's `TypeError` for a refused buffer argument `index` from a fast call.
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[cold]
#[inline(never)]
unsafe fn fast_refuse(
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
    source: BufferSource,
    value: v8::Local<'_, v8::Value>,
    refusal: Refusal,
) {
    match refusal {
        // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
        // fn's contract, as `fast_call_guarded`), which is all `fast_throw_arg_type_error`
        // requires.
        Refusal::WrongType => unsafe {
            fast_throw_arg_type_error(options, index, source.expected(), value)
        },
        Refusal::Said(what) => {
            // SAFETY: per this fn's contract `options` points to the running fast call's options,
            // of an op `Runtime` registered: live for the call, so it may be borrowed here, and its
            // data is the `OpCtx` that `fast_op_ctx` requires.
            let (scope_source, decl) = unsafe { (&*options, fast_op_ctx(options).decl) };
            fast_scope!(scope, scope_source);
            let message = refusal_message(decl, index, what);
            throw_error_of_class(scope, "TypeError", &message);
        }
    }
}

impl<'a, 's> SlowCall<'a, 's> {
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, index: i32, source: BufferSource, refusal: Refusal) -> Thrown {
        match refusal {
            Refusal::WrongType => self.throw_arg_type_error(index, source.expected()),
            Refusal::Said(what) => {
                let decl = self.op_ctx().decl;
                self.throw_type_error(&refusal_message(decl, index, what))
            }
        }
    }

    /// `JsBuffer`: the memory of a view, an ArrayBuffer or either, kept alive without a copy.
    #[ops_macro::inline_hot]
    pub fn arg_js_buffer(&mut self, index: i32, source: BufferSource) -> Result<JsBuffer, Thrown> {
        let value = self.args.get(index);
        let info = self.info;
        let is_detached = |view: v8::Local<'s, v8::ArrayBufferView>| {
            // SAFETY: the call's `FunctionCallbackInfo`, inside its callback.
            v8::callback_scope!(unsafe scope, info);
            view_is_detached(scope, view)
        };
        match store_and_range(value, source, is_detached) {
            Ok((store, range)) => Ok(JsBuffer::new(store, range)),
            Err(refusal) => Err(self.refuse(index, source, refusal)),
        }
    }

    /// `#[buffer] V8Slice<T>`: a typed array's memory, kept alive without a copy.
    #[ops_macro::inline_hot]
    pub fn arg_typed_js_buffer<T: Element>(&mut self, index: i32) -> Result<V8Slice<T>, Thrown> {
        self.check_array::<T>(index)?;
        let (store, range) = self.arg_js_buffer(index, BufferSource::View)?.into_parts();
        if fits::<T>(&store, &range) {
            Ok(V8Slice::new(store, range))
        } else {
            Err(self.throw_misaligned(index, T::EXPECTED))
        }
    }

    /// `#[buffer(detach)] DetachedBuffer`: the memory of a view, an ArrayBuffer or either,
    /// taken: JavaScript's ArrayBuffer is detached (every view of it becomes empty).
    #[ops_macro::inline_hot]
    pub fn arg_detached(
        &mut self,
        index: i32,
        source: BufferSource,
    ) -> Result<DetachedBuffer, Thrown> {
        let value = self.args.get(index);
        let taken = self.with_scope(|scope| detach(scope, value, source));
        taken.map_err(|refusal| self.refuse(index, source, refusal))
    }
}

/// The memory of `value` (of `source`'s kind), taken: its ArrayBuffer detached.
fn detach(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
    source: BufferSource,
) -> Result<DetachedBuffer, Refusal> {
    let (buffer, range) = match source.classify(value).ok_or(Refusal::WrongType)? {
        Ok(buffer) => (buffer, 0..buffer.byte_length()),
        Err(view) => {
            let buffer = view.buffer(scope).ok_or(Refusal::Said(DETACHED))?;
            let start = view.byte_offset();
            (buffer, start..start + view.byte_length())
        }
    };
    if buffer.was_detached() {
        return Err(Refusal::Said(DETACHED));
    }
    let store = buffer.get_backing_store();
    check_store(&store)?;
    if !buffer.is_detachable() {
        return Err(Refusal::Said(
            "cannot be detached (WebAssembly memory, or a buffer with a detach key): take it with #[buffer(copy)]",
        ));
    }
    match buffer.detach(None) {
        Some(true) => Ok(DetachedBuffer::new(store, range)),
        _ => Err(Refusal::Said(
            "cannot be detached (its detach key is set): take it with #[buffer(copy)]",
        )),
    }
}

/// A view's or an ArrayBuffer's memory, taken as `#[anybuffer(detach)]` takes it: a host
/// reading back bytes JavaScript no longer needs (a response's body) without a copy.
impl<'s> crate::FromV8<'s> for DetachedBuffer {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        detach(scope, value, BufferSource::Any).map_err(|refusal| match refusal {
            Refusal::WrongType => {
                OpError::type_error(format!("expected {}", BufferSource::Any.expected()))
            }
            Refusal::Said(what) => OpError::type_error(format!("the buffer {what}")),
        })
    }
}

/// A typed array of `T` over the slice's memory (no copy); `JsBuffer`: a Uint8Array.
impl<T: Element> IntoValue<kind::Buffer> for V8Slice<T> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let (store, range) = self.into_parts();
        typed_range_value::<T>(scope, store, range)
    }
}

/// `#[arraybuffer] JsBuffer`: an ArrayBuffer over the memory (a copy of the part, if part).
impl IntoValue<kind::ArrayBuffer> for JsBuffer {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let (store, range) = self.into_parts();
        Ok(store_buffer_value(scope, store, range))
    }
}

/// Whether bytes `range` of `store` are whole elements of `T`, aligned for it.
fn fits<T: Element>(store: &v8::SharedRef<v8::BackingStore>, range: &Range<usize>) -> bool {
    let start = store
        .data()
        .map_or(0, |data| data.as_ptr() as usize + range.start);
    range.is_empty()
        || (start.is_multiple_of(std::mem::align_of::<T>())
            && range.len().is_multiple_of(std::mem::size_of::<T>()))
}

/// `#[buffer] V8Slice<T>` on the fast path.
///
/// # Safety
/// As [`super::fast_call_guarded`].
#[ops_macro::inline_hot]
pub unsafe fn fast_typed_js_buffer<T: Element>(
    value: v8::Local<'_, v8::Value>,
    options: *mut FastApiCallbackOptions<'_>,
    index: i32,
) -> Option<V8Slice<T>> {
    // SAFETY: `options` is the running fast call's options, of an op `Runtime` registered (this
    // fn's contract, as `fast_call_guarded`), which is all `fast_check_array`, `fast_js_buffer` and
    // `fast_throw_misaligned` require.
    unsafe {
        if !fast_check_array::<T>(value, options, index) {
            return None;
        }
        let slice = fast_js_buffer(value, options, index, BufferSource::View)?;
        let (store, range) = slice.into_parts();
        if fits::<T>(&store, &range) {
            Some(V8Slice::new(store, range))
        } else {
            fast_throw_misaligned(options, index, T::EXPECTED);
            None
        }
    }
}

/// Kept, taken and `bytes` buffers, as a Uint8Array or an ArrayBuffer over their memory.
macro_rules! store_values {
    ($($ty:ty => $parts:expr;)*) => {$(
        impl IntoValue<kind::Buffer> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let (store, range) = $parts(self);
                typed_range_value::<u8>(scope, store, range)
            }
        }

        impl IntoValue<kind::ArrayBuffer> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                let (store, range) = $parts(self);
                Ok(store_buffer_value(scope, store, range))
            }
        }
    )*};
}

store_values! {
    DetachedBuffer => DetachedBuffer::into_parts;
    bytes::Bytes => bytes_store;
    bytes::BytesMut => bytes_mut_store;
}
