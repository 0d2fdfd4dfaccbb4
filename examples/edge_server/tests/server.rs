//! The servers answer the workload exactly (WORKLOAD.md's requests and responses), and the
//! JavaScript server survives what a tenant's handler or a client may do to it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use edge_server::{Config, Mode};

/// A server on a thread of its own, for this test process (it exits by itself).
fn start(mode: Mode, handler: &str) -> SocketAddr {
    start_workers(mode, handler, 1)
}

/// A request that should be answered never meets its deadline on a loaded machine: waiting
/// requests have longer than any test runs, and only a handler that spins is cut short (its
/// entry into JavaScript, microseconds when the handler behaves, has a second).
fn start_workers(mode: Mode, handler: &str, workers: usize) -> SocketAddr {
    start_with(mode, handler, workers, Duration::from_secs(60))
}

fn start_with(mode: Mode, handler: &str, workers: usize, request_timeout: Duration) -> SocketAddr {
    let config = Config {
        modules: Some(env!("CARGO_MANIFEST_DIR").into()),
        handler: Some(format!("{}/{handler}", env!("CARGO_MANIFEST_DIR")).into()),
        max_seconds: 90,
        request_timeout,
        entry_limit: Duration::from_secs(1),
        workers,
        ..Config::default()
    };
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        edge_server::serve(config, mode, |address| sender.send(address).unwrap()).unwrap();
    });
    receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("the server starts")
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Whether the body ended as its framing says (a chunked body's last chunk came).
    complete: bool,
}

/// One request on a connection of its own; the answer read to its `content-length`, or to
/// its last chunk (or the connection's close).
fn send(address: SocketAddr, head: &str, body: &[u8]) -> Answer {
    read_answer(sent(address, head), body)
}

/// A connection with `head` written on it.
fn sent(address: SocketAddr, head: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream
}

/// Writes `body` on `stream`, then reads the answer.
fn read_answer(mut stream: TcpStream, body: &[u8]) -> Answer {
    // A body the server refuses part-way may find the connection closed: its answer counts.
    for chunk in body.chunks(1 << 16) {
        if stream.write_all(chunk).is_err() {
            break;
        }
    }
    let mut reader = AnswerReader::new(stream);
    let (status, headers) = reader.head();
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value == "chunked");
    if chunked {
        let mut body = Vec::new();
        loop {
            match reader.chunk() {
                Some(Some(chunk)) => body.extend_from_slice(&chunk),
                Some(None) => break,
                None => {
                    return Answer {
                        status,
                        headers,
                        body,
                        complete: false,
                    }
                }
            }
        }
        return Answer {
            status,
            headers,
            body,
            complete: true,
        };
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap());
    assert!(reader.fill(length), "the connection closed mid-body");
    let body = reader.take(length);
    Answer {
        status,
        headers,
        body,
        complete: true,
    }
}

/// An answer read as it comes.
struct AnswerReader {
    stream: TcpStream,
    received: Vec<u8>,
}

impl AnswerReader {
    fn new(stream: TcpStream) -> Self {
        Self {
            stream,
            received: Vec::new(),
        }
    }

    /// Reads until `length` bytes are here; false when the connection closes first.
    fn fill(&mut self, length: usize) -> bool {
        let mut buffer = [0; 1 << 16];
        while self.received.len() < length {
            let read = self.stream.read(&mut buffer).unwrap_or(0);
            if read == 0 {
                return false;
            }
            self.received.extend_from_slice(&buffer[..read]);
        }
        true
    }

    fn take(&mut self, length: usize) -> Vec<u8> {
        self.received.drain(..length).collect()
    }

