//! Timers on a runtime's event loop: order, cancellation, a hundred thousand of them, what
//! keeps the loop alive, another executor than tokio, a callback that throws, async ops
//! that use tokio when the host calls in from outside it, and precise timers
//! (`RuntimeOptions::precise_timers`).

use runtime_core::{Runtime, RuntimeOptions};

use super::embedding::runtime_with;
use crate::common::{init_test_flags, tokio};

#[test]
fn timers_fire_in_deadline_order_and_cancel() {
    fire_in_deadline_order_and_cancel(runtime_with(&[]), &tokio());
}

fn fire_in_deadline_order_and_cancel(mut rt: Runtime, tokio: &tokio::runtime::Runtime) {
    rt.execute_script(
        "timers.js",
        "globalThis.out = [];
         setTimeout(() => out.push('b'), 20);
         setTimeout(() => out.push('a'), 0);
         setTimeout((x, y) => out.push(x + y), 20, 'c', '!');
         const gone = setTimeout(() => out.push('never'), 1);
         clearTimeout(gone);
         queueMicrotask(() => out.push('micro'));
         let n = 0;
         const every = setInterval(() => { out.push('i' + n); if (++n === 3) clearInterval(every); }, 1);",
    )
    .unwrap();
    // Bounded: a loop whose timers are never woken for would wait for good.
    tokio
        .block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(30), rt.run_event_loop()).await
        })
        .expect("the timers fired")
        .unwrap();
    let out = rt.execute_script_to_string("o.js", "out.join()").unwrap();
    assert!(out.starts_with("micro,a,"), "{out}");
    // Same deadline: creation order. (The interval's ticks may land anywhere on a busy
    // machine.)
    let position = |item: &str| out.split(',').position(|x| x == item);
    assert!(
        position("b").unwrap() + 1 == position("c!").unwrap(),
        "{out}"
    );
    for tick in ["i0", "i1", "i2"] {
        assert!(out.contains(tick), "{out}");
    }
    assert!(!out.contains("never") && !out.contains("i3"), "{out}");
}

#[test]
fn a_hundred_thousand_timers_fire_each_once_in_order_of_delay() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "many.js",
        "globalThis.fired = [];
         const ids = [];
         for (let i = 0; i < 100000; i++) ids.push(setTimeout(() => fired.push(i), i % 10));
         for (let i = 0; i < 100000; i += 4) clearTimeout(ids[i]);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let report = rt
        .execute_script_to_string(
            "check.js",
            "const byDelay = new Map();
             let ordered = true;
             for (const i of fired) {
               const last = byDelay.get(i % 10);
               if (last !== undefined && last > i) ordered = false;
               byDelay.set(i % 10, i);
             }
             [fired.length, new Set(fired).size, fired.some((i) => i % 4 === 0), ordered].join()",
        )
        .unwrap();
    assert_eq!(report, "75000,75000,false,true");
}

#[test]
fn a_pending_timer_keeps_the_loop_alive_and_an_unrefd_one_does_not() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "ref.js",
        "globalThis.fired = '';
         unrefTimer(setTimeout(() => { fired += 'unref'; }, 60000));
         setTimeout(() => { fired += 'ref'; }, 30);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "ref");
    // Only the unref'd one is left: the loop is done at once.
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "ref");
}

/// A waker that unparks the thread: an executor of ten lines, with no tokio in it.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}

#[test]
fn timers_work_on_another_executor() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "plain.js",
        "globalThis.fired = 0; setTimeout(() => fired++, 10); setTimeout(() => fired++, 20);",
    )
    .unwrap();
    block_on(rt.run_event_loop()).unwrap();
    assert_eq!(rt.execute_script_to_string("f.js", "fired").unwrap(), "2");
}

#[test]
fn a_timer_callback_that_throws_ends_the_loop_with_its_error() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "throw.js",
        "setTimeout(() => { throw new TypeError('in a timer'); }, 1);",
    )
    .unwrap();
    let err = tokio().block_on(rt.run_event_loop()).unwrap_err();
    assert_eq!(err.message, "in a timer");
}

// ---- the host's executor -------------------------------------------------------------------

