//! `serve::Server`: calls in flight together, each answered when it settles; a call past its
//! entry limit terminates the runtime, every call in flight is told which call it was, and the
//! runtime is replaced; a call past its timeout is answered alone; backpressure; metrics.

use std::future::Future;
use std::time::Duration;

use futures_util::future::join_all;
use runtime_core::serve::{MakeRuntime, ServeError, ServeOptions, Server};
use runtime_core::{Runtime, RuntimeOptions};

use crate::common::init_test_flags;

const HANDLER: &str = "globalThis.handle = async (kind, ms) => {
  if (kind === 'spin') { for (;;) {} }
  if (kind === 'wait') { await new Promise((resolve) => setTimeout(resolve, ms)); return ms; }
  if (kind === 'throw') throw new Error('bad request');
  if (kind === 'filed') return globalThis.filed[ms];
  if (kind === 'late') {
    await null;
    setTimeout(() => { globalThis.late = (globalThis.late ?? 0) + 1; }, ms);
    return new Promise(() => {});
  }
  return 1;
};";

fn make() -> MakeRuntime {
    Box::new(|| {
        let mut runtime = Runtime::try_new(RuntimeOptions::default())?;
        runtime.execute_script("handler.js", HANDLER)?;
        let function = runtime.global_function("handle")?;
        Ok((runtime, function))
    })
}

fn server(options: ServeOptions) -> Server {
    init_test_flags();
    Server::new(make(), options).unwrap()
}

/// Runs `serving` with the server's loop driven beside it, on one thread.
fn serve<F: Future>(server: &Server, serving: impl FnOnce(Server) -> F) -> F::Output {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio, async {
        let driven = server.clone();
        let driver = tokio::task::spawn_local(async move { driven.run().await });
        let output = serving(server.clone()).await;
        server.close();
        driver.await.unwrap();
        output
    })
}

#[test]
fn many_calls_in_flight_settle_each_with_its_value() {
    let server = server(ServeOptions::default());
    let answers = serve(&server, |server| async move {
        let calls = (0..50u32).map(|i| {
            let server = server.clone();
            async move { server.call::<u32>(("wait", (i * 7) % 20)).await }
        });
        join_all(calls).await
    });
    for (i, answer) in answers.into_iter().enumerate() {
        assert_eq!(answer, Ok((i as u32 * 7) % 20));
    }
    let metrics = server.metrics();
    assert_eq!((metrics.calls, metrics.settled), (50, 50));
    assert!(metrics.time_in_js > Duration::ZERO);
    assert_eq!(server.in_flight(), 0);
}

#[test]
fn a_call_past_its_entry_limit_is_named_to_every_call_in_flight_and_serving_goes_on() {
    let server = server(ServeOptions {
        entry_limit: Duration::from_millis(50),
        call_timeout: Duration::from_secs(60),
        ..ServeOptions::default()
    });
    let (answers, after) = serve(&server, |server| async move {
        // Ids 1..=3 wait on timers; id 4 spins in its start.
        let mut calls: Vec<_> = (0..3)
            .map(|_| {
                let server = server.clone();
                Box::pin(async move { server.call::<u32>(("wait", 60_000)).await })
                    as std::pin::Pin<Box<dyn Future<Output = _>>>
            })
            .collect();
        let spinner = server.clone();
        calls.push(Box::pin(
            async move { spinner.call::<u32>(("spin", 0)).await },
        ));
        let answers = join_all(calls).await;
        let after = server.call::<u32>(("ok", 0)).await;
        (answers, after)
    });
    for answer in &answers {
        match answer {
            Err(ServeError::Terminated { by, error }) => {
                assert_eq!(*by, Some(4), "{answer:?}");
                assert!(error.is_terminated(), "{error}");
                // And where it spun (before: no location).
                let at = error.location.as_deref().map(ToString::to_string);
                assert!(
                    at.is_some_and(|at| at.starts_with("handler.js:2:")),
                    "{error:?}"
                );
            }
            other => panic!("expected a termination naming call 4, got {other:?}"),
        }
    }
    assert!(answers[0]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("call 4 ran too long"));
    // A new runtime serves the next call.
    assert_eq!(after, Ok(1));
    let metrics = server.metrics();
    assert_eq!((metrics.terminations, metrics.replacements), (1, 1));
}

#[test]
fn a_call_that_waits_too_long_is_answered_alone() {
    let server = server(ServeOptions {
        call_timeout: Duration::from_millis(100),
        ..ServeOptions::default()
    });
    let (slow, fast) = serve(&server, |server| async move {
        let slow = server.call::<u32>(("wait", 60_000));
        let fast = server.call::<u32>(("wait", 5));
        futures_util::future::join(slow, fast).await
    });
    assert_eq!(slow, Err(ServeError::TimedOut));
    assert_eq!(fast, Ok(5));
    let metrics = server.metrics();
    assert_eq!(
        (metrics.timed_out, metrics.settled, metrics.terminations),
        (1, 1, 0)
    );
}

