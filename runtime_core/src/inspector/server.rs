//! A WebSocket endpoint for a runtime's inspector, as Chrome DevTools and VS Code find and
//! attach to one (`--inspect`): `GET /json/list` (and `/json`) lists the one target with its
//! `webSocketDebuggerUrl`, `GET /json/version` names the protocol, and a WebSocket upgrade at
//! the target's path connects an [`InspectorSession`](super::InspectorSession). A thread
//! accepts, and a thread per connection carries its messages. A web page in the developer's
//! browser is kept out, as Node's inspector keeps it out: the target's id is random (its
//! WebSocket path cannot be guessed), requests whose `Host` is not `localhost` or an IP address
//! are refused (a DNS name rebound to loopback), and so is a WebSocket whose `Origin` is a
//! page's rather than DevTools'. A client that sends no whole request head in
//! [`HEAD_TIMEOUT`] is dropped, at most [`MAX_CONNECTIONS`] are served at once, and a message
//! from a debugger is at most [`MAX_MESSAGE`] bytes. Behind the `inspector-server` feature.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use super::Inspector;

/// How long a connection's thread waits for a message before it looks at the session's.
const POLL: Duration = Duration::from_millis(10);
/// The longest request head read.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client has to send its whole request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections served at once (each holds a thread); more are closed as they come.
pub const MAX_CONNECTIONS: usize = 16;
/// The largest WebSocket message (and frame) a debugger may send: its commands are small.
pub const MAX_MESSAGE: usize = 4 << 20;

/// A running endpoint; dropping it stops accepting (connections already made go on until
/// their debugger or the runtime goes).
pub struct InspectorServer {
    address: SocketAddr,
    id: String,
    stop: Arc<AtomicBool>,
    accepting: Option<JoinHandle<()>>,
}

impl InspectorServer {
    /// Serves `inspector` on `address` (`"127.0.0.1:9229"` is what debuggers look at first;
    /// port 0 picks a free one). `title` names the target in the debugger's list.
    pub fn start(
        inspector: Inspector,
        address: impl ToSocketAddrs,
        title: &str,
    ) -> io::Result<Self> {
        // What a debugger shows for a target that names no file.
        Self::start_for(inspector, address, title, "file://")
    }

    /// As [`InspectorServer::start`], the target's `url` in the debugger's list being `url`
    /// (the main module's, in the tenant's own URL space: never a host path it did not pick).
    pub fn start_for(
        inspector: Inspector,
        address: impl ToSocketAddrs,
        title: &str,
        url: &str,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(address)?;
        let address = listener.local_addr()?;
        let id = target_id()?;
        let stop = Arc::new(AtomicBool::new(false));
        let target = Target {
            id: id.clone(),
            title: title.to_owned(),
            url: url.to_owned(),
            address,
        };
        let stopped = stop.clone();
        let accepting = std::thread::Builder::new()
            .name("opwire-inspector".into())
            .spawn(move || accept(listener, inspector, target, stopped))?;
        Ok(Self {
            address,
            id,
            stop,
            accepting: Some(accepting),
        })
    }

    /// Where it listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The target's WebSocket URL (`ws://127.0.0.1:9229/...`).
    pub fn websocket_url(&self) -> String {
        format!("ws://{}/{}", self.address, self.id)
    }

    /// The URL to open in Chrome to attach DevTools to the target.
    pub fn devtools_url(&self) -> String {
        format!(
            "devtools://devtools/bundled/js_app.html?experiments=true&v8only=true&ws={}/{}",
            self.address, self.id
        )
    }
}

impl Drop for InspectorServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wakes the accepting thread, which then sees `stop`.
        let _ = TcpStream::connect(self.address);
        if let Some(accepting) = self.accepting.take() {
            let _ = accepting.join();
        }
    }
}

struct Target {
    id: String,
    title: String,
    /// The target's URL in the list.
    url: String,
    address: SocketAddr,
}

/// A random target id in the UUID form debuggers expect (version 4).
fn target_id() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(io::Error::other)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

