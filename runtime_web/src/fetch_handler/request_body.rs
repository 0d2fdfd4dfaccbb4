//! A request body as the host gives it: none, bytes it already has, or a hyper body it
//! streams in (read chunk by chunk from hyper as the handler asks, each chunk handed to
//! JavaScript without a copy). `fetch.js` keeps a streamed body's source until the handler
//! reads it: `request.body` pulls a chunk per read; `arrayBuffer()`, `text()`, `json()` take
//! it whole in one op, with no stream made. The host ends the reading once its request is
//! done ([`BodyCloser`]): a body the handler left unread then holds nothing of the host's
//! (hyper's connection, waiting for it to be read) until V8 collects the request.

use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Body;
use runtime_core::v8;
use runtime_core::{op, Held, OpError, ToV8, Trace, Wrapped};

use crate::cancel_signal::CancelSignal;

/// A streamed body's error, as the host's body gives it.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

type Source = Pin<Box<dyn Body<Data = Bytes, Error = BoxError>>>;

/// A request's body.
pub enum RequestBody {
    /// No body (`request.body` is `null`).
    None,
    /// The whole body, already read.
    Bytes(Bytes),
    /// A body read as the handler asks for it ([`RequestBody::stream`]).
    Stream(Rc<BodySource>),
}

/// A streamed body's source, shared by the object JavaScript reads it through and the host's
/// [`BodyCloser`]: `None` while a read has it, and once it ended, was cancelled or closed.
pub struct BodySource {
    source: RefCell<Option<Source>>,
    /// Signalled when the host closes the body: a read in flight fails at once.
    closed: CancelSignal,
}

/// Ends a streamed request body's reading when dropped: the host's body is dropped (a read in
/// flight fails at once, dropping it) and any later read fails. A host drops it once the
/// request is done, its response sent.
pub struct BodyCloser(Rc<BodySource>);

impl Drop for BodyCloser {
    fn drop(&mut self) {
        self.0.closed.cancel();
        let source = self.0.source.borrow_mut().take();
        drop(source);
    }
}

fn closed() -> OpError {
    OpError::type_error("The request's body can no longer be read: its response was sent.")
}

impl RequestBody {
    /// A body streamed from `body` (hyper's `Incoming`, say, limited as the host sees fit: its
    /// error reaches the handler as a `TypeError` of the read).
    pub fn stream<B>(body: B) -> Self
    where
        B: Body<Data = Bytes> + 'static,
        B::Error: Into<BoxError>,
    {
        Self::Stream(Rc::new(BodySource {
            source: RefCell::new(Some(Box::pin(body.map_err(Into::into)))),
            closed: CancelSignal::default(),
        }))
    }

    /// What ends a streamed body's reading, for the host to drop once the request is done
    /// (`None` for a body not streamed).
    pub fn closer(&self) -> Option<BodyCloser> {
        match self {
            Self::Stream(slot) => Some(BodyCloser(slot.clone())),
            _ => None,
        }
    }
}

impl From<Option<Bytes>> for RequestBody {
    fn from(body: Option<Bytes>) -> Self {
        body.map_or(Self::None, Self::Bytes)
    }
}

impl std::fmt::Debug for RequestBody {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => formatter.write_str("None"),
            Self::Bytes(bytes) => formatter.debug_tuple("Bytes").field(bytes).finish(),
            Self::Stream(_) => formatter.write_str("Stream(..)"),
        }
    }
}

/// `null`, a Uint8Array over the bytes, or the streamed body's source (an object on V8's C++
/// heap that `fetch.js` reads through the ops below).
impl ToV8 for RequestBody {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        match self {
            Self::None => Ok(v8::null(scope).into()),
            Self::Bytes(bytes) => bytes.to_v8(scope),
            Self::Stream(slot) => Wrapped(Incoming(slot)).to_v8(scope),
        }
    }
}

/// A streamed request body's source, as JavaScript holds it.
pub struct Incoming(Rc<BodySource>);

// SAFETY: an `Incoming` holds no V8 reference to trace and has no base class.
unsafe impl Trace for Incoming {}

impl Incoming {
    fn take(&self) -> Result<Source, OpError> {
        if self.0.closed.is_cancelled() {
            return Err(closed());
        }
        self.0
            .source
            .borrow_mut()
            .take()
            .ok_or_else(|| OpError::type_error("The request's body is being read or has ended."))
    }

    /// Puts the source back after a read, unless the host closed the body meanwhile.
    fn put_back(&self, source: Source) {
        if !self.0.closed.is_cancelled() {
            *self.0.source.borrow_mut() = Some(source);
        }
    }
}

fn read_failed(error: BoxError) -> OpError {
    OpError::type_error(format!("Reading the request's body failed: {error}"))
}

/// The body's next chunk (never empty), or `null` at its end.
#[op]
pub(crate) async fn op_web_incoming_read(
    #[cppgc] incoming: Held<Incoming>,
) -> Result<Option<Bytes>, OpError> {
    let mut source = incoming.take()?;
    let body = incoming.0.clone();
    let read = async {
        loop {
            match source.frame().await {
                None => return Ok(None),
                Some(Err(error)) => return Err(read_failed(error)),
                Some(Ok(frame)) => {
                    // Trailers are not a request's body.
                    if let Ok(data) = frame.into_data() {
                        if !data.is_empty() {
                            return Ok(Some(data));
                        }
                    }
                }
            }
        }
    };
    // A client that trickles its body holds nothing of the host's once the request is done.
    let read = body.closed.unless(read, || Err(closed())).await;
    if let Ok(Some(_)) = read {
        incoming.put_back(source);
    }
    read
}

/// The rest of the body, whole (one chunk: no copy).
#[op]
pub(crate) async fn op_web_incoming_read_all(
    #[cppgc] incoming: Held<Incoming>,
) -> Result<Bytes, OpError> {
    let source = incoming.take()?;
    let body = incoming.0.clone();
    drop(incoming);
    let read = async { source.collect().await.map_err(read_failed) };
    Ok(body.closed.unless(read, || Err(closed())).await?.to_bytes())
}

/// The handler cancelled the body's stream: the host's body is dropped unread.
#[op]
pub(crate) fn op_web_incoming_cancel(#[cppgc] incoming: &Incoming) {
    let source = incoming.0.source.borrow_mut().take();
    drop(source);
}
