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
    let times = runtime
        .execute_script_to_string(
            "<run>",
            &format!("JSON.stringify(__web_bench.runAll({quick}, {filter:?}))"),
        )
        .expect("the cases run");
    let times: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&times).expect("the harness writes JSON");
    let mut out = serde_json::Map::new();
    for (name, ns) in times {
        let script = format!("__web_bench.iterate({name:?}, {COUNTED_CALLS})");
        // Warm first: what a first call makes once (a code cache, a lazily made map) is no
        // call's cost.
        runtime
            .execute_script("<warm>", &script)
            .expect("the case runs");
        let (_, allocs, _) = alloc_counter::count(|| {
            runtime
                .execute_script("<count>", &script)
                .expect("the case runs");
        });
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
