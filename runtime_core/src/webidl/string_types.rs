//! WebIDL's string types: `DOMString`/`USVString` as `String` (ECMAScript `ToString`; a
//! symbol is a `TypeError`), `ByteString` (characters up to U+00FF).

use super::{error, WebIdlConverter};
use crate::structured::__derive::threw;
use crate::{ByteString, OpError};

/// The extended attributes of a string conversion.
#[derive(Clone, Copy, Debug, Default)]
pub struct StringOptions {
    /// `[LegacyNullToEmptyString]`: `null` is `""`.
    pub treat_null_as_empty_string: bool,
}

/// ECMAScript `ToString` (which may run `toString`), or `None` for `null` under
/// `[LegacyNullToEmptyString]`.
fn to_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    value: v8::Local<'s, v8::Value>,
    options: &StringOptions,
) -> Result<Option<v8::Local<'s, v8::String>>, OpError> {
    if let Ok(string) = v8::Local::<v8::String>::try_from(value) {
        return Ok(Some(string));
    }
    if value.is_null() && options.treat_null_as_empty_string {
        return Ok(None);
    }
    if value.is_symbol() {
        return Err(error("can not be converted to a string"));
    }
    value.to_string(scope).map(Some).ok_or_else(threw)
}

/// `DOMString` and `USVString` (lone surrogates become U+FFFD, as `USVString` requires).
impl<'s> WebIdlConverter<'s> for String {
    type Options = StringOptions;

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &StringOptions,
    ) -> Result<Self, OpError> {
        Ok(match to_string(scope, value, options)? {
            Some(string) => crate::values::string_buffers::v8_to_string(scope, string),
            None => String::new(),
        })
    }
}

/// `ByteString`: a character above U+00FF is a `TypeError`.
impl<'s> WebIdlConverter<'s> for ByteString {
    type Options = StringOptions;

    fn convert(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        options: &StringOptions,
    ) -> Result<Self, OpError> {
        let Some(string) = to_string(scope, value, options)? else {
            return Ok(ByteString::default());
        };
        ByteString::of_string(scope, string).ok_or_else(|| error("is not a valid ByteString"))
    }
}