    /// A line ending in CRLF (without it); `None` when the connection closes first.
    fn line(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.received.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&self.received[..end]).into_owned();
                self.received.drain(..end + 2);
                return Some(line);
            }
            let wanted = self.received.len() + 1;
            if !self.fill(wanted) {
                return None;
            }
        }
    }

    /// Status and headers (names lowercase).
    fn head(&mut self) -> (u16, Vec<(String, String)>) {
        self.try_head()
            .expect("the connection closed before an answer")
    }

    /// Status and headers, or `None` when the connection closes first.
    fn try_head(&mut self) -> Option<(u16, Vec<(String, String)>)> {
        let status_line = self.line()?;
        let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let line = self.line()?;
            if line.is_empty() {
                return Some((status, headers));
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
    }

    /// A chunked body's next chunk: `Some(None)` for the last, `None` when the connection
    /// closes first.
    fn chunk(&mut self) -> Option<Option<Vec<u8>>> {
        let size = usize::from_str_radix(self.line()?.trim(), 16).unwrap();
        if size == 0 {
            self.line()?;
            return Some(None);
        }
        if !self.fill(size + 2) {
            return None;
        }
        let chunk = self.take(size);
        self.take(2);
        Some(Some(chunk))
    }
}

const ID: &str = "0f8c2b1e-6d3a-4c5b-9e7f-a1b2c3d4e5f6";

fn hello(address: SocketAddr) -> Answer {
    send(
        address,
        &format!(
            "GET /hello HTTP/1.1\r\nhost: localhost\r\naccept: */*\r\nuser-agent: edge-anchor/1\r\nx-request-id: {ID}\r\n\r\n"
        ),
        b"",
    )
}

fn echo_body() -> Vec<u8> {
    (0..1024).map(|i| ((7 * i + 3) % 256) as u8).collect()
}

fn echo(address: SocketAddr) -> Answer {
    let body = echo_body();
    send(
        address,
        &format!(
            "POST /echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\n\r\n",
            body.len()
        ),
        &body,
    )
}

fn get(address: SocketAddr, path: &str) -> Answer {
    send(
        address,
        &format!("GET {path} HTTP/1.1\r\nhost: localhost\r\n\r\n"),
        b"",
    )
}

fn content_type(answer: &Answer) -> &str {
    answer
        .headers
        .iter()
        .find(|(name, _)| name == "content-type")
        .map_or("", |(_, value)| value.as_str())
}

/// `/kv/K` (version 2): the value after the store's 5 ms, a bad key 400.
fn assert_kv(address: SocketAddr, what: &str) {
    let answer = get(address, "/kv/user_42-a");
    assert_eq!(
        (answer.status, content_type(&answer), answer.body.as_slice()),
        (200, "text/plain", &b"value-of-user_42-a"[..]),
        "{what}"
    );
    for bad in ["/kv/", "/kv/no.dots", &format!("/kv/{}", "k".repeat(65))] {
        let answer = get(address, bad);
        assert_eq!(
            (answer.status, answer.body.as_slice()),
            (400, &b"bad key"[..]),
            "{what} {bad}"
        );
    }
}

#[test]
fn both_servers_answer_the_workload_exactly() {
    // The version 2 handler, version 3's standard fetch handler, and the floor.
    for (mode, handler) in [
        (Mode::Js, "handler.js"),
        (Mode::Js, "fetch_handler.js"),
        (Mode::Floor, "handler.js"),
    ] {
        let address = start(mode, handler);
        assert_kv(address, &format!("{mode:?}"));
        for _ in 0..3 {
            let answer = hello(address);
            assert_eq!(answer.status, 200, "{mode:?}");
            assert_eq!(content_type(&answer), "text/plain");
            assert_eq!(answer.body, format!("hello {ID}").as_bytes(), "{mode:?}");
            assert_eq!(answer.body.len(), 42);
            let answer = echo(address);
            assert_eq!(answer.status, 200);
            assert_eq!(content_type(&answer), "application/octet-stream");
            let mut reversed = echo_body();
            reversed.reverse();
            assert_eq!(answer.body, reversed, "{mode:?}");
            let answer = get(address, "/nope");
            assert_eq!(
                (answer.status, answer.body.as_slice()),
                (404, &b"not found"[..])
            );
            // Exactly content-type, content-length and date.
            let mut names: Vec<&str> = answer
                .headers
                .iter()
                .map(|(name, _)| name.as_str())
                .collect();
            names.sort();
            assert_eq!(
                names,
                ["content-length", "content-type", "date"],
                "{mode:?}"
            );
        }
    }
}

