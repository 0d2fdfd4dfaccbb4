//! Memory budgets that hold (issue 38, 1-3). Each case runs in a child process of this test
//! binary: a case that would end the process (V8's fatal out-of-memory error, as some did)
//! fails its test instead of the run, and each child's peak resident memory is its own.

use runtime_core::{op, Extension, HeapLimits, JsErrorKind, Runtime, RuntimeOptions};

/// A buffer an op made (`ops.op_bytes(n)`): memory V8 counts as external, which no
/// allocation of V8's lent and so none refused.
#[op]
fn op_bytes(#[smi] length: u32) -> Vec<u8> {
    vec![1; length as usize]
}

/// A WebAssembly module: memory `m` (1 page, at most 16,384), `grow(pages)` and
/// `fill(at, byte, len)` (`memory.grow` and `memory.fill` from its own code).
const WASM: &str =
    "new Uint8Array([0,97,115,109,1,0,0,0, 1,12,2,96,1,127,1,127,96,3,127,127,127,0, \
    3,3,2,0,1, 5,6,1,1,1,128,128,1, 7,19,3,1,109,2,0,4,103,114,111,119,0,0,4,102,105,108,108,0,1, \
    10,20,2,6,0,32,0,64,0,11,11,0,32,0,32,1,32,2,252,11,0,11])";

/// How a case's runtime is limited.
#[derive(Clone, Copy)]
enum Limit {
    /// `memory_limit`, in MiB.
    Budget(usize),
    /// `heap_limits.max`, in MiB.
    Heap(usize),
}

/// What the child saw: the script's outcome, whether the runtime then ran `1 + 1`, its heap
/// limit after, and its peak resident memory in MiB.
#[derive(Debug)]
struct Outcome {
    result: Result<(), (JsErrorKind, String)>,
    after: bool,
    heap_limit_mib: usize,
    peak_mib: usize,
}

fn peak_mib() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| {
            kb.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
        })
        .map_or(0, |kb| kb >> 10)
}

/// The child: runs `OPWIRE_SCRIPT` `OPWIRE_REPEAT` times in a runtime limited as
/// `OPWIRE_LIMIT` says, and prints what it saw.
#[test]
fn child() {
    let (Ok(script), Ok(limit)) = (
        std::env::var("OPWIRE_SCRIPT"),
        std::env::var("OPWIRE_LIMIT"),
    ) else {
        return;
    };
    let repeat: usize = std::env::var("OPWIRE_REPEAT").map_or(1, |n| n.parse().unwrap());
    let (kind, mib) = limit.split_once(':').unwrap();
    let mib: usize = mib.parse().unwrap();
    let mut options = RuntimeOptions {
        extensions: vec![Extension::new("bytes").ops(&[op_bytes::DECL])],
        ..Default::default()
    };
    match kind {
        "budget" => options.memory_limit = Some(mib << 20),
        _ => {
            options.heap_limits = Some(HeapLimits {
                initial: 0,
                max: mib << 20,
            })
        }
    }
    let mut rt = Runtime::new(options);
    let mut result = Ok(());
    for _ in 0..repeat {
        result = rt
            .execute_script("case.js", &script)
            .map(drop)
            .map_err(|e| (e.kind, format!("{}: {}", e.class_name, e.message)));
    }
    let after = rt.execute_script_to_string("after.js", "1 + 1").ok() == Some("2".into());
    let heap_limit_mib = rt.isolate().get_heap_statistics().heap_size_limit() >> 20;
    println!(
        "OUTCOME {}",
        serde_json::json!({
            "ok": result.is_ok(),
            "kind": result.as_ref().err().map(|(kind, _)| format!("{kind:?}")),
            "message": result.as_ref().err().map(|(_, message)| message.clone()),
            "after": after,
            "heap_limit_mib": heap_limit_mib,
            "peak_mib": peak_mib(),
        })
    );
}

