//! Timers on the event loop, behind `setTimeout`, `setInterval`, their `clear`s and
//! `unrefTimer`/`refTimer` (the globals are `crate::globals`'s `timers`). Deadlines wait in a heap
//! ordered by deadline, then by creation (timers due at the same time fire in the order they were
//! made, as the HTML spec says; its nesting clamp is not emulated). The loop fires each due timer
//! as its own task, with a microtask checkpoint after it, and is woken at the next deadline by a
//! tokio timer when it runs inside tokio (a `timerfd` instead with
//! `RuntimeOptions::precise_timers`, on Linux: `timer_fd.rs`), else by an alarm of the process's
//! one alarm thread (a runtime has one armed at most, cancelled when it drops).

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::task::Context;
use std::time::{Duration, Instant};

use crate::event_loop::work_owner::{self, WorkOwner};
use crate::isolate::alarms::{self, AlarmId};
use crate::JsError;

struct Timer {
    /// The sequence number of its node in the heap (an older node is stale).
    seq: u64,
    repeat: Option<Duration>,
    refed: bool,
    /// The call it was set on behalf of (see `crate::event_loop::work_owner`), if any: it fires
    /// on that call's behalf, and is cancelled with that call's work.
    owner: Option<WorkOwner>,
}

/// One runtime's timers (in its op state and on its event loop).
#[derive(Default)]
pub(crate) struct Timers {
    /// `(deadline, seq, id)`, earliest first.
    heap: RefCell<BinaryHeap<Reverse<(Instant, u64, u32)>>>,
    timers: RefCell<HashMap<u32, Timer>>,
    next_id: Cell<u32>,
    next_seq: Cell<u64>,
    /// How many timers keep the loop alive.
    refed: Cell<usize>,
    /// `fire(id)` of `globals/timers.js`.
    fire: RefCell<Option<v8::Global<v8::Function>>>,
    wake: RefCell<Wake>,
    /// The waker of the loop's last poll: a timer due before the armed deadline wakes it, to
    /// be armed for.
    waker: RefCell<Option<std::task::Waker>>,
    /// The deadline the loop will be woken at.
    armed: Cell<Option<Instant>>,
    /// Wake at deadlines to the microsecond inside tokio (`RuntimeOptions::precise_timers`).
    precise: bool,
}

/// What wakes the loop at the next deadline.
#[derive(Default)]
enum Wake {
    #[default]
    None,
    /// A tokio timer of the runtime with this id (one that was shut down must not be polled).
    #[cfg(feature = "tokio")]
    Tokio(tokio::runtime::Id, std::pin::Pin<Box<tokio::time::Sleep>>),
    /// A timerfd registered with the reactor of the runtime with this id.
    #[cfg(all(feature = "tokio", target_os = "linux"))]
    Precise(tokio::runtime::Id, super::timer_fd::TimerFd),
    /// An alarm of the process's alarm thread (`crate::isolate::alarms`), waking this waker.
    Alarm(Instant, AlarmId, std::task::Waker),
}

impl Drop for Wake {
    fn drop(&mut self) {
        if let Wake::Alarm(_, alarm, _) = self {
            alarms::cancel(*alarm);
        }
    }
}

impl Timers {
    /// Timers woken by tokio's own timer (or the alarm thread), or `precise`ly.
    pub(crate) fn new(precise: bool) -> Self {
        Self {
            precise,
            ..Self::default()
        }
    }

    pub(crate) fn start(&self, delay_ms: f64, repeat: bool, owner: Option<WorkOwner>) -> u32 {
        let delay = Duration::from_secs_f64((delay_ms / 1000.0).clamp(0.0, 1e9));
        let mut id = self.next_id.get().wrapping_add(1).max(1);
        // After 2^32 timers, ids come round: skip the ones still live.
        while self.timers.borrow().contains_key(&id) {
            id = id.wrapping_add(1).max(1);
        }
        self.next_id.set(id);
        let deadline = Instant::now() + delay;
        let seq = self.schedule(id, deadline);
        if self.armed.get().is_none_or(|armed| deadline < armed) {
            if let Some(waker) = &*self.waker.borrow() {
                waker.wake_by_ref();
            }
        }
        self.timers.borrow_mut().insert(
            id,
            Timer {
                seq,
                repeat: repeat.then_some(delay),
                refed: true,
                owner,
            },
        );
        self.refed.set(self.refed.get() + 1);
        id
    }

    fn schedule(&self, id: u32, deadline: Instant) -> u64 {
        let seq = self.next_seq.get();
        self.next_seq.set(seq + 1);
        self.heap.borrow_mut().push(Reverse((deadline, seq, id)));
        seq
    }

