//! What a hostile script tries against a host, each found by trying it: sequences whose
//! `length` is a lie, loops inside promise callbacks, rejections handled late by the million,
//! `Drop`s that panic where V8 or the embedder's executor called, prototype pollution, heap
//! exhaustion; and the corners where errors or receivers differed between paths.

use crate::common;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use common::{eval, init_test_flags, tokio, DESCRIBE_JS};
use runtime_core::{
    op, v8, Extension, FromV8, HeapLimits, JsErrorKind, OpError, Runtime, RuntimeOptions,
    TerminationHandle, ToV8, WebIDL,
};
use serde::Deserialize;

#[op]
fn op_holes(#[from_v8] values: Vec<Option<u8>>) -> u32 {
    values.len() as u32
}

#[op]
fn op_holes_serde(#[serde] values: Vec<Option<u8>>) -> u32 {
    values.len() as u32
}

#[op]
fn op_json(#[serde] value: serde_json::Value) -> u32 {
    value.as_array().map_or(0, Vec::len) as u32
}

#[op]
fn op_sequence(#[webidl] values: Vec<u8>) -> u32 {
    values.len() as u32
}

#[op]
fn op_record(#[from_v8] map: std::collections::BTreeMap<String, Option<u8>>) -> u32 {
    map.len() as u32
}

#[op]
async fn op_tick() {
    tokio::task::yield_now().await;
}

/// Terminates the runtime's JavaScript in 100 ms, from another thread.
fn watchdog(handle: TerminationHandle) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        handle.terminate();
    })
}

fn runtime_with(options: RuntimeOptions) -> Runtime {
    init_test_flags();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("hostile")
            .ops(&[
                op_holes::DECL,
                op_holes_serde::DECL,
                op_json::DECL,
                op_sequence::DECL,
                op_record::DECL,
                op_tick::DECL,
                op_pick::DECL,
                op_pick_serde::DECL,
                op_pick_idl::DECL,
                op_not_a_number::DECL,
                op_not_a_number_async::DECL,
                op_held_legs::DECL,
                op_fragile_future::DECL,
                op_stuck_fragile::DECL,
            ])
            .classes(&[Animal::CLASS, Dog::CLASS, Fragile::CLASS])],
        ..options
    });
    runtime.execute_script("describe.js", DESCRIBE_JS).unwrap();
    runtime
}

fn runtime() -> Runtime {
    runtime_with(RuntimeOptions::default())
}

/// Fault 1: `a.length = 2 ** 32 - 1` is 16 bytes of V8 heap; read element by element into Rust
/// it was gigabytes, reserved up front. Now longer than the runtime's limit is a `RangeError`
/// on every conversion that reads sequences or maps, at once.
#[test]
fn a_sequence_longer_than_the_limit_is_refused_before_any_element_is_read() {
    let mut rt = runtime();
    rt.execute_script("holes.js", "globalThis.a = []; a.length = 2 ** 32 - 1;")
        .unwrap();
    for op in ["op_holes", "op_holes_serde", "op_json"] {
        let out = eval(&mut rt, &format!("ops.{op}(a)"));
        assert!(
            out.starts_with(&format!(
                "throws RangeError: {op}: argument 1 (values): a sequence of 4294967295 elements"
            )) || out.starts_with(&format!(
                "throws RangeError: {op}: argument 1 (value): a sequence of 4294967295 elements"
            )),
            "{op}: {out}"
        );
    }
    // Short sequences still convert, holes and all.
    assert_eq!(
        eval(&mut rt, "ops.op_holes([1, , 3])"),
        "number 3",
        "holes are undefined: None"
    );
}

#[test]
fn the_runtime_sets_the_limit() {
    let mut rt = runtime_with(RuntimeOptions {
        max_sequence_length: 5000,
        ..Default::default()
    });
    assert_eq!(
        eval(&mut rt, "ops.op_holes(new Array(5000).fill(1))"),
        "number 5000"
    );
    let out = eval(&mut rt, "ops.op_holes(new Array(5001).fill(1))");
    assert!(
        out.contains("a sequence of 5001 elements is longer than this runtime converts (5000"),
        "{out}"
    );
    let out = eval(&mut rt, "ops.op_json(new Array(5001).fill(1))");
    assert!(out.contains("a sequence of 5001 elements"), "{out}");
    // An iterable has no length to check first: it is stopped as it passes the limit.
    let out = eval(
        &mut rt,
        "ops.op_sequence((function* () { for (;;) yield 1; })())",
    );
    assert!(
        out.contains("a sequence of more than 5000 elements"),
        "{out}"
    );
    // Maps: an object's keys.
    let out = eval(
        &mut rt,
        "ops.op_record(Object.fromEntries(Array.from({ length: 5001 }, (_, i) => ['k' + i, 1])))",
    );
    assert!(out.contains("a sequence of 5001 elements"), "{out}");
}

