//! Serving a standard fetch handler (WORKLOAD.md, version 3): the module's default export has
//! `fetch(request, env, ctx)` and answers a `Response`, with runtime_web's `Request`,
//! `Response`, `Headers`, streams and URL (`runtime_web::fetch_handler` binds it and reads the
//! response back). Bodies stream both ways: a request's body is read from hyper as the handler
//! asks (a body hyper already has whole is handed over as its bytes), and a response made of a
//! stream goes to hyper chunk by chunk, until the request's deadline. What the handler
//! answered is checked here: the status one a `Response` may have, every header a valid name
//! and value, or the request is answered 500; its framing headers (`content-length`,
//! `transfer-encoding`) are left to hyper, which frames the body it is given.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http_body_util::{Either, Full, Limited};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use runtime_web::fetch_handler::{
    Answer, Arguments, BodyCloser, RequestBody, ResponseBody, StreamedBody,
};
use tokio::time::{Instant, Sleep};

use crate::polling::AbortOnDrop;
use crate::{reply, Reply, MAX_BODY};

/// A request's arguments: method, URL (from its `Host`, `http://localhost` without one),
/// hyper's headers as they are (names lowercase), body.
pub fn arguments(parts: Parts, body: RequestBody) -> Arguments {
    let host = parts
        .headers
        .get(hyper::header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("localhost");
    let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
    let url = ["http://", host, path].concat();
    runtime_web::fetch_handler::arguments(parts.method.as_str(), url, parts.headers, body)
}

/// A request's body for the handler, or the answer refusing it: a body that says it is over
/// [`MAX_BODY`] is 413 at once; one that turns out longer fails the handler's read.
#[allow(clippy::result_large_err)]
pub fn request_body(mut body: Incoming) -> Result<RequestBody, Reply> {
    if body.is_end_stream() {
        return Ok(RequestBody::None);
    }
    if body.size_hint().lower() > MAX_BODY as u64 {
        return Err(reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            "text/plain",
            "body too large",
        ));
    }
    // A small body usually came with its request: taken now, it is handed over as bytes (no
    // op and no stream to read it). A waker that does nothing: a body not here yet is polled
    // again, with the handler's, when the handler reads it.
    let mut context = Context::from_waker(Waker::noop());
    let first = match Pin::new(&mut body).poll_frame(&mut context) {
        Poll::Ready(None) => return Ok(RequestBody::None),
        Poll::Ready(Some(Ok(frame))) => frame.into_data().ok(),
        Poll::Ready(Some(Err(_))) => {
            return Err(reply(
                StatusCode::BAD_REQUEST,
                "text/plain",
                "the request's body could not be read",
            ))
        }
        Poll::Pending => None,
    };
    match first {
        Some(first) if body.is_end_stream() => Ok(RequestBody::Bytes(first)),
        first => {
            let read = first.as_ref().map_or(0, Bytes::len);
            Ok(RequestBody::stream(Prefixed {
                first: first.filter(|first| !first.is_empty()),
                rest: Limited::new(body, MAX_BODY.saturating_sub(read)),
            }))
        }
    }
}

/// A body whose first chunk was already read.
struct Prefixed {
    first: Option<Bytes>,
    rest: Limited<Incoming>,
}

impl Body for Prefixed {
    type Data = Bytes;
    type Error = <Limited<Incoming> as Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        Pin::new(&mut self.rest).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.rest.is_end_stream()
    }
}

/// A response's body: whole, or streamed until the request's deadline.
pub type ReplyBody = Either<Full<Bytes>, Deadlined>;

/// The hyper response of what the handler answered, checked; a streamed body ends (with an
/// error: the client sees the response cut short) at `deadline`. The request's body is read no
/// more (`closer_of_request`) once the response is sent.
pub fn respond(
    rid: u32,
    (status, headers, body): Answer,
    deadline: Instant,
    closer_of_request: Option<BodyCloser>,
) -> Reply {
    // A `Response`'s own range: a handler that patches `then` answers anything, and hyper
    // would send a 1xx (or 600-999) as it is.
    let status = match StatusCode::from_u16(status) {
        Ok(status) if (200..=599).contains(&status.as_u16()) => status,
        _ => return refused(rid, &format!("the status {status} is not a response's")),
    };
    let mut map = HeaderMap::new();
    for (name, value) in headers.iter() {
        let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        else {
            return refused(rid, "a header is not valid HTTP");
        };
        // The body's framing is hyper's, from the body itself: hyper sends a whole body's
        // `content-length` as given, so a false one would split the response on the
        // connection (the rest read as the next response).
        if name == hyper::header::CONTENT_LENGTH || name == hyper::header::TRANSFER_ENCODING {
            continue;
        }
        map.append(name, value);
    }
    let body = match body {
        ResponseBody::None => Either::Left(Full::new(Bytes::new())),
        ResponseBody::Bytes(bytes) => Either::Left(Full::new(bytes)),
        ResponseBody::Stream(stream) => {
            // Closed at the deadline by a task of its own: hyper polls a body no more while
            // its client reads nothing, so the body cannot see its deadline pass itself.
            let closer = stream.closer();
            let closing = tokio::task::spawn_local(async move {
                tokio::time::sleep_until(deadline).await;
                closer.close();
            });
            Either::Right(Deadlined {
                body: stream,
                deadline: Box::pin(tokio::time::sleep_until(deadline)),
                _closing: AbortOnDrop(closing),
                _request_body: closer_of_request,
            })
        }
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = map;
    response
}

/// A streamed body that ends with an error at its deadline: a handler's stream that never
/// ends holds its request no longer than any other.
pub struct Deadlined {
    body: StreamedBody,
    deadline: Pin<Box<Sleep>>,
    /// The task that closes the body at the deadline, unpolled or not; aborted with it.
    _closing: AbortOnDrop<()>,
    /// The request's body, readable (by a handler echoing it, say) until this one is done.
    _request_body: Option<BodyCloser>,
}

impl Body for Deadlined {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(context) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        match self.deadline.as_mut().poll(context) {
            Poll::Ready(()) => Poll::Ready(Some(Err(
                "the response body outlived the request's deadline".into(),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

fn refused(rid: u32, why: &str) -> Reply {
    eprintln!("edge-js: request {rid}: {why}");
    reply(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/plain",
        "the handler's response is not valid HTTP",
    )
}
