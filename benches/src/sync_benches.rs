//! The sync benches: deno_core 0.413's `ops_sync` harness around one op each (see the crate's
//! docs), the table of them, and one bench's run.

use std::rc::Rc;

use runtime_core::{v8, Runtime, RuntimeOptions};

use crate::report::BenchResult;
use crate::{class_ops, measure, ops, structured_ops, Plan};

/// One benchmark: the harness around one op.
pub(crate) struct Bench {
    /// deno's bench name without `bench_`, or opwire's own (never colliding with deno's).
    pub(crate) name: &'static str,
    /// The op (or floor) on the ops object that the wrapper calls.
    pub(crate) op: &'static str,
    /// The wrapper's parameter count (deno passes 1 to some ops that take none).
    pub(crate) args: usize,
    /// The loop body: calls the wrapper, named like the op.
    pub(crate) call: &'static str,
    /// Loop iterations per `bench()`: 1000, or 5 for the 1,000,000-character strings.
    pub(crate) count: u32,
    /// JavaScript run before the harness (opwire's own benches only).
    pub(crate) setup: &'static str,
    /// Why the bench cannot run yet (a kind opwire lacks), if so.
    pub(crate) pending: Option<&'static str>,
}

pub(crate) const COUNT: u32 = 1000;
pub(crate) const LARGE_COUNT: u32 = 5;

/// A bench as deno writes it: `bench_op(b, count, op, arg_count, call)`.
pub(crate) const fn deno(
    name: &'static str,
    count: u32,
    op: &'static str,
    args: usize,
    call: &'static str,
) -> Bench {
    Bench {
        name,
        op,
        args,
        call,
        count,
        setup: "",
        pending: None,
    }
}

pub(crate) const fn own(
    name: &'static str,
    op: &'static str,
    args: usize,
    call: &'static str,
    setup: &'static str,
) -> Bench {
    Bench {
        setup,
        ..deno(name, COUNT, op, args, call)
    }
}

/// `accum += op(LITERAL);`, as deno's string benches write it.
macro_rules! literal_call {
    ($op:literal) => {
        concat!(
            "accum += ",
            $op,
            "('this is a reasonably long string that we would like to get the length of!');"
        )
    };
}

