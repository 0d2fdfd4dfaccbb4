//! The inspector through the DevTools protocol itself: a breakpoint set by URL in an ES module
//! is hit from a call, an expression is evaluated on the paused frame, a step goes to the next
//! line, the call resumes and returns; `console.log` reaches the session; the profilers work;
//! waiting for a debugger and breaking on the first statement; a paused runtime still obeys a
//! termination.

use crate::common;

use std::rc::Rc;
use std::thread;
use std::time::{Duration, Instant};

use common::tokio;
use runtime_core::inspector::InspectorSession;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{JsErrorKind, Runtime, RuntimeOptions};
use serde_json::{json, Value};

const HANDLER: &str = "file:///app/handler.js";
const WAIT: Duration = Duration::from_secs(20);

fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(StaticModuleLoader::new([(
            HANDLER.to_owned(),
            ModuleSource::js(
                "export function handle(x) {\n\
                 \x20 const doubled = x * 2;\n\
                 \x20 const result = doubled + 1;\n\
                 \x20 console.log('handled', result);\n\
                 \x20 return result;\n\
                 }\n",
            ),
        )]))),
        console: Some(Rc::new(|_, _| {})),
        inspector: true,
        ..Default::default()
    })
}

/// A protocol client over a session: requests with increasing ids, and the events seen.
struct Client {
    session: InspectorSession,
    next_id: u64,
    events: Vec<Value>,
}

impl Client {
    fn new(session: InspectorSession) -> Self {
        Self {
            session,
            next_id: 1,
            events: Vec::new(),
        }
    }

