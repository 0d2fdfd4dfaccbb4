//! Stopping a runtime's JavaScript from any thread, and from inside an op.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Stops the JavaScript a [`crate::Runtime`] is running, from any thread (a watchdog) or from
/// inside an op. Cheap to clone; `Send` and `Sync`.
///
/// The script under way stops at V8's next interrupt check (a loop iteration or a function
/// entry; at once when called from an op's slow path) and its `execute_script` returns a
/// [`crate::JsError`] whose [`kind`](crate::JsError::kind) is
/// [`JsErrorKind::Terminated`](crate::JsErrorKind::Terminated). The request is then spent:
/// the runtime runs the next script normally. A request made while no script runs stops the
/// next one at its start.
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
    /// Set with `requested` when the heap reached its limit (see `crate::isolate::heap_limit`).
    out_of_memory: AtomicBool,
    /// Held across setting the flag and asking V8, and across spending both, so that a
    /// request is never half spent (flag cleared, V8's request left to stop a later script).
    lock: Mutex<()>,
}

impl TerminationHandle {
    pub(crate) fn new() -> Self {
        Self {
            shared: Arc::new(Shared {
                isolate: OnceLock::new(),
                requested: AtomicBool::new(false),
                out_of_memory: AtomicBool::new(false),
                lock: Mutex::new(()),
            }),
        }
    }

    /// The isolate's handle, once: the runtime attaches it as soon as the isolate exists.
    pub(crate) fn attach(&self, isolate: v8::IsolateHandle) {
        let _ = self.shared.isolate.set(isolate);
    }

    /// Asks the runtime to stop its JavaScript. Returns `false` if the runtime is gone.
    pub fn terminate(&self) -> bool {
        let _lock = self.shared.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.shared.requested.store(true, Ordering::SeqCst);
        self.ask_v8()
    }

    /// Asks V8 to terminate; before the isolate exists, the flag alone stops the first script.
    fn ask_v8(&self) -> bool {
        self.shared
            .isolate
            .get()
            .is_none_or(|isolate| isolate.terminate_execution())
    }

    /// Terminates because the heap is near its limit: the call's error says so.
    pub(crate) fn terminate_out_of_memory(&self) -> bool {
        let _lock = self.shared.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.shared.out_of_memory.store(true, Ordering::SeqCst);
        self.shared.requested.store(true, Ordering::SeqCst);
        self.ask_v8()
    }

    /// The error of a call this handle's request stopped.
    pub(crate) fn error(&self) -> crate::JsError {
        if self.shared.out_of_memory.load(Ordering::SeqCst) {
            crate::JsError::out_of_memory()
        } else {
            crate::JsError::terminated()
        }
    }

    /// Whether a request is pending (made and not yet spent by a finished script).
    #[ops_macro::inline_hot]
    pub fn is_requested(&self) -> bool {
        self.shared.requested.load(Ordering::Relaxed)
    }

    /// After the outermost call into the runtime returned: spends a pending request, so that
    /// it cannot stop the next call. Returns whether there was one.
    pub(crate) fn spend(&self, isolate: &mut v8::Isolate) -> bool {
        if !self.is_requested() {
            return false;
        }
        let _lock = self.shared.lock.lock().unwrap_or_else(|e| e.into_inner());
        isolate.cancel_terminate_execution();
        self.shared.out_of_memory.store(false, Ordering::SeqCst);
        self.shared.requested.swap(false, Ordering::SeqCst)
    }
}

impl std::fmt::Debug for TerminationHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminationHandle")
            .field("requested", &self.is_requested())
            .finish()
    }
}

/// A JavaScript function that does nothing: calling it makes V8 check for interrupts, so a
/// termination requested during an op takes effect when the op returns, not later.
pub(crate) struct InterruptCheck(pub(crate) v8::Global<v8::Function>);

/// Lets V8 act on pending interrupts now (calling a JavaScript function checks for them on
/// entry). Returns `false` if that terminated execution: a termination requested during a
/// script that finished before V8 checked (e.g. `isolate.terminate_execution()` called by an
/// op, with no loop or call after it) stops that script, not the next one.
pub(crate) fn check_interrupts(scope: &mut v8::PinScope<'_, '_>) -> bool {
    let Some(InterruptCheck(noop)) = scope.get_slot::<InterruptCheck>() else {
        return true; // while the runtime is being made
    };
    let noop = v8::Local::new(scope, noop);
    let receiver = v8::undefined(scope).into();
    noop.call(scope, receiver, &[]).is_some()
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
