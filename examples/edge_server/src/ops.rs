//! The seven ops of the workload (WORKLOAD.md's table, in opwire's spelling), over the
//! requests the server files in the op state.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use bytes::Bytes;
use hyper::header::{HeaderName, HeaderValue};
use hyper::http::request::Parts;
use runtime_core::{op, ByteString, DetachedBuffer, Extension, OpError, OpState};

/// A request as the handler sees it, and the response it builds.
pub struct Exchange {
    pub parts: Parts,
    /// Taken by `op_req_body`.
    pub body: Option<Bytes>,
    pub response: Response,
}

/// What the handler sent.
#[derive(Default)]
pub struct Response {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// `(status, body)` once sent.
    pub sent: Option<(u16, Bytes)>,
}

/// The requests being handled, by request id.
#[derive(Default)]
pub struct Exchanges {
    pub by_rid: HashMap<u32, Exchange>,
    /// `op_req_count`'s counter.
    pub count: u32,
}

fn bad_rid() -> OpError {
    OpError::type_error("bad request id")
}

fn exchange(state: &mut OpState, rid: u32) -> Result<&mut Exchange, OpError> {
    state
        .borrow_mut::<Exchanges>()
        .by_rid
        .get_mut(&rid)
        .ok_or_else(bad_rid)
}

#[op]
fn op_req_method(state: &mut OpState, #[smi] rid: u32) -> Result<&'static str, OpError> {
    let method = &exchange(state, rid)?.parts.method;
    Ok(match method.as_str() {
        "GET" => "GET",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        "PATCH" => "PATCH",
        _ => "OTHER",
    })
}

#[op]
fn op_req_path(state: &mut OpState, #[smi] rid: u32) -> Result<String, OpError> {
    Ok(exchange(state, rid)?.parts.uri.path().to_owned())
}

/// `[[name, value], ...]` in arrival order, both one-byte strings.
#[op]
#[to_v8]
fn op_req_headers(
    state: &mut OpState,
    #[smi] rid: u32,
) -> Result<Vec<(ByteString, ByteString)>, OpError> {
    let headers = &exchange(state, rid)?.parts.headers;
    Ok(headers
        .iter()
        .map(|(name, value)| {
            (
                ByteString::from(name.as_str().as_bytes()),
                ByteString::from(value.as_bytes()),
            )
        })
        .collect())
}

/// The body, taken: a `Uint8Array` over the Rust memory (no copy when hyper's `Bytes` is the
/// only owner of its vector).
#[op]
fn op_req_body(state: &mut OpState, #[smi] rid: u32) -> Result<Vec<u8>, OpError> {
    let body = exchange(state, rid)?.body.take().unwrap_or_default();
    Ok(Vec::from(body))
}

/// Async, ready at its first poll (eager): counts requests.
#[op]
async fn op_req_count(state: Rc<RefCell<OpState>>) -> u32 {
    let mut state = state.borrow_mut();
    let exchanges = state.borrow_mut::<Exchanges>();
    exchanges.count += 1;
    exchanges.count
}

#[op(fast)]
fn op_res_set_header(
    state: &mut OpState,
    #[smi] rid: u32,
    #[string(onebyte)] name: Cow<[u8]>,
    #[string(onebyte)] value: Cow<[u8]>,
) -> Result<(), OpError> {
    let name =
        HeaderName::from_bytes(&name).map_err(|_| OpError::type_error("invalid header name"))?;
    let value =
        HeaderValue::from_bytes(&value).map_err(|_| OpError::type_error("invalid header value"))?;
    exchange(state, rid)?.response.headers.push((name, value));
    Ok(())
}

/// The body's memory is taken from JavaScript (its ArrayBuffer detached) and handed to hyper
/// as it is: `Bytes::from_owner` over the `DetachedBuffer`, no copy.
#[op]
fn op_res_send(
    state: &mut OpState,
    #[smi] rid: u32,
    #[smi] status: u16,
    #[buffer(detach)] body: DetachedBuffer,
) -> Result<(), OpError> {
    let response = &mut exchange(state, rid)?.response;
    if response.sent.is_some() {
        return Err(OpError::type_error("the response was sent already"));
    }
    response.sent = Some((status, Bytes::from_owner(body)));
    Ok(())
}

/// The extension: the ops and the request table.
pub fn extension() -> Extension {
    Extension::new("edge")
        .ops(&[
            op_req_method::DECL,
            op_req_path::DECL,
            op_req_headers::DECL,
            op_req_body::DECL,
            op_req_count::DECL,
            op_res_set_header::DECL,
            op_res_send::DECL,
        ])
        .state(|state| {
            state.put(Exchanges::default());
        })
}