    pub(crate) fn cancel(&self, id: u32) {
        if let Some(timer) = self.timers.borrow_mut().remove(&id) {
            if timer.refed {
                self.refed.set(self.refed.get() - 1);
            }
        }
        // Cancelled timers' nodes wait for their deadlines: once they outnumber the live ones
        // (`clearTimeout(setTimeout(f, 1e9))` in a loop), the heap keeps only the live.
        let live = self.timers.borrow().len();
        if self.heap.borrow().len() > 2 * live + 64 {
            let timers = self.timers.borrow();
            self.heap.borrow_mut().retain(|Reverse((_, seq, id))| {
                timers.get(id).is_some_and(|timer| timer.seq == *seq)
            });
        }
    }

    pub(crate) fn set_ref(&self, id: u32, refed: bool) {
        if let Some(timer) = self.timers.borrow_mut().get_mut(&id) {
            if timer.refed != refed {
                timer.refed = refed;
                let count = self.refed.get();
                self.refed.set(if refed { count + 1 } else { count - 1 });
            }
        }
    }

    /// Cancels the timers set on behalf of `owner` (their callbacks are forgotten, in
    /// JavaScript too); returns how many.
    pub(crate) fn cancel_owned(&self, scope: &mut v8::PinScope<'_, '_>, owner: WorkOwner) -> usize {
        let owned: Vec<u32> = self
            .timers
            .borrow()
            .iter()
            .filter(|(_, timer)| timer.owner == Some(owner))
            .map(|(id, _)| *id)
            .collect();
        let Some(fire) = self.fire.borrow().clone() else {
            return 0;
        };
        let fire = v8::Local::new(scope, fire);
        for &id in &owned {
            self.cancel(id);
            v8::tc_scope!(let try_catch, scope);
            let receiver = v8::undefined(try_catch).into();
            // `fire(-id)` forgets one timer; it runs no script's code.
            let forget = v8::Number::new(try_catch, -f64::from(id)).into();
            let _ = fire.call(try_catch, receiver, &[forget]);
        }
        owned.len()
    }

    /// Cancels every timer (their callbacks are forgotten, in JavaScript too).
    pub(crate) fn cancel_all(&self, scope: &mut v8::PinScope<'_, '_>) {
        self.timers.borrow_mut().clear();
        self.heap.borrow_mut().clear();
        self.refed.set(0);
        self.armed.set(None);
        *self.wake.borrow_mut() = Wake::None;
        let Some(fire) = self.fire.borrow().clone() else {
            return;
        };
        let fire = v8::Local::new(scope, fire);
        v8::tc_scope!(let try_catch, scope);
        let receiver = v8::undefined(try_catch).into();
        let all = v8::Integer::new(try_catch, 0).into();
        // It runs no script's code (`globals/timers.js`): only a termination pending from
        // before can stop it, which the caller's call reports.
        let _ = fire.call(try_catch, receiver, &[all]);
    }

    /// Whether any timer is live, unref'd ones too.
    pub(crate) fn has_timers(&self) -> bool {
        !self.timers.borrow().is_empty()
    }

    pub(crate) fn clear_fire(&self) {
        self.fire.borrow_mut().take();
    }

    pub(crate) fn set_fire(&self, fire: v8::Global<v8::Function>) {
        *self.fire.borrow_mut() = Some(fire);
    }

    /// The next timer due by `now`, taken off the heap (an interval is scheduled again), and
    /// its owner.
    fn next_due(&self, now: Instant) -> Option<(u32, Option<WorkOwner>)> {
        loop {
            let Reverse((deadline, seq, id)) = *self.heap.borrow().peek()?;
            if deadline > now {
                return None;
            }
            self.heap.borrow_mut().pop();
            let mut timers = self.timers.borrow_mut();
            let Some(timer) = timers.get_mut(&id).filter(|timer| timer.seq == seq) else {
                continue; // cancelled, or scheduled again since
            };
            let owner = timer.owner;
            match timer.repeat {
                Some(interval) => {
                    drop(timers);
                    // From the clock after the callbacks so far, at least 1 ms on (as Node):
                    // `setInterval(f, 0)` is due again next turn, not within this one.
                    let at = Instant::now() + interval.max(Duration::from_millis(1));
                    let seq = self.schedule(id, at);
                    if let Some(timer) = self.timers.borrow_mut().get_mut(&id) {
                        timer.seq = seq;
                    }
                }
                None => {
                    let timer = timers.remove(&id).expect("found above");
                    if timer.refed {
                        self.refed.set(self.refed.get() - 1);
                    }
                }
            }
            return Some((id, owner));
        }
    }

    /// Arranges for the loop to be woken at the earliest deadline.
    fn keep_waker(&self, cx: &Context<'_>) {
        let mut waker = self.waker.borrow_mut();
        if !waker
            .as_ref()
            .is_some_and(|kept| kept.will_wake(cx.waker()))
        {
            *waker = Some(cx.waker().clone());
        }
    }

