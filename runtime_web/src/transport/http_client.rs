//! [`HttpClient`]: a [`FetchTransport`] over HTTP/1.1 (hyper), in TLS for `https:` origins,
//! that reaches only the origins its host allows, reads at most so many bytes of a response
//! and gives up after so long.
//! It follows no redirect itself: `fetch()` follows each as a request of its own, which this
//! transport allows or refuses like any other.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};

use super::client_tls::ClientTls;
use super::{FetchTransport, Fetched, IncomingResponse, OutgoingRequest};

/// A transport to the origins a host allows (`http://host:port`, `https://host:port`),
/// HTTP/1.1 over TCP, in TLS (rustls) for `https:`, verified against the system's root
/// certificates or those the host gives ([`HttpClient::root_certificates`]). A request to any
/// other origin is refused before anything is resolved or connected; so is a redirect's next
/// hop into one (each hop comes back here).
///
/// It runs on the host's tokio runtime (call into the runtime with it entered), whose IO and
/// time drivers must be enabled.
///
/// ```
/// use std::time::Duration;
/// use runtime_web::transport::{self, HttpClient};
///
/// let client = HttpClient::new(["http://api.internal:8080"])
///     .unwrap()
///     .max_response_bytes(1 << 20)
///     .timeout(Duration::from_secs(5))
///     .max_in_flight(16);
/// let mut extensions = runtime_web::extensions(runtime_web::Groups::FETCH);
/// extensions.push(transport::grant(std::rc::Rc::new(client)));
/// # let _ = extensions;
/// ```
#[derive(Clone, Debug)]
pub struct HttpClient {
    /// Origins as the URL standard serializes them (`http://example.com:8080`).
    allowed: Vec<String>,
    max_response_bytes: usize,
    timeout: Duration,
    tls: ClientTls,
    /// A permit per request in flight, shared by the client's clones: a tenant's thousand
    /// `fetch()`es hold [`DEFAULT_MAX_IN_FLIGHT`] sockets, not a thousand of the host's.
    in_flight: Arc<tokio::sync::Semaphore>,
}

/// Requests a client has in flight at once unless told otherwise: six, as Cloudflare's
/// Workers allow a request outgoing connections (the rest queued).
const DEFAULT_MAX_IN_FLIGHT: usize = 6;

impl HttpClient {
    /// A client for `origins` (each an absolute `http:` or `https:` URL whose origin is
    /// allowed), with responses of at most 16 MiB, 30 seconds a request and six requests in
    /// flight at once; an error names an origin that is neither.
    pub fn new<'a>(origins: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let allowed = origins
            .into_iter()
            .map(|origin| match ada_url::Url::parse(origin, None) {
                Ok(url) if matches!(url.protocol(), "http:" | "https:") => Ok(url.origin()),
                Ok(_) => Err(format!("{origin}: only http: and https: origins")),
                Err(_) => Err(format!("{origin}: not a URL")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            allowed,
            max_response_bytes: 16 << 20,
            timeout: Duration::from_secs(30),
            tls: ClientTls::default(),
            in_flight: Arc::new(tokio::sync::Semaphore::new(DEFAULT_MAX_IN_FLIGHT)),
        })
    }

    /// Trusts exactly the root certificates in `pem` (one `CERTIFICATE` block or more) for
    /// `https:` origins, instead of the system's: a private CA's. An error says what in `pem`
    /// is no certificate.
    pub fn root_certificates(mut self, pem: &[u8]) -> Result<Self, String> {
        self.tls = ClientTls::with_roots(pem)?;
        Ok(self)
    }

    /// The most bytes a response body may have; a longer one fails the request.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How long a request may take, from waiting its turn to the body's last byte.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most requests in flight at once (at least one), this client's and its clones'
    /// together; more wait their turn, within their timeout.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.in_flight = Arc::new(tokio::sync::Semaphore::new(requests.max(1)));
        self
    }

    /// Where `url` may be reached, or why not.
    fn destination(&self, url: &str) -> Result<Destination, String> {
        let parsed = ada_url::Url::parse(url, None).map_err(|_| format!("{url} is not a URL"))?;
        // Before the origin: a `blob:` URL's origin is that of the URL inside it, and the URL
        // itself names no host to connect to.
        let secure = match parsed.protocol() {
            "http:" => false,
            "https:" => true,
            _ => return Err(format!("{url}: only http: and https: URLs")),
        };
        let origin = parsed.origin();
        if !self.allowed.contains(&origin) {
            return Err(format!("the host does not allow {origin}"));
        }
        let default_port = if secure { 443 } else { 80 };
        let port = match parsed.port() {
            "" => default_port,
            port => port.parse().map_err(|_| format!("{url}: a bad port"))?,
        };
        let target = format!("{}{}", parsed.pathname(), parsed.search());
        // The host as DNS or a socket address takes it: an IPv6 literal without brackets.
        let host = parsed
            .hostname()
            .trim_start_matches('[')
            .trim_end_matches(']');
        // The `Host` header: the port only when it is not the scheme's.
        let authority = if port == default_port {
            parsed.hostname().to_owned()
        } else {
            format!("{}:{port}", parsed.hostname())
        };
        Ok(Destination {
            tls: secure.then(|| self.tls.clone()),
            host: host.to_owned(),
            port,
            authority,
            target,
        })
    }
}

