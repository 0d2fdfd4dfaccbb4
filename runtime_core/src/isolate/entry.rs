//! Entering a runtime's isolate on its thread. V8 allocates an entry and takes a process-wide
//! lock whenever a thread enters an isolate that is not its current one, about a seventh of a
//! bare call from Rust into JavaScript. So a call that enters its isolate first on the thread
//! (the bottom of V8's per-thread stack of entries) leaves it entered when it ends ("left
//! entered"), and the next call into the same runtime enters nothing. A call into another
//! runtime first exits the one left entered when it is on top, so entries never pile up; a
//! call made while any other isolate is entered (nested in another runtime's op, or above an
//! isolate the embedder entered) enters and exits as V8 expects, so a runtime is never left
//! above an isolate it did not enter; a runtime about to be disposed takes its entry back.
//!
//! The one order this cannot serve: an isolate entered above one left entered (a raw
//! `v8::Isolate` made by the embedder after a call) that is still entered when the runtime
//! below it is dropped. V8's entries are a stack, so that runtime's isolate cannot be exited
//! then; it is leaked instead of disposed (see `Runtime`'s `Drop`), never used after free.

use std::cell::Cell;

thread_local! {
    /// The isolate a runtime left entered on this thread, if any: no call into it is running.
    static LEFT_ENTERED: Cell<*mut v8::RealIsolate> = const { Cell::new(std::ptr::null_mut()) };
    /// How many calls into runtimes are running on this thread (nested ones included).
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

use crate::v8_raw::{real_isolate, v8__Isolate__Exit, v8__Isolate__TryGetCurrent};

fn raw(isolate: &v8::Isolate) -> *mut v8::RealIsolate {
    // SAFETY: the pointer is only compared with V8's current isolate and passed to V8 while
    // `isolate` lives (the runtime owns it).
    real_isolate(unsafe { isolate.as_raw_isolate_ptr() })
}

/// The thread's current isolate; null when none is entered.
fn current() -> *mut v8::RealIsolate {
    // SAFETY: reads V8's thread-local current isolate.
    unsafe { v8__Isolate__TryGetCurrent() }
}

/// How a call found its isolate: left entered by the last call (nothing entered), or entered
/// (onto a thread with no isolate entered, or above another).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// It was left entered: the call took that entry.
    Taken,
    /// The call entered it first on the thread: its entry is the bottom one.
    EnteredAtBottom,
    /// The call entered it above another isolate's entry.
    Entered,
}

/// Makes `isolate`, a runtime's, the thread's current one for a call into the runtime; pair
/// with [`end_call`].
///
/// # Safety
/// `isolate` must be alive and belong to this thread; an isolate left entered must stay alive
/// until [`take_back`] is called for it.
pub(crate) unsafe fn begin_call(isolate: &v8::Isolate) -> Entry {
    let me = raw(isolate);
    let running = CALLS.get();
    CALLS.set(running + 1);
    let left = LEFT_ENTERED.get();
    // Only with no call running is the entry on top the idle one left entered: a running call
    // into that same isolate (entered above something else) owns the top entry.
    if running == 0 && !left.is_null() && left == current() {
        LEFT_ENTERED.set(std::ptr::null_mut());
        if left == me {
            return Entry::Taken;
        }
        // Another runtime's, left entered on top with no call running in it: exited, which
        // restores what was current before it.
        // SAFETY: alive (the caller's contract), and the current isolate.
        unsafe { v8__Isolate__Exit(left) };
    }
    let bottom = current().is_null();
    // SAFETY: the caller's isolate, alive, on its thread.
    unsafe { isolate.enter() };
    if bottom {
        Entry::EnteredAtBottom
    } else {
        Entry::Entered
    }
}

/// Ends a call [`begin_call`] began: an entry at the bottom of the thread's stack (taken, or
/// entered onto an empty one) is left entered, so an isolate left entered is always the
/// bottom one and never sits above an isolate the embedder entered; any other call exits
/// what it entered.
///
/// # Safety
/// `isolate` and `entry` as [`begin_call`] gave them, calls ending in reverse order of their
/// beginning.
pub(crate) unsafe fn end_call(isolate: &v8::Isolate, entry: Entry) {
    let calls = CALLS.get() - 1;
    CALLS.set(calls);
    let me = raw(isolate);
    debug_assert!(
        entry == Entry::Entered || calls == 0,
        "a bottom entry ends last"
    );
    match entry {
        // The bottom entry stays this isolate's, whatever was entered above it meanwhile
        // (`take_back` then sees that it cannot be exited).
        Entry::Taken | Entry::EnteredAtBottom => LEFT_ENTERED.set(me),
        // SAFETY: entered by `begin_call`; everything entered since has been exited (calls
        // and scopes are strictly nested), so it is the current one.
        Entry::Entered => unsafe { isolate.exit() },
    }
}

/// Before `isolate` is disposed, which exits it once and needs it current: makes it current
/// with exactly one entry of its own to exit. `false` when that cannot be: it was left
/// entered and another isolate is entered above it (see the module's doc).
///
/// # Safety
/// As [`begin_call`].
pub(crate) unsafe fn take_back(isolate: &v8::Isolate) -> bool {
    let me = raw(isolate);
    if LEFT_ENTERED.get() == me {
        LEFT_ENTERED.set(std::ptr::null_mut());
        return current() == me;
    }
    // SAFETY: the caller's isolate, alive, on its thread; entered on top of whatever is.
    unsafe { isolate.enter() };
    true
}
