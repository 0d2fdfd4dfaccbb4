//! Stopping a runtime's JavaScript from any thread, and from inside an op, now or at a
//! deadline; and waking whatever the runtime waits on so that it stops at once.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;
use std::time::Instant;

use futures_util::task::AtomicWaker;

use super::alarms::{self, AlarmId};
pub(crate) use crate::errors::OutOfMemory;

/// Stops the JavaScript a [`crate::Runtime`] is running, from any thread (a watchdog) or from
/// inside an op. Cheap to clone; `Send` and `Sync`.
///
/// The script under way stops at V8's next interrupt checks (a loop iteration or a function
/// entry; at once when called from an op's slow path) and its `execute_script` returns a
/// [`crate::JsError`] whose [`kind`](crate::JsError::kind) is
/// [`JsErrorKind::Terminated`](crate::JsErrorKind::Terminated), with the stack it was
/// stopped in as its `frames` (where a loop spun). Whatever the runtime waits
/// on is woken: a `run_event_loop`, `call_and_await`, `mod_evaluate` or module load that
/// waits on a timer, an async op or a loader ends with the same error within milliseconds.
/// The request is then spent: the runtime runs the next call normally. A request made while
/// no call runs stops the next one at its start, unless [`TerminationHandle::cancel`]
/// withdraws it; [`TerminationHandle::terminate_at`] arms a deadline that never outlives
/// the call it guards.
///
/// Every runtime puts its handle in its [`crate::OpState`], so an op reaches it as
/// `state.borrow::<TerminationHandle>()`.
///
/// ```
/// use runtime_core::{Runtime, RuntimeOptions};
///
/// let mut runtime = Runtime::new(RuntimeOptions::default());
/// let handle = runtime.termination_handle();
/// let watchdog = std::thread::spawn(move || {
///     std::thread::sleep(std::time::Duration::from_millis(20));
///     handle.terminate();
/// });
/// let err = runtime.execute_script("spin.js", "while (true) {}").unwrap_err();
/// assert!(err.is_terminated());
/// watchdog.join().unwrap();
/// assert_eq!(runtime.execute_script_to_string("after.js", "1 + 1").unwrap(), "2");
/// ```
#[derive(Clone)]
pub struct TerminationHandle {
    shared: Arc<Shared>,
}

struct Shared {
    /// The runtime's isolate, set once it exists (the op contexts, which hold this handle,
    /// are made first: a snapshot's external references name their addresses).
    isolate: OnceLock<v8::IsolateHandle>,
    /// Set by `terminate`, cleared when a finished call spends the request.
    requested: AtomicBool,
    /// Set with `requested` when the heap reached its limit (see `crate::isolate::heap_limit`)
    /// or the memory budget was passed: [`NO_SHORTAGE`], else the [`OutOfMemory`] cause's
    /// code.
    out_of_memory: AtomicU8,
    /// Held across setting the flag and asking V8, and across spending both, so that a
    /// request is never half spent (flag cleared, V8's request left to stop a later script);
    /// says which deadline made the request pending, if one did.
    lock: Mutex<Requests>,
    /// The waker of whatever the runtime awaits (its event loop, a load): a request wakes it.
    waker: AtomicWaker,
}

impl TerminationHandle {
    pub(crate) fn new() -> Self {
        Self {
            shared: Arc::new(Shared {
                isolate: OnceLock::new(),
                requested: AtomicBool::new(false),
                out_of_memory: AtomicU8::new(NO_SHORTAGE),
                lock: Mutex::new(Requests::default()),
                waker: AtomicWaker::new(),
            }),
        }
    }

    /// The isolate's handle, once: the runtime attaches it as soon as the isolate exists.
    pub(crate) fn attach(&self, isolate: v8::IsolateHandle) {
        let _ = self.shared.isolate.set(isolate);
    }

    /// Asks the runtime to stop its JavaScript, and wakes what it waits on. Returns `false`
    /// if the runtime is gone.
    pub fn terminate(&self) -> bool {
        let alive = {
            let mut requests = self.requests();
            requests.by_deadline = 0;
            self.request()
        };
        // Outside the lock: a waker is the host's code.
        self.shared.waker.wake();
        alive
    }