/// Where a request goes.
struct Destination {
    /// `Some` for an `https:` URL.
    tls: Option<ClientTls>,
    /// As DNS or a socket address takes it.
    host: String,
    port: u16,
    /// As the `Host` header says it.
    authority: String,
    /// The path and query.
    target: String,
}

impl FetchTransport for HttpClient {
    fn fetch(&self, request: OutgoingRequest) -> Fetched {
        let destination = self.destination(&request.url);
        let limit = self.max_response_bytes;
        let timeout = self.timeout;
        let in_flight = self.in_flight.clone();
        Box::pin(async move {
            let destination = destination?;
            if tokio::runtime::Handle::try_current().is_err() {
                return Err("HttpClient runs on tokio: enter the host's tokio runtime".to_owned());
            }
            let exchange = async {
                // Held to the response's last byte (or the request's end however it ends).
                let _turn = in_flight
                    .acquire()
                    .await
                    .map_err(|_| "the client is closed".to_owned())?;
                exchange(request, destination, limit).await
            };
            tokio::time::timeout(timeout, exchange)
                .await
                .unwrap_or_else(|_| Err(format!("no response within {timeout:?}")))
        })
    }
}

/// Headers a request's sender does not choose (the Fetch standard's forbidden request
/// headers that concern the connection and the message's framing).
const CONNECTION_HEADERS: [&str; 8] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
];

/// One request on a connection of its own (in TLS for `https:`), and its response read to the
/// end.
async fn exchange(
    request: OutgoingRequest,
    destination: Destination,
    limit: usize,
) -> Result<IncomingResponse, String> {
    let Destination {
        tls,
        host,
        port,
        authority,
        target,
    } = destination;
    let stream = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|error| format!("cannot connect to {host}:{port}: {error}"))?;
    let _ = stream.set_nodelay(true);
    match tls {
        None => exchange_over(stream, request, authority, target, limit).await,
        Some(tls) => {
            let stream = tls.connect(&host, stream).await?;
            exchange_over(stream, request, authority, target, limit).await
        }
    }
}

/// [`exchange`] over `stream`, connected.
async fn exchange_over(
    stream: impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    request: OutgoingRequest,
    authority: String,
    target: String,
    limit: usize,
) -> Result<IncomingResponse, String> {
    let io = hyper_util::rt::TokioIo::new(stream);
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|error| error.to_string())?;
    let mut outgoing = hyper::Request::builder()
        .method(request.method.as_str())
        .uri(target);
    // The connection's own headers are this transport's: a tenant's `Host` would reach
    // another site served at the allowed address, its framing headers would contradict the
    // body hyper frames.
    for (name, value) in &request.headers {
        if !CONNECTION_HEADERS
            .iter()
            .any(|own| name.eq_ignore_ascii_case(own.as_bytes()))
        {
            outgoing = outgoing.header(name.as_slice(), value.as_slice());
        }
    }
    outgoing = outgoing.header(hyper::header::HOST, authority);
    let outgoing = outgoing
        .body(Full::new(request.body.unwrap_or_default()))
        .map_err(|error| format!("a request HTTP cannot carry: {error}"))?;
    let response = async {
        let response = sender
            .send_request(outgoing)
            .await
            .map_err(|error| error.to_string())?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, limit)
            .collect()
            .await
            .map_err(
                |error| match error.downcast::<http_body_util::LengthLimitError>() {
                    Ok(_) => format!("the response is longer than {limit} bytes"),
                    Err(error) => error.to_string(),
                },
            )?
            .to_bytes();
        Ok::<_, String>(answer(parts, body))
    };
    // The connection is driven beside the exchange: it ends with the response, or fails it.
    tokio::pin!(response, connection);
    let mut connection_done = false;
    loop {
        tokio::select! {
            biased;
            answered = &mut response => return answered,
            ended = &mut connection, if !connection_done => {
                ended.map_err(|error| error.to_string())?;
                connection_done = true;
            }
        }
    }
}

fn answer(parts: hyper::http::response::Parts, body: Bytes) -> IncomingResponse {
    IncomingResponse {
        status: parts.status.as_u16(),
        status_text: parts.status.canonical_reason().unwrap_or("").to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()))
            .collect(),
        body,
    }
}