/// deno_core 0.413 `benches/ops/sync.rs`, in its order, then opwire's own and the floors.
pub(crate) const BENCHES: &[Bench] = &[
    deno("baseline", COUNT, "op_void", 0, "accum += __index__;"),
    deno("op_void", COUNT, "op_void", 0, "op_void()"),
    deno("op_void_2x", COUNT, "op_void", 0, "op_void(); op_void()"),
    deno("op_void_nofast", COUNT, "op_void_nofast", 0, "op_void_nofast();"),
    deno("op_void_no_side_effects", COUNT, "op_void_no_side_effects", 0, "op_void_no_side_effects();"),
    deno("op_void_nofast_no_side_effects", COUNT, "op_void_nofast_no_side_effects", 0, "op_void_nofast_no_side_effects();"),
    deno("op_void_metrics", COUNT, "op_void_metrics", 0, "op_void_metrics()"),
    deno("op_void_nofast_metrics", COUNT, "op_void_nofast_metrics", 0, "op_void_nofast_metrics()"),
    deno("op_u32", COUNT, "op_u32", 0, "accum += op_u32();"),
    deno("op_option_u32", COUNT, "op_option_u32", 0, "accum += op_option_u32();"),
    deno("op_string_bytestring", COUNT, "op_string_bytestring", 1, literal_call!("op_string_bytestring")),
    deno("op_string_bytestring_no_side_effects", COUNT, "op_string_bytestring_no_side_effects", 1, literal_call!("op_string_bytestring_no_side_effects")),
    deno("op_string", COUNT, "op_string", 1, literal_call!("op_string")),
    deno("op_string_large_1000", COUNT, "op_string", 1, "accum += op_string(LARGE_STRING_1000);"),
    deno("op_string_large_1000000", LARGE_COUNT, "op_string", 1, "accum += op_string(LARGE_STRING_1000000);"),
    deno("op_string_onebyte", COUNT, "op_string_onebyte", 1, literal_call!("op_string_onebyte")),
    deno("op_string_onebyte_large_1000", COUNT, "op_string_onebyte", 1, "accum += op_string_onebyte(LARGE_STRING_1000);"),
    deno("op_string_onebyte_large_1000000", LARGE_COUNT, "op_string_onebyte", 1, "accum += op_string_onebyte(LARGE_STRING_1000000);"),
    deno("op_string_large_utf8_1000", COUNT, "op_string", 1, "accum += op_string(LARGE_STRING_UTF8_1000);"),
    deno("op_string_large_utf8_1000000", LARGE_COUNT, "op_string", 1, "accum += op_string(LARGE_STRING_UTF8_1000000);"),
    deno("op_string_option_u32", COUNT, "op_string_option_u32", 1, literal_call!("op_string_option_u32")),
    deno("op_string_serde", COUNT, "op_string_serde", 1, literal_call!("op_string_serde")),
    deno("op_string_serde_large_1000", COUNT, "op_string_serde", 1, "accum += op_string_serde(LARGE_STRING_1000);"),
    deno("op_string_serde_large_utf8_1000", COUNT, "op_string_serde", 1, "accum += op_string_serde(LARGE_STRING_UTF8_1000);"),
    deno("op_string_owned", COUNT, "op_string_owned", 1, literal_call!("op_string_owned")),
    deno("op_string_owned_large_1000", COUNT, "op_string_owned", 1, "accum += op_string_owned(LARGE_STRING_1000);"),
    deno("op_string_owned_large_utf8_1000", COUNT, "op_string_owned", 1, "accum += op_string_owned(LARGE_STRING_UTF8_1000);"),
    deno("op_v8_local", COUNT, "op_local", 1, "op_local('this is a reasonably long string that we would like to get the length of!');"),
    deno("op_v8_local_scope", COUNT, "op_local_scope", 1, "op_local_scope('this is a reasonably long string that we would like to get the length of!');"),
    deno("op_v8_local_nofast", COUNT, "op_local_nofast", 1, "op_local_nofast('this is a reasonably long string that we would like to get the length of!');"),
    deno("op_bigint", COUNT, "op_bigint", 1, "op_bigint(0n);"),
    deno("op_bigint_return", COUNT, "op_bigint_return", 1, "accum += op_bigint_return();"),
    deno("op_v8_scope", COUNT, "op_scope", 1, "op_scope();"),
    deno("op_v8_isolate_nofast", COUNT, "op_isolate_nofast", 1, "op_isolate_nofast();"),
    deno("op_external", COUNT, "op_external", 1, "op_external(EXTERNAL)"),
    deno("op_external_nofast", COUNT, "op_external_nofast", 1, "op_external_nofast(EXTERNAL)"),
    deno("op_buffer", COUNT, "op_buffer", 1, "op_buffer(BUFFER)"),
    deno("op_buffer_jsbuffer", COUNT, "op_buffer_jsbuffer", 1, "op_buffer_jsbuffer(BUFFER)"),
    deno("op_buffer_nofast", COUNT, "op_buffer_nofast", 1, "op_buffer_nofast(BUFFER)"),
    deno("op_arraybuffer", COUNT, "op_arraybuffer", 1, "op_arraybuffer(ARRAYBUFFER)"),
    // opwire's own: flat strings (the fast path), Latin-1 around the stack buffer, returns.
    own("op_string_flat_1000", "op_string", 1, "accum += op_string(FLAT);", "const FLAT = %FlattenString('*'.repeat(1000));"),
    own("op_string_owned_flat_1000", "op_string_owned", 1, "accum += op_string_owned(FLAT);", "const FLAT = %FlattenString('*'.repeat(1000));"),
    own("op_string_latin1_flat_100", "op_string", 1, "accum += op_string(FLAT);", "const FLAT = %FlattenString('é'.repeat(100));"),
    own("op_string_latin1_flat_400", "op_string", 1, "accum += op_string(FLAT);", "const FLAT = %FlattenString('é'.repeat(400));"),
    own("op_string_owned_latin1_flat_100", "op_string_owned", 1, "accum += op_string_owned(FLAT);", "const FLAT = %FlattenString('é'.repeat(100));"),
    own("op_string_return", "op_string_return", 0, "accum += op_string_return().length;", ""),
    own("op_string_return_large_1000", "op_string_return_large_1000", 0, "accum += op_string_return_large_1000().length;", ""),
    own("op_string_return_utf8_1000", "op_string_return_utf8_1000", 0, "accum += op_string_return_utf8_1000().length;", ""),
    own("op_static_str_return", "op_static_str_return", 0, "accum += op_static_str_return().length;", ""),
    // Structured values: deno's serde benches through the derive, and an object of 8 fields
    // in and out through the derive, serde and a hand-written impl.
    own("op_string_serde_derive", "op_string_derive", 1, literal_call!("op_string_derive"), ""),
    own("op_string_serde_large_1000_derive", "op_string_derive", 1, "accum += op_string_derive(LARGE_STRING_1000);", ""),
    own("op_string_serde_large_utf8_1000_derive", "op_string_derive", 1, "accum += op_string_derive(LARGE_STRING_UTF8_1000);", ""),
    own("op_object_in_derive", "op_object_in_derive", 1, "accum += op_object_in_derive(RECORD);", structured_ops::RECORD_JS),
    own("op_object_in_serde", "op_object_in_serde", 1, "accum += op_object_in_serde(RECORD);", structured_ops::RECORD_JS),
    own("op_object_in_hand", "op_object_in_hand", 1, "accum += op_object_in_hand(RECORD);", structured_ops::RECORD_JS),
    own("op_object_out_derive", "op_object_out_derive", 1, "accum += op_object_out_derive(__index__).id;", ""),
    own("op_object_out_serde", "op_object_out_serde", 1, "accum += op_object_out_serde(__index__).id;", ""),
    own("op_object_out_hand", "op_object_out_hand", 1, "accum += op_object_out_hand(__index__).id;", ""),
    // Classes (`#[op] impl`): each beside its free-op equivalent above (`op_void`,
    // `op_void_nofast`, `op_u32`) or below (`construct_factory`).
    own("op_object_void", "op_object_void", 1, "op_object_void(OBJECT)", "const OBJECT = new ops.BenchObject();"),
    own("op_object_u32", "op_object_u32", 1, "accum += op_object_u32(OBJECT);", "const OBJECT = new ops.BenchObject();"),
    own("op_object_void_nofast", "op_object_void_nofast", 1, "op_object_void_nofast(OBJECT)", "const OBJECT = new ops.BenchObject();"),
    own("method_void", "op_void", 0, "OBJECT.method_void()", "const OBJECT = new ops.BenchObject();"),
    own("method_void_nofast", "op_void", 0, "OBJECT.method_void_nofast()", "const OBJECT = new ops.BenchObject();"),
    own("getter_u32", "op_void", 0, "accum += OBJECT.value;", "const OBJECT = new ops.BenchObject();"),
    own("construct", "op_void", 0, "accum += (new BenchObject()).value;", "const { BenchObject } = ops;"),
    own("construct_factory", "op_make_object", 0, "accum += op_make_object().value;", ""),
    // `op_void` in a runtime made with its inspector, and with a debugger attached (a session
    // with the debugger enabled): what inspecting costs a call.
    own("op_void_inspector", "op_void", 0, "op_void()", ""),
    own("op_void_debugger", "op_void", 0, "op_void()", ""),
    // The floors, in the same harness.
    own("floor_raw_fast_call", "raw_fast_noop", 0, "raw_fast_noop()", ""),
    own("floor_raw_slow_call", "raw_slow_noop", 0, "raw_slow_noop()", ""),
    own("floor_raw_fast_view_bytes", "raw_fast_view_bytes", 1, "raw_fast_view_bytes(BUFFER)", ""),
    own("floor_raw_fast_bigint", "raw_fast_bigint", 1, "raw_fast_bigint(0n);", ""),
    own("floor_raw_fast_pointer", "raw_fast_pointer", 1, "raw_fast_pointer(EXTERNAL)", ""),
    own("floor_js_call", "js_noop", 0, "js_noop()", "ops.js_noop = function () {}; %NeverOptimizeFunction(ops.js_noop);"),
];