/// A conversion runs no JavaScript while it reads plain elements, so V8 checks no interrupt:
/// the conversion itself looks at the termination request every few thousand elements.
/// Issue 38, 4: a limit under the 4,096 elements between two checks was not enforced (limit
/// 10: sequences of 11 and 4,096 elements converted).
#[test]
fn a_limit_under_the_check_interval_holds() {
    let mut rt = runtime_with(RuntimeOptions {
        max_sequence_length: 10,
        ..Default::default()
    });
    assert_eq!(
        eval(&mut rt, "ops.op_holes(new Array(10).fill(1))"),
        "number 10"
    );
    for len in [11, 4096] {
        let out = eval(&mut rt, &format!("ops.op_holes(new Array({len}).fill(1))"));
        assert!(
            out.contains(&format!(
                "a sequence of {len} elements is longer than this runtime converts (10"
            )),
            "{out}"
        );
        let out = eval(&mut rt, &format!("ops.op_json(new Array({len}).fill(1))"));
        assert!(
            out.contains(&format!("a sequence of {len} elements")),
            "{out}"
        );
    }
    let out = eval(
        &mut rt,
        "ops.op_sequence((function* () { for (let i = 0; i < 11; i++) yield 1; })())",
    );
    assert!(out.contains("a sequence of more than 10 elements"), "{out}");
    // Another runtime of the process keeps its own, larger limit.
    let mut other = runtime();
    assert_eq!(
        eval(&mut other, "ops.op_holes(new Array(4096).fill(1))"),
        "number 4096"
    );
    // A limit that is no multiple of the check interval stops an iterable exactly there (it
    // let 5,001 to 8,191 elements through).
    let mut rt = runtime_with(RuntimeOptions {
        max_sequence_length: 5000,
        ..Default::default()
    });
    let yielding = |n: u32| {
        format!("ops.op_sequence((function* () {{ for (let i = 0; i < {n}; i++) yield 1; }})())")
    };
    assert!(!eval(&mut rt, &yielding(5000)).contains("longer"));
    let out = eval(&mut rt, &yielding(5001));
    assert!(
        out.contains("a sequence of more than 5000 elements"),
        "{out}"
    );
}

#[test]
fn a_watchdog_stops_a_conversion_of_a_huge_sequence() {
    let mut rt = runtime_with(RuntimeOptions {
        max_sequence_length: u32::MAX,
        ..Default::default()
    });
    for op in ["op_holes", "op_json"] {
        let watchdog = watchdog(rt.termination_handle());
        let script = format!("{{ const a = []; a.length = 2 ** 32 - 1; ops.{op}(a) }}");
        let err = rt.execute_script("huge.js", &script).unwrap_err();
        assert_eq!(err.kind, JsErrorKind::Terminated, "{op}: {err}");
        watchdog.join().unwrap();
        assert_eq!(
            rt.execute_script_to_string("after.js", "1 + 1").unwrap(),
            "2"
        );
    }
}

/// Fault 2: a promise callback that loops forever, terminated by a watchdog: V8 drops the
/// microtask queue, and the loop used to say it had finished.
#[test]
fn termination_inside_a_promise_callback_ends_the_loop_as_terminated() {
    let mut rt = runtime();
    rt.execute_script(
        "spin.js",
        "globalThis.after = 'no';
         ops.op_tick().then(() => { for (;;) {} });
         ops.op_tick().then(() => { globalThis.after = 'lost'; });",
    )
    .unwrap();
    let watchdog = watchdog(rt.termination_handle());
    let err = tokio().block_on(rt.run_event_loop()).unwrap_err();
    watchdog.join().unwrap();
    assert_eq!(err.kind, JsErrorKind::Terminated, "{err}");
    // The runtime goes on: scripts, ops, promises and the loop.
    assert_eq!(rt.execute_script_to_string("one.js", "1 + 1").unwrap(), "2");
    rt.execute_script(
        "again.js",
        "ops.op_tick().then(() => { globalThis.after = 'yes'; })",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("after.js", "after").unwrap(),
        "yes"
    );
}