#[test]
fn requests_are_in_flight_together_in_one_runtime() {
    let address = start(Mode::Js, "tests/hostile_handler.js");
    // `/wait` settles only when `/open` runs: a server taking one request at a time would
    // answer neither before the deadline.
    let waiting = sent(address, "GET /wait HTTP/1.1\r\nhost: localhost\r\n\r\n");
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(get(address, "/open").body, b"open");
    let answer = read_answer(waiting, b"");
    assert_eq!(
        (answer.status, answer.body.as_slice()),
        (200, &b"waited"[..])
    );
}

#[test]
fn a_handler_past_its_deadline_fails_the_requests_in_flight_and_serving_goes_on() {
    let address = start(Mode::Js, "tests/hostile_handler.js");
    for _ in 0..2 {
        let waiting = sent(address, "GET /wait HTTP/1.1\r\nhost: localhost\r\n\r\n");
        std::thread::sleep(Duration::from_millis(20));
        // The loop keeps the thread: terminated, and with it every request in flight.
        assert_eq!(get(address, "/loop").status, 503);
        assert_eq!(read_answer(waiting, b"").status, 503);
        // The runtime was replaced from the snapshot: the handler's module state is fresh,
        // and it serves.
        let answer = hello(address);
        assert_eq!((answer.status, answer.body.len()), (200, 42));
        assert_kv(address, "after a replacement");
    }
}

#[test]
fn a_termination_with_64_requests_in_flight_answers_all_64() {
    let address = start_workers(Mode::Js, "tests/hostile_handler.js", 2);
    let slow: Vec<_> = (0..64)
        .map(|_| sent(address, "GET /slow HTTP/1.1\r\nhost: localhost\r\n\r\n"))
        .collect();
    std::thread::sleep(Duration::from_millis(30));
    // One worker's runtime is terminated with its share of the 64 in flight: those are 503;
    // the other worker's are served.
    assert_eq!(get(address, "/loop").status, 503);
    let mut statuses: Vec<u16> = slow
        .into_iter()
        .map(|stream| read_answer(stream, b"").status)
        .collect();
    statuses.sort();
    statuses.dedup();
    assert_eq!(
        statuses,
        [200, 503],
        "every request answered, by both workers"
    );
    for _ in 0..8 {
        assert_eq!(hello(address).status, 200);
    }
}

#[test]
fn workers_share_one_address() {
    for mode in [Mode::Js, Mode::Floor] {
        let address = start_workers(mode, "handler.js", 3);
        let answers: Vec<_> = (0..12)
            .map(|_| std::thread::spawn(move || (hello(address), get(address, "/kv/w"))))
            .collect();
        for answer in answers {
            let (hello, kv) = answer.join().unwrap();
            assert_eq!((hello.status, hello.body.len()), (200, 42), "{mode:?}");
            assert_eq!(kv.body, b"value-of-w", "{mode:?}");
        }
    }
}

#[test]
fn a_request_that_never_settles_times_out() {
    // A short request deadline: this test asserts only that it passes, which a loaded machine
    // makes no less likely.
    let address = start_with(
        Mode::Js,
        "tests/hostile_handler.js",
        1,
        Duration::from_millis(300),
    );
    assert_eq!(get(address, "/hang").status, 504);
}

#[test]
fn hostile_requests_and_handlers_are_answered_and_the_server_goes_on() {
    let address = start(Mode::Js, "tests/hostile_handler.js");
    assert_eq!(get(address, "/throw").status, 500);
    assert_eq!(
        get(address, "/loop").status,
        503,
        "the watchdog terminates a loop"
    );
    assert_eq!(get(address, "/nosend").status, 500);
    let twice = get(address, "/twice");
    assert_eq!(
        twice.status, 500,
        "sending twice is a TypeError, the handler fails"
    );
    // 100 MB body: refused once past the limit.
    let huge = vec![b'x'; 100 << 20];
    let answer = send(
        address,
        &format!(
            "POST /echo HTTP/1.1\r\nhost: localhost\r\ncontent-length: {}\r\n\r\n",
            huge.len()
        ),
        &huge,
    );
    assert_eq!(answer.status, 413);
    // 10,000 headers: hyper refuses them.
    let mut head = String::from("GET /hello HTTP/1.1\r\nhost: localhost\r\n");
    for i in 0..10_000 {
        head.push_str(&format!("x-h{i}: v\r\n"));
    }
    head.push_str("\r\n");
    let answer = send(address, &head, b"");
    assert_eq!(answer.status, 431);
    // And the others are served as before.
    let answer = hello(address);
    assert_eq!((answer.status, answer.body.len()), (200, 42));
    assert_eq!(echo(address).status, 200);
}