    fn requests(&self) -> std::sync::MutexGuard<'_, Requests> {
        self.shared.lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the flag and asks V8 (under the lock); before the isolate exists, the flag alone
    /// stops the first script. V8 is asked for an interrupt, not for termination: it acts on
    /// a termination before any interrupt at the same check, and the stack would be gone
    /// before anything could read it. The interrupt reads the stack, then terminates
    /// ([`locate_and_stop`]); a runtime entered with a request pending stops at once
    /// ([`TerminationHandle::stop_pending`]).
    fn request(&self) -> bool {
        self.shared.requested.store(true, Ordering::SeqCst);
        self.shared
            .isolate
            .get()
            .is_none_or(|isolate| isolate.request_interrupt(locate_and_stop, std::ptr::null_mut()))
    }

    /// On entering the runtime: a request made while it ran nothing stops what comes at its
    /// start (it has no stack to report).
    #[ops_macro::inline_hot]
    pub(crate) fn stop_pending(&self, isolate: &mut v8::Isolate) {
        if self.is_requested() {
            self.stop_now(isolate);
        }
    }

    #[cold]
    #[inline(never)]
    fn stop_now(&self, isolate: &mut v8::Isolate) {
        let _requests = self.requests();
        if self.is_requested() {
            isolate.terminate_execution();
        }
    }

    /// Withdraws a request no call has spent yet (one made while nothing ran, say): the next
    /// call runs normally. Returns whether there was one. (deno's
    /// `cancel_terminate_execution`.)
    pub fn cancel(&self) -> bool {
        let mut requests = self.requests();
        self.withdraw(&mut requests)
    }

    /// Withdraws the pending request (under the lock).
    fn withdraw(&self, requests: &mut Requests) -> bool {
        requests.by_deadline = 0;
        requests.stopped_at = Vec::new();
        if let Some(isolate) = self.shared.isolate.get() {
            isolate.cancel_terminate_execution();
        }
        self.shared
            .out_of_memory
            .store(NO_SHORTAGE, Ordering::SeqCst);
        self.shared.requested.swap(false, Ordering::SeqCst)
    }

    /// Terminates the runtime's JavaScript at `at` (see [`Deadline`]), unless the deadline
    /// is dropped first: a deadline per call or per request, covering both a script that
    /// spins and one that waits.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use runtime_core::{Runtime, RuntimeOptions};
    ///
    /// let mut runtime = Runtime::new(RuntimeOptions::default());
    /// let deadline = runtime
    ///     .termination_handle()
    ///     .terminate_at(Instant::now() + Duration::from_millis(20));
    /// let err = runtime.execute_script("spin.js", "for (;;) {}").unwrap_err();
    /// assert!(err.is_terminated() && deadline.has_passed());
    /// drop(deadline);
    /// assert_eq!(runtime.execute_script_to_string("next.js", "1 + 1").unwrap(), "2");
    /// ```
    pub fn terminate_at(&self, at: Instant) -> Deadline {
        let state = Arc::new(DeadlineState::default());
        let alarm = {
            let handle = self.clone();
            let state = state.clone();
            alarms::set(at, move || handle.terminate_for(&state))
        };
        Deadline {
            alarm,
            state,
            handle: self.clone(),
        }
    }

    /// A deadline's request, unless it was disarmed meanwhile (both under the lock).
    fn terminate_for(&self, deadline: &DeadlineState) {
        {
            let mut requests = self.requests();
            if deadline.disarmed.load(Ordering::SeqCst) {
                return;
            }
            requests.last_id += 1;
            requests.by_deadline = requests.last_id;
            deadline.request.store(requests.last_id, Ordering::SeqCst);
            self.request();
        }
        self.shared.waker.wake();
    }

    /// Disarms a deadline: if the request pending is the one it made, withdraws it.
    fn disarm(&self, deadline: &DeadlineState) {
        let mut requests = self.requests();
        deadline.disarmed.store(true, Ordering::SeqCst);
        let made = deadline.request.load(Ordering::SeqCst);
        if made != 0 && requests.by_deadline == made && self.is_requested() {
            self.withdraw(&mut requests);
        }
    }