/// deno_core 0.413's `sync_harness.js` (the binding aside: `ops` for `Deno.core.ops`).
pub(crate) const HARNESS: &str = r#"const LARGE_STRING_1000000 = "*".repeat(1000000);
const LARGE_STRING_1000 = "*".repeat(1000);
const LARGE_STRING_UTF8_1000000 = "\u1000".repeat(1000000);
const LARGE_STRING_UTF8_1000 = "\u1000".repeat(1000);
const BUFFER = new Uint8Array(1024);
const ARRAYBUFFER = new ArrayBuffer(1024);
const { __OP__: op } = ops;
const { op_make_external } = ops;
const EXTERNAL = op_make_external();

function __OP__(__ARGS__) {
  return op(__ARGS__);
}

let accum = __INIT__;
let __index__ = 0;
__PERCENT__PrepareFunctionForOptimization(__OP__);
__CALL__;
__PERCENT__OptimizeFunctionOnNextCall(__OP__);
__CALL__;

function bench() {
  let accum = __INIT__;
  for (let __index__ = 0; __index__ < __COUNT__; __index__++) __CALL__;
  return accum;
}
__PERCENT__PrepareFunctionForOptimization(bench);
bench();
__PERCENT__OptimizeFunctionOnNextCall(bench);
bench();
"#;