    /// Sends a request; its id.
    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.session
            .send(json!({ "id": id, "method": method, "params": params }).to_string());
        id
    }

    fn next(&mut self) -> Value {
        let message = self
            .session
            .recv_timeout(WAIT)
            .expect("the runtime answers in time");
        serde_json::from_str(&message).unwrap()
    }

    /// The response to `id` (events before it are kept).
    fn response(&mut self, id: u64) -> Value {
        loop {
            let message = self.next();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    /// The next event `method` (kept ones first).
    fn event(&mut self, method: &str) -> Value {
        if let Some(index) = self.events.iter().position(|e| e["method"] == method) {
            return self.events.remove(index)["params"].clone();
        }
        loop {
            let message = self.next();
            if message["method"] == method {
                return message["params"].clone();
            }
            self.events.push(message);
        }
    }
}

#[test]
fn a_breakpoint_in_a_module_is_hit_evaluated_stepped_and_resumed() {
    let mut runtime = runtime();
    let tokio = tokio();
    let id = tokio.block_on(runtime.load_main_module(HANDLER)).unwrap();
    tokio.block_on(runtime.mod_evaluate(id)).unwrap();
    let handle = runtime.module_function(id, "handle").unwrap();

    let mut client = Client::new(runtime.inspector().connect());
    let enabled = [
        client.send("Runtime.enable", json!({})),
        client.send("Debugger.enable", json!({})),
    ];
    let set = client.send(
        "Debugger.setBreakpointByUrl",
        json!({ "url": HANDLER, "lineNumber": 1 }),
    );
    // The loop is idle: the host hands the messages to the runtime.
    assert_eq!(runtime.dispatch_inspector_messages(), 4);
    for id in enabled {
        client.response(id);
    }
    let breakpoint = client.response(set);
    assert_eq!(breakpoint["locations"][0]["lineNumber"], 1, "{breakpoint}");

    let debugger = thread::spawn(move || {
        let paused = client.event("Debugger.paused");
        let frame = &paused["callFrames"][0];
        assert_eq!(frame["functionName"], "handle");
        assert_eq!(frame["location"]["lineNumber"], 1);
        let frame_id = frame["callFrameId"].as_str().unwrap().to_owned();
        let x = client.send(
            "Debugger.evaluateOnCallFrame",
            json!({ "callFrameId": frame_id, "expression": "x * 10" }),
        );
        assert_eq!(client.response(x)["result"]["value"], 200);

        let step = client.send("Debugger.stepOver", json!({}));
        client.response(step);
        let paused = client.event("Debugger.paused");
        let frame = &paused["callFrames"][0];
        assert_eq!(frame["location"]["lineNumber"], 2);
        let frame_id = frame["callFrameId"].as_str().unwrap().to_owned();
        let doubled = client.send(
            "Debugger.evaluateOnCallFrame",
            json!({ "callFrameId": frame_id, "expression": "doubled" }),
        );
        assert_eq!(client.response(doubled)["result"]["value"], 40);

        let resume = client.send("Debugger.resume", json!({}));
        client.response(resume);
        let logged = client.event("Runtime.consoleAPICalled");
        assert_eq!(logged["type"], "log");
        assert_eq!(logged["args"][0]["value"], "handled");
        assert_eq!(logged["args"][1]["value"], 41);
        client
    });
    // Pauses on line 2 until the debugger thread resumes it.
    assert_eq!(runtime.call::<u32>(&handle, (20,)).unwrap(), 41);
    let mut client = debugger.join().unwrap();

    // The profilers answer through the same session.
    let remove = client.send(
        "Debugger.removeBreakpoint",
        json!({ "breakpointId": breakpoint["breakpointId"] }),
    );
    let profiler = [
        client.send("Profiler.enable", json!({})),
        client.send("Profiler.start", json!({})),
    ];
    runtime.dispatch_inspector_messages();
    client.response(remove);
    for id in profiler {
        client.response(id);
    }
    for n in 0..100 {
        runtime.call::<u32>(&handle, (n,)).unwrap();
    }
    let stop = client.send("Profiler.stop", json!({}));
    let snapshot = client.send("HeapProfiler.takeHeapSnapshot", json!({}));
    runtime.dispatch_inspector_messages();
    let profile = client.response(stop);
    assert!(
        !profile["profile"]["nodes"].as_array().unwrap().is_empty(),
        "{profile}"
    );
    client.response(snapshot);
    let chunks: String = client
        .events
        .iter()
        .filter(|event| event["method"] == "HeapProfiler.addHeapSnapshotChunk")
        .map(|event| event["params"]["chunk"].as_str().unwrap())
        .collect();
    let heap: Value = serde_json::from_str(&chunks).expect("the chunks make one JSON snapshot");
    assert!(
        heap["snapshot"]["node_count"].as_u64().unwrap() > 1000,
        "a heap of many nodes"
    );
}

#[test]
fn a_runtime_waits_for_its_debugger_and_breaks_on_the_first_statement() {
    let mut runtime = runtime();
    let inspector = runtime.inspector();
    let debugger = thread::spawn(move || {
        let mut client = Client::new(inspector.connect());
        let ids = [
            client.send("Runtime.enable", json!({})),
            client.send("Debugger.enable", json!({})),
            client.send("Runtime.runIfWaitingForDebugger", json!({})),
        ];
        for id in ids {
            client.response(id);
        }
        let paused = client.event("Debugger.paused");
        let resume = client.send("Debugger.resume", json!({}));
        client.response(resume);
        (paused, client.events)
    });
    runtime.wait_for_debugger(true);
    assert_eq!(
        runtime
            .execute_script_to_string("start.js", "globalThis.started = 'yes'")
            .unwrap(),
        "yes"
    );
    let (paused, events) = debugger.join().unwrap();
    // The frame names its script by id (its `url` field is deprecated, and empty).
    let script = &paused["callFrames"][0]["location"]["scriptId"];
    let parsed = events
        .iter()
        .find(|event| {
            event["method"] == "Debugger.scriptParsed" && event["params"]["scriptId"] == *script
        })
        .expect("the paused script was reported");
    assert_eq!(parsed["params"]["url"], "start.js", "{parsed}");
}

#[test]
fn a_paused_runtime_is_still_terminated_and_goes_on_after() {
    let mut runtime = runtime();
    let mut client = Client::new(runtime.inspector().connect());
    let ids = [
        client.send("Debugger.enable", json!({})),
        client.send("Debugger.pause", json!({})),
    ];
    runtime.dispatch_inspector_messages();
    for id in ids {
        client.response(id);
    }
    // Paused on the script's first statement with nobody to resume it: the deadline ends it.
    let termination = runtime.termination_handle();
    let watchdog = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        termination.terminate();
    });
    let started = Instant::now();
    let error = runtime
        .execute_script("stuck.js", "let a = 1; a + 1")
        .unwrap_err();
    watchdog.join().unwrap();
    assert_eq!(error.kind, JsErrorKind::Terminated, "{error}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // A session dropped while the runtime waits lets it go on too.
    drop(client);
    assert_eq!(
        runtime
            .execute_script_to_string("after.js", "1 + 1")
            .unwrap(),
        "2"
    );
}