/// A standard handler's misdeeds are its requests' errors, and the server goes on: a value
/// that is no `Response` or a throw is 500, a loop 503; a streamed body, `ctx.waitUntil` and
/// `set-cookie` twice are served; the handler patching `Response` after start-up does not
/// reach the server's glue.
#[test]
fn a_standard_handlers_misdeeds_are_its_requests_errors() {
    let address = start(Mode::Js, "tests/hostile_fetch_handler.js");
    assert_eq!(get(address, "/not-a-response").status, 500);
    assert_eq!(get(address, "/throw").status, 500);
    assert_eq!(get(address, "/loop").status, 503);
    let streamed = get(address, "/stream");
    assert_eq!(
        (streamed.status, streamed.body.as_slice()),
        (200, &b"streamed"[..])
    );
    let answered = get(address, "/wait-until");
    assert_eq!(answered.body, b"answered");
    let cookies: Vec<&str> = answered
        .headers
        .iter()
        .filter(|(name, _)| name == "set-cookie")
        .map(|(_, value)| value.as_str())
        .collect();
    assert_eq!(cookies, ["a=1", "b=2"]);
    let patched = get(address, "/patched");
    assert_eq!(
        (patched.status, patched.body.as_slice()),
        (202, &b"still mine"[..])
    );
    let answer = send(
        address,
        "POST /echo HTTP/1.1\r\nhost: localhost\r\nx-a: 1\r\ncontent-length: 4\r\n\r\n",
        b"body",
    );
    assert_eq!(
        (answer.status, answer.body.as_slice()),
        (200, &b"POST 1 body"[..])
    );
    // The body is framed by what it is, whatever length the handler claims.
    let framed = get(address, "/false-length");
    assert_eq!(
        (framed.status, framed.body.as_slice()),
        (
            200,
            &b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nforged"[..]
        )
    );
    assert_eq!(get(address, "/then").status, 500);
}

// ---- bodies streamed both ways (a standard handler) ---------------------------------------

/// A `GET` head.
fn get_head(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nhost: localhost\r\n\r\n")
}

#[test]
fn a_response_stream_is_sent_as_its_chunks_come() {
    // Before, the server read a response's stream whole before answering: `/held` (which
    // ends only once `/release` is asked for) was never answered.
    let address = start(Mode::Js, "tests/streaming_handler.js");
    let mut held = AnswerReader::new(sent(address, &get_head("/held")));
    let (status, headers) = held.head();
    assert_eq!(status, 200);
    assert!(headers.contains(&("transfer-encoding".into(), "chunked".into())));
    assert_eq!(held.chunk(), Some(Some(b"first ".to_vec())));
    assert_eq!(get(address, "/release").body, b"released");
    assert_eq!(held.chunk(), Some(Some(b"last".to_vec())));
    assert_eq!(held.chunk(), Some(None), "the stream's end is the body's");
    // A stream whose chunk is not bytes cuts its response short: never a whole-looking body.
    assert!(cut_short(address, "/bad-chunk"));
}

/// Whether the answer to `GET path` is cut short: the connection closes before its head, or
/// before its chunked body's last chunk.
fn cut_short(address: SocketAddr, path: &str) -> bool {
    let mut reader = AnswerReader::new(sent(address, &get_head(path)));
    if reader.try_head().is_none() {
        return true;
    }
    loop {
        match reader.chunk() {
            Some(Some(_)) => {}
            Some(None) => return false,
            None => return true,
        }
    }
}