/// The same through `resolve`, which drives the loop for one promise.
#[test]
fn termination_inside_a_promise_callback_ends_resolve_as_terminated() {
    let mut rt = runtime();
    let promise = rt
        .execute_script(
            "spin.js",
            "ops.op_tick().then(() => { for (;;) {} }); ops.op_tick().then(() => 1)",
        )
        .unwrap();
    let watchdog = watchdog(rt.termination_handle());
    let err = tokio().block_on(rt.resolve(promise)).unwrap_err();
    watchdog.join().unwrap();
    assert_eq!(err.kind, JsErrorKind::Terminated, "{err}");
    assert_eq!(rt.execute_script_to_string("one.js", "1 + 1").unwrap(), "2");
}

/// Fault 3: handlers added late to many rejected promises (each a `PromiseHandlerAddedAfter
/// Reject` event) find their entries directly; the unhandled ones still surface, first first.
#[test]
fn many_rejections_handled_late_settle_and_the_unhandled_one_surfaces() {
    let mut rt = runtime();
    rt.execute_script(
        "late.js",
        "const ps = [];
         for (let i = 0; i < 100000; i++) ps.push(Promise.reject(i));
         globalThis.caught = 0;
         for (const p of ps) p.catch(() => { caught++; });
         Promise.allSettled(ps.map((p) => p.then(() => {}))).then(() => {});",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("n.js", "caught").unwrap(),
        "100000"
    );

    rt.execute_script(
        "some.js",
        "const qs = [];
         for (let i = 0; i < 1000; i++) qs.push(Promise.reject(new RangeError('r' + i)));
         qs.forEach((q, i) => { if (i !== 500 && i !== 700) q.catch(() => {}); });",
    )
    .unwrap();
    let err = tokio().block_on(rt.run_event_loop()).unwrap_err();
    assert_eq!(
        (err.class_name.as_str(), err.message.as_str()),
        ("RangeError", "r500")
    );
    let err = tokio().block_on(rt.run_event_loop()).unwrap_err();
    assert_eq!(err.message, "r700");
    tokio().block_on(rt.run_event_loop()).unwrap();
}

/// Panics from `Drop`.
pub struct PanicOnDrop(&'static str);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("{}", self.0);
    }
}

/// Fault 4: a class whose `Drop` panics: its finalizer runs from C++ (at `gc()`, or when the
/// runtime drops with a live instance).
pub struct Fragile {
    _guard: PanicOnDrop,
}

#[op]
impl Fragile {
    #[constructor]
    fn new() -> Fragile {
        Fragile {
            _guard: PanicOnDrop("expected: a class instance's Drop"),
        }
    }
}

#[test]
fn a_class_whose_drop_panics_is_collected_and_dropped_without_aborting() {
    common::quiet_expected_panics("expected:");
    let mut rt = runtime();
    rt.execute_script(
        "fragile.js",
        "for (let i = 0; i < 1000; i++) new ops.Fragile();
         globalThis.kept = new ops.Fragile();",
    )
    .unwrap();
    for _ in 0..5 {
        rt.execute_script("gc.js", "gc()").unwrap();
    }
    assert_eq!(
        rt.execute_script_to_string("alive.js", "typeof kept")
            .unwrap(),
        "object"
    );
    drop(rt); // with `kept` alive: its finalizer runs as the isolate goes
}

/// A future that is ready at once and panics when dropped: dropped by the event loop after its
/// promise settled, outside any call.
struct ReadyFragile(#[allow(dead_code)] PanicOnDrop);

impl Future for ReadyFragile {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        Poll::Ready(7)
    }
}

#[op(async(lazy))]
fn op_fragile_future() -> impl Future<Output = u32> {
    ReadyFragile(PanicOnDrop("expected: a settled future's Drop"))
}

/// Pending for ever, panicking when dropped (with the runtime).
#[op(async(lazy))]
fn op_stuck_fragile() -> impl Future<Output = ()> {
    let guard = PanicOnDrop("expected: a pending future's Drop");
    async move {
        std::future::pending::<()>().await;
        drop(guard);
    }
}

/// Fault 5: those `Drop`s ran in `poll_event_loop`, and their panics reached the embedder's
/// executor.
#[test]
fn a_panicking_drop_of_an_op_future_stays_inside_the_loop() {
    common::quiet_expected_panics("expected:");
    let mut rt = runtime();
    rt.execute_script(
        "fragile.js",
        "globalThis.out = 'none'; ops.op_fragile_future().then((v) => { out = v; });",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("out.js", "out").unwrap(), "7");
    rt.execute_script("stuck.js", "ops.op_stuck_fragile();")
        .unwrap();
    drop(rt);
}