#[test]
fn async_ops_that_use_tokio_work_when_the_host_calls_in_from_outside_it() {
    init_test_flags();
    let tokio = tokio();
    // Made inside the tokio runtime: the runtime keeps its handle.
    let mut rt = {
        let _entered = tokio.enter();
        runtime_with(&[])
    };
    // Called from plain code: the eager poll of `op_sleep` makes a tokio timer.
    let promise = rt
        .execute_script("sleep.js", "ops.op_sleep(5).then(() => 'slept')")
        .unwrap();
    let value = tokio.block_on(rt.resolve(promise)).unwrap();
    let text = rt
        .try_with_scope(|scope| {
            Some(runtime_core::v8::Local::new(scope, &value).to_rust_string_lossy(scope))
        })
        .unwrap();
    assert_eq!(text, "slept");
}

#[test]
fn a_zero_interval_does_not_starve_other_timers() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "interval.js",
        "globalThis.ticks = 0;
         const every = setInterval(() => { ticks++; });
         setTimeout(() => clearInterval(every), 20);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    let ticks: f64 = rt
        .execute_script_to_string("t.js", "ticks")
        .unwrap()
        .parse()
        .unwrap();
    assert!(ticks >= 1.0, "{ticks}");
}

// ---- precise timers ------------------------------------------------------------------------

fn precise() -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        precise_timers: true,
        ..Default::default()
    })
}

#[test]
fn precise_timers_fire_in_deadline_order_and_cancel() {
    fire_in_deadline_order_and_cancel(precise(), &tokio());
}

/// With no descriptor left for a timerfd (`EMFILE`), a precise runtime's loop is woken by
/// tokio's own timer instead: its timers still fire, in order. In a child process, which
/// refuses itself every new descriptor once its runtimes are made.
#[cfg(target_os = "linux")]
#[test]
fn precise_timers_fire_by_tokios_timer_when_no_descriptor_is_left() {
    const CHILD: &str = "OPWIRE_NO_DESCRIPTORS";
    if std::env::var_os(CHILD).is_none() {
        let name = "timers::precise_timers_fire_by_tokios_timer_when_no_descriptor_is_left";
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    let (rt, tokio) = (precise(), tokio());
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes, and `setrlimit` reads, the struct it is given, which lives
    // across both calls.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = 0;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
    }
    // SAFETY: `timerfd_create` takes no pointers.
    let refused = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
    assert_eq!(refused, -1, "no descriptor is left");
    fire_in_deadline_order_and_cancel(rt, &tokio);
}

/// The timer is set for a far deadline first; a nearer one set after it is woken for at its own
/// time, not the far one's (which its callback then clears).
#[test]
fn a_precise_timer_set_for_a_nearer_deadline_is_woken_for_it() {
    let mut rt = precise();
    rt.execute_script(
        "nearer.js",
        "globalThis.out = [];
         const start = Date.now();
         const far = setTimeout(() => out.push('far'), 60000);
         setTimeout(() => { out.push(Date.now() - start < 30000 ? 'near' : 'late'); clearTimeout(far); }, 2);",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("o.js", "out.join()").unwrap(),
        "near"
    );
}

/// A runtime polled in one tokio runtime, then (the first gone) in another: its timers still
/// fire (by whichever wake the second gives). And a loop whose heap empties keeps working as
/// it refills.
#[test]
fn precise_timers_move_with_the_runtime_that_polls_them() {
    let mut rt = precise();
    for round in 0..3 {
        rt.execute_script(
            "round.js",
            "globalThis.fired = 0;
             setTimeout(() => fired++, 1);
             setTimeout(() => setTimeout(() => fired++, 0), 3);",
        )
        .unwrap();
        tokio().block_on(rt.run_event_loop()).unwrap();
        let fired = rt.execute_script_to_string("f.js", "fired").unwrap();
        assert_eq!(fired, "2", "round {round}");
    }
}

#[test]
fn precise_timers_never_fire_early() {
    let mut rt = precise();
    rt.execute_script(
        "early.js",
        "globalThis.early = [];
         for (let delay = 1; delay <= 8; delay++) {
           const start = Date.now();
           setTimeout(() => { if (Date.now() - start < delay) early.push(delay); }, delay);
         }",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("e.js", "early.join()").unwrap(),
        ""
    );
}