    /// Keeps the waker of what the runtime awaits now, for a request to wake.
    #[inline]
    pub(crate) fn register_waker(&self, waker: &Waker) {
        self.shared.waker.register(waker);
    }

    /// Terminates because the heap is near its limit, or the runtime holds more than its
    /// memory budget: the call's error says so. Called from V8's heap callbacks, while the
    /// runtime runs (so it wakes nothing: no host code runs inside a collection).
    pub(crate) fn terminate_out_of_memory(&self, cause: OutOfMemory) -> bool {
        let mut requests = self.requests();
        requests.by_deadline = 0;
        self.shared
            .out_of_memory
            .store(code(cause), Ordering::SeqCst);
        self.request()
    }

    /// The error of a call this handle's request stopped, with the stack it stopped in.
    pub(crate) fn error(&self) -> crate::JsError {
        let stopped_at = self.requests().stopped_at.clone();
        error_of(self.shared.out_of_memory.load(Ordering::SeqCst)).stopped_at(stopped_at)
    }

    /// Whether a request is pending (made and not yet spent by a finished script).
    #[ops_macro::inline_hot]
    pub fn is_requested(&self) -> bool {
        self.shared.requested.load(Ordering::Relaxed)
    }

    /// After the outermost call into the runtime returned: spends a pending request, so that
    /// it cannot stop the next call. Returns its error (out of memory, if that is why), read
    /// under the same lock as the spend: a request that lands meanwhile is either spent and
    /// reported here, or left whole for the next call, never spent unreported.
    pub(crate) fn spend(&self, isolate: &mut v8::Isolate) -> Option<crate::JsError> {
        if !self.is_requested() {
            return None;
        }
        let mut requests = self.requests();
        requests.by_deadline = 0;
        let stopped_at = std::mem::take(&mut requests.stopped_at);
        isolate.cancel_terminate_execution();
        let out_of_memory = self
            .shared
            .out_of_memory
            .swap(NO_SHORTAGE, Ordering::SeqCst);
        self.shared
            .requested
            .swap(false, Ordering::SeqCst)
            .then(|| error_of(out_of_memory).stopped_at(stopped_at))
    }
}

/// `out_of_memory` when the request was not for want of memory.
const NO_SHORTAGE: u8 = 0;

fn code(cause: OutOfMemory) -> u8 {
    match cause {
        OutOfMemory::Heap => 1,
        OutOfMemory::Budget => 2,
    }
}

/// The error of a request whose `out_of_memory` code is `code`.
fn error_of(code: u8) -> crate::JsError {
    match code {
        1 => crate::JsError::out_of_memory(OutOfMemory::Heap),
        2 => crate::JsError::out_of_memory(OutOfMemory::Budget),
        _ => crate::JsError::terminated(),
    }
}

/// What the lock of a handle's requests guards besides the flags.
#[derive(Default)]
struct Requests {
    /// The id of the last request a deadline made.
    last_id: u64,
    /// The id of the deadline request pending, 0 if the pending request (if any) is another's.
    by_deadline: u64,
    /// The stack the pending request stopped the script in, once [`locate_and_stop`] read it.
    stopped_at: Vec<crate::JsStackFrame>,
}

/// V8's interrupt for a request: reads the stack the script is in, then terminates it (V8
/// acts at its next check), unless the request was withdrawn or spent meanwhile (an
/// interrupt left from a spent request runs at the next entry, and does nothing).
unsafe extern "C" fn locate_and_stop(isolate: v8::UnsafeRawIsolatePtr, _data: *mut c_void) {
    let mut isolate = isolate;
    // SAFETY: V8 passes the isolate it interrupts, on the isolate's thread, with its
    // JavaScript on the stack and a handle scope of V8's open.
    let isolate = unsafe { v8::Isolate::ref_from_raw_isolate_ptr_mut(&mut isolate) };
    let Some(handle) = isolate.get_slot::<TerminationHandle>().cloned() else {
        return;
    };
    if !handle.is_requested() {
        return;
    }
    let Some(context) = isolate
        .get_slot::<InterruptCheck>()
        .map(|check| check.context.clone())
    else {
        return; // while the runtime is being made: the flag stops its first script
    };
    // Outside the lock: reading the stack allocates, and a collection may call back into
    // `terminate_out_of_memory`, which takes it.
    let frames = {
        // SAFETY: inside V8's interrupt, as above: the callback scope opens no handle scope,
        // the one made here is nested in V8's.
        v8::callback_scope!(unsafe scope, &mut *isolate);
        v8::scope!(let scope, scope);
        let context = v8::Local::new(scope, context);
        let scope = &mut v8::ContextScope::new(scope, context);
        let mut frames = super::current_stack::capture(scope);
        // The runtime's interrupt check (after an op that asked) is not the script's.
        frames.retain(|frame| frame.file_name.as_deref() != Some(INTERRUPT_CHECK_SCRIPT));
        frames
    };
    let mut requests = handle.requests();
    if handle.is_requested() {
        requests.stopped_at = frames;
        isolate.terminate_execution();
    }
}