    fn arm(&self, cx: &mut Context<'_>) {
        self.keep_waker(cx);
        let Some(Reverse((deadline, _, _))) = self.heap.borrow().peek().copied() else {
            let mut wake = self.wake.borrow_mut();
            // A timerfd is kept for the next timer (made again, it would cost three system
            // calls per timer of a loop that empties its heap each time).
            #[cfg(all(feature = "tokio", target_os = "linux"))]
            let keep = matches!(*wake, Wake::Precise(..));
            #[cfg(not(all(feature = "tokio", target_os = "linux")))]
            let keep = false;
            if !keep {
                *wake = Wake::None;
            }
            self.armed.set(None);
            return;
        };
        self.armed.set(Some(deadline));
        let mut wake = self.wake.borrow_mut();
        #[cfg(feature = "tokio")]
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let runtime = handle.id();
            #[cfg(target_os = "linux")]
            if self.precise && arm_precise(&mut wake, runtime, deadline, cx) {
                return;
            }
            let at = tokio::time::Instant::from_std(deadline);
            match &mut *wake {
                Wake::Tokio(id, sleep) if *id == runtime => {
                    if sleep.deadline() != at {
                        sleep.as_mut().reset(at);
                    }
                }
                _ => *wake = Wake::Tokio(runtime, Box::pin(tokio::time::sleep_until(at))),
            }
            if let Wake::Tokio(_, sleep) = &mut *wake {
                if std::future::Future::poll(sleep.as_mut(), cx).is_ready() {
                    cx.waker().wake_by_ref();
                }
            }
            return;
        }
        if let Wake::Alarm(at, _, waker) = &*wake {
            if *at == deadline && waker.will_wake(cx.waker()) {
                return; // armed already
            }
        }
        // One alarm per runtime: the one it replaces is cancelled (as `Wake` drops).
        let waker = cx.waker().clone();
        let alarm = alarms::set(deadline, {
            let waker = waker.clone();
            move || waker.wake()
        });
        *wake = Wake::Alarm(deadline, alarm, waker);
    }
}

/// Sets the runtime's timerfd (made at its first use in a tokio runtime) for `deadline`;
/// `false` when there is none (no descriptor left): tokio's own timer wakes the loop instead.
#[cfg(all(feature = "tokio", target_os = "linux"))]
fn arm_precise(
    wake: &mut Wake,
    runtime: tokio::runtime::Id,
    deadline: Instant,
    cx: &mut Context<'_>,
) -> bool {
    if !matches!(wake, Wake::Precise(id, _) if *id == runtime) {
        match super::timer_fd::TimerFd::new() {
            Ok(timer) => *wake = Wake::Precise(runtime, timer),
            Err(_) => return false,
        }
    }
    let Wake::Precise(_, timer) = wake else {
        return false;
    };
    match timer.poll_until(deadline, cx) {
        std::task::Poll::Pending => true,
        std::task::Poll::Ready(Ok(())) => {
            cx.waker().wake_by_ref();
            true
        }
        std::task::Poll::Ready(Err(_)) => {
            *wake = Wake::None;
            false
        }
    }
}

impl crate::event_loop::LoopSource for Timers {
    fn poll_source(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        if self.heap.borrow().is_empty() {
            // No timer: no clock read; the waker kept for the first `setTimeout` to wake.
            self.keep_waker(cx);
            return Ok(false);
        }
        let now = Instant::now();
        let mut fired = false;
        while let Some((id, owner)) = self.next_due(now) {
            // A local of the kept function, not a clone of its global (a global handle made
            // and freed per timer).
            let Some(fire) = self
                .fire
                .borrow()
                .as_ref()
                .map(|f| v8::Local::new(scope, f))
            else {
                break;
            };
            fired = true;
            v8::tc_scope!(let try_catch, scope);
            let receiver = v8::undefined(try_catch).into();
            let id = v8::Integer::new_from_unsigned(try_catch, id).into();
            // On its owner's behalf: what its callback sets (a timer, an await) is the
            // owner's too.
            if let Some(owner) = owner {
                work_owner::enter(try_catch, owner);
            }
            let called = fire.call(try_catch, receiver, &[id]);
            if owner.is_some() {
                work_owner::leave(try_catch);
            }
            if called.is_none() {
                if try_catch.has_terminated() || try_catch.is_execution_terminating() {
                    return Err(JsError::terminated_in(try_catch));
                }
                if let Some(exception) = try_catch.exception() {
                    return Err(JsError::from_exception(try_catch, exception));
                }
            }
            // Each timer is a task: its microtasks run before the next one fires.
            try_catch.perform_microtask_checkpoint();
        }
        self.arm(cx);
        Ok(fired)
    }

    fn keeps_alive(&self) -> bool {
        self.refed.get() > 0
    }

    fn has_pending(&self) -> bool {
        self.has_timers()
    }

    fn cancel_pending(&self, scope: &mut v8::PinScope<'_, '_>) {
        self.cancel_all(scope);
    }

    fn forget(&self) {
        self.clear_fire();
    }
}
