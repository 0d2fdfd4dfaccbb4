//! String arguments and returns: borrowed in place, read into a `StringBuffer`, or one exact
//! allocation (see `crate::values::string_buffers`); the fast path gets sequential one-byte
//! strings only.

use std::borrow::Cow;

use crate::ops::StaticStrEntry;
use crate::values::string_buffers::{
    is_ascii, latin1_to_string, narrow_to_latin1_in, v8_to_string,
};
use crate::ByteString;

use crate::OpError;

use super::kinds::{kind, IntoReturn, IntoValue};
use super::{FastApiOneByteString, SlowCall, StringBuffer, Thrown};

/// The bytes of a fast call's one-byte string argument.
///
/// # Safety
/// `string` must be the `FastApiOneByteString` V8 passed to the running fast call.
#[ops_macro::inline_hot]
pub(super) unsafe fn fast_latin1<'a>(string: *const FastApiOneByteString) -> &'a [u8] {
    // SAFETY: V8 passes a valid string whose bytes stay put for the fast call (no GC runs).
    unsafe { (*string).as_bytes() }
}

/// `#[string] &str` on the fast path: ASCII in place, Latin-1 transcoded into `buffer`.
///
/// # Safety
/// `string` must be the `FastApiOneByteString` V8 passed to the running fast call; the result
/// must not outlive that call.
#[ops_macro::inline_hot]
pub unsafe fn fast_str<'b>(
    string: *const FastApiOneByteString,
    buffer: &'b mut StringBuffer<'_>,
) -> &'b str {
    // SAFETY: `string` is V8's argument to the running fast call (this fn's contract), as
    // `fast_latin1` requires; its bytes are borrowed for `'b`, which the contract keeps within that
    // call.
    let latin1: &'b [u8] = unsafe { fast_latin1(string) };
    buffer.room.latin1_as_str(latin1)
}

/// `#[string] Cow<str>` on the fast path: as [`fast_str`], borrowed.
///
/// # Safety
/// As [`fast_str`].
#[ops_macro::inline_hot]
pub unsafe fn fast_cow_str<'b>(
    string: *const FastApiOneByteString,
    buffer: &'b mut StringBuffer<'_>,
) -> Cow<'b, str> {
    // SAFETY: this fn's contract is `fast_str`'s, passed on unchanged; the `Cow` borrows the same
    // `'b`.
    Cow::Borrowed(unsafe { fast_str(string, buffer) })
}

/// `#[string] String` on the fast path: one allocation of the exact UTF-8 length.
///
/// # Safety
/// `string` must be the `FastApiOneByteString` V8 passed to the running fast call.
#[ops_macro::inline_hot]
pub unsafe fn fast_string(string: *const FastApiOneByteString) -> String {
    // SAFETY: `string` is V8's argument to the running fast call (this fn's contract), as
    // `fast_latin1` requires; its bytes are copied before this returns.
    latin1_to_string(unsafe { fast_latin1(string) })
}

/// `#[string(onebyte)] Cow<[u8]>` on the fast path: the bytes in place.
///
/// # Safety
/// As [`fast_str`].
#[ops_macro::inline_hot]
pub unsafe fn fast_onebyte<'b>(string: *const FastApiOneByteString) -> Cow<'b, [u8]> {
    // SAFETY: this fn's contract is `fast_str`'s: `string` is V8's argument to the running fast
    // call, as `fast_latin1` requires, and the borrowed result does not outlive that call.
    Cow::Borrowed(unsafe { fast_latin1(string) })
}

/// `ByteString` on the fast path: the bytes, one allocation.
///
/// # Safety
/// `string` must be the `FastApiOneByteString` V8 passed to the running fast call.
#[ops_macro::inline_hot]
pub unsafe fn fast_bytestring(string: *const FastApiOneByteString) -> ByteString {
    // SAFETY: `string` is V8's argument to the running fast call (this fn's contract), as
    // `fast_latin1` requires; its bytes are copied before this returns.
    ByteString(unsafe { fast_latin1(string) }.to_vec())
}