#[test]
fn a_message_wakes_the_event_loop_that_waits_and_is_handled_there() {
    let mut runtime = runtime();
    runtime
        .execute_script("wait.js", "globalThis.timer = setTimeout(() => {}, 30000)")
        .unwrap();
    let inspector = runtime.inspector();
    let debugger = thread::spawn(move || {
        let mut client = Client::new(inspector.connect());
        thread::sleep(Duration::from_millis(100));
        let enable = client.send("Runtime.enable", json!({}));
        client.response(enable);
        let id = client.send(
            "Runtime.evaluate",
            json!({ "expression": "clearTimeout(globalThis.timer); 'cleared'" }),
        );
        client.response(id)
    });
    let started = Instant::now();
    // Parked on the 30 s timer until the message comes: the evaluation clears it.
    tokio().block_on(runtime.run_event_loop()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(debugger.join().unwrap()["result"]["value"], "cleared");
}

#[test]
fn a_snapshot_builder_refuses_an_inspector_and_its_runtime_has_one() {
    // A builder with V8's inspector stopped the process at `build` ("Unknown external
    // reference"): it is refused, and `inspector()` on a builder connects nothing.
    let refused = runtime_core::SnapshotBuilder::new(RuntimeOptions {
        inspector: true,
        ..Default::default()
    });
    assert!(refused.is_err());
    let mut builder = runtime_core::SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
    let session = builder.inspector().connect();
    session.send(r#"{"id":1,"method":"Runtime.enable"}"#);
    assert_eq!(builder.dispatch_inspector_messages(), 0);
    assert!(
        session.recv().is_none(),
        "a builder's session is disconnected"
    );
    builder
        .execute_script("boot.js", "globalThis.booted = 'yes';")
        .unwrap();
    let blob = builder.build().unwrap();
    let mut runtime = Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        inspector: true,
        ..Default::default()
    });
    let mut client = Client::new(runtime.inspector().connect());
    let ids = [
        client.send("Runtime.enable", json!({})),
        client.send("Runtime.evaluate", json!({ "expression": "booted" })),
    ];
    runtime.dispatch_inspector_messages();
    client.response(ids[0]);
    assert_eq!(client.response(ids[1])["result"]["value"], "yes");
}

#[test]
fn a_session_of_a_runtime_that_is_gone_reads_none() {
    // `recv` blocked forever: the connection queued in the inbox (or made after the drop)
    // kept its sender alive.
    let mut rt = runtime();
    let inspector = rt.inspector();
    let queued = inspector.connect();
    assert!(queued.send(r#"{"id":1,"method":"Runtime.enable"}"#));
    drop(rt);
    assert_eq!(queued.recv(), None);
    let later = inspector.connect();
    assert!(!later.send(r#"{"id":1,"method":"Runtime.enable"}"#));
    assert_eq!(later.recv(), None);
}

#[test]
fn what_a_debugger_and_a_runtime_queue_for_each_other_is_bounded() {
    use runtime_core::inspector::{MAX_QUEUED_IN, MAX_QUEUED_OUT};
    // 30 messages of 8 MB sent to a runtime that takes none: all were queued.
    let mut rt = runtime();
    let inspector = rt.inspector();
    let sender = inspector.connect();
    let big = "x".repeat(8 << 20);
    let queued = (0..30).filter(|_| sender.send(big.as_str())).count();
    assert_eq!(queued, MAX_QUEUED_IN / big.len());
    drop(sender);
    rt.dispatch_inspector_messages();

    // A session that reads nothing while the tenant logs 200 MB: all was kept for it.
    let mut client = Client::new(inspector.connect());
    let enabled = client.send("Runtime.enable", json!({}));
    rt.dispatch_inspector_messages();
    client.response(enabled);
    rt.execute_script(
        "logs.js",
        "const line = 'y'.repeat(1 << 20); for (let i = 0; i < 200; i++) console.log(line);",
    )
    .unwrap();
    rt.dispatch_inspector_messages();
    let mut received = 0;
    while let Some(message) = client.session.recv() {
        received += message.len();
    }
    assert!(received <= MAX_QUEUED_OUT, "{received}");
    assert!(received > MAX_QUEUED_OUT / 2, "{received}");
    // The runtime goes on, and a new session is served.
    let mut again = Client::new(inspector.connect());
    let id = again.send(
        "Runtime.evaluate",
        json!({ "expression": "1 + 1", "returnByValue": true }),
    );
    rt.dispatch_inspector_messages();
    assert_eq!(again.response(id)["result"]["value"], 2);
}
