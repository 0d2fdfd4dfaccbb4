//! Serving a standard fetch handler (WORKLOAD.md, version 3): the module's default export has
//! `fetch(request, env, ctx)` and answers a `Response`, with runtime_web's `Request`,
//! `Response`, `Headers`, streams and URL (`runtime_web::fetch_handler` binds it and reads the
//! response back). What it answered is checked here: the status a valid HTTP one, every header
//! a valid name and value, or the request is answered 500.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use runtime_web::fetch_handler::{Answer, Arguments};

use crate::{reply, Reply};

/// A request's arguments: method, URL (from its `Host`, `http://localhost` without one),
/// hyper's headers as they are (names lowercase), body (none for an empty one).
pub fn arguments(parts: Parts, body: Bytes) -> Arguments {
    let host = parts
        .headers
        .get(hyper::header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("localhost");
    let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
    let url = format!("http://{host}{path}");
    let body = (!body.is_empty()).then_some(body);
    runtime_web::fetch_handler::arguments(parts.method.as_str(), url, parts.headers, body)
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
    let mut response = Response::new(Full::new(body.unwrap_or_default()));
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
