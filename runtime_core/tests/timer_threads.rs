//! Timers outside tokio wake their event loop from the process's one alarm thread: no thread
//! per wake-up, none left behind by a runtime (issue 38, 10). A test binary of its own, so
//! that no other test's threads come and go while it counts.

use std::sync::Arc;
use std::task::{Context, Wake, Waker};

use runtime_core::{Runtime, RuntimeOptions};

struct Flag;

impl Wake for Flag {
    fn wake(self: Arc<Self>) {}
}

/// A waker no earlier one will-wakes (a new `Arc` each time).
fn new_waker() -> Waker {
    Waker::from(Arc::new(Flag))
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |tasks| tasks.count())
}

#[test]
fn timers_outside_tokio_start_no_thread_per_wake_up() {
    let mut rt = Runtime::new(RuntimeOptions::default());
    rt.execute_script("t.js", "setTimeout(() => {}, 60000);")
        .unwrap();
    let poll = |rt: &mut Runtime| {
        let waker = new_waker();
        assert!(rt
            .poll_event_loop(&mut Context::from_waker(&waker))
            .is_pending());
    };
    poll(&mut rt);
    let before = threads();
    // Before: each poll with a new waker started a thread sleeping until the deadline.
    for _ in 0..200 {
        poll(&mut rt);
    }
    assert!(
        threads() <= before,
        "{} threads, {before} before",
        threads()
    );
    // Before: each runtime dropped with a far timer left its sleeping thread.
    for _ in 0..50 {
        let mut other = Runtime::new(RuntimeOptions::default());
        other
            .execute_script("t.js", "setTimeout(() => {}, 60000);")
            .unwrap();
        poll(&mut other);
    }
    assert!(
        threads() <= before,
        "{} threads, {before} before",
        threads()
    );
}
