//! Time budgets that hold (issue 38, 5-9): a termination wakes whatever the runtime waits on,
//! reaches the caller from any microtask, costs no more than one `terminate()` whatever was
//! thrown, can be withdrawn, and comes as a deadline; what an abandoned call left can be
//! cancelled.

use crate::common;

use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{init_test_flags, tokio};
use runtime_core::modules::{
    LoadRequest, ModuleLoadFuture, ModuleLoader, ModuleSource, StaticModuleLoader,
};
use runtime_core::{
    op, Extension, JsError, JsErrorKind, Runtime, RuntimeOptions, TerminationHandle,
};

#[op]
async fn op_sleep(ms: u32) {
    tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
}

#[op]
async fn op_never() {
    std::future::pending::<()>().await;
}

static GUARDED_DROPPED: AtomicBool = AtomicBool::new(false);

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        GUARDED_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Never settles; sets `GUARDED_DROPPED` when its future is dropped.
#[op]
async fn op_guarded() {
    let _guard = Guard;
    std::future::pending::<()>().await;
}

static TICKS: AtomicUsize = AtomicUsize::new(0);

#[op(fast)]
fn op_tick() {
    TICKS.fetch_add(1, Ordering::SeqCst);
}

/// A loader whose `./never.js` never arrives.
struct Stalling(StaticModuleLoader);

impl ModuleLoader for Stalling {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        if request.url.ends_with("never.js") {
            return Box::pin(std::future::pending());
        }
        self.0.load(request)
    }
}

fn runtime() -> Runtime {
    init_test_flags();
    let loader = StaticModuleLoader::new([
        (
            "file:///app/main.js".to_owned(),
            ModuleSource::js(
                "export async function waitTimer() { await new Promise((r) => setTimeout(r, 60000)); }
                 export async function waitOp() { await ops.op_sleep(60000); }
                 export async function waitNever() { await ops.op_never(); }
                 export function ok() { return 'ok'; }",
            ),
        ),
        (
            "file:///app/tla.js".to_owned(),
            ModuleSource::js("await ops.op_never();"),
        ),
    ]);
    Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("deadlines").ops(&[
            op_sleep::DECL,
            op_never::DECL,
            op_guarded::DECL,
            op_tick::DECL,
        ])],
        module_loader: Some(Rc::new(Stalling(loader))),
        ..Default::default()
    })
}

/// Terminates `handle` after `ms`.
fn watchdog(handle: TerminationHandle, ms: u64) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        handle.terminate();
    })
}

/// Runs `wait` under a watchdog at 300 ms: it must end as terminated well before its 60 s.
fn stopped_at_once<T: std::fmt::Debug>(
    rt: &mut Runtime,
    wait: impl FnOnce(&mut Runtime) -> Result<T, JsError>,
) {
    let watchdog = watchdog(rt.termination_handle(), 300);
    let started = Instant::now();
    let err = wait(rt).expect_err("terminated");
    assert_eq!(err.kind, JsErrorKind::Terminated, "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "ended after {:?}",
        started.elapsed()
    );
    watchdog.join().unwrap();
    assert_eq!(
        rt.execute_script_to_string("after.js", "1 + 1").unwrap(),
        "2"
    );
}

fn block_on<F: Future>(future: F) -> F::Output {
    tokio().block_on(future)
}

#[test]
fn a_termination_wakes_whatever_the_runtime_waits_on() {
    // Issue 38, 5: each of these was still pending 3 s (or 60 s) after `terminate()`.
    let mut rt = runtime();
    let main = block_on(rt.load_main_module("file:///app/main.js")).unwrap();
    block_on(rt.mod_evaluate(main)).unwrap();
    for export in ["waitTimer", "waitOp", "waitNever"] {
        let function = rt.module_function(main, export).unwrap();
        stopped_at_once(&mut rt, |rt| {
            block_on(rt.call_and_await::<()>(&function, ()))
        });
        rt.cancel_pending_work();
    }
    stopped_at_once(&mut rt, |rt| {
        block_on(rt.load_side_module("file:///app/never.js"))
    });
    stopped_at_once(&mut rt, |rt| {
        rt.execute_script("i.js", "import('file:///app/never.js');")?;
        block_on(rt.run_event_loop())
    });
    rt.cancel_pending_work();
    let tla = block_on(rt.load_side_module("file:///app/tla.js")).unwrap();
    stopped_at_once(&mut rt, |rt| block_on(rt.mod_evaluate(tla)));
}

