//! Serving a standard fetch handler: a module whose default export has `fetch(request, env,
//! ctx)`, as workerd, `deno serve` and `Bun.serve` take it. [`bind`] gives the function a host
//! calls per request with [`Arguments`] (its `serve::Server` serves it); each call answers an
//! [`Answer`]. The request is made from the host's parts with no check repeated (names
//! lowercase, values byte strings, as an HTTP server has them) and no `AbortSignal` until the
//! handler asks; the response is read from what its body was made of, with no stream and no
//! promise turn for a body of a string, bytes or a Blob. Bodies stream both ways: a host may
//! hand a request's body over unread ([`RequestBody::stream`]: read from hyper as the handler
//! asks), and a response made of a stream is forwarded chunk by chunk as it comes
//! ([`ResponseBody::Stream`], a hyper body). What the handler answered is its own: a host
//! checks the status (200 to 599; a handler that patches `then` can answer any) and each
//! header as HTTP before it sends them, and frames the body itself (a `content-length` the
//! handler set is its claim).
//!
//! ```
//! use runtime_core::modules::{ModuleSource, StaticModuleLoader};
//! use runtime_core::{Runtime, RuntimeOptions};
//! use runtime_web::fetch_handler;
//!
//! let handler = "export default { fetch: (request) => new Response('hi ' + request.url) };";
//! let loader = StaticModuleLoader::new([("file:///h.js".to_owned(), ModuleSource::js(handler))]);
//! let mut runtime = Runtime::new(RuntimeOptions {
//!     extensions: runtime_web::extensions(runtime_web::Groups::FETCH),
//!     module_loader: Some(std::rc::Rc::new(loader)),
//!     ..Default::default()
//! });
//! let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let module = tokio.block_on(runtime.load_main_module("file:///h.js")).unwrap();
//! tokio.block_on(runtime.mod_evaluate(module)).unwrap();
//! let serve = fetch_handler::bind(&mut runtime, module).unwrap();
//! let arguments = fetch_handler::arguments("GET", "https://example.com/", Vec::new(), fetch_handler::RequestBody::None);
//! let call = runtime.start_call::<fetch_handler::Answer>(&serve, arguments);
//! let (status, _headers, body) = tokio.block_on(runtime.run_until(call)).unwrap().unwrap();
//! assert_eq!((status, body.bytes().map(|bytes| &bytes[..])), (200, Some(&b"hi https://example.com/"[..])));
//! ```

use std::cell::RefCell;

use bytes::Bytes;
use runtime_core::modules::ModuleId;
use runtime_core::{
    op, v8, ByteString, DetachedBuffer, FromV8, Held, JsError, OpError, Runtime, ToV8,
};

mod request_body;
mod response_body;

pub use request_body::{BodyCloser, BodySource, BoxError, RequestBody};
pub use response_body::{StreamCloser, StreamFailed, StreamedBody};

pub(crate) use request_body::{
    op_web_incoming_cancel, op_web_incoming_read, op_web_incoming_read_all,
};
pub(crate) use response_body::{
    op_web_answer_abandoned, op_web_sink_close, op_web_sink_new, op_web_sink_ready,
    op_web_sink_write,
};

/// Whether a handler's answer is a promise (an async handler's): one look, where checking it
/// first for a `Response`'s private brand would take V8's slow path (a private name missing
/// from an object is not cached).
#[op(fast)]
pub(crate) fn op_web_is_promise(value: v8::Local<'_, v8::Value>) -> bool {
    value.is_promise()
}

/// The value of `promise` when it is fulfilled, else `promise` itself (no promise is
/// fulfilled with itself): an async handler's answer is most often fulfilled when its call
/// returns, and is then read at once, not in a reaction on the microtask queue.
#[op]
pub(crate) fn op_web_fulfilled_value<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    promise: v8::Local<'s, v8::Promise>,
) -> v8::Local<'s, v8::Value> {
    match promise.state() {
        v8::PromiseState::Fulfilled => promise.result(scope),
        _ => promise.into(),
    }
}

/// `bind(namespace)` of `fetch.js` (kept by the fetch group's extension), in the op state.
#[derive(Default)]
pub(crate) struct BindFetchHandler(pub(crate) RefCell<Option<v8::Global<v8::Function>>>);

/// A request's parts: method, absolute URL, headers, body.
pub type Arguments = (String, String, RequestHeaders, RequestBody);

/// A request's headers as the host has them, names lowercase (as an HTTP server gives them):
/// they become JavaScript strings straight from these bytes.
#[derive(Debug)]
pub enum RequestHeaders {
    /// Name, value, name, value...
    List(Vec<ByteString>),
    /// hyper's (`http`'s) map, read in place: no byte string is made of each name and value.
    Map(hyper::HeaderMap),
}

impl From<Vec<ByteString>> for RequestHeaders {
    fn from(list: Vec<ByteString>) -> Self {
        Self::List(list)
    }
}

impl From<hyper::HeaderMap> for RequestHeaders {
    fn from(map: hyper::HeaderMap) -> Self {
        Self::Map(map)
    }
}