fn accept(listener: TcpListener, inspector: Inspector, target: Target, stop: Arc<AtomicBool>) {
    let target = Arc::new(target);
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stop.load(Ordering::Acquire) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::AcqRel);
            continue;
        }
        let inspector = inspector.clone();
        let target = target.clone();
        let served = open.clone();
        let spawned = std::thread::Builder::new()
            .name("opwire-inspector-connection".into())
            .spawn(move || {
                let _ = serve(stream, &inspector, &target);
                served.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// One connection: a JSON answer, or a WebSocket session.
fn serve(stream: TcpStream, inspector: &Inspector, target: &Target) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let head = peek_head(&stream)?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let path = request_line.split(' ').nth(1).unwrap_or_default();
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    if !header("host").is_some_and(|host| host_is_local(&host)) {
        return respond(
            stream,
            "403 Forbidden",
            "text/plain",
            "a Host of localhost or an IP address only",
        );
    }
    let upgrade = header("upgrade").is_some_and(|value| value.eq_ignore_ascii_case("websocket"));
    if upgrade && !header("origin").is_none_or(|origin| origin_is_devtools(&origin)) {
        return respond(
            stream,
            "403 Forbidden",
            "text/plain",
            "a WebSocket from DevTools or a debugger only, not from a web page",
        );
    }
    if upgrade && path.trim_start_matches('/') == target.id {
        return carry(stream, inspector);
    }
    match path {
        "/json" | "/json/list" => {
            let list = format!(
                "[{{\"description\":\"opwire runtime\",\"devtoolsFrontendUrl\":\"devtools://devtools/bundled/js_app.html?experiments=true&v8only=true&ws={address}/{id}\",\"id\":\"{id}\",\"title\":{title},\"type\":\"node\",\"url\":{url},\"webSocketDebuggerUrl\":\"ws://{address}/{id}\"}}]",
                address = target.address,
                id = target.id,
                title = json_string(&target.title),
                url = json_string(&target.url),
            );
            respond(stream, "200 OK", "application/json", &list)
        }
        "/json/version" => respond(
            stream,
            "200 OK",
            "application/json",
            &format!(
                "{{\"Browser\":\"opwire/{}\",\"Protocol-Version\":\"1.3\",\"V8-Version\":\"{}\"}}",
                env!("CARGO_PKG_VERSION"),
                v8::V8::get_version()
            ),
        ),
        _ => respond(stream, "404 Not Found", "text/plain", "no such target"),
    }
}

/// The request head, left in the stream (a WebSocket handshake reads it again); an error if
/// it is not whole within [`HEAD_TIMEOUT`].
fn peek_head(stream: &TcpStream) -> io::Result<String> {
    let deadline = Instant::now() + HEAD_TIMEOUT;
    let mut buffer = vec![0; MAX_HEAD];
    loop {
        let seen = stream.peek(&mut buffer)?;
        let head = &buffer[..seen];
        if let Some(end) = head.windows(4).position(|window| window == b"\r\n\r\n") {
            return Ok(String::from_utf8_lossy(&head[..end]).into_owned());
        }
        if seen == 0 || seen == MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "no request head",
            ));
        }
        if Instant::now() >= deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the request head did not come whole in time",
            ));
        }
        std::thread::sleep(POLL);
    }
}

/// DevTools' own origins (a browser sends one with every WebSocket; debuggers outside a
/// browser send none).
fn origin_is_devtools(origin: &str) -> bool {
    origin.starts_with("devtools://") || origin.starts_with("chrome-devtools://")
}

fn host_is_local(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

fn respond(mut stream: TcpStream, status: &str, content_type: &str, body: &str) -> io::Result<()> {
    // The request is read to its end of head (a GET carries no body).
    let head = peek_head(&stream)?;
    let mut discard = vec![0; head.len() + 4];
    stream.read_exact(&mut discard)?;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}; charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn json_string(text: &str) -> String {
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if (c as u32) < 0x20 => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Carries a WebSocket's messages to a new session and the session's back, until either
/// side goes.
fn carry(stream: TcpStream, inspector: &Inspector) -> io::Result<()> {
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    let mut socket =
        tungstenite::accept_with_config(stream, Some(config)).map_err(io::Error::other)?;
    socket.get_mut().set_read_timeout(Some(POLL))?;
    let session = inspector.connect();
    loop {
        match socket.read() {
            // Refused when the runtime has more queued than it takes: the debugger goes.
            Ok(Message::Text(text)) => {
                if !session.send(text.as_str()) {
                    break;
                }
            }
            Ok(Message::Close(_)) => break,
            Ok(_) => {}
            Err(tungstenite::Error::Io(error))
                if matches!(
                    error.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
        if !forward(&mut socket, &session)? {
            break;
        }
    }
    let _ = socket.close(None);
    let _ = socket.flush();
    Ok(())
}

/// Sends what the session has; `false` once the runtime is gone.
fn forward(
    socket: &mut WebSocket<TcpStream>,
    session: &super::InspectorSession,
) -> io::Result<bool> {
    loop {
        match session.try_recv() {
            Ok(message) => socket
                .send(Message::text(message))
                .map_err(io::Error::other)?,
            Err(mpsc::TryRecvError::Empty) => return Ok(true),
            Err(mpsc::TryRecvError::Disconnected) => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_hosts_are_served() {
        assert!(host_is_local("localhost:9229"));
        assert!(host_is_local("127.0.0.1:9229"));
        assert!(host_is_local("[::1]:9229"));
        assert!(!host_is_local("evil.example:9229"));
        assert!(!host_is_local("localhost.evil.example"));
    }

    #[test]
    fn only_devtools_origins_open_a_websocket() {
        assert!(origin_is_devtools("devtools://devtools"));
        assert!(origin_is_devtools("chrome-devtools://devtools"));
        assert!(!origin_is_devtools("http://localhost:8000"));
        assert!(!origin_is_devtools("https://evil.example"));
    }

    #[test]
    fn target_ids_are_random_uuids() {
        let (a, b) = (target_id().unwrap(), target_id().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
    }

    #[test]
    fn titles_are_json_strings() {
        assert_eq!(json_string("a \"b\"\n"), "\"a \\\"b\\\"\\u000a\"");
    }
}