/// Waits (20 s at most) until `/counts` says `cancelled` streams were cancelled.
fn wait_for_cancels(address: SocketAddr, cancelled: u64) -> u64 {
    let mut now = 0;
    for _ in 0..400 {
        now = counts(address).1;
        if now >= cancelled {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    now
}

/// A chunked `POST path` of which only the first chunk is sent, its 200 answer read (by its
/// `content-length`): the connection, its reader, the answer's body.
fn answer_to_first_chunk(
    address: SocketAddr,
    path: &str,
    chunk: &str,
) -> (TcpStream, AnswerReader, Vec<u8>) {
    let head =
        format!("POST {path} HTTP/1.1\r\nhost: localhost\r\ntransfer-encoding: chunked\r\n\r\n");
    let mut stream = sent(address, &head);
    write!(stream, "{:x}\r\n{chunk}\r\n", chunk.len()).unwrap();
    let mut reader = AnswerReader::new(stream.try_clone().unwrap());
    let (status, headers) = reader.head();
    assert_eq!(status, 200);
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map(|(_, value)| value.parse().unwrap())
        .expect("a content-length");
    assert!(reader.fill(length));
    let body = reader.take(length);
    (stream, reader, body)
}

#[test]
fn a_request_body_is_streamed_to_the_handler() {
    // Before, the server collected a body before the handler ran: `/first-chunk`, sent its
    // first chunk and no more, was never answered.
    let address = start(Mode::Js, "tests/streaming_handler.js");
    let (_, _, answer) = answer_to_first_chunk(address, "/first-chunk", "hello");
    assert_eq!(answer, b"hello");

    let big: Vec<u8> = (0..(1 << 20)).map(|i| (i % 251) as u8).collect();
    let with_length = |path: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nhost: localhost\r\ncontent-length: {}\r\n\r\n",
            big.len()
        )
    };
    assert_eq!(
        send(address, &with_length("/chunks"), &big).body,
        b"1048576"
    );
    // Given back as a stream: the request's body as the response's, chunk by chunk.
    let back = send(address, &with_length("/"), &big);
    assert!(back.complete);
    assert!(back.body == big, "the body came back whole");
    let chunked = "POST /text HTTP/1.1\r\nhost: localhost\r\ntransfer-encoding: chunked\r\n\r\n";
    let answer = send(address, chunked, b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
    assert_eq!(answer.body, b"abcde");
    let clone = "POST /clone HTTP/1.1\r\nhost: localhost\r\ncontent-length: 2\r\n\r\n";
    assert_eq!(send(address, clone, b"ab").body, b"ab|ab");
    // A body that says it is over the limit is refused before the handler runs.
    let huge = "POST /chunks HTTP/1.1\r\nhost: localhost\r\ncontent-length: 104857600\r\n\r\n";
    assert_eq!(send(address, huge, b"").status, 413);
}

/// `/counts`: the endless stream's pulls and the cancels.
fn counts(address: SocketAddr) -> (u64, u64) {
    let body = String::from_utf8(get(address, "/counts").body).unwrap();
    let (pulls, cancelled) = body.split_once(' ').unwrap();
    (pulls.parse().unwrap(), cancelled.parse().unwrap())
}

#[test]
fn a_client_that_stops_reading_holds_the_stream_back_and_cancels_it() {
    let address = start(Mode::Js, "tests/streaming_handler.js");
    let mut endless = AnswerReader::new(sent(address, &get_head("/endless")));
    assert_eq!(endless.head().0, 200);
    // Unread, the stream stops being pulled once the socket's buffers and the server's few
    // pieces are full.
    let mut pulls = counts(address).0;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        let now = counts(address).0;
        if now == pulls {
            break;
        }
        pulls = now;
    }
    assert_eq!(counts(address).0, pulls, "the stream is held back");
    assert!(
        pulls < 1024,
        "{pulls} chunks of 64 KiB before it was held back"
    );
    // The client goes: the handler's stream is cancelled.
    drop(endless);
    assert_eq!(wait_for_cancels(address, 1), 1);
}

