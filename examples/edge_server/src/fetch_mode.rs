//! Serving a standard fetch handler (WORKLOAD.md, version 3): the module's default export has
//! `fetch(request, env, ctx)` and answers a `Response`, with runtime_web's `Request`,
//! `Response`, `Headers`, streams and URL. `fetch_glue.js` makes each request's `Request` and
//! reads the `Response` back as `[status, headers, body]`, which is checked here: the status
//! a valid HTTP one, every header a valid name and value, or the request is answered 500.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use runtime_core::modules::ModuleId;
use runtime_core::{v8, ByteString, Extension, ExtensionSource, JsError, Runtime};

use crate::{reply, Reply};

/// The glue's module.
pub const GLUE: &str = "ext:edge/fetch_glue.js";

static GLUE_MODULE: [ExtensionSource; 1] =
    [ExtensionSource::new(GLUE, include_str!("fetch_glue.js"))];

/// The glue, as an extension (with the web platform's, it must come after them).
pub fn extension() -> Extension {
    Extension::new("edge_fetch").esm(&GLUE_MODULE)
}

/// What a request's call answers: status, headers (name, value, ...), body.
pub type Answer = (u16, Vec<ByteString>, Bytes);

/// The function each request calls, for the handler module `module`.
pub fn bind(runtime: &mut Runtime, module: ModuleId) -> Result<v8::Global<v8::Function>, JsError> {
    let glue = runtime.loaded_module(GLUE)?;
    let bind = runtime.module_function(glue, "bind")?;
    let namespace = runtime.get_module_namespace(module)?;
    runtime.call::<v8::Global<v8::Function>>(&bind, (namespace,))
}

/// A request's arguments: method, URL (from its `Host`, `http://localhost` without one),
/// headers as byte strings, body (none for an empty one).
pub fn arguments(parts: &Parts, body: Bytes) -> (String, String, Vec<ByteString>, Option<Bytes>) {
    let host = parts
        .headers
        .get(hyper::header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("localhost");
    let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
    let mut headers = Vec::with_capacity(parts.headers.len() * 2);
    for (name, value) in &parts.headers {
        headers.push(ByteString::from(name.as_str().as_bytes()));
        headers.push(ByteString::from(value.as_bytes()));
    }
    let body = (!body.is_empty()).then_some(body);
    (
        parts.method.as_str().to_owned(),
        format!("http://{host}{path}"),
        headers,
        body,
    )
}

/// The hyper response of what the handler answered, checked.
pub fn respond(rid: u32, (status, headers, body): Answer) -> Reply {
    let status = match StatusCode::from_u16(status) {
        Ok(status) => status,
        Err(_) => return refused(rid, &format!("the status {status} is not an HTTP status")),
    };
    let mut map = HeaderMap::with_capacity(headers.len() / 2);
    for pair in headers.chunks_exact(2) {
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&pair[0]),
            HeaderValue::from_bytes(&pair[1]),
        ) else {
            return refused(rid, "a header is not valid HTTP");
        };
        map.append(name, value);
    }
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    *response.headers_mut() = map;
    response
}

fn refused(rid: u32, why: &str) -> Reply {
    eprintln!("edge-js: request {rid}: {why}");
    reply(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/plain",
        "the handler's response is not valid HTTP",
    )
}