/// Fault 6: prototype pollution. `#[serde]` reads own properties only; the derive reads
/// inherited ones (a class's getters) but not what only `Object.prototype` holds; WebIDL
/// dictionaries read what the spec reads (the whole chain).
#[derive(FromV8, Debug)]
struct Pick {
    a: u32,
    b: Option<String>,
}

#[derive(Deserialize, Debug)]
struct PickSerde {
    a: u32,
    b: Option<String>,
}

#[derive(WebIDL, Debug)]
#[webidl(dictionary)]
struct PickIdl {
    a: u32,
    b: Option<String>,
}

#[op]
#[string]
fn op_pick(#[from_v8] pick: Pick) -> String {
    format!("{} {:?}", pick.a, pick.b)
}

#[op]
#[string]
fn op_pick_serde(#[serde] pick: PickSerde) -> String {
    format!("{} {:?}", pick.a, pick.b)
}

#[op]
#[string]
fn op_pick_idl(#[webidl] pick: PickIdl) -> String {
    format!("{} {:?}", pick.a, pick.b)
}

#[test]
fn polluted_prototypes_fill_no_field() {
    let mut rt = runtime();
    rt.execute_script(
        "classes.js",
        "class Getters { get a() { return 1; } get b() { return 'from a getter'; } }
         globalThis.instance = new Getters();",
    )
    .unwrap();
    let read = |rt: &mut Runtime, op: &str, arg: &str| eval(rt, &format!("ops.{op}({arg})"));

    // Before: plain objects, and class instances with getters on their prototype.
    assert_eq!(read(&mut rt, "op_pick", "{ a: 1 }"), "string \"1 None\"");
    assert_eq!(
        read(&mut rt, "op_pick", "instance"),
        "string \"1 Some(\\\"from a getter\\\")\""
    );
    assert!(read(&mut rt, "op_pick_serde", "instance").contains("missing field `a`"));

    rt.execute_script(
        "pollute.js",
        "Object.prototype.b = 'polluted'; Object.prototype.a = 9;",
    )
    .unwrap();
    assert_eq!(read(&mut rt, "op_pick", "{ a: 1 }"), "string \"1 None\"");
    assert!(
        read(&mut rt, "op_pick", "{}").contains("a"),
        "a required field stays missing"
    );
    assert!(read(&mut rt, "op_pick", "{}").starts_with("throws TypeError"));
    assert_eq!(
        read(&mut rt, "op_pick_serde", "{ a: 1 }"),
        "string \"1 None\""
    );
    assert!(read(&mut rt, "op_pick_serde", "{}").contains("missing field `a`"));
    // A class's own getters are its data, polluted or not.
    assert_eq!(
        read(&mut rt, "op_pick", "instance"),
        "string \"1 Some(\\\"from a getter\\\")\""
    );
    // Own properties win over pollution everywhere.
    assert_eq!(
        read(&mut rt, "op_pick", "{ a: 2, b: 'own' }"),
        "string \"2 Some(\\\"own\\\")\""
    );
    assert_eq!(
        read(&mut rt, "op_pick_serde", "{ a: 2, b: 'own' }"),
        "string \"2 Some(\\\"own\\\")\""
    );
    // WebIDL: the spec reads the chain.
    assert_eq!(
        read(&mut rt, "op_pick_idl", "{ a: 1 }"),
        "string \"1 Some(\\\"polluted\\\")\""
    );
    rt.execute_script(
        "clean.js",
        "delete Object.prototype.b; delete Object.prototype.a;",
    )
    .unwrap();
}

/// Fault 7: a base class's async method, and `Held<Base>`, take instances of a subclass.
pub struct Animal {
    legs: u32,
}

#[op(base)]
impl Animal {
    async fn legs_later(&self) -> u32 {
        tokio::task::yield_now().await;
        self.legs
    }
}

pub struct Dog {
    animal: Animal,
}

impl AsRef<Animal> for Dog {
    fn as_ref(&self) -> &Animal {
        &self.animal
    }
}

#[op(inherit = Animal)]
impl Dog {
    #[constructor]
    fn new() -> Dog {
        Dog {
            animal: Animal { legs: 4 },
        }
    }
}

#[op]
async fn op_held_legs(#[cppgc] animal: runtime_core::class::Held<Animal>) -> u32 {
    tokio::task::yield_now().await;
    animal.legs + 100
}

