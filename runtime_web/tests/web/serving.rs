//! A host serving a standard fetch handler (`runtime_web::fetch_handler`): bodies stream both
//! ways. A request body the host streams is read as the handler asks; a response made of a
//! stream reaches the host chunk by chunk, ending with an error (never as if whole) when the
//! stream errors or its runtime goes first.

use std::rc::Rc;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Frame;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{v8, Runtime, RuntimeOptions};
use runtime_web::fetch_handler::{self, Answer, RequestBody, ResponseBody};

const HANDLER: &str = r#"
export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/echo") return new Response(request.body);
    if (path === "/text") return new Response(await request.text());
    if (path === "/fails") {
      return new Response(new ReadableStream({
        start(c) { c.enqueue(new Uint8Array([1])); },
        pull(c) { c.error(new Error("the source broke")); },
      }));
    }
    if (path === "/never") return new Response(new ReadableStream({ pull() { return new Promise(() => {}); } }));
    if (path === "/large") return new Response(new Uint8Array(1 << 20).fill(9));
    if (path === "/big") {
      // 1 MiB in one chunk: the host takes it in pieces.
      return new Response(ReadableStream.from([new Uint8Array(1 << 20).fill(7)]));
    }
    if (path === "/small") return new Response(new Uint8Array([0, 0x7f, 0x80, 0xff]));
    if (path === "/ascii") return new Response("plain");
    if (path === "/utf8") return new Response("é€");
    if (path === "/many") {
      const headers = new Headers();
      for (let i = 0; i < 100000; i++) headers.append("x-" + i, "v" + i);
      return new Response(null, { headers });
    }
    if (path === "/set") {
      return new Response("x", { headers: [["b", "1"], ["a", ""], ["b", "2"]] });
    }
    if (path === "/headers") {
      const h = request.headers;
      const read = [h.get("x-id"), h.has("x-id"), h.get("a"), h.has("nope"), h.get("multi"), h.get("empty"), h.get("X-ID")];
      const copy = [...new Headers(h)];
      h.append("late", "1");
      return Response.json({ read, copy, after: [...h], late: h.get("late"), id: h.get("x-id") });
    }
    if (path === "/later") {
      await null;
      return new Response("later");
    }
    if (path === "/not-a-response") return { status: 200 };
    if (path === "/rejects") throw new TypeError("no answer");
    return new Response(null, { status: 404 });
  },
};
"#;

fn serving() -> (Runtime, v8::Global<v8::Function>, tokio::runtime::Runtime) {
    serving_of(HANDLER)
}

fn serving_of(handler: &str) -> (Runtime, v8::Global<v8::Function>, tokio::runtime::Runtime) {
    let loader = StaticModuleLoader::new([(
        "file:///h.js".to_owned(),
        ModuleSource::js(handler.to_owned()),
    )]);
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: runtime_web::extensions(runtime_web::Groups::FETCH),
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let module = tokio
        .block_on(runtime.load_main_module("file:///h.js"))
        .unwrap();
    tokio.block_on(runtime.mod_evaluate(module)).unwrap();
    let serve = fetch_handler::bind(&mut runtime, module).unwrap();
    (runtime, serve, tokio)
}

fn call(
    runtime: &mut Runtime,
    serve: &v8::Global<v8::Function>,
    tokio: &tokio::runtime::Runtime,
    path: &str,
    body: RequestBody,
) -> Answer {
    let arguments = fetch_handler::arguments(
        "POST",
        format!("https://example.com{path}"),
        Vec::new(),
        body,
    );
    let call = runtime.start_call::<Answer>(serve, arguments);
    tokio.block_on(runtime.run_until(call)).unwrap().unwrap()
}

/// The call of `path`'s outcome: its status and body, or its error's message.
fn outcome(
    runtime: &mut Runtime,
    serve: &v8::Global<v8::Function>,
    tokio: &tokio::runtime::Runtime,
    path: &str,
) -> Result<(u16, Vec<u8>), String> {
    let arguments = fetch_handler::arguments(
        "GET",
        format!("https://example.com{path}"),
        Vec::new(),
        RequestBody::None,
    );
    let call = runtime.start_call::<Answer>(serve, arguments);
    match tokio.block_on(runtime.run_until(call)).unwrap() {
        Ok((status, _, body)) => Ok((status, body.bytes().map_or(Vec::new(), |b| b.to_vec()))),
        Err(error) => Err(error.to_string()),
    }
}

/// A body streamed in `chunks`, each a frame.
fn streamed(chunks: &[&'static [u8]]) -> RequestBody {
    RequestBody::stream(Chunks(
        chunks
            .iter()
            .map(|chunk| Bytes::from_static(chunk))
            .collect(),
    ))
}

/// A hyper body of frames given up front.
struct Chunks(std::collections::VecDeque<Bytes>);

impl hyper::body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        std::task::Poll::Ready(self.0.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }
}

