//! The seven ops of the workload (WORKLOAD.md's table, in opwire's spelling), over the
//! requests the server files in the op state, and version 2's `op_kv_get`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::http::request::Parts;
use runtime_core::{op, v8, DetachedBuffer, Extension, OpError, OpState, ToV8};

/// A request as the handler sees it, and the response it builds.
pub struct Exchange {
    pub parts: Parts,
    /// Taken by `op_req_body`.
    pub body: Option<Bytes>,
    pub response: Response,
}

/// What the handler sent: the headers go straight into the response's map.
#[derive(Default)]
pub struct Response {
    pub headers: HeaderMap,
    /// `(status, body)` once sent.
    pub sent: Option<(u16, Bytes)>,
}

/// The requests being handled, with their ids: a scan is the fastest lookup for the few a
/// runtime has in flight (no hashing on each of the seven op calls a request makes).
#[derive(Default)]
pub struct Exchanges {
    pub in_flight: Vec<(u32, Exchange)>,
    /// `op_req_count`'s counter.
    pub count: u32,
    /// Header values the handler set lately: a value set again is shared, not copied (a
    /// handler sets the same few `content-type`s over and over).
    values: Vec<HeaderValue>,
}

/// How many recent header values [`Exchanges`] keeps.
const KEPT_VALUES: usize = 8;

impl Exchanges {
    /// Files a request under `rid`.
    pub fn insert(&mut self, rid: u32, exchange: Exchange) {
        self.in_flight.push((rid, exchange));
    }

    /// Takes the request filed under `rid` back.
    pub fn remove(&mut self, rid: u32) -> Option<Exchange> {
        let at = self.in_flight.iter().position(|(id, _)| *id == rid)?;
        Some(self.in_flight.swap_remove(at).1)
    }

    /// `bytes` as a header value: a kept one when it was set lately.
    fn value(&mut self, bytes: &[u8]) -> Result<HeaderValue, OpError> {
        if let Some(kept) = self.values.iter().find(|kept| kept.as_bytes() == bytes) {
            return Ok(kept.clone());
        }
        let value = HeaderValue::from_bytes(bytes)
            .map_err(|_| OpError::type_error("invalid header value"))?;
        if self.values.len() == KEPT_VALUES {
            self.values.remove(0);
        }
        self.values.push(value.clone());
        Ok(value)
    }
}

fn bad_rid() -> OpError {
    OpError::type_error("bad request id")
}

fn exchange(state: &mut OpState, rid: u32) -> Result<&mut Exchange, OpError> {
    state
        .borrow_mut::<Exchanges>()
        .in_flight
        .iter_mut()
        .find_map(|(id, exchange)| (*id == rid).then_some(exchange))
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

/// A request's path, as JavaScript gets it: a string made from the URI's bytes (an ASCII
/// path: one-byte), with no Rust copy on the way (the `Uri` is shared, not copied).
pub struct UriPath(hyper::Uri);

impl ToV8 for UriPath {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let path = self.0.path();
        let made = if path.is_ascii() {
            v8::String::new_from_one_byte(scope, path.as_bytes(), v8::NewStringType::Normal)
        } else {
            v8::String::new(scope, path)
        };
        made.map(Into::into)
            .ok_or_else(|| OpError::range_error("a path longer than V8 allows"))
    }
}

#[op]
#[to_v8]
fn op_req_path(state: &mut OpState, #[smi] rid: u32) -> Result<UriPath, OpError> {
    Ok(UriPath(exchange(state, rid)?.parts.uri.clone()))
}

/// The JavaScript strings of the header names requests bring (hyper's names are lowercase
/// already): a name is made on the V8 heap once per runtime, not once per request. Bounded and
/// self-ordering: a name found moves one place up, and a new one takes the last place when all
/// are taken, so the names most requests carry sit first and a client sending junk names
/// displaces only the last places.
#[derive(Default)]
pub struct HeaderNames(RefCell<Vec<(HeaderName, v8::Global<v8::String>)>>);

/// How many header names [`HeaderNames`] keeps.
const KEPT_NAMES: usize = 24;

