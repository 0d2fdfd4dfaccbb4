//! `Headers` (`headers.js`): the Fetch standard's header list, JavaScript (the checks one pass
//! over a token table, the list a flat array). A served request's headers are the exception:
//! they stay in the host's map ([`HostHeaders`]) until a script does more than `get` or `has`
//! them, each answered from the map; anything else takes the whole list from it once.

use std::borrow::Cow;
use std::cell::RefCell;

use runtime_core::{op, v8, Extension, GlobalScript, OpError, Trace};

/// A served request's headers as the host has them (hyper's map, names lowercase), until
/// `headers.js` takes them as its list.
pub struct HostHeaders(RefCell<Option<hyper::HeaderMap>>);

// SAFETY: holds no V8 reference to trace and has no base class.
unsafe impl Trace for HostHeaders {}

impl HostHeaders {
    pub(crate) fn new(map: hyper::HeaderMap) -> Self {
        Self(RefCell::new(Some(map)))
    }
}

/// `get(name)` of a host's headers (`name` checked and lowercase): the values of `name` joined
/// by ", ", or `null`.
#[op]
#[string(onebyte)]
fn op_web_host_header<'a>(
    #[cppgc] headers: &'a HostHeaders,
    #[string] name: &str,
) -> Option<Cow<'a, [u8]>> {
    let map = headers.0.borrow();
    let mut values = map.as_ref()?.get_all(name).iter();
    let first = values.next()?.as_bytes();
    let Some(second) = values.next() else {
        // The one value (most headers have one): a copy, as the map is borrowed.
        return Some(Cow::Owned(first.to_vec()));
    };
    let mut joined = first.to_vec();
    for value in std::iter::once(second).chain(values) {
        joined.extend_from_slice(b", ");
        joined.extend_from_slice(value.as_bytes());
    }
    Some(Cow::Owned(joined))
}

/// The whole list (name, value, ...), taken from the host's map: the map is gone after.
#[op]
fn op_web_host_headers_list<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    #[cppgc] headers: &HostHeaders,
) -> Result<v8::Local<'s, v8::Array>, OpError> {
    let map = headers.0.borrow_mut().take().unwrap_or_default();
    let mut values = Vec::with_capacity(map.len() * 2);
    for (name, value) in &map {
        values.push(one_byte_string(scope, name.as_str().as_bytes())?);
        values.push(one_byte_string(scope, value.as_bytes())?);
    }
    Ok(v8::Array::new_with_elements(scope, &values))
}

/// `bytes` as a string of one-byte characters.
fn one_byte_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: &[u8],
) -> Result<v8::Local<'s, v8::Value>, OpError> {
    v8::String::new_from_one_byte(scope, bytes, v8::NewStringType::Normal)
        .map(Into::into)
        .ok_or_else(|| OpError::range_error("a header longer than a string can be"))
}

/// `Headers`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_headers")
        .internal_ops(&[op_web_host_header::DECL, op_web_host_headers_list::DECL])
        .global(
            GlobalScript::new("ext:web/headers.js", include_str!("headers.js"))
                .typescript(include_str!("headers.d.ts")),
        )
}