/// The streamed body's bytes, the runtime run meanwhile; `Err` when it ended early.
fn read_stream(
    runtime: &mut Runtime,
    tokio: &tokio::runtime::Runtime,
    body: ResponseBody,
) -> Result<Vec<u8>, String> {
    let ResponseBody::Stream(stream) = body else {
        panic!("not a stream: {body:?}");
    };
    let collected = tokio.block_on(runtime.run_until(stream.collect())).unwrap();
    collected
        .map(|collected| collected.to_bytes().to_vec())
        .map_err(|error| error.to_string())
}

#[test]
fn bodies_stream_both_ways() {
    let (mut runtime, serve, tokio) = serving();
    let (status, _, body) = call(
        &mut runtime,
        &serve,
        &tokio,
        "/echo",
        streamed(&[b"ab", b"", b"cde"]),
    );
    assert_eq!(status, 200);
    assert_eq!(read_stream(&mut runtime, &tokio, body).unwrap(), b"abcde");
    let (_, _, body) = call(
        &mut runtime,
        &serve,
        &tokio,
        "/text",
        streamed(&[b"x", b"yz"]),
    );
    assert_eq!(body.bytes().map(|bytes| &bytes[..]), Some(&b"xyz"[..]));
    let (_, _, body) = call(
        &mut runtime,
        &serve,
        &tokio,
        "/text",
        RequestBody::Bytes(Bytes::from_static(b"whole")),
    );
    assert_eq!(body.bytes().map(|bytes| &bytes[..]), Some(&b"whole"[..]));
    // A large body's bytes are taken from V8, a small one's copied: both whole.
    let (_, _, body) = call(&mut runtime, &serve, &tokio, "/large", RequestBody::None);
    assert_eq!(
        body.bytes().map(|bytes| bytes.to_vec()),
        Some(vec![9; 1 << 20])
    );
    let (_, _, body) = call(&mut runtime, &serve, &tokio, "/big", RequestBody::None);
    assert_eq!(
        read_stream(&mut runtime, &tokio, body).unwrap(),
        vec![7; 1 << 20]
    );
}

