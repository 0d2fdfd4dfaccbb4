//! Many calls in flight in one runtime (`Runtime::start_call`): each settles on its own, in
//! any order, while one place drives the event loop, and every call's future ends whatever
//! happens to the runtime (a throw, a termination, a deadline, cancelled work, the runtime
//! dropped).

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use common::tokio;
use runtime_core::{op, CallInFlight, Extension, JsErrorKind, Runtime, RuntimeOptions};

/// Settles on the loop's next turn: a call that awaits it is pending when it returns.
#[op(async(deferred))]
async fn op_next_turn(value: u32) -> u32 {
    value
}

/// Never settles, and keeps the loop alive while nothing wakes it.
#[op(async(lazy))]
async fn op_never() {
    std::future::pending::<()>().await
}

fn runtime() -> Runtime {
    let mut rt = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("calls").ops(&[op_next_turn::DECL, op_never::DECL])],
        ..Default::default()
    });
    rt.execute_script(
        "handlers.js",
        "globalThis.after = (ms, value) => new Promise((r) => setTimeout(() => r(value), ms));
         globalThis.next = async (value) => (await ops.op_next_turn(value)) + 1;
         globalThis.fails = async (message) => { await ops.op_next_turn(0); throw new TypeError(message); };
         globalThis.throwsAtOnce = () => { throw new RangeError('at once'); };
         globalThis.plain = (value) => value * 2;
         globalThis.forever = () => new Promise(() => {});
         globalThis.settled = { count: 0 };",
    )
    .unwrap();
    rt
}

fn function(rt: &mut Runtime, name: &str) -> runtime_core::v8::Global<runtime_core::v8::Function> {
    rt.global_function(name).unwrap()
}

/// Awaits every call, recording the order in which they settle, while `rt`'s loop runs.
fn settle_all(rt: &mut Runtime, calls: Vec<(u32, CallInFlight<u32>)>) -> Vec<(u32, u32)> {
    let order = Rc::new(RefCell::new(Vec::new()));
    let waits = calls.into_iter().map(|(label, call)| {
        let order = order.clone();
        async move {
            let value = call.await.expect("each call settles with its value");
            order.borrow_mut().push((label, value));
        }
    });
    let all = futures_util::future::join_all(waits);
    tokio().block_on(rt.run_until(all)).unwrap();
    Rc::try_unwrap(order).unwrap().into_inner()
}

#[test]
fn calls_settle_in_any_order_while_the_loop_runs() {
    let mut rt = runtime();
    let after = function(&mut rt, "after");
    let calls = vec![
        (1, rt.start_call::<u32>(&after, (60, 10))),
        (2, rt.start_call::<u32>(&after, (1, 20))),
        (3, rt.start_call::<u32>(&after, (20, 30))),
    ];
    assert!(calls.iter().all(|(_, call)| !call.is_settled()));
    assert_eq!(settle_all(&mut rt, calls), vec![(2, 20), (3, 30), (1, 10)]);
}

#[test]
fn sixty_four_calls_waiting_on_ops_settle_in_one_run() {
    let mut rt = runtime();
    let next = function(&mut rt, "next");
    let calls: Vec<_> = (0..64)
        .map(|index| (index, rt.start_call::<u32>(&next, (index,))))
        .collect();
    let settled = settle_all(&mut rt, calls);
    assert_eq!(settled.len(), 64);
    assert!(settled.iter().all(|&(index, value)| value == index + 1));
    // The runtime serves calls on as before.
    let plain = function(&mut rt, "plain");
    assert_eq!(rt.call::<u32>(&plain, (4,)).unwrap(), 8);
}

#[test]
fn a_call_that_returns_no_pending_promise_is_settled_at_once() {
    let mut rt = runtime();
    let plain = function(&mut rt, "plain");
    let call = rt.start_call::<u32>(&plain, (21,));
    assert!(call.is_settled());
    assert_eq!(tokio().block_on(call).unwrap(), 42);
    let throws = function(&mut rt, "throwsAtOnce");
    let error = tokio()
        .block_on(rt.start_call::<()>(&throws, ()))
        .unwrap_err();
    assert_eq!(
        (error.class_name.as_str(), error.message.as_str()),
        ("RangeError", "at once")
    );
}