fn run(script: &str, limit: Limit, repeat: usize) -> Outcome {
    let limit = match limit {
        Limit::Budget(mib) => format!("budget:{mib}"),
        Limit::Heap(mib) => format!("heap:{mib}"),
    };
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env("OPWIRE_SCRIPT", script)
        .env("OPWIRE_LIMIT", limit)
        .env("OPWIRE_REPEAT", repeat.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The harness prints the test's name on the same line, before it.
    let found = stdout
        .lines()
        .find_map(|line| line.split_once("OUTCOME ").map(|(_, json)| json));
    let Some(line) = found else {
        panic!(
            "the child died ({:?}) running {script}:\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    let result = if value["ok"].as_bool().unwrap() {
        Ok(())
    } else {
        let kind = match value["kind"].as_str().unwrap() {
            "OutOfMemory" => JsErrorKind::OutOfMemory,
            "Terminated" => JsErrorKind::Terminated,
            _ => JsErrorKind::Exception,
        };
        Err((kind, value["message"].as_str().unwrap().to_owned()))
    };
    Outcome {
        result,
        after: value["after"].as_bool().unwrap(),
        heap_limit_mib: value["heap_limit_mib"].as_u64().unwrap() as usize,
        peak_mib: value["peak_mib"].as_u64().unwrap() as usize,
    }
}

/// The script failed as the language says (a `RangeError`) or ended as out of memory.
fn refused(outcome: &Outcome) -> bool {
    match &outcome.result {
        Err((JsErrorKind::OutOfMemory, _)) => true,
        Err((JsErrorKind::Exception, message)) => message.starts_with("RangeError: "),
        _ => false,
    }
}

#[test]
fn memory_outside_the_heap_counts_against_the_budget() {
    // Issue 38, 1: under a 64 MiB heap limit, each of these passed 1.5 GB.
    let cases = [
        "globalThis.keep = []; for (let i = 0; i < 6; i++) keep.push(new Uint8Array(256 * 2 ** 20).fill(1));",
        "new Uint8Array(2 ** 31).fill(1);",
        "const b = new ArrayBuffer(0, { maxByteLength: 2 ** 30 }); b.resize(2 ** 30); new Uint8Array(b).fill(1);",
        "const m = new WebAssembly.Memory({ initial: 1, maximum: 16384 }); m.grow(16383); new Uint8Array(m.buffer).fill(1);",
        "const m = new WebAssembly.Memory({ initial: 16384 }); new Uint8Array(m.buffer).fill(1);",
        &format!("const i = new WebAssembly.Instance(new WebAssembly.Module({WASM})); i.exports.grow(16383); i.exports.fill(0, 1, 2 ** 30);"),
        "globalThis.held = []; for (;;) held.push(new Uint8Array(8 << 20));",
        // A resizable buffer commits its initial length at once.
        "new Uint8Array(new ArrayBuffer(2 ** 30, { maxByteLength: 2 ** 30 })).fill(1);",
        // A length read twice could say 0 to the check and 1 GiB to V8: it is read once.
        "const b = new ArrayBuffer(0, { maxByteLength: 2 ** 30 }); let n = 0; b.resize({ valueOf: () => (n++ ? 0 : 2 ** 30) }); new Uint8Array(b).fill(1);",
    ];
    for script in cases {
        let outcome = run(script, Limit::Budget(64), 1);
        assert!(refused(&outcome), "{script}: {outcome:?}");
        assert!(outcome.after, "{script}: the runtime lives on: {outcome:?}");
        assert!(outcome.peak_mib < 256, "{script}: {outcome:?}");
    }
    // With the budget full, the few bytes V8 cannot survive being refused (a small typed
    // array moved off its heap) are not refused: no process ends.
    let outcome = run(
        "globalThis.k = []; for (let s = 1 << 24; s; s >>= 1) try { for (;;) k.push(new ArrayBuffer(s)); } catch {}
         new Uint8Array(8).buffer.byteLength;",
        Limit::Budget(64),
        1,
    );
    assert!(outcome.result.is_ok() || refused(&outcome), "{outcome:?}");
    // Within the budget, buffers work.
    let outcome = run(
        "globalThis.held = []; for (let i = 0; i < 4; i++) held.push(new Uint8Array(8 << 20).fill(i));",
        Limit::Budget(64),
        1,
    );
    assert!(outcome.result.is_ok(), "{outcome:?}");
}

#[test]
fn a_huge_single_allocation_ends_the_script_not_the_process() {
    // Issue 38, 2: under a 16 MB heap limit, V8's fatal "Reached heap limit" ended the process.
    let outcome = run("JSON.stringify('x'.repeat(2 ** 26));", Limit::Heap(16), 1);
    assert!(
        matches!(outcome.result, Err((JsErrorKind::OutOfMemory, _))),
        "{outcome:?}"
    );
    assert!(outcome.after, "{outcome:?}");
}

#[test]
fn the_room_lent_to_unwind_is_taken_back_every_time() {
    // Issue 38, 3: after each out-of-memory the limit read 43, 52, 62, ... 1,543 MB.
    let outcome = run(
        "{ const a = []; for (;;) a.push(new Array(1e5).fill(1)); }",
        Limit::Heap(32),
        18,
    );
    assert!(
        matches!(outcome.result, Err((JsErrorKind::OutOfMemory, _))),
        "{outcome:?}"
    );
    assert!(outcome.after, "{outcome:?}");
    assert!(outcome.heap_limit_mib <= 40, "{outcome:?}");
    assert!(outcome.peak_mib < 512, "{outcome:?}");
}

#[test]
fn the_budgets_wrappers_keep_what_scripts_see() {
    let mut rt = Runtime::new(RuntimeOptions {
        memory_limit: Some(64 << 20),
        ..Default::default()
    });
    let seen = rt
        .execute_script_to_string(
            "wrappers.js",
            "class Mine extends ArrayBuffer {}
             const resizable = new ArrayBuffer(8, { maxByteLength: 64 });
             resizable.resize(32);
             const memory = new WebAssembly.Memory({ initial: 1, maximum: 2 });
             memory.grow(1);
             let called = 'no throw';
             try { ArrayBuffer(8); } catch (e) { called = e.name; }
             [new ArrayBuffer(8) instanceof ArrayBuffer, ArrayBuffer.isView(new Uint8Array(1)),
              new Mine(4) instanceof Mine, new Mine(4) instanceof ArrayBuffer, ArrayBuffer.name,
              ArrayBuffer.length, resizable.byteLength, resizable.transfer(16).byteLength,
              memory.buffer.byteLength, memory instanceof WebAssembly.Memory, WebAssembly.Memory.name,
              new SharedArrayBuffer(8, { maxByteLength: 16 }).growable, called,
              ArrayBuffer[Symbol.species] === ArrayBuffer, Mine[Symbol.species] === Mine].join()",
        )
        .unwrap();
    assert_eq!(
        seen,
        "true,true,true,true,ArrayBuffer,1,32,16,131072,true,Memory,true,TypeError,true,true"
    );
    // Issue 47, 8: the wrappers' prototype was the unwrapped constructor, which made a
    // growable buffer of 1 GiB under a 64 MiB budget.
    let unwrapped = rt
        .execute_script_to_string(
            "unwrapped.js",
            "[ArrayBuffer, SharedArrayBuffer, WebAssembly.Memory]
               .filter((c) => Object.getPrototypeOf(c) !== Function.prototype)
               .map((c) => c.name).join()",
        )
        .unwrap();
    assert_eq!(unwrapped, "");
}

#[test]
fn garbage_is_collected_before_the_budget_says_no() {
    // Issue 47, 1: every earlier buffer was garbage, yet the third or fourth call ended as out
    // of memory (the check after a collection counted buffers not yet swept).
    // (A script's completion value is kept: each ends on a string, not on the buffer.)
    let each_call = "{ const b = new Uint8Array(32 << 20); b.fill(1); } 'ok'";
    let outcome = run(each_call, Limit::Budget(64), 12);
    assert!(outcome.result.is_ok(), "{outcome:?}");
    // (Each buffer in a function of its own: a frame's registers keep what they last held.)
    let one_call =
        "function f(i) { new Uint8Array(32 << 20).fill(i); } for (let i = 0; i < 12; i++) f(i);";
    let outcome = run(one_call, Limit::Budget(64), 2);
    assert!(outcome.result.is_ok(), "{outcome:?}");
}

#[test]
fn buffers_an_op_made_and_dropped_never_count_as_held() {
    // 256 MiB of them streamed through a 64 MiB budget: the check after a collection counted
    // those V8 had not yet swept (it sweeps after the collection), and the script ended as
    // out of memory at about 64 MiB though it held one buffer at a time.
    let streamed = "function f() { ops.op_bytes(1 << 20); } for (let i = 0; i < 256; i++) f();";
    let outcome = run(streamed, Limit::Budget(64), 1);
    assert!(outcome.result.is_ok(), "{outcome:?}");
    // Held, they still end the script.
    let held = "globalThis.k = []; for (let i = 0; i < 256; i++) k.push(ops.op_bytes(1 << 20));";
    let outcome = run(held, Limit::Budget(64), 1);
    assert!(refused(&outcome), "{outcome:?}");
    assert!(outcome.after, "{outcome:?}");
}

#[test]
fn a_buffer_past_the_budget_is_a_catchable_range_error() {
    // Issue 47, 2: in a fresh runtime this ended the call as out of memory, uncatchable.
    let outcome = run(
        "try { new ArrayBuffer(512 << 20); throw new Error('allocated'); } \
         catch (e) { if (!(e instanceof RangeError)) throw e; }",
        Limit::Budget(64),
        3,
    );
    assert!(outcome.result.is_ok(), "{outcome:?}");
    // What WebAssembly grows from its own code is seen at a collection: the call ends, and
    // its error says it was the budget, not the heap.
    let outcome = run(
        &format!("const i = new WebAssembly.Instance(new WebAssembly.Module({WASM})); i.exports.grow(16383); i.exports.fill(0, 1, 2 ** 30); for (;;) new Array(100);"),
        Limit::Budget(64),
        1,
    );
    match &outcome.result {
        Err((JsErrorKind::OutOfMemory, message)) => {
            assert!(message.contains("memory limit"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let outcome = run("new ArrayBuffer(512 << 20);", Limit::Budget(64), 1);
    match &outcome.result {
        Err((JsErrorKind::Exception, message)) => {
            assert!(message.starts_with("RangeError: "), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(outcome.after, "{outcome:?}");
}

#[test]
fn a_refused_buffer_lends_the_heap_nothing_it_keeps() {
    // V8 calls the near-heap-limit callback while it collects for a refused buffer; that call
    // does not end the script. A script that then fills the heap still ends at the limit, and
    // the limit is taken back.
    let outcome = run(
        "try { new ArrayBuffer(512 << 20); } catch {}
         { const a = []; for (;;) a.push(new Array(1e5).fill(1)); }",
        Limit::Budget(64),
        4,
    );
    assert!(
        matches!(outcome.result, Err((JsErrorKind::OutOfMemory, _))),
        "{outcome:?}"
    );
    assert!(outcome.after, "{outcome:?}");
    assert!(outcome.heap_limit_mib <= 72, "{outcome:?}");
    assert!(outcome.peak_mib < 512, "{outcome:?}");
}
