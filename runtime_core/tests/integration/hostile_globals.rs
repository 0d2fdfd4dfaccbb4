//! The built-in globals under a script that passes them hostile values or patches the
//! intrinsics they use.

use runtime_core::{Runtime, RuntimeOptions};

#[test]
fn ref_and_unref_ignore_what_is_not_a_number_as_clear_timeout_does() {
    // A string, an array, a boxed number or a BigInt named a live timer as a key, and the
    // internal op then threw a `TypeError` naming itself; a proxy's trap ran converting it.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let seen = runtime
        .execute_script_to_string(
            "ids.js",
            "const id = setTimeout(() => {}, 60000);
             let trapped = false;
             const proxy = new Proxy({}, { get() { trapped = true; return () => id; } });
             for (const f of [unrefTimer, refTimer, clearTimeout]) {
               for (const value of [String(id), [id], Object(id), BigInt(id), proxy]) f(value);
             }
             clearTimeout(id);
             String(trapped)",
        )
        .unwrap();
    assert_eq!(seen, "false");
}

#[test]
fn queue_microtask_uses_no_patched_promise_method() {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let seen = runtime
        .execute_script_to_string(
            "patched.js",
            "globalThis.seen = [];
             Promise.prototype.then = function () { seen.push('patched then'); };
             Promise.resolve = function () { seen.push('patched resolve'); return { then() {} }; };
             queueMicrotask(() => seen.push('ran'));
             'queued'",
        )
        .unwrap();
    assert_eq!(seen, "queued");
    let tokio = crate::common::tokio();
    tokio.block_on(runtime.run_event_loop()).unwrap();
    let seen = runtime
        .execute_script_to_string("seen.js", "seen.join()")
        .unwrap();
    assert_eq!(seen, "ran");
}

#[test]
fn v8s_own_tasks_run_finalization_callbacks_and_settle_wait_async() {
    // The runtime never ran the tasks V8 posts to the isolate's thread: FinalizationRegistry
    // callbacks never ran, and `Atomics.waitAsync` never settled. A task queued is work for
    // the loop (no timer keeps it running here).
    let mut runtime = Runtime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "tasks.js",
            "globalThis.seen = [];
             const registry = new FinalizationRegistry((held) => seen.push(held));
             (() => { registry.register({}, 'finalized'); })();
             const cell = new Int32Array(new SharedArrayBuffer(4));
             Atomics.waitAsync(cell, 0, 0).value.then((how) => seen.push('notified: ' + how));
             Atomics.notify(cell, 0, 1);
             gc();",
        )
        .unwrap();
    let tokio = crate::common::tokio();
    tokio.block_on(runtime.run_event_loop()).unwrap();
    let seen = runtime
        .execute_script_to_string("seen.js", "seen.sort().join()")
        .unwrap();
    assert_eq!(seen, "finalized,notified: ok");
}

#[test]
fn timed_waits_a_tenant_notifies_settle_and_their_runtimes_go() {
    // Each timed wait a tenant notifies leaves V8's timeout task queued until its time (here,
    // a million seconds), one process-wide alarm each, past the runtime's drop; they are now
    // the runtime's (at most 10,000) and go with it. What this asserts: twenty thousand such
    // waits settle, in two runtimes made and dropped in turn (the bound itself is not seen
    // from outside).
    for _ in 0..2 {
        let mut runtime = Runtime::new(RuntimeOptions::default());
        let seen = runtime
            .execute_script_to_string(
                "waits.js",
                "const cell = new Int32Array(new SharedArrayBuffer(4));
                 let woken = 0;
                 for (let i = 0; i < 20_000; i++) {
                   Atomics.waitAsync(cell, 0, 0, 1e9).value.then(() => woken++);
                   Atomics.notify(cell, 0, 1);
                 }
                 globalThis.count = () => woken;
                 'waited'",
            )
            .unwrap();
        assert_eq!(seen, "waited");
        let tokio = crate::common::tokio();
        tokio.block_on(runtime.run_event_loop()).unwrap();
        let woken = runtime
            .execute_script_to_string("woken.js", "String(count())")
            .unwrap();
        assert_eq!(woken, "20000");
    }
}

#[test]
fn a_task_v8_posts_wakes_the_loop_that_waits() {
    // V8 posts the settlement of a timed `Atomics.waitAsync` when its time comes; a loop that
    // waits on nothing else (a minute's timer) is woken for it.
    struct Signal(std::sync::Mutex<std::sync::mpsc::Sender<()>>);
    impl futures_util::task::ArcWake for Signal {
        fn wake_by_ref(arc_self: &std::sync::Arc<Self>) {
            let _ = arc_self.0.lock().unwrap().send(());
        }
    }
    let mut runtime = Runtime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "wait.js",
            "globalThis.seen = [];
             globalThis.keep = setTimeout(() => seen.push('a minute passed'), 60_000);
             const cell = new Int32Array(new SharedArrayBuffer(4));
             Atomics.waitAsync(cell, 0, 0, 10).value.then((how) => {
               seen.push(how);
               clearTimeout(keep);
             });",
        )
        .unwrap();
    let (sender, woken) = std::sync::mpsc::channel();
    let waker =
        futures_util::task::waker(std::sync::Arc::new(Signal(std::sync::Mutex::new(sender))));
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(runtime.poll_event_loop(&mut cx).is_pending());
    woken
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("woken when the wait's time comes, not the timer's");
    let tokio = crate::common::tokio();
    tokio.block_on(runtime.run_event_loop()).unwrap();
    let seen = runtime
        .execute_script_to_string("seen.js", "seen.join()")
        .unwrap();
    assert_eq!(seen, "timed-out");
}