/// The streaming handler's server, each request's deadline 2 s after it came.
fn streaming_with_a_short_deadline() -> SocketAddr {
    start_with(
        Mode::Js,
        "tests/streaming_handler.js",
        1,
        Duration::from_secs(2),
    )
}

/// A chunked `POST path` of which one chunk is sent and the rest held: answered 504 at its
/// deadline. The connection and its reader, for the caller to hold.
fn held_past_the_deadline(address: SocketAddr, path: &str) -> (TcpStream, AnswerReader) {
    let head =
        format!("POST {path} HTTP/1.1\r\nhost: localhost\r\ntransfer-encoding: chunked\r\n\r\n");
    let mut stream = sent(address, &head);
    write!(stream, "1\r\nx\r\n").unwrap();
    let mut reader = AnswerReader::new(stream.try_clone().unwrap());
    assert_eq!(reader.head().0, 504);
    (stream, reader)
}

/// A client that stops reading a streamed response, and stays, holds it only until the
/// request's deadline: hyper polls the body no more once its client reads nothing, so the
/// body is closed from outside then, and the handler's stream is cancelled.
#[test]
fn a_stream_no_one_reads_is_cancelled_at_the_deadline() {
    let address = streaming_with_a_short_deadline();
    let mut endless = AnswerReader::new(sent(address, &get_head("/endless")));
    assert_eq!(endless.head().0, 200);
    assert_eq!(wait_for_cancels(address, 1), 1);
    drop(endless);
}

/// A stream a handler answers for a request its server gave up on (past its deadline) is
/// cancelled, not forwarded into a body nobody will read.
#[test]
fn a_stream_answered_after_the_deadline_is_cancelled() {
    let address = streaming_with_a_short_deadline();
    // The body's read fails as the request ends, and the handler answers its stream.
    let held = held_past_the_deadline(address, "/answer-later");
    assert_eq!(wait_for_cancels(address, 1), 1);
    drop(held);
}

/// A read of a request's body that its client holds (part sent, then nothing) ends with the
/// request, at its deadline: the handler's read fails, and the body holds nothing more.
#[test]
fn a_body_read_in_flight_ends_with_its_request() {
    let address = streaming_with_a_short_deadline();
    let held = held_past_the_deadline(address, "/read-held");
    assert_eq!(wait_for_cancels(address, 1), 1);
    drop(held);
}

#[test]
fn a_stream_that_never_ends_is_cut_at_the_deadline() {
    let address = streaming_with_a_short_deadline();
    let trickle = get(address, "/trickle");
    assert_eq!(trickle.status, 200);
    assert!(!trickle.complete, "cut short, not ended as if whole");
    assert!(!trickle.body.is_empty());
    assert!(trickle.body.iter().all(|&byte| byte == b'.'));
    // Its stream was cancelled, and the server goes on.
    assert_eq!(wait_for_cancels(address, 1), 1);
    assert_eq!(get(address, "/release").body, b"nothing held");
}

#[test]
fn a_body_the_handler_leaves_unread_does_not_hold_its_connection() {
    // Before, the unread body's source lived until V8 collected its request, and hyper, waiting
    // for it to be read, held the connection: the next request on it was neither answered nor
    // refused. Now the body is dropped with the response sent, and hyper answers the next
    // request or closes the connection (what it does with a body left unread) at once.
    let address = start(Mode::Js, "tests/streaming_handler.js");
    // The body's first chunk, then (once the handler has answered) the rest.
    let (mut stream, mut reader, _) = answer_to_first_chunk(address, "/counts", "abc");
    let _ = stream.write_all(b"3\r\ndef\r\n0\r\n\r\n");
    let _ = stream.write_all(get_head("/release").as_bytes());
    let mut next = [0; 64];
    let mut read = reader.received.len();
    next[..read].copy_from_slice(&reader.received[..read.min(64)]);
    if read == 0 {
        read = match reader.stream.read(&mut next) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => 0,
            Err(error) => panic!("the connection is held: {error}"),
        };
    }
    assert!(
        read == 0 || next[..read].starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&next[..read])
    );
}