#[test]
fn a_rejection_is_its_calls_error_and_never_an_unhandled_one() {
    let mut rt = runtime();
    let fails = function(&mut rt, "fails");
    let next = function(&mut rt, "next");
    let failing = rt.start_call::<()>(&fails, ("no such key",));
    let passing = rt.start_call::<u32>(&next, (1,));
    let tokio = tokio();
    let error = tokio.block_on(rt.run_until(failing)).unwrap().unwrap_err();
    assert_eq!(error.class_name, "TypeError");
    assert_eq!(error.message, "no such key");
    assert!(error.stack.unwrap().contains("fails"));
    assert_eq!(tokio.block_on(rt.run_until(passing)).unwrap(), Ok(2));
    // A call whose future was dropped rejects into nothing either.
    drop(rt.start_call::<()>(&fails, ("dropped",)));
    tokio.block_on(rt.run_event_loop()).unwrap();
}

#[test]
fn a_result_that_does_not_convert_is_the_calls_error() {
    let mut rt = runtime();
    rt.execute_script("s.js", "globalThis.word = async () => 'not a number';")
        .unwrap();
    let word = function(&mut rt, "word");
    let error = tokio()
        .block_on(rt.start_call::<u32>(&word, ()))
        .unwrap_err();
    assert_eq!(error.class_name, "TypeError");
    assert!(error.message.starts_with("the result"), "{}", error.message);
}

#[test]
fn a_termination_fails_every_call_in_flight_and_the_runtime_serves_on() {
    let mut rt = runtime();
    let after = function(&mut rt, "after");
    let calls: Vec<_> = (0..3)
        .map(|index| rt.start_call::<u32>(&after, (10_000, index)))
        .collect();
    rt.termination_handle().terminate();
    let tokio = tokio();
    let looped = tokio.block_on(rt.run_event_loop()).unwrap_err();
    assert!(looped.is_terminated());
    for call in calls {
        assert!(call.is_settled());
        assert_eq!(
            tokio.block_on(call).unwrap_err().kind,
            JsErrorKind::Terminated
        );
    }
    rt.cancel_pending_work();
    let next = function(&mut rt, "next");
    let call = rt.start_call::<u32>(&next, (7,));
    assert_eq!(tokio.block_on(rt.run_until(call)), Ok(Ok(8)));
}

#[test]
fn a_deadline_stops_calls_that_wait() {
    let mut rt = runtime();
    let after = function(&mut rt, "after");
    let waiting = rt.start_call::<u32>(&after, (10_000, 1));
    let started = Instant::now();
    let deadline = rt
        .termination_handle()
        .terminate_at(started + Duration::from_millis(30));
    let looped = tokio().block_on(rt.run_until(waiting)).unwrap_err();
    assert!(looped.is_terminated() && deadline.has_passed());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_call_that_can_never_settle_fails_when_the_loop_goes_idle() {
    let mut rt = runtime();
    let forever = function(&mut rt, "forever");
    let call = rt.start_call::<()>(&forever, ());
    let error = tokio().block_on(rt.run_until(call)).unwrap().unwrap_err();
    assert!(error.message.contains("never settles"), "{}", error.message);
    // The runtime's diagnosis, not the tenant's exception: no "Uncaught" (it read
    // "Uncaught Error: ..." before).
    assert_eq!(error.kind, runtime_core::JsErrorKind::Host);
    assert!(
        error.to_string().starts_with("Error: the call's promise"),
        "{error}"
    );
}

#[test]
fn a_result_that_does_not_convert_is_the_hosts_diagnosis() {
    let mut rt = runtime();
    rt.execute_script(
        "r.js",
        "globalThis.answer = () => ({ status: 'not a number' })",
    )
    .unwrap();
    #[derive(runtime_core::FromV8, Debug)]
    struct Answer {
        #[allow(dead_code)]
        status: u16,
    }
    let answer = function(&mut rt, "answer");
    let error = rt.call::<Answer>(&answer, ()).unwrap_err();
    assert_eq!(error.kind, runtime_core::JsErrorKind::Host, "{error}");
    assert!(!error.to_string().starts_with("Uncaught"), "{error}");
}

#[test]
fn cancelled_work_and_a_dropped_runtime_fail_the_calls_in_flight() {
    let mut rt = runtime();
    let after = function(&mut rt, "after");
    let cancelled = rt.start_call::<u32>(&after, (10_000, 1));
    rt.cancel_pending_work();
    let error = tokio().block_on(cancelled).unwrap_err();
    assert!(error.message.contains("cancelled"), "{}", error.message);
    let orphaned = rt.start_call::<u32>(&after, (10_000, 2));
    drop(rt);
    let error = tokio().block_on(orphaned).unwrap_err();
    assert!(error.message.contains("dropped"), "{}", error.message);
}

#[test]
fn a_call_settled_by_javascript_run_outside_the_loop_wakes_the_parked_loop() {
    let rt = Rc::new(RefCell::new(runtime()));
    rt.borrow_mut()
        .execute_script(
            "gate.js",
            "globalThis.gate = () => new Promise((r) => { globalThis.open = r; ops.op_never(); });
             globalThis.opener = (value) => { open(value); return value; };",
        )
        .unwrap();
    let gate = function(&mut rt.borrow_mut(), "gate");
    let opener = function(&mut rt.borrow_mut(), "opener");
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio(), async {
        // The loop is driven by a task of its own, as a server drives it: parked while
        // nothing it knows of is ready (`op_never` never wakes it).
        let driven = rt.clone();
        tokio::task::spawn_local(std::future::poll_fn(move |cx| {
            let _ = driven.borrow_mut().poll_event_loop(cx);
            std::task::Poll::<()>::Pending
        }));
        // Opened by another call started (which settles at once), by a plain call, by a
        // script: each must wake the loop, which would otherwise sleep for good.
        for (opened_by, value) in ["start_call", "call", "script"].into_iter().zip(5..) {
            let waiting = rt.borrow_mut().start_call::<u32>(&gate, ());
            tokio::task::yield_now().await;
            {
                let mut rt = rt.borrow_mut();
                match opened_by {
                    "start_call" => drop(rt.start_call::<u32>(&opener, (value,))),
                    "call" => assert_eq!(rt.call::<u32>(&opener, (value,)), Ok(value)),
                    _ => drop(
                        rt.execute_script("open.js", &format!("open({value})"))
                            .unwrap(),
                    ),
                }
            }
            let settled = tokio::time::timeout(Duration::from_secs(5), waiting).await;
            assert_eq!(settled, Ok(Ok(value)), "opened by {opened_by}");
        }
    });
}