/// The headers as hyper gives them, packed in one string for JavaScript: read in place, or
/// split into the list, alike. A name that is some other header's value is not taken for it.
#[test]
fn a_hosts_header_map_reads_as_its_list() {
    use hyper::header::{HeaderMap, HeaderName, HeaderValue};
    let (mut runtime, serve, tokio) = serving();
    let mut map = HeaderMap::new();
    for (name, value) in [
        ("a", "x-id"),
        ("x-id", "1"),
        ("multi", "p"),
        ("empty", ""),
        ("multi", "q"),
    ] {
        map.append(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    let expected = r#"{"read":["1",true,"x-id",false,"p, q","","1"],"copy":[["a","x-id"],["empty",""],["multi","p, q"],["x-id","1"]],"after":[["a","x-id"],["empty",""],["late","1"],["multi","p, q"],["x-id","1"]],"late":"1","id":"1"}"#;
    let mut answer = |map: HeaderMap| {
        let arguments =
            fetch_handler::arguments("GET", "https://example.com/headers", map, RequestBody::None);
        let call = runtime.start_call::<Answer>(&serve, arguments);
        let (_, _, body) = tokio.block_on(runtime.run_until(call)).unwrap().unwrap();
        String::from_utf8(body.bytes().unwrap().to_vec()).unwrap()
    };
    assert_eq!(answer(map), expected);
    let none = answer(HeaderMap::new());
    assert!(
        none.contains(r#""read":[null,false,null,false,null,null,null]"#),
        "{none}"
    );
}

/// A whole body reaches the host as its bytes, however it was kept: a small one's, short
/// ASCII text's, and other text's UTF-8.
#[test]
fn whole_bodies_reach_the_host_as_their_bytes() {
    let (mut runtime, serve, tokio) = serving();
    for (path, expected) in [
        ("/small", &[0, 0x7f, 0x80, 0xff][..]),
        ("/ascii", b"plain"),
        ("/utf8", "é€".as_bytes()),
    ] {
        let (_, _, body) = call(&mut runtime, &serve, &tokio, path, RequestBody::None);
        assert_eq!(
            body.bytes().map(|bytes| &bytes[..]),
            Some(expected),
            "{path}"
        );
    }
}

/// The response's headers reach the host as the handler's list has them: in order, a name
/// set twice twice, empty values kept; a response with none has none.
#[test]
fn a_responses_headers_reach_the_host_in_order() {
    let (mut runtime, serve, tokio) = serving();
    let (_, headers, _) = call(&mut runtime, &serve, &tokio, "/set", RequestBody::None);
    let pairs: Vec<(&[u8], &[u8])> = headers.iter().collect();
    assert_eq!(
        pairs,
        [
            (&b"b"[..], &b"1"[..]),
            (b"a", b""),
            (b"b", b"2"),
            (b"content-type", b"text/plain;charset=UTF-8"),
        ]
    );
    assert_eq!((headers.len(), headers.is_empty()), (4, false));
    // 100,000 pairs come over in one string, in order.
    let (_, headers, _) = call(&mut runtime, &serve, &tokio, "/many", RequestBody::None);
    assert_eq!(headers.len(), 100_000);
    let last = headers.iter().last().unwrap();
    assert_eq!(last, (&b"x-99999"[..], &b"v99999"[..]));
    let (status, headers, _) = call(&mut runtime, &serve, &tokio, "/none", RequestBody::None);
    assert_eq!(status, 404);
    assert_eq!(
        (headers.iter().count(), headers.len(), headers.is_empty()),
        (0, 0, true)
    );
}

#[test]
fn a_stream_that_fails_or_outlives_its_runtime_ends_the_body_with_an_error() {
    let (mut runtime, serve, tokio) = serving();
    let (_, _, body) = call(&mut runtime, &serve, &tokio, "/fails", RequestBody::None);
    let error = read_stream(&mut runtime, &tokio, body).unwrap_err();
    assert!(error.contains("errored"), "{error}");
    let (_, _, body) = call(&mut runtime, &serve, &tokio, "/never", RequestBody::None);
    drop(runtime);
    let ResponseBody::Stream(stream) = body else {
        panic!("not a stream");
    };
    let error = tokio.block_on(stream.collect()).unwrap_err().to_string();
    assert!(error.contains("runtime ended"), "{error}");
}

#[test]
fn a_closed_request_body_is_read_no_more() {
    let (mut runtime, serve, tokio) = serving();
    let body = streamed(&[b"never read"]);
    drop(body.closer());
    let arguments = fetch_handler::arguments("POST", "https://example.com/text", Vec::new(), body);
    let call = runtime.start_call::<Answer>(&serve, arguments);
    let error = tokio
        .block_on(runtime.run_until(call))
        .unwrap()
        .unwrap_err();
    assert!(error.to_string().contains("no longer be read"), "{error}");
}

/// A handler's answer is read however it comes: a `Response` returned as it is, an async
/// handler's promise fulfilled by the time it returns or only later; anything else, and a
/// rejection, fail the call.
#[test]
fn a_handlers_answer_is_read_however_it_comes() {
    let (mut runtime, serve, tokio) = serving();
    let mut outcome_of = |path| outcome(&mut runtime, &serve, &tokio, path);
    assert_eq!(outcome_of("/ascii"), Ok((200, b"plain".to_vec())));
    assert_eq!(outcome_of("/later"), Ok((200, b"later".to_vec())));
    let not_a_response = outcome_of("/not-a-response").unwrap_err();
    assert!(not_a_response.contains("TypeError"), "{not_a_response}");
    let rejected = outcome_of("/rejects").unwrap_err();
    assert!(rejected.contains("no answer"), "{rejected}");

    // A promise of a subclass is taken through its own `then`, even when it is fulfilled.
    let plain_handler = "class Later extends Promise { \
          then(f, r) { return super.then(() => f(new Response('through then')), r); } } \
        export default { fetch(request) { \
        if (request.url.endsWith('/object')) return { status: 200 }; \
        if (request.url.endsWith('/subclass')) return Later.resolve(new Response('direct')); \
        return new Response('sync', { status: 201 }); } };";
    let (mut runtime, serve, tokio) = serving_of(plain_handler);
    let mut outcome_of = |path| outcome(&mut runtime, &serve, &tokio, path);
    assert_eq!(outcome_of("/"), Ok((201, b"sync".to_vec())));
    assert_eq!(outcome_of("/subclass"), Ok((200, b"through then".to_vec())));
    let not_a_response = outcome_of("/object").unwrap_err();
    assert!(not_a_response.contains("TypeError"), "{not_a_response}");
}

/// A response kept across requests and answered by `clone()` answers whole every time: the
/// host takes a large body's bytes from the clone it is given, never from the one kept.
#[test]
fn a_kept_responses_clones_answer_whole_every_time() {
    let (mut runtime, serve, tokio) = serving_of(
        "const kept = new Response(new Uint8Array(32768).fill(7)); \
         export default { fetch: () => kept.clone() };",
    );
    for request in 0..3 {
        let (status, body) = outcome(&mut runtime, &serve, &tokio, "/").unwrap();
        assert_eq!(
            (status, body.len(), body.iter().all(|&byte| byte == 7)),
            (200, 32768, true),
            "request {request}"
        );
    }
}