impl<'a, 's> SlowCall<'a, 's> {
    #[ops_macro::inline_hot]
    pub(super) fn arg_v8_string(
        &mut self,
        index: i32,
        expected: &str,
    ) -> Result<v8::Local<'s, v8::String>, Thrown> {
        v8::Local::<v8::String>::try_from(self.args.get(index))
            .map_err(|_| self.throw_arg_type_error(index, expected))
    }

    /// `#[string] &str` in an op that cannot run JavaScript: one-byte ASCII is borrowed in
    /// place (zero copy); anything else is transcoded into `buffer`.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap until `buffer` is dropped:
    /// the view built in it holds off V8's garbage collector, even when the content was
    /// transcoded (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[ops_macro::inline_hot]
    pub unsafe fn arg_str<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<&'b str, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let StringBuffer { view: slot, room } = buffer;
        let view = slot.build(self.isolate(), string);
        Ok(match view.data() {
            // SAFETY: ASCII is UTF-8. The view keeps the string flat and unmoved while it lives
            // in `buffer`, and no JavaScript or GC runs during this op's call.
            v8::ValueViewData::OneByte(bytes) if is_ascii(bytes) => unsafe {
                std::str::from_utf8_unchecked(bytes)
            },
            v8::ValueViewData::OneByte(latin1) => room.latin1_to_utf8(latin1),
            v8::ValueViewData::TwoByte(units) => room.utf16_to_utf8(units),
        })
    }

    /// `#[string] &str` in an op that takes the scope, or that has several string arguments:
    /// JavaScript or another argument's flattening may move the string, so it is always copied
    /// (or transcoded) into `buffer`.
    #[ops_macro::inline_hot]
    pub fn arg_str_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<&'b str, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        Ok(buffer.room.copy_string(self.isolate(), string))
    }

    /// `#[string] Cow<str>`: as [`SlowCall::arg_str`], borrowed.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap until `buffer` is dropped:
    /// the view built in it holds off V8's garbage collector, even when the content was
    /// transcoded (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[ops_macro::inline_hot]
    pub unsafe fn arg_cow_str<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, str>, Thrown> {
        // SAFETY: this fn's contract is `arg_str`'s word for word, for the same `buffer`; the `Cow`
        // borrows the same `'b`.
        unsafe { self.arg_str(index, buffer) }.map(Cow::Borrowed)
    }

    /// `#[string] Cow<str>` in an op that takes the scope: as [`SlowCall::arg_str_copied`].
    #[ops_macro::inline_hot]
    pub fn arg_cow_str_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, str>, Thrown> {
        self.arg_str_copied(index, buffer).map(Cow::Borrowed)
    }

    /// `#[string] String`: one allocation of the exact UTF-8 length, written in one pass.
    #[ops_macro::inline_hot]
    pub fn arg_string(&mut self, index: i32) -> Result<String, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        Ok(v8_to_string(self.isolate(), string))
    }

    #[cold]
    pub(super) fn throw_not_latin1(&mut self, index: i32) -> Thrown {
        let decl = self.op_ctx().decl;
        let message = format!(
            "{}: {} must be a string of characters up to U+00FF, received a string with wider characters",
            decl.name,
            crate::ops::messages::argument(decl, index)
        );
        self.throw_type_error(&message)
    }

    /// `#[string(onebyte)] Cow<[u8]>` in an op that cannot run JavaScript: one-byte content
    /// borrowed in place; a string with a character above U+00FF throws.
    ///
    /// # Safety
    /// The op must not run JavaScript or allocate on the V8 heap until `buffer` is dropped:
    /// the view built in it holds off V8's garbage collector, even when the content was
    /// transcoded (the macro picks this helper only then: see `Op::borrows_strings_in_place`).
    #[ops_macro::inline_hot]
    pub unsafe fn arg_onebyte<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = buffer.view.build(self.isolate(), string);
        if let v8::ValueViewData::OneByte(_) = view.data() {
            // (Borrowed again: returning the first borrow would hold `buffer` for the rest of
            // the function.)
            let Some(view) = buffer.view.get() else {
                unreachable!("set above")
            };
            let v8::ValueViewData::OneByte(bytes) = view.data() else {
                unreachable!("checked above")
            };
            return Ok(Cow::Borrowed(bytes));
        }
        let view = buffer.view.take().expect("set above");
        self.arg_onebyte_copied_from(index, view, buffer)
    }

    /// `#[string(onebyte)] Cow<[u8]>` in an op that takes the scope: copied into `buffer`.
    #[ops_macro::inline_hot]
    pub fn arg_onebyte_copied<'b>(
        &mut self,
        index: i32,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let view = v8::ValueView::new(self.isolate(), string);
        self.arg_onebyte_copied_from(index, view, buffer)
    }

    /// Copies (one-byte) or narrows (two-byte, all at most U+00FF) a string's content into
    /// `buffer`; the view goes before anything is thrown.
    pub(super) fn arg_onebyte_copied_from<'b>(
        &mut self,
        index: i32,
        view: v8::ValueView<'s>,
        buffer: &'b mut StringBuffer<'s>,
    ) -> Result<Cow<'b, [u8]>, Thrown> {
        let copied = match view.data() {
            v8::ValueViewData::OneByte(bytes) => {
                let room = buffer.room.uninit(bytes.len());
                let room = &mut room[..bytes.len()];
                for (slot, &byte) in room.iter_mut().zip(bytes) {
                    slot.write(byte);
                }
                // SAFETY: every byte of `room` was written above.
                Some(unsafe { std::slice::from_raw_parts(room.as_ptr().cast::<u8>(), room.len()) })
            }
            v8::ValueViewData::TwoByte(units) => {
                narrow_to_latin1_in(units, buffer.room.uninit(units.len()))
            }
        };
        drop(view);
        match copied {
            Some(bytes) => Ok(Cow::Borrowed(bytes)),
            None => Err(self.throw_not_latin1(index)),
        }
    }

    /// `ByteString`: the Latin-1 bytes, one allocation; a character above U+00FF throws.
    #[ops_macro::inline_hot]
    pub fn arg_bytestring(&mut self, index: i32) -> Result<ByteString, Thrown> {
        let string = self.arg_v8_string(index, "a string")?;
        let mut slot = crate::values::string_view::ViewSlot::new();
        let view = slot.build(self.isolate(), string);
        let bytes = match view.data() {
            v8::ValueViewData::OneByte(bytes) => Some(bytes.to_vec()),
            v8::ValueViewData::TwoByte(units) => {
                units.iter().map(|&unit| u8::try_from(unit).ok()).collect()
            }
        };
        // The view goes before anything is thrown.
        drop(slot);
        bytes
            .map(ByteString)
            .ok_or_else(|| self.throw_not_latin1(index))
    }

    #[cold]
    pub(super) fn throw_too_long(&mut self) -> Thrown {
        self.throw_prefixed(too_long())
    }

    #[ops_macro::inline_hot]
    pub(super) fn set_string(
        &mut self,
        string: Option<v8::Local<'s, v8::String>>,
    ) -> Result<(), Thrown> {
        match string {
            Some(string) => {
                self.rv().set(string.into());
                Ok(())
            }
            None => Err(self.throw_too_long()),
        }
    }

    /// Returns a string: ASCII as a one-byte string (no UTF-8 decoding) made from the isolate
    /// alone, anything else from UTF-8.
    #[ops_macro::inline_hot]
    pub(super) fn ret_str(&mut self, value: &str) -> Result<(), Thrown> {
        if is_ascii(value.as_bytes()) {
            self.ret_one_byte(value.as_bytes())
        } else {
            self.ret_utf8(value)
        }
    }

    /// Returns a string of Latin-1 bytes, one character each.
    #[ops_macro::inline_hot]
    pub(super) fn ret_one_byte(&mut self, latin1: &[u8]) -> Result<(), Thrown> {
        let string = self.in_callback().one_byte_string(latin1);
        self.set_string(string)
    }

    /// Returns non-ASCII text, decoded by rusty_v8 (which takes a scope: the call's, or one
    /// made here).
    #[inline(never)]
    fn ret_utf8(&mut self, value: &str) -> Result<(), Thrown> {
        let mut rv = self.rv();
        let made = self.with_scope(|scope| {
            let string =
                v8::String::new_from_utf8(scope, value.as_bytes(), v8::NewStringType::Normal);
            string.map(|string| rv.set(string.into())).is_some()
        });
        if made {
            Ok(())
        } else {
            Err(self.throw_too_long())
        }
    }

    /// Returns a `&'static str`: ASCII becomes an external string pointing at the static bytes
    /// (no copy); anything else is copied from UTF-8. The op keeps the V8 string of the last
    /// static string it returned, so returning the same one again makes nothing new.
    #[ops_macro::inline_hot]
    pub(super) fn ret_static_str(&mut self, value: &'static str) -> Result<(), Thrown> {
        if let Some(entry) = &*self.op_ctx().static_str_cache.borrow() {
            if entry.is_of(value) {
                // SAFETY: the entry's global is this isolate's (the op's context is its
                // runtime's), and the entry stays until the return value is set.
                let string = unsafe { self.in_callback().string_of(entry.handle()) };
                self.rv().set(string.into());
                return Ok(());
            }
        }
        self.ret_new_static_str(value)
    }

    /// A `&'static str` other than the one kept: made in a scope (this one's, or one made
    /// here), returned and kept.
    #[inline(never)]
    fn ret_new_static_str(&mut self, value: &'static str) -> Result<(), Thrown> {
        let mut rv = self.rv();
        let kept = self.with_scope(|scope| {
            let string = if is_ascii(value.as_bytes()) {
                v8::String::new_external_onebyte_static(scope, value.as_bytes())
            } else {
                v8::String::new_from_utf8(scope, value.as_bytes(), v8::NewStringType::Normal)
            };
            string.map(|string| {
                rv.set(string.into());
                let string = v8::Global::new(scope, string);
                StaticStrEntry::new(scope, value, string)
            })
        });
        let Some(entry) = kept else {
            return Err(self.throw_too_long());
        };
        *self.op_ctx().static_str_cache.borrow_mut() = Some(entry);
        Ok(())
    }

    /// Returns a `Cow<'static, str>`: borrowed as [`SlowCall::ret_static_str`], owned as
    /// [`SlowCall::ret_str`].
    #[ops_macro::inline_hot]
    pub(super) fn ret_cow_str(&mut self, value: Cow<'static, str>) -> Result<(), Thrown> {
        match value {
            Cow::Borrowed(value) => self.ret_static_str(value),
            Cow::Owned(value) => self.ret_str(&value),
        }
    }
}