#[test]
fn a_call_that_settled_keeps_its_answer_when_a_later_callback_of_the_turn_spins() {
    // Both timers are due in one turn: the first settles its call, the second spins until a
    // deadline terminates it. The first call ended `Terminated` with the second.
    let mut rt = runtime();
    rt.execute_script(
        "spin.js",
        "globalThis.spinAfter = (ms) => new Promise(() => setTimeout(() => { for (;;) {} }, ms));",
    )
    .unwrap();
    let after = function(&mut rt, "after");
    let spin_after = function(&mut rt, "spinAfter");
    let quick = rt.start_call::<u32>(&after, (5, 7));
    let spinning = rt.start_call::<u32>(&spin_after, (5,));
    std::thread::sleep(Duration::from_millis(20));
    let deadline = rt
        .termination_handle()
        .terminate_at(Instant::now() + Duration::from_millis(100));
    let tokio = tokio();
    let error = tokio.block_on(rt.run_event_loop()).unwrap_err();
    assert!(error.is_terminated(), "{error}");
    drop(deadline);
    assert_eq!(tokio.block_on(quick).unwrap(), 7);
    assert_eq!(
        tokio.block_on(spinning).unwrap_err().kind,
        JsErrorKind::Terminated
    );
}

#[test]
fn calls_beyond_those_looked_at_settle_whatever_a_script_patches() {
    // The reaction of a call beyond the first 64 was added through the `then` of the moment:
    // a script's `then` that called it at once made the runtime read a pending promise's
    // result, and V8 ended the process.
    let run = |mut rt: Runtime| {
        rt.execute_script(
            "patch.js",
            "globalThis.after = (ms, value) => new Promise((r) => setTimeout(() => r(value), ms));
             Promise.prototype.then = function (onFulfilled, onRejected) {
               onFulfilled?.(); onRejected?.(); return this;
             };
             Reflect.apply = () => {};",
        )
        .unwrap();
        let after = function(&mut rt, "after");
        let calls: Vec<_> = (0..100u32)
            .map(|i| (i, rt.start_call::<u32>(&after, (1 + i % 7, i))))
            .collect();
        let mut order = settle_all(&mut rt, calls);
        order.sort();
        assert_eq!(order, (0..100).map(|i| (i, i)).collect::<Vec<_>>());
    };
    run(Runtime::new(RuntimeOptions::default()));
    // The same from a snapshot, which keeps the context's tracker.
    let builder = runtime_core::SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
    let blob = builder.build().unwrap();
    run(Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..Default::default()
    }));
}