impl HeaderNames {
    fn get<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        name: &HeaderName,
    ) -> Option<v8::Local<'s, v8::Value>> {
        let mut kept = self.0.borrow_mut();
        if let Some(at) = kept.iter().position(|(kept, _)| kept == name) {
            let local = v8::Local::new(scope, &kept[at].1).into();
            if at > 0 {
                kept.swap(at, at - 1);
            }
            return Some(local);
        }
        let made = v8::String::new_from_one_byte(
            scope,
            name.as_str().as_bytes(),
            v8::NewStringType::Internalized,
        )?;
        let entry = (name.clone(), v8::Global::new(scope, made));
        if kept.len() < KEPT_NAMES {
            kept.push(entry);
        } else if let Some(last) = kept.last_mut() {
            *last = entry;
        }
        Some(made.into())
    }
}

/// A request's headers, as JavaScript gets them: `[[name, value], ...]` in arrival order, both
/// one-byte strings (no Rust allocation per header; names kept per runtime).
pub struct HeaderPairs(HeaderMap, Rc<HeaderNames>);

/// Up to this many headers, the pairs are gathered on the stack.
const STACK_PAIRS: usize = 32;

impl ToV8 for HeaderPairs {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let too_long = || OpError::range_error("a header longer than V8 allows");
        let HeaderPairs(headers, names) = self;
        let pair = |scope: &mut v8::PinScope<'s, '_>, name, value: &HeaderValue| {
            let value =
                v8::String::new_from_one_byte(scope, value.as_bytes(), v8::NewStringType::Normal)
                    .ok_or_else(too_long)?;
            let pair = [names.get(scope, name).ok_or_else(too_long)?, value.into()];
            Ok::<_, OpError>(v8::Array::new_with_elements(scope, &pair).into())
        };
        if headers.len() > STACK_PAIRS {
            let pairs = headers
                .iter()
                .map(|(name, value)| pair(scope, name, value))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(v8::Array::new_with_elements(scope, &pairs).into());
        }
        let mut pairs = [v8::undefined(scope).into(); STACK_PAIRS];
        for (slot, (name, value)) in pairs.iter_mut().zip(&headers) {
            *slot = pair(scope, name, value)?;
        }
        Ok(v8::Array::new_with_elements(scope, &pairs[..headers.len()]).into())
    }
}

/// `[[name, value], ...]` in arrival order, both one-byte strings (`#[serde]
/// Vec<(ByteString, ByteString)>` in deno; `Vec<(ByteString, ByteString)>` is `ToV8` here too,
/// at an allocation per string). The headers are taken: the handler reads them once.
#[op]
#[to_v8]
fn op_req_headers(state: &mut OpState, #[smi] rid: u32) -> Result<HeaderPairs, OpError> {
    let headers = std::mem::take(&mut exchange(state, rid)?.parts.headers);
    Ok(HeaderPairs(
        headers,
        state.borrow::<Rc<HeaderNames>>().clone(),
    ))
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
    let value = state.borrow_mut::<Exchanges>().value(&value)?;
    exchange(state, rid)?.response.headers.append(name, value);
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

/// How long `op_kv_get` takes: WORKLOAD.md's stand-in for a remote store.
pub const KV_LATENCY: std::time::Duration = std::time::Duration::from_millis(5);

/// Whether `key` is one `/kv/K` accepts: 1 to 64 characters of `[A-Za-z0-9_-]`.
pub fn is_valid_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The key-value store's answer for `key`.
pub fn kv_value(key: &str) -> String {
    format!("value-of-{key}")
}

/// A read from the store: its value [`KV_LATENCY`] later (a tokio timer). A key the route
/// would refuse is a `TypeError`.
#[op]
async fn op_kv_get(#[string] key: String) -> Result<String, OpError> {
    if !is_valid_key(&key) {
        return Err(OpError::type_error("bad key"));
    }
    tokio::time::sleep(KV_LATENCY).await;
    Ok(kv_value(&key))
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
            op_kv_get::DECL,
        ])
        .state(|state| {
            state.put(Exchanges::default());
            state.put(Rc::new(HeaderNames::default()));
        })
}
