//! `URL` and `URLSearchParams` (`url.js`) over ada, the WHATWG URL parser of Node.js and Bun.
//!
//! Chosen over the `url` crate (deno's) by conformance and speed, measured: on current
//! web-platform-tests `url/` the `url` crate failed 122 subtests (file hosts, opaque paths'
//! trailing spaces, IDNA edge cases) that ada passes, and ada parses in about half the time
//! (`BENCHMARKS.md`, issue 48's history).
//!
//! A parse writes where each component of the serialization starts and ends into a buffer the
//! script shares (deno's design): the getters slice the `href` string in JavaScript, with no
//! op call; only a parse and a setter cross into Rust. When the serialization equals the input
//! (most URLs a tenant writes are already serialized) no string comes back at all.

use std::cell::RefCell;

use ada_url::Url;
use runtime_core::{op, v8, Extension, GlobalScript, OpState};

/// Parsed; the serialization is the input.
const PARSED_SAME: u32 = 0;
/// Parsed; the serialization differs: [`op_web_url_take`] gives it.
const PARSED_CHANGED: u32 = 1;
/// Not a URL.
const FAILED: u32 = 2;
/// A component that is absent (a port, a query, a fragment), as ada marks one.
const ABSENT: u32 = u32::MAX;

/// The serialization of the last parse that changed its input, until the script takes it.
#[derive(Default)]
struct Serialization(RefCell<String>);

/// The memory of the script's `components` (a `Uint32Array` of eight, which its install
/// function returns): every parse writes there, so the parse ops take strings alone and stay
/// on V8's fast path.
#[derive(Default)]
struct Components(RefCell<Option<(v8::SharedRef<v8::BackingStore>, usize)>>);

fn keep_components<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    components: v8::Local<'s, v8::Value>,
    state: &OpState,
) {
    let Ok(array) = v8::Local::<v8::Uint32Array>::try_from(components) else {
        return;
    };
    let Some(buffer) = array.buffer(scope) else {
        return;
    };
    if array.length() == COMPONENTS {
        *state.borrow::<Components>().0.borrow_mut() =
            Some((buffer.get_backing_store(), array.byte_offset()));
    }
}

/// How many components a parse writes.
const COMPONENTS: usize = 8;

/// Writes `url`'s components (ada's: protocol end, username end, host start, host end, port,
/// pathname start, search start, hash start) where the script reads them.
fn write_components(state: &OpState, url: &Url) {
    let kept = state.borrow::<Components>().0.borrow();
    let Some((store, offset)) = kept.as_ref() else {
        return;
    };
    let Some(data) = store.data() else { return };
    let parts = url.components();
    let components = [
        parts.protocol_end,
        parts.username_end,
        parts.host_start,
        parts.host_end,
        parts.port.unwrap_or(ABSENT),
        parts.pathname_start.unwrap_or(ABSENT),
        parts.search_start.unwrap_or(ABSENT),
        parts.hash_start.unwrap_or(ABSENT),
    ];
    // SAFETY: `keep_components` checked the array: eight `u32`s at `offset` of `store`, which
    // the kept reference keeps alive and the script never detaches (no tenant reaches it); no
    // JavaScript runs during the write, on this, the only thread that touches it.
    unsafe {
        let at = data.as_ptr().cast::<u8>().add(*offset).cast::<u32>();
        std::ptr::copy_nonoverlapping(components.as_ptr(), at, COMPONENTS);
    }
}

fn outcome(state: &OpState, url: Option<Url>, input: &str) -> u32 {
    let Some(url) = url else { return FAILED };
    write_components(state, &url);
    if url.href() == input {
        PARSED_SAME
    } else {
        *state.borrow::<Serialization>().0.borrow_mut() = url.href().to_owned();
        PARSED_CHANGED
    }
}

/// Parses `href` (a URL with no base).
#[op(fast)]
fn op_web_url_parse(state: &OpState, #[string] href: &str) -> u32 {
    outcome(state, Url::parse(href, None).ok(), href)
}

/// Parses `href` against `base`.
#[op(fast)]
fn op_web_url_parse_with_base(state: &OpState, #[string] href: &str, #[string] base: &str) -> u32 {
    outcome(state, Url::parse(href, Some(base)).ok(), href)
}

/// The serialization a parse left (see [`PARSED_CHANGED`]).
#[op]
fn op_web_url_take(state: &OpState) -> String {
    std::mem::take(&mut *state.borrow::<Serialization>().0.borrow_mut())
}

/// Sets one component of `href` (a serialization this module made) to `value`, by the URL
/// standard's setter of that attribute: `setter` is the attribute's number in `url.js`. A
/// value the setter refuses leaves the URL as it was.
#[op(fast)]
fn op_web_url_set(
    state: &OpState,
    #[string] href: &str,
    setter: u32,
    #[string] value: &str,
) -> u32 {
    let Ok(mut url) = Url::parse(href, None) else {
        return FAILED;
    };
    // A setter that refuses the value leaves the URL unchanged: nothing to report.
    let _ = match setter {
        0 => {
            url.set_hash(Some(value));
            Ok(())
        }
        1 => url.set_host(Some(value)),
        2 => url.set_hostname(Some(value)),
        3 => url.set_password(Some(value)),
        4 => url.set_pathname(Some(value)),
        5 => url.set_port(Some(value)),
        6 => url.set_protocol(value),
        7 => {
            url.set_search(Some(value));
            Ok(())
        }
        8 => url.set_username(Some(value)),
        _ => return FAILED,
    };
    outcome(state, Some(url), href)
}

/// The name-value pairs of an `application/x-www-form-urlencoded` string, as one flat array
/// (`[name, value, name, value, ...]`).
#[op]
fn op_web_url_search_parse<'s>(
    scope: &mut runtime_core::v8::PinScope<'s, '_>,
    #[string] query: &str,
) -> runtime_core::v8::Local<'s, runtime_core::v8::Array> {
    use runtime_core::v8;
    let mut items: Vec<v8::Local<'s, v8::Value>> = Vec::new();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        for text in [name, value] {
            let text = v8::String::new(scope, &text).unwrap_or_else(|| v8::String::empty(scope));
            items.push(text.into());
        }
    }
    v8::Array::new_with_elements(scope, &items)
}

/// The `application/x-www-form-urlencoded` serialization of a flat array of names and values
/// (strings the script made).
#[op]
fn op_web_url_search_serialize(
    scope: &mut runtime_core::v8::PinScope<'_, '_>,
    pairs: runtime_core::v8::Local<'_, runtime_core::v8::Array>,
) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    let length = pairs.length();
    let mut index = 0;
    while index + 1 < length {
        let text = |scope: &mut runtime_core::v8::PinScope<'_, '_>, index| {
            pairs
                .get_index(scope, index)
                .map(|value| value.to_rust_string_lossy(scope))
                .unwrap_or_default()
        };
        let name = text(scope, index);
        let value = text(scope, index + 1);
        serializer.append_pair(&name, &value);
        index += 2;
    }
    serializer.finish()
}

/// `URL`, `URLSearchParams`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_url")
        .internal_ops(&[
            op_web_url_parse::DECL,
            op_web_url_parse_with_base::DECL,
            op_web_url_take::DECL,
            op_web_url_set::DECL,
            op_web_url_search_parse::DECL,
            op_web_url_search_serialize::DECL,
        ])
        .global(
            GlobalScript::new("ext:web/url.js", include_str!("url.js"))
                .keep(keep_components)
                .typescript(include_str!("url.d.ts")),
        )
        .state(|state| {
            state.put(Serialization::default());
            state.put(Components::default());
        })
}
