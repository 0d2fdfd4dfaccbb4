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

    let server = InspectorServer::start(runtime.inspector(), "127.0.0.1:0", "plugin").unwrap();
    let (status, body) = get(server.address(), "/json/list", "127.0.0.1");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list[0]["webSocketDebuggerUrl"], server.websocket_url());
    assert_eq!(list[0]["title"], "plugin");
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