/// A deadline's side of the handle's lock.
#[derive(Debug, Default)]
struct DeadlineState {
    /// Dropped: its alarm, if it fires, requests nothing.
    disarmed: AtomicBool,
    /// The id of the request it made, 0 until it fires.
    request: AtomicU64,
}

/// A deadline armed by [`TerminationHandle::terminate_at`]. Dropped before its time, nothing
/// happens; at its time, the runtime's JavaScript is terminated (the call under way, or the
/// next one). Dropped after its time, it withdraws the request it made if no call spent it (it
/// came as the call ended), and only that one (not a watchdog's or an out-of-memory request
/// that came after it), so a deadline never stops a call it did not guard.
#[must_use = "dropping a deadline disarms it"]
#[derive(Debug)]
pub struct Deadline {
    alarm: AlarmId,
    state: Arc<DeadlineState>,
    handle: TerminationHandle,
}

impl Deadline {
    /// Whether the time came (and the termination was requested).
    pub fn has_passed(&self) -> bool {
        self.state.request.load(Ordering::SeqCst) != 0
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        alarms::cancel(self.alarm);
        self.handle.disarm(&self.state);
    }
}

impl std::fmt::Debug for TerminationHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminationHandle")
            .field("requested", &self.is_requested())
            .finish()
    }
}

/// The name of the script that makes [`InterruptCheck`]'s function.
pub(crate) const INTERRUPT_CHECK_SCRIPT: &str = "<interrupt check>";

/// A JavaScript function that does nothing: calling it makes V8 check for interrupts, so a
/// termination requested during an op takes effect when the op returns, not later.
pub(crate) struct InterruptCheck {
    pub(crate) noop: v8::Global<v8::Function>,
    /// The runtime's context: a request's interrupt reads the stack in it.
    pub(crate) context: v8::Global<v8::Context>,
}

/// Lets V8 act on pending interrupts now (calling a JavaScript function checks for them on
/// entry). Returns `false` if that terminated execution: a termination requested during a
/// script that finished before V8 checked (e.g. `isolate.terminate_execution()` called by an
/// op, with no loop or call after it) stops that script, not the next one.
pub(crate) fn check_interrupts(scope: &mut v8::PinScope<'_, '_>) -> bool {
    let Some(InterruptCheck { noop, .. }) = scope.get_slot::<InterruptCheck>() else {
        return true; // while the runtime is being made
    };
    let noop = v8::Local::new(scope, noop);
    let receiver = v8::undefined(scope).into();
    if noop.call(scope, receiver, &[]).is_none() {
        return false;
    }
    // A request's interrupt ran at that check and asked V8 to terminate at the next.
    let requested = scope
        .get_slot::<TerminationHandle>()
        .is_some_and(TerminationHandle::is_requested);
    !requested || noop.call(scope, receiver, &[]).is_some()
}

/// Here, not with `JsError`, because it reads the isolate's `TerminationHandle`.
impl crate::JsError {
    /// The error of a script that V8 stopped in `isolate`: out of memory if that is why.
    pub(crate) fn terminated_in(isolate: &v8::Isolate) -> Self {
        match isolate.get_slot::<TerminationHandle>() {
            Some(termination) => termination.error(),
            None => Self::terminated(),
        }
    }
}
