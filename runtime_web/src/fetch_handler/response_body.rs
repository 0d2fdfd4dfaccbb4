//! A response body the handler gave as a stream, forwarded to the host as its chunks come:
//! `fetch.js` reads the handler's stream and writes each chunk into a [`Sink`] (an object on
//! V8's C++ heap); the host reads the other end as a [`StreamedBody`], a hyper body.
//!
//! Bounded both ways: a chunk goes over in pieces of at most [`PIECE`] bytes, [`CAPACITY`]
//! pieces waiting at most, so a client that reads slowly (or never) holds the handler's
//! stream back rather than filling memory; the pieces waiting are counted as the runtime's
//! [`ExternalMemory`] (its budget sees them) until the host is done with them. The host
//! stops reading (its client went away, its deadline passed) by dropping the body: the
//! handler's stream is then cancelled. A stream that errors, or a runtime that ends before
//! the stream does, ends the body with an error, never as if it were complete.

use std::cell::RefCell;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use runtime_core::v8;
use runtime_core::{op, ExternalMemory, Held, HeldMemory, OpError, OpState, Trace};
use tokio::sync::mpsc;

/// The most bytes one piece carries.
pub(crate) const PIECE: usize = 64 * 1024;
/// Pieces written and not yet read by the host, at most.
const CAPACITY: usize = 2;

/// What goes from the handler's stream to the host.
enum Piece {
    /// The next bytes, counted as the runtime's external memory while they wait.
    Data(Bytes),
    /// The stream ended: everything was sent.
    End,
    /// The stream errored, or a chunk was not bytes.
    Failed,
}

/// The handler's end of a streamed response body (`op_web_sink_new`).
pub struct Sink {
    /// `None` once closed or failed.
    sender: RefCell<Option<mpsc::Sender<Piece>>>,
    /// Taken by the host with the answer.
    receiver: RefCell<Option<mpsc::Receiver<Piece>>>,
}

// SAFETY: a `Sink` holds no V8 reference to trace and has no base class.
unsafe impl Trace for Sink {}

impl Sink {
    /// The host's end, once.
    pub(crate) fn take_body(&self) -> Option<StreamedBody> {
        let receiver = self.receiver.borrow_mut().take()?;
        Some(StreamedBody {
            receiver: Arc::new(Mutex::new(Some(receiver))),
            ended: false,
        })
    }
}

/// The host's end, shared with its [`StreamCloser`]s; `None` once closed.
type Shared = Mutex<Option<mpsc::Receiver<Piece>>>;

/// A streamed response body, as the host reads it: a hyper body of the handler's chunks. It
/// ends with an error (hyper then aborts the response, so the client never takes a truncated
/// body for a whole one) when the handler's stream errors or its runtime ends first.
pub struct StreamedBody {
    receiver: Arc<Shared>,
    ended: bool,
}

impl StreamedBody {
    /// A handle that ends this body from outside, whether or not its reader is polling it (a
    /// client that stopped reading leaves hyper's write buffer full, and hyper polls no
    /// more): at a deadline, say.
    pub fn closer(&self) -> StreamCloser {
        StreamCloser(Arc::downgrade(&self.receiver))
    }
}

/// Ends a [`StreamedBody`] ([`StreamedBody::closer`]): the pieces waiting are dropped (their
/// memory given back), the handler's stream is cancelled, and the body ends with an error.
#[derive(Debug)]
pub struct StreamCloser(Weak<Shared>);

impl StreamCloser {
    /// Closes the body, if it is still there.
    pub fn close(self) {
        if let Some(shared) = self.0.upgrade() {
            let receiver = shared
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .take();
            drop(receiver);
        }
    }
}

impl std::fmt::Debug for StreamedBody {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StreamedBody")
            .finish_non_exhaustive()
    }
}

/// Why a streamed body ended early.
#[derive(Debug)]
pub struct StreamFailed(&'static str);

impl std::fmt::Display for StreamFailed {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.0)
    }
}

impl std::error::Error for StreamFailed {}