/// The harness for one bench, with deno's substitutions; ends with `bench` as its value.
pub(crate) fn bench_source(bench: &Bench, count: u32) -> String {
    let args = (0..bench.args)
        .map(|n| format!("arg{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let init = if bench.op.contains("bigint") {
        "0n"
    } else {
        "0"
    };
    let mut harness = HARNESS.to_owned();
    for (key, value) in [
        ("PERCENT", "%"),
        ("CALL", bench.call),
        ("COUNT", &count.to_string()),
        ("ARGS", &args),
        ("OP", bench.op),
        ("INIT", init),
    ] {
        harness = harness.replace(&format!("__{key}__"), value);
    }
    format!("{}\n{harness}\nbench", bench.setup)
}

/// A runtime with the bench ops and the floors; as deno's bench runtime, a (do-nothing)
/// metrics observer for the ops whose names end in `_metrics`.
pub(crate) fn new_runtime(op_call_counters: bool) -> Runtime {
    new_runtime_inspected(op_call_counters, false)
}

pub(crate) fn new_runtime_inspected(op_call_counters: bool, inspector: bool) -> Runtime {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![
            ops::extension(),
            structured_ops::extension(),
            class_ops::extension(),
        ],
        op_call_counters,
        op_metrics_factory_fn: Some(Box::new(|decl| {
            decl.name()
                .ends_with("_metrics")
                .then(|| Rc::new(|_: &_, _, _| {}) as runtime_core::OpMetricsFn)
        })),
        inspector,
        ..Default::default()
    });
    runtime.with_scope(ops::install_floors);
    runtime
}

/// The session of the `_debugger` rows: connected, its debugger and runtime agents enabled.
pub(crate) fn attach_debugger(runtime: &mut Runtime) -> runtime_core::inspector::InspectorSession {
    let session = runtime.inspector().connect();
    session.send(r#"{"id":1,"method":"Runtime.enable"}"#);
    session.send(r#"{"id":2,"method":"Debugger.enable"}"#);
    runtime.dispatch_inspector_messages();
    session
}

pub(crate) fn run_bench(bench: &Bench, count: u32, plan: &Plan) -> BenchResult {
    let source = bench_source(bench, count);
    // The baseline does not call its op; the floors are not ops; a class bench's path is its
    // member's.
    let path = if let Some(member) = class_ops::member_op(bench.name) {
        path_taken(&source, member)
    } else if bench.call.contains(bench.op) && bench.op.starts_with("op_") {
        path_taken(&source, bench.op)
    } else {
        "n/a"
    };

    let inspected = bench.name.ends_with("_inspector") || bench.name.ends_with("_debugger");
    let mut runtime = new_runtime_inspected(false, inspected);
    let _session = bench
        .name
        .ends_with("_debugger")
        .then(|| attach_debugger(&mut runtime));
    let bench_fn = runtime
        .execute_script(bench.name, &source)
        .unwrap_or_else(|err| panic!("{}: {err}", bench.name));
    let (samples, allocs, bytes, calls) = runtime.with_scope(|scope| {
        let bench_fn = v8::Local::new(scope, &bench_fn);
        let bench_fn =
            v8::Local::<v8::Function>::try_from(bench_fn).expect("the script ends with bench");
        let receiver = v8::undefined(scope).into();
        let call_bench = |times: u64| {
            v8::scope!(let scope, scope);
            for _ in 0..times {
                bench_fn
                    .call(scope, receiver, &[])
                    .expect("bench() does not throw");
            }
        };
        measure(plan, count, call_bench)
    });
    BenchResult::from_samples(bench.name, samples, allocs, bytes, calls, path)
}

/// Runs the bench once more in a runtime with op call counters on: which path did the
/// optimized `bench()` take?
pub(crate) fn path_taken(source: &str, op: &str) -> &'static str {
    let mut runtime = new_runtime(true);
    runtime
        .execute_script("path", source)
        .expect("bench source runs");
    runtime.reset_op_call_counts();
    runtime
        .execute_script("path", "bench()")
        .expect("bench() runs");
    let counts = runtime.op_call_counts(op).expect("the op is registered");
    match (counts.fast, counts.slow) {
        (_, 0) if counts.fast > 0 => "fast",
        (0, _) => "slow",
        _ => "mixed",
    }
}
