//! bench-web: the web platform's microbenchmarks (`benches/web/cases.js`) in an opwire runtime
//! with runtime_web, with the Rust allocations each call makes. Run through
//! `cargo xtask bench-web`, which runs the same file in deno beside it.
//!
//! Prints one JSON object: `{ "<case>": { "ns": <ns a call>, "allocs": <allocations a call> } }`.

use alloc_counter::CountingAllocator;
use runtime_core::{Runtime, RuntimeOptions};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Calls counted for the allocations of each case.
const COUNTED_CALLS: u64 = 1000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|arg| arg == "--quick");
    let filter = args
        .iter()
        .position(|arg| arg == "--filter")
        .and_then(|at| args.get(at + 1))
        .cloned()
        .unwrap_or_default();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: runtime_web::extensions(runtime_web::Groups::ALL),
        ..Default::default()
    });
    runtime
        .execute_script("cases.js", include_str!("../web/cases.js"))
        .expect("the cases load");
    // Async cases settle in the runtime's event loop (their turns are microtasks, done by the
    // time a script returns, but a case may come to wait for more).
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let run = |runtime: &mut Runtime, script: &str| {
        runtime
            .execute_script("<run>", script)
            .expect("the cases run");
        tokio
            .block_on(runtime.run_event_loop())
            .expect("the cases run");
    };
    run(
        &mut runtime,
        &format!(
            "__web_bench.runAll({quick}, {filter:?}).then((out) => {{ globalThis.__out = JSON.stringify(out); }});"
        ),
    );
    let times = runtime
        .execute_script_to_string("<out>", "globalThis.__out")
        .expect("the cases ran");
    let times: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&times).expect("the harness writes JSON");
    let mut out = serde_json::Map::new();
    for (name, ns) in times {
        let script = format!("__web_bench.iterate({name:?}, {COUNTED_CALLS})");
        // Warm first: what a first call makes once (a code cache, a lazily made map) is no
        // call's cost.
        run(&mut runtime, &script);
        let (_, allocs, _) = alloc_counter::count(|| run(&mut runtime, &script));
        let mut entry = serde_json::Map::new();
        entry.insert("ns".into(), ns);
        entry.insert(
            "allocs".into(),
            (allocs as f64 / COUNTED_CALLS as f64).into(),
        );
        out.insert(name, entry.into());
    }
    println!("{}", serde_json::Value::Object(out));
}