/// A string from UTF-8: ASCII as a one-byte string (no UTF-8 decoding), anything else from
/// UTF-8; `None` if longer than V8 allows.
#[ops_macro::inline_hot]
pub(super) fn new_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    value: &str,
) -> Option<v8::Local<'s, v8::String>> {
    if is_ascii(value.as_bytes()) {
        v8::String::new_from_one_byte(scope, value.as_bytes(), v8::NewStringType::Normal)
    } else {
        v8::String::new_from_utf8(scope, value.as_bytes(), v8::NewStringType::Normal)
    }
}

/// (Prefixed with the op's name when thrown.)
fn too_long() -> OpError {
    OpError::range_error("the returned string is longer than V8 allows")
}

/// A made string as a value, or the error that it is too long.
fn string_value(
    string: Option<v8::Local<'_, v8::String>>,
) -> Result<v8::Local<'_, v8::Value>, OpError> {
    string.map(Into::into).ok_or_else(too_long)
}

/// Text made a string (ASCII as one-byte), for the kinds below; an async op's static string
/// too (the per-op cache of `&'static str` is the sync path's).
macro_rules! text_values {
    ($($marker:ident: $ty:ty;)*) => {$(
        impl IntoValue<kind::$marker> for $ty {
            #[ops_macro::inline_hot]
            fn into_value<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<v8::Local<'s, v8::Value>, OpError> {
                string_value(new_string(scope, &self))
            }
        }
    )*};
}