#[test]
fn a_termination_in_a_scripts_microtasks_reaches_the_caller() {
    // Issue 38, 6: the script returned `Ok("queued")` and the next `run_event_loop` `Ok`.
    let mut rt = runtime();
    let watchdog_thread = watchdog(rt.termination_handle(), 200);
    let err = rt
        .execute_script(
            "queued.js",
            "Promise.resolve().then(() => { for (;;) {} }); 'queued'",
        )
        .unwrap_err();
    assert_eq!(err.kind, JsErrorKind::Terminated, "{err}");
    watchdog_thread.join().unwrap();
    // Through a call too.
    let function = {
        rt.execute_script(
            "f.js",
            "globalThis.queue = () => { Promise.resolve().then(() => { for (;;) {} }); return 1; }",
        )
        .unwrap();
        rt.global_function("queue").unwrap()
    };
    let watchdog_thread = watchdog(rt.termination_handle(), 200);
    let err = rt.call::<u32>(&function, ()).unwrap_err();
    assert_eq!(err.kind, JsErrorKind::Terminated, "{err}");
    watchdog_thread.join().unwrap();
    assert_eq!(rt.execute_script_to_string("a.js", "1 + 1").unwrap(), "2");
}

#[test]
fn an_out_of_memory_in_a_scripts_microtasks_reaches_the_caller() {
    init_test_flags();
    let mut rt = Runtime::new(RuntimeOptions {
        heap_limits: Some(runtime_core::HeapLimits {
            initial: 0,
            max: 32 << 20,
        }),
        ..Default::default()
    });
    let err = rt
        .execute_script(
            "queued.js",
            "Promise.resolve().then(() => { const a = []; for (;;) a.push(new Array(1e5).fill(0)); }); 'queued'",
        )
        .unwrap_err();
    assert_eq!(err.kind, JsErrorKind::OutOfMemory, "{err}");
    assert_eq!(rt.execute_script_to_string("a.js", "1 + 1").unwrap(), "2");
}