#[test]
fn async_members_and_held_arguments_of_a_base_take_subclass_instances() {
    let mut rt = runtime();
    rt.execute_script(
        "dog.js",
        "globalThis.out = [];
         const dog = new ops.Dog();
         dog.legs_later().then((n) => out.push(n));
         ops.op_held_legs(dog).then((n) => out.push(n));
         ops.op_held_legs({}).catch((e) => out.push(e.name));",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out.join()").unwrap(),
        "TypeError,4,104"
    );
}

/// Fault 8: a `#[to_v8]` result's error names the op on both sync and async ops.
struct NotANumber;

impl ToV8 for NotANumber {
    fn to_v8<'s>(self, _: &mut v8::PinScope<'s, '_>) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Err(OpError::range_error("x is NaN"))
    }
}

#[op]
#[to_v8]
fn op_not_a_number() -> NotANumber {
    NotANumber
}

#[op]
#[to_v8]
async fn op_not_a_number_async() -> NotANumber {
    NotANumber
}

#[test]
fn to_v8_errors_read_alike_on_sync_and_async_ops() {
    let mut rt = runtime();
    assert_eq!(
        eval(&mut rt, "ops.op_not_a_number()"),
        "throws RangeError: op_not_a_number: x is NaN"
    );
    rt.execute_script(
        "async.js",
        "ops.op_not_a_number_async().catch((e) => { globalThis.out = e.name + ': ' + e.message; })",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out").unwrap(),
        "RangeError: op_not_a_number_async: x is NaN"
    );
}

/// The heap limit: a script allocating without end is terminated with `OutOfMemory` instead
/// of V8's fatal error, and the runtime goes on (twice: the limit lent to unwind is taken back).
#[test]
fn a_script_that_exhausts_the_heap_ends_with_out_of_memory_and_the_runtime_lives_on() {
    let mut rt = runtime_with(RuntimeOptions {
        heap_limits: Some(HeapLimits {
            initial: 0,
            max: 64 << 20,
        }),
        ..Default::default()
    });
    for round in 0..2 {
        let err = rt
            .execute_script(
                "hog.js",
                "function hoard(all) { for (;;) all.push(new Array(100000).fill(Math.random())); }\n\
                 hoard([]);",
            )
            .unwrap_err();
        assert_eq!(err.kind, JsErrorKind::OutOfMemory, "round {round}: {err}");
        assert!(err.is_terminated());
        // What allocated when the heap ran out (before: no frames).
        let names: Vec<_> = err
            .frames
            .iter()
            .map(|f| f.function_name.as_deref())
            .collect();
        assert!(names.contains(&Some("hoard")), "round {round}: {err}");
        assert!(
            err.location
                .as_deref()
                .is_some_and(|at| at.file_name == "hog.js"),
            "{err}"
        );
        assert_eq!(
            rt.execute_script_to_string("after.js", "1 + 1").unwrap(),
            "2"
        );
    }
    // A watchdog's termination is still a plain one.
    let handle: TerminationHandle = rt.termination_handle();
    handle.terminate();
    let err = rt.execute_script("spin.js", "for (;;) {}").unwrap_err();
    assert_eq!(err.kind, JsErrorKind::Terminated);
}

/// A builtin that allocates without checking for interrupts (`JSON.stringify` of a huge
/// string) runs on past the heap's limit until it returns; a call whose function then returns
/// at once is still stopped out of memory, its value never its outcome: `call` and
/// `start_call` alike (a function's return checks for no interrupt; the interrupt that reads
/// the stack runs at the next check).
#[test]
fn a_call_stopped_out_of_memory_in_its_last_builtin_has_no_value() {
    let mut rt = runtime_with(RuntimeOptions {
        memory_limit: Some(64 << 20),
        ..Default::default()
    });
    rt.execute_script(
        "huge.js",
        "globalThis.huge = () => JSON.stringify('x'.repeat(2 ** 26)).length;",
    )
    .unwrap();
    let huge = rt.global_function("huge").unwrap();
    let err = rt.call::<f64>(&huge, ()).unwrap_err();
    assert_eq!(err.kind, JsErrorKind::OutOfMemory, "{err}");
    let call = rt.start_call::<f64>(&huge, ());
    let outcome = tokio().block_on(rt.run_until(call)).unwrap();
    assert!(
        matches!(&outcome, Err(err) if err.kind == JsErrorKind::OutOfMemory),
        "{outcome:?}"
    );
    assert_eq!(
        rt.execute_script_to_string("after.js", "1 + 1").unwrap(),
        "2"
    );
}
