//! `fetch()`'s way out of the runtime: the host's. A runtime reaches no network its host did
//! not grant, as it loads no module its host did not give: without a [`FetchTransport`],
//! `fetch()` rejects with a `TypeError` saying so. A host grants one with [`grant`] (an
//! extension put after runtime_web's); every request the tenant makes goes through it, which
//! decides what is reachable ([`HttpClient`]: an allow-list of origins, limits on size and
//! time; or the host's own). `fetch()`
//! follows redirects itself, each hop a request of its own through the transport, so a
//! redirect reaches only what the transport would have reached.
//!
//! ```
//! use std::rc::Rc;
//! use runtime_web::transport::{self, FetchTransport, IncomingResponse, OutgoingRequest, Fetched};
//!
//! /// Answers every request from memory.
//! struct Canned;
//!
//! impl FetchTransport for Canned {
//!     fn fetch(&self, request: OutgoingRequest) -> Fetched {
//!         Box::pin(async move {
//!             Ok(IncomingResponse {
//!                 status: 200,
//!                 status_text: "OK".into(),
//!                 headers: vec![(b"content-type".to_vec(), b"text/plain".to_vec())],
//!                 body: format!("{} {}", request.method, request.url).into_bytes().into(),
//!             })
//!         })
//!     }
//! }
//!
//! let mut extensions = runtime_web::extensions(runtime_web::Groups::FETCH);
//! extensions.push(transport::grant(Rc::new(Canned)));
//! # let _ = extensions;
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use bytes::Bytes;
use runtime_core::{op, ByteString, Extension, OpError, OpState};

use crate::cancel_signal::CancelSignal;

mod client_tls;
mod http_client;

pub use http_client::HttpClient;

/// A request a tenant's `fetch()` made: method, absolute URL, headers (names lowercase), body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutgoingRequest {
    /// The method, normalized as `Request` normalizes it.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// Name and value pairs, in the order the request's headers hold them.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The body, whole (`None`: no body).
    pub body: Option<Bytes>,
}

/// What the transport answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncomingResponse {
    /// 200 to 599 (anything else is a network error).
    pub status: u16,
    /// The reason phrase.
    pub status_text: String,
    /// Name and value pairs (checked again as `Headers` checks them).
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The body, whole.
    pub body: Bytes,
}

/// A transport's answer: the response, or why there is none (the tenant's `fetch()` rejects
/// with a `TypeError` of this message).
pub type Fetched = Pin<Box<dyn Future<Output = Result<IncomingResponse, String>>>>;

/// The way out a host grants its runtime's `fetch()`.
pub trait FetchTransport {
    /// Makes `request`, or refuses it. The future is dropped unfinished when the tenant aborts
    /// the request (its signal).
    fn fetch(&self, request: OutgoingRequest) -> Fetched;
}

/// The transport granted, in the op state.
#[derive(Clone)]
struct Granted(Rc<dyn FetchTransport>);

/// An extension that grants `transport` to the runtime's `fetch()`: put it in the runtime's
/// extensions after runtime_web's.
pub fn grant(transport: Rc<dyn FetchTransport>) -> Extension {
    Extension::new("web_fetch_transport").state(move |state| {
        state.put(Granted(transport));
    })
}

/// What `fetch()` gets back: status, status text, headers (name, value, ...), body.
type Answer = (u16, String, Vec<ByteString>, Bytes);

/// The requests in flight that an abort may cancel, by the id `fetch.js` gave each (in the
/// fetch group's op state).
#[derive(Default)]
pub(crate) struct Abortable(HashMap<u32, Rc<CancelSignal>>);

/// Forgets request `id`'s abort when its op ends, however it ends.
struct Registered {
    state: Rc<RefCell<OpState>>,
    id: u32,
}

impl Drop for Registered {
    fn drop(&mut self) {
        // (Not borrowed when an op ends or is dropped; if it were, the entry stays behind,
        // aborting nothing: its id is not given again until the ids come round.)
        if let Ok(mut state) = self.state.try_borrow_mut() {
            if let Some(abortable) = state.try_borrow_mut::<Abortable>() {
                abortable.0.remove(&self.id);
            }
        }
    }
}

/// Aborts request `id` (its signal was aborted): its transport's future is dropped, with the
/// connection, the turn and the memory it held; nothing if it has ended.
#[op]
pub(crate) fn op_web_fetch_abort(state: &OpState, id: u32) {
    let Some(abort) = state
        .try_borrow::<Abortable>()
        .and_then(|abortable| abortable.0.get(&id).cloned())
    else {
        return;
    };
    abort.cancel();
}

/// `fetch()`'s way out: the granted transport, or a refusal. `id` (not 0: the request has a
/// signal) names it to [`op_web_fetch_abort`].
#[op]
#[to_v8]
pub(crate) async fn op_web_fetch(
    state: Rc<RefCell<OpState>>,
    id: u32,
    #[string] method: String,
    #[string] url: String,
    #[from_v8] headers: Vec<ByteString>,
    #[from_v8] body: Option<Bytes>,
) -> Result<Answer, OpError> {
    let Some(Granted(transport)) = state.borrow().try_borrow::<Granted>().cloned() else {
        return Err(OpError::type_error(
            "fetch: this runtime's host grants it no network (runtime_web::transport::grant)",
        ));
    };
    let headers = headers
        .chunks_exact(2)
        .map(|pair| (pair[0].to_vec(), pair[1].to_vec()))
        .collect();
    let request = OutgoingRequest {
        method,
        url,
        headers,
        body,
    };
    let fetched = transport.fetch(request);
    let response = if id == 0 {
        fetched.await
    } else {
        let abort = Rc::new(CancelSignal::default());
        state
            .borrow_mut()
            .borrow_mut::<Abortable>()
            .0
            .insert(id, abort.clone());
        let _registered = Registered {
            state: state.clone(),
            id,
        };
        abort.unless(fetched, || Err("aborted".to_owned())).await
    }
    .map_err(|why| OpError::type_error(format!("fetch failed: {why}")))?;
    let mut flat = Vec::with_capacity(response.headers.len() * 2);
    for (name, value) in response.headers {
        flat.push(ByteString::from(name));
        flat.push(ByteString::from(value));
    }
    Ok((response.status, response.status_text, flat, response.body))
}