// A returned `&str` or `Cow<str>` may borrow the op's string arguments: the IR then reads them
// into buffers (never in place) and sets the return value before the buffers go.
text_values! {
    String: String;
    String: &str;
    String: Cow<'_, str>;
    StaticString: &'static str;
    StaticString: Cow<'static, str>;
}

/// Text returned by a sync op (ASCII as one-byte).
macro_rules! text_returns {
    ($($ty:ty),*) => {$(
        impl IntoReturn<kind::String> for $ty {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                call.ret_str(&self)
            }
        }
    )*};
}

text_returns!(String, &str, Cow<'_, str>);

/// Latin-1 bytes returned by a sync op as a one-byte string.
macro_rules! one_byte_returns {
    ($($marker:ident: $ty:ty;)*) => {$(
        impl IntoReturn<kind::$marker> for $ty {
            #[ops_macro::inline_hot]
            fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
                call.ret_one_byte(&self)
            }
        }
    )*};
}

one_byte_returns! {
    String: ByteString;
    OneByte: Cow<'_, [u8]>;
    OneByte: Vec<u8>;
}

/// A one-byte string of its Latin-1 bytes.
impl IntoValue<kind::String> for ByteString {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let string = v8::String::new_from_one_byte(scope, &self, v8::NewStringType::Normal);
        string_value(string)
    }
}

impl IntoReturn<kind::StaticString> for &'static str {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.ret_static_str(self)
    }
}

impl IntoReturn<kind::StaticString> for Cow<'static, str> {
    #[ops_macro::inline_hot]
    fn set_return(self, call: &mut SlowCall<'_, '_>) -> Result<(), Thrown> {
        call.ret_cow_str(self)
    }
}

/// `#[string(onebyte)]`: the bytes as Latin-1, one character each.
impl IntoValue<kind::OneByte> for Cow<'_, [u8]> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let string = v8::String::new_from_one_byte(scope, &self, v8::NewStringType::Normal);
        string_value(string)
    }
}

impl IntoValue<kind::OneByte> for Vec<u8> {
    #[ops_macro::inline_hot]
    fn into_value<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        IntoValue::<kind::OneByte>::into_value(Cow::<[u8]>::Owned(self), scope)
    }
}