/// A call may be polled by a task other than the one that awaits it, with that task's waker,
/// and moved on (a host's starting task polls each call it starts once on behalf of its
/// connection's task): the waker it was polled with is woken when it settles, and when it
/// times out. A timeout past what the clock holds is no timeout.
#[test]
fn a_call_polled_with_anothers_waker_wakes_it_when_answered() {
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);
    impl std::task::Wake for Wakes {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let served = server(ServeOptions {
        call_timeout: Duration::from_millis(100),
        ..ServeOptions::default()
    });
    let (woken, settled, timed_out) = serve(&served, |server| async move {
        let calls = [("wait", 5), ("wait", 60_000)].map(|args| {
            let wakes = std::sync::Arc::new(Wakes::default());
            let waker = std::task::Waker::from(wakes.clone());
            let mut call = server.start::<u32>(args).unwrap();
            let polled =
                std::pin::Pin::new(&mut call).poll(&mut std::task::Context::from_waker(&waker));
            assert!(polled.is_pending());
            (wakes, call)
        });
        // Moved, and each awaited only once the waker it was polled with was woken.
        let given_up = std::time::Instant::now() + Duration::from_secs(30);
        let mut woken = Vec::new();
        let mut answers = Vec::new();
        for (wakes, call) in calls {
            while wakes.0.load(std::sync::atomic::Ordering::SeqCst) == 0
                && std::time::Instant::now() < given_up
            {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            woken.push(wakes.0.load(std::sync::atomic::Ordering::SeqCst) > 0);
            answers.push(call.await);
        }
        let timed_out = answers.pop().unwrap();
        let settled = answers.pop().unwrap();
        (woken, settled, timed_out)
    });
    assert_eq!(woken, [true, true]);
    assert_eq!(settled, Ok(5));
    assert_eq!(timed_out, Err(ServeError::TimedOut));

    let unbounded = server(ServeOptions {
        call_timeout: Duration::MAX,
        ..ServeOptions::default()
    });
    let answer = serve(&unbounded, |server| async move {
        server.call::<u32>(("wait", 5)).await
    });
    assert_eq!(answer, Ok(5));
}

/// A call that timed out leaves no timer behind, nor one whose answer the host stopped
/// awaiting (its client went away): the timers they set after an `await` are cancelled.
/// Before, they stayed queued, to fire for calls already answered.
#[test]
fn a_timed_out_or_dropped_calls_timers_are_cancelled() {
    let server = server(ServeOptions {
        call_timeout: Duration::from_millis(100),
        ..ServeOptions::default()
    });
    let (late, after) = serve(&server, |server| async move {
        let late = server.call::<u32>(("late", 60_000)).await;
        let after = server.metrics().timers_cancelled;
        drop(server.start::<u32>(("late", 60_000)).unwrap());
        (late, after)
    });
    assert_eq!(late, Err(ServeError::TimedOut));
    assert_eq!(after, 1);
    assert_eq!(server.metrics().timers_cancelled, 2);
    assert_eq!(server.in_flight(), 0);
}

/// What a call sets on its own behalf (directly, after an `await`, from its timers'
/// callbacks) is its work; another's is not.
#[test]
fn a_calls_timers_are_its_work_and_cancelled_with_it() {
    init_test_flags();
    let mut runtime = Runtime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "work.js",
            "globalThis.work = async () => {
               setTimeout(() => {}, 60000);
               await null;
               setInterval(() => {}, 60000);
               await new Promise((resolve) => setTimeout(() => {
                 setTimeout(() => {}, 60000);
                 resolve();
               }, 0));
               setTimeout(() => {}, 60000);
               return 4;
             };
             globalThis.others = setTimeout(() => {}, 60000);",
        )
        .unwrap();
    let work = runtime.global_function("work").unwrap();
    let owner = std::num::NonZeroU64::new(7).unwrap();
    let call = runtime.start_call_as::<u32>(owner, &work, ());
    let tokio = crate::common::tokio();
    assert_eq!(tokio.block_on(runtime.run_until(call)).unwrap(), Ok(4));
    assert_eq!(runtime.cancel_work_of(owner), 4);
    assert_eq!(runtime.cancel_work_of(owner), 0);
    // Only the script's own timer is left: cleared, the loop has nothing to wait for.
    runtime
        .execute_script("clear.js", "clearTimeout(others)")
        .unwrap();
    let finished = tokio.block_on(async {
        tokio::time::timeout(Duration::from_secs(30), runtime.run_event_loop()).await
    });
    assert!(matches!(finished, Ok(Ok(()))), "{finished:?}");
}

#[test]
fn calls_past_the_bound_are_refused_and_failures_are_the_calls_own() {
    let server = server(ServeOptions {
        max_in_flight: 2,
        ..ServeOptions::default()
    });
    let (answers, thrown) = serve(&server, |server| async move {
        let calls = (0..3).map(|_| {
            let server = server.clone();
            async move { server.call::<u32>(("wait", 20)).await }
        });
        let answers = join_all(calls).await;
        let thrown = server.call::<u32>(("throw", 0)).await;
        (answers, thrown)
    });
    assert_eq!(answers[0], Ok(20));
    assert_eq!(answers[1], Ok(20));
    assert_eq!(answers[2], Err(ServeError::Overloaded));
    match thrown {
        Err(ServeError::Failed(error)) => assert!(error.message.contains("bad request")),
        other => panic!("{other:?}"),
    }
    let metrics = server.metrics();
    assert_eq!((metrics.overloaded, metrics.failed), (1, 1));
}

/// Calls started in one go (as a server starts the requests queued since it last ran), each
/// prepared on its runtime first, awaited where they answer.
#[test]
fn calls_started_in_one_go_are_prepared_on_their_runtime() {
    let server = server(ServeOptions::default());
    let answers = serve(&server, |server| async move {
        let started: Vec<_> = (0..3u32)
            .map(|i| {
                server
                    .start_with::<u32, _>(|runtime| {
                        let file = format!("(globalThis.filed ??= [])[{i}] = {};", i * 10);
                        runtime.execute_script("file.js", &file).unwrap();
                        ("filed", i)
                    })
                    .unwrap()
            })
            .collect();
        assert_eq!(server.in_flight(), 3);
        join_all(started).await
    });
    assert_eq!(answers, [Ok(0), Ok(10), Ok(20)]);
}
