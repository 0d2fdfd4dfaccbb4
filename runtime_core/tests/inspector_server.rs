//! The inspector's WebSocket endpoint as a debugger finds and uses it: `/json/list`, the
//! `Host` check, and a WebSocket session that sets a breakpoint, is paused by a call,
//! evaluates on the paused frame and resumes. Built with `--features inspector-server`.
#![cfg(feature = "inspector-server")]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::rc::Rc;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::tokio;
use runtime_core::inspector::InspectorServer;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{Runtime, RuntimeOptions};
use serde_json::{json, Value};
use tungstenite::Message;

const PLUGIN: &str = "file:///plugin/main.js";

fn get(address: SocketAddr, path: &str, host: &str) -> (String, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

#[test]
fn devtools_finds_the_target_and_debugs_it_over_a_websocket() {
    let mut runtime = Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(StaticModuleLoader::new([(
            PLUGIN.to_owned(),
            ModuleSource::js(
                "export function onEvent(n) {\n  const twice = n * 2;\n  return twice;\n}\n",
            ),
        )]))),
        inspector: true,
        ..Default::default()
    });
    let tokio = tokio();
    let id = tokio.block_on(runtime.load_main_module(PLUGIN)).unwrap();
    tokio.block_on(runtime.mod_evaluate(id)).unwrap();
    let on_event = runtime.module_function(id, "onEvent").unwrap();

    let server =
        InspectorServer::start_for(runtime.inspector(), "127.0.0.1:0", "plugin", PLUGIN).unwrap();
    let (status, body) = get(server.address(), "/json/list", "127.0.0.1");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list[0]["webSocketDebuggerUrl"], server.websocket_url());
    assert_eq!(list[0]["title"], "plugin");
    // The main module's URL, as the host named it (it showed "file://" whatever it was).
    assert_eq!(list[0]["url"], PLUGIN);
    let (status, _) = get(server.address(), "/json/list", "rebound.example:9229");
    assert_eq!(status, "HTTP/1.1 403 Forbidden");

    let url = server.websocket_url();
    let (breakpoint_set, breakpoint_was_set) = mpsc::channel();
    let debugger = thread::spawn(move || {
        let stream =
            TcpStream::connect(url.trim_start_matches("ws://").split('/').next().unwrap()).unwrap();
        let (mut socket, _) = tungstenite::client(url.as_str(), stream).unwrap();
        let mut send = |id: u64, method: &str, params: Value| {
            socket
                .send(Message::text(
                    json!({ "id": id, "method": method, "params": params }).to_string(),
                ))
                .unwrap();
        };
        send(1, "Runtime.enable", json!({}));
        send(2, "Debugger.enable", json!({}));
        send(
            3,
            "Debugger.setBreakpointByUrl",
            json!({ "url": PLUGIN, "lineNumber": 2 }),
        );
        let next = |socket: &mut tungstenite::WebSocket<TcpStream>,
                    want: &dyn Fn(&Value) -> bool| loop {
            let Message::Text(text) = socket.read().unwrap() else {
                continue;
            };
            let message: Value = serde_json::from_str(text.as_str()).unwrap();
            if want(&message) {
                return message;
            }
        };
        let set = next(&mut socket, &|m| m["id"] == 3);
        assert_eq!(set["result"]["locations"][0]["lineNumber"], 2, "{set}");
        breakpoint_set.send(()).unwrap();
        let paused = next(&mut socket, &|m| m["method"] == "Debugger.paused");
        let frame = paused["params"]["callFrames"][0]["callFrameId"].clone();
        socket
            .send(Message::text(json!({ "id": 4, "method": "Debugger.evaluateOnCallFrame", "params": { "callFrameId": frame, "expression": "twice + n" } }).to_string()))
            .unwrap();
        let evaluated = next(&mut socket, &|m| m["id"] == 4);
        socket
            .send(Message::text(
                json!({ "id": 5, "method": "Debugger.resume" }).to_string(),
            ))
            .unwrap();
        next(&mut socket, &|m| m["id"] == 5);
        evaluated["result"]["result"]["value"].clone()
    });
    // The runtime is idle until the call: it hands the messages over as they come.
    let started = Instant::now();
    while breakpoint_was_set.try_recv().is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the debugger set no breakpoint"
        );
        runtime.dispatch_inspector_messages();
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(runtime.call::<u32>(&on_event, (7,)).unwrap(), 14);
    assert_eq!(debugger.join().unwrap(), 21);
    drop(server);
}

/// A runtime with an inspector served on a free port.
fn served() -> (Runtime, InspectorServer) {
    let mut runtime = Runtime::new(RuntimeOptions {
        inspector: true,
        ..Default::default()
    });
    let server = InspectorServer::start(runtime.inspector(), "127.0.0.1:0", "t").unwrap();
    (runtime, server)
}

/// The status line of the answer to a WebSocket upgrade at `path` with `origin`.
fn upgrade(address: SocketAddr, path: &str, origin: Option<&str>) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let origin = origin.map_or(String::new(), |origin| format!("Origin: {origin}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{origin}\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut byte = [0u8];
    while !answer.ends_with(b"\r\n") && stream.read(&mut byte).unwrap() == 1 {
        answer.push(byte[0]);
    }
    String::from_utf8(answer).unwrap().trim_end().to_owned()
}

#[test]
fn a_web_page_cannot_attach() {
    // The target's id was a hash of the pid and the port, and any Origin was upgraded: a page
    // in the developer's browser could guess the URL and evaluate code.
    let (_runtime, server) = served();
    let (_other_runtime, other) = served();
    let path = |server: &InspectorServer| {
        let url = server.websocket_url();
        url[url.rfind('/').unwrap()..].to_owned()
    };
    assert_ne!(path(&server)[1..], path(&other)[1..]);
    let address = server.address();
    assert_eq!(
        upgrade(address, &path(&server), Some("http://localhost:8080")),
        "HTTP/1.1 403 Forbidden"
    );
    assert_eq!(
        upgrade(address, &path(&server), Some("https://evil.example")),
        "HTTP/1.1 403 Forbidden"
    );
    assert_eq!(
        upgrade(address, &path(&server), Some("devtools://devtools")),
        "HTTP/1.1 101 Switching Protocols"
    );
    assert_eq!(
        upgrade(address, &path(&server), None),
        "HTTP/1.1 101 Switching Protocols"
    );
}

#[test]
fn clients_that_never_finish_their_head_are_dropped_and_serving_goes_on() {
    use runtime_core::inspector::{HEAD_TIMEOUT, MAX_CONNECTIONS};
    // Each was polled every 10 ms forever, holding a thread.
    let (_runtime, server) = served();
    let stalled: Vec<TcpStream> = (0..MAX_CONNECTIONS)
        .map(|_| {
            let mut stream = TcpStream::connect(server.address()).unwrap();
            write!(stream, "GET /json HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
            stream
        })
        .collect();
    // One more than are served at once: closed as it comes.
    let mut extra = TcpStream::connect(server.address()).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    match extra.read(&mut [0u8; 16]) {
        Ok(read) => assert_eq!(read, 0),
        Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset),
    }
    // Each stalled one is closed once its time is up.
    let started = Instant::now();
    for mut stream in stalled {
        stream.set_read_timeout(Some(HEAD_TIMEOUT * 6)).unwrap();
        // Closed with the head unread: an end, or a reset.
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => assert!(rest.is_empty()),
            Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset),
        }
    }
    assert!(started.elapsed() >= HEAD_TIMEOUT / 2);
    let (status, _) = get(server.address(), "/json/list", "127.0.0.1");
    assert_eq!(status, "HTTP/1.1 200 OK");
}