#[test]
fn reading_what_was_thrown_runs_none_of_its_code() {
    // Issue 38, 7: a thrown looping proxy needed four `terminate()`s and came back as an
    // exception with an empty class and message; a looping `name` getter needed two.
    let mut rt = runtime();
    rt.execute_script(
        "t.js",
        "globalThis.proxy = () => { throw new Proxy({}, { get() { for (;;) {} }, getPrototypeOf() { for (;;) {} }, getOwnPropertyDescriptor() { for (;;) {} } }); };
         globalThis.named = () => { class E extends Error { get name() { for (;;) {} } } throw new E('named'); };
         globalThis.messaged = () => { throw { get message() { for (;;) {} }, name: 'Plain' }; };",
    )
    .unwrap();
    for (name, class) in [("proxy", ""), ("messaged", "Plain")] {
        let function = rt.global_function(name).unwrap();
        let started = Instant::now();
        let err = rt.call::<()>(&function, ()).unwrap_err();
        assert_eq!(err.kind, JsErrorKind::Exception, "{name}: {err}");
        assert_eq!(err.class_name, class, "{name}: {err}");
        if name == "proxy" {
            assert_eq!(err.message, "[object Proxy]");
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
    }
    // The runtime formats a stack from data properties only: a looping `name` getter is not
    // run (V8's own formatter ran it, and needed a `terminate()` to end).
    let function = rt.global_function("named").unwrap();
    let started = Instant::now();
    let err = rt.call::<()>(&function, ()).unwrap_err();
    assert_eq!(err.kind, JsErrorKind::Exception, "{err}");
    assert_eq!(err.message, "named");
    assert!(
        err.stack
            .as_deref()
            .unwrap_or_default()
            .starts_with("Error: named\n    at globalThis.named (t.js:2:"),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(rt.execute_script_to_string("a.js", "1 + 1").unwrap(), "2");
}

#[test]
fn a_termination_requested_while_idle_can_be_withdrawn() {
    // Issue 38, 8: a request made while nothing ran killed the next call, with no public way
    // to withdraw it.
    let mut rt = runtime();
    let handle = rt.termination_handle();
    assert!(handle.terminate());
    assert!(handle.cancel());
    assert_eq!(rt.execute_script_to_string("a.js", "1 + 1").unwrap(), "2");
    // Not withdrawn, it stops the next call (and is spent).
    handle.terminate();
    let err = rt.execute_script("b.js", "1 + 1").unwrap_err();
    assert!(err.is_terminated());
    assert_eq!(rt.execute_script_to_string("c.js", "1 + 1").unwrap(), "2");
    assert!(!handle.cancel(), "nothing left to withdraw");
}

#[test]
fn deadlines_cover_spinning_and_waiting_and_never_outlive_their_call() {
    let mut rt = runtime();
    let handle = rt.termination_handle();
    let deadline = handle.terminate_at(Instant::now() + Duration::from_millis(100));
    let err = rt.execute_script("spin.js", "for (;;) {}").unwrap_err();
    assert!(err.is_terminated() && deadline.has_passed());
    drop(deadline);
    let main = block_on(rt.load_main_module("file:///app/main.js")).unwrap();
    block_on(rt.mod_evaluate(main)).unwrap();
    let wait = rt.module_function(main, "waitTimer").unwrap();
    let deadline = handle.terminate_at(Instant::now() + Duration::from_millis(100));
    let started = Instant::now();
    let err = block_on(rt.call_and_await::<()>(&wait, ())).unwrap_err();
    assert!(err.is_terminated() && deadline.has_passed());
    assert!(started.elapsed() < Duration::from_secs(10));
    drop(deadline);
    rt.cancel_pending_work();
    // A deadline dropped in time does nothing.
    let ok = rt.module_function(main, "ok").unwrap();
    let deadline = handle.terminate_at(Instant::now() + Duration::from_secs(60));
    assert_eq!(rt.call::<String>(&ok, ()).unwrap(), "ok");
    assert!(!deadline.has_passed());
    drop(deadline);
    // One that passes after its call ended, while nothing runs, is withdrawn as it drops: the
    // next call is not stopped by it.
    let deadline = handle.terminate_at(Instant::now() + Duration::from_millis(20));
    assert_eq!(rt.call::<String>(&ok, ()).unwrap(), "ok");
    std::thread::sleep(Duration::from_millis(100));
    assert!(deadline.has_passed());
    drop(deadline);
    assert_eq!(rt.call::<String>(&ok, ()).unwrap(), "ok");
    // It withdraws its own request only: one a watchdog made after it stands.
    let deadline = handle.terminate_at(Instant::now() + Duration::from_millis(20));
    std::thread::sleep(Duration::from_millis(100));
    assert!(deadline.has_passed());
    handle.terminate();
    drop(deadline);
    assert!(rt.call::<String>(&ok, ()).unwrap_err().is_terminated());
    assert_eq!(rt.call::<String>(&ok, ()).unwrap(), "ok");
}

#[test]
fn what_an_abandoned_call_left_can_be_cancelled() {
    // Issue 38, 9: after a host gave up on a call, its `setInterval` and pending ops stayed.
    let mut rt = runtime();
    rt.execute_script(
        "f.js",
        "globalThis.handler = async () => {
           setInterval(() => ops.op_tick(), 5);
           await ops.op_guarded();
         };",
    )
    .unwrap();
    let handler = rt.global_function("handler").unwrap();
    let tokio = tokio();
    let abandoned = tokio.block_on(async {
        tokio::time::timeout(
            Duration::from_millis(100),
            rt.call_and_await::<()>(&handler, ()),
        )
        .await
    });
    assert!(abandoned.is_err(), "the host gave up");
    assert!(
        TICKS.load(Ordering::SeqCst) > 0,
        "the interval ran meanwhile"
    );
    assert!(!GUARDED_DROPPED.load(Ordering::SeqCst));
    rt.cancel_pending_work();
    assert!(
        GUARDED_DROPPED.load(Ordering::SeqCst),
        "the op's future was dropped"
    );
    let ticks = TICKS.load(Ordering::SeqCst);
    // Nothing keeps the loop alive, and nothing of the old call runs again.
    tokio.block_on(rt.run_event_loop()).unwrap();
    tokio.block_on(async { tokio::time::sleep(Duration::from_millis(50)).await });
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(TICKS.load(Ordering::SeqCst), ticks);
    // New timers work.
    rt.execute_script("t.js", "setTimeout(() => ops.op_tick(), 1);")
        .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(TICKS.load(Ordering::SeqCst), ticks + 1);
    // Cancelling runs none of the scripts' code, whatever they patched.
    rt.execute_script(
        "p.js",
        "Map.prototype.clear = Map.prototype.delete = () => { for (;;) {} };
         Array.prototype[Symbol.iterator] = function* () { for (;;) {} };
         setTimeout(() => ops.op_tick(), 60000);",
    )
    .unwrap();
    rt.cancel_pending_work();
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(TICKS.load(Ordering::SeqCst), ticks + 1);
}