/// What `Request` takes: a list (name, value, ...) of strings of one-byte characters, or a
/// map's pairs packed in one such string, `\nname\rvalue\nname\rvalue`, which `headers.js`
/// reads in place for `get` and `has` and splits for anything else. One string is made
/// instead of two a header.
impl ToV8 for RequestHeaders {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let map = match self {
            Self::List(list) => return list.to_v8(scope),
            Self::Map(map) => map,
        };
        // No name or value holds a CR or LF (`http` refuses them), so the pairs split back.
        let length: usize = map
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 2)
            .sum();
        let mut on_stack = [0u8; 1024];
        let mut on_heap = Vec::new();
        let packed = match length {
            length if length <= on_stack.len() => &mut on_stack[..length],
            length => {
                on_heap.resize(length, 0);
                &mut on_heap[..]
            }
        };
        let mut rest = &mut packed[..];
        for (name, value) in &map {
            for part in [b"\n", name.as_str().as_bytes(), b"\r", value.as_bytes()] {
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(part.len());
                head.copy_from_slice(part);
                rest = tail;
            }
        }
        v8::String::new_from_one_byte(scope, packed, v8::NewStringType::Normal)
            .map(Into::into)
            .ok_or_else(|| OpError::range_error("headers longer than a string can be"))
    }
}

/// What a call answers: status (0 for `Response.error()`), headers, body.
pub type Answer = (u16, ResponseHeaders, ResponseBody);

/// A response's headers as the handler left them, in order: names lowercase tokens, values
/// byte strings with no CR, LF or NUL (`Headers` checks both). JavaScript hands them over as
/// one string, `name\nvalue\nname\nvalue`, read in one step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResponseHeaders(ByteString);

impl ResponseHeaders {
    /// Each pair, as the handler's list has them (a name set twice comes twice).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        // No pairs: one empty item, no second.
        let mut items = self.0.split(|&byte| byte == b'\n');
        std::iter::from_fn(move || Some((items.next()?, items.next()?)))
    }

    /// How many pairs there are.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `fetch.js`'s joined list.
impl<'s> FromV8<'s> for ResponseHeaders {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        ByteString::from_v8(scope, value).map(Self)
    }
}

/// A response's body.
#[derive(Debug)]
pub enum ResponseBody {
    /// No body (a `null` body, or a status that has none).
    None,
    /// The whole body: the response was made of a string, bytes or a Blob.
    Bytes(Bytes),
    /// The response was made of a stream: its chunks as the handler's stream gives them.
    Stream(StreamedBody),
}

impl ResponseBody {
    /// The whole body's bytes (`None` for no body or a stream).
    pub fn bytes(&self) -> Option<&Bytes> {
        match self {
            Self::Bytes(bytes) => Some(bytes),
            _ => None,
        }
    }
}

/// The size from which a response's bytes are taken from V8 rather than copied.
const TAKEN_FROM: usize = 16 * 1024;

/// `null`, bytes as a string of one-byte characters (a small body's), the bytes of a
/// Uint8Array (the body's own: taken without a copy when large), or a sink of `fetch.js`'s
/// whose other end the host reads.
impl<'s> FromV8<'s> for ResponseBody {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        if value.is_null_or_undefined() {
            return Ok(Self::None);
        }
        if value.is_string() {
            let bytes = ByteString::from_v8(scope, value)?;
            return Ok(Self::Bytes(Bytes::from(bytes.0)));
        }
        if let Ok(view) = v8::Local::<v8::ArrayBufferView>::try_from(value) {
            // The body's own bytes (`fetch.js` made them, nothing else reaches them): a large
            // body's memory is taken, a small one copied (cheaper than detaching).
            if view.byte_length() >= TAKEN_FROM {
                let taken = DetachedBuffer::from_v8(scope, value)?;
                return Ok(Self::Bytes(Bytes::from_owner(taken)));
            }
            return Bytes::from_v8(scope, value).map(Self::Bytes);
        }
        let sink = Held::<response_body::Sink>::from_v8(scope, value)?;
        sink.take_body()
            .map(Self::Stream)
            .ok_or_else(|| OpError::type_error("a response body's stream was taken twice"))
    }
}

/// A request's [`Arguments`].
pub fn arguments(
    method: &str,
    url: impl Into<String>,
    headers: impl Into<RequestHeaders>,
    body: impl Into<RequestBody>,
) -> Arguments {
    (method.to_owned(), url.into(), headers.into(), body.into())
}

/// The function to call per request for the fetch handler of `module` (loaded and
/// evaluated), in a runtime with [`crate::Groups::FETCH`]. A `TypeError` when its default
/// export has no `fetch`.
pub fn bind(runtime: &mut Runtime, module: ModuleId) -> Result<v8::Global<v8::Function>, JsError> {
    let bind = runtime
        .op_state()
        .borrow()
        .try_borrow::<BindFetchHandler>()
        .and_then(|kept| kept.0.borrow().clone())
        .ok_or_else(|| {
            JsError::host(
                "TypeError",
                "the runtime has no Request and Response: give it runtime_web's Groups::FETCH",
            )
        })?;
    let namespace = runtime.get_module_namespace(module)?;
    runtime.call::<v8::Global<v8::Function>>(&bind, (namespace,))
}