impl Body for StreamedBody {
    type Data = Bytes;
    type Error = StreamFailed;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StreamFailed>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        let mut receiver = this
            .receiver
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let Some(receiver) = receiver.as_mut() else {
            this.ended = true;
            return Poll::Ready(Some(Err(StreamFailed("the response body was closed"))));
        };
        let piece = std::task::ready!(receiver.poll_recv(context));
        Poll::Ready(match piece {
            Some(Piece::Data(bytes)) => Some(Ok(Frame::data(bytes))),
            Some(Piece::End) => {
                this.ended = true;
                None
            }
            Some(Piece::Failed) => {
                this.ended = true;
                Some(Err(StreamFailed("the response body's stream errored")))
            }
            None => {
                this.ended = true;
                Some(Err(StreamFailed(
                    "the runtime ended before the response body",
                )))
            }
        })
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// A piece's bytes, counted until the host drops them.
struct Counted {
    bytes: Vec<u8>,
    _held: HeldMemory,
}

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Whether the answer being made is for a call its host gave up on (it timed out, its
/// client went away): a response's stream is then cancelled, not forwarded to no one.
#[op]
pub(crate) fn op_web_answer_abandoned(scope: &mut v8::PinScope<'_, '_>, state: &OpState) -> bool {
    state
        .try_borrow::<runtime_core::AbandonedCalls>()
        .is_some_and(|calls| calls.current(scope))
}

/// A new sink; the host takes its other end with the answer.
#[op]
#[cppgc]
pub(crate) fn op_web_sink_new() -> Sink {
    let (sender, receiver) = mpsc::channel(CAPACITY);
    Sink {
        sender: RefCell::new(Some(sender)),
        receiver: RefCell::new(Some(receiver)),
    }
}

/// Sends `chunk`'s bytes from `offset` on, as many pieces as there is room for: answers the
/// bytes still to send (0: all sent; more: wait with `op_web_sink_ready`, then write again
/// from where it stopped), or -1 when the host stopped reading (or the sink is closed). A
/// chunk over shared memory is a `TypeError`.
#[op]
pub(crate) fn op_web_sink_write(
    scope: &mut v8::PinScope<'_, '_>,
    state: &OpState,
    #[cppgc] sink: &Sink,
    chunk: v8::Local<'_, v8::Uint8Array>,
    offset: f64,
) -> Result<f64, OpError> {
    if chunk
        .buffer(scope)
        .is_none_or(|buffer| buffer.is_shared_array_buffer())
    {
        return Err(OpError::type_error(
            "A response body's chunk is over shared memory",
        ));
    }
    let sender = sink.sender.borrow();
    let Some(sender) = sender.as_ref() else {
        return Ok(-1.0);
    };
    let length = chunk.byte_length();
    // `offset` is what this op answered before, for the same chunk; a chunk that shrank
    // since (its buffer detached) has nothing left.
    let mut offset = (offset as usize).min(length);
    while offset < length {
        let permit = match sender.try_reserve() {
            Ok(permit) => permit,
            Err(mpsc::error::TrySendError::Full(())) => break,
            Err(mpsc::error::TrySendError::Closed(())) => return Ok(-1.0),
        };
        let end = length.min(offset + PIECE);
        // SAFETY: no JavaScript runs while the piece is copied.
        let bytes = unsafe { crate::buffer_source::bytes_of(chunk.into()) }[offset..end].to_vec();
        let held = state.borrow::<ExternalMemory>().hold(scope, bytes.len());
        permit.send(Piece::Data(Bytes::from_owner(Counted {
            bytes,
            _held: held,
        })));
        offset = end;
    }
    Ok((length - offset) as f64)
}

/// Resolves once the host has room for a piece (`true`), or stopped reading (`false`).
#[op]
pub(crate) async fn op_web_sink_ready(#[cppgc] sink: Held<Sink>) -> bool {
    let Some(sender) = sink.sender.borrow().clone() else {
        return false;
    };
    drop(sink);
    // Bound first: the permit borrows `sender`, and is dropped (freeing its room) here.
    let ready = sender.reserve().await.is_ok();
    ready
}

/// The handler's stream ended (`failed`: with an error, or a chunk that was not bytes): 1
/// when the host was told, 0 when it has no room yet (wait with `op_web_sink_ready`, then
/// close again), -1 when it stopped reading.
#[op]
pub(crate) fn op_web_sink_close(#[cppgc] sink: &Sink, failed: bool) -> i32 {
    let mut sender = sink.sender.borrow_mut();
    let Some(open) = sender.as_ref() else {
        return -1;
    };
    let last = if failed { Piece::Failed } else { Piece::End };
    match open.try_send(last) {
        Ok(()) => {
            *sender = None;
            1
        }
        Err(mpsc::error::TrySendError::Full(_)) => 0,
        Err(mpsc::error::TrySendError::Closed(_)) => {
            *sender = None;
            -1
        }
    }
}
