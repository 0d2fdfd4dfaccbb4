//! Entering a runtime's isolate on its thread. V8 allocates an entry and takes a process-wide
//! lock whenever a thread enters an isolate that is not its current one, about a seventh of a
//! bare call from Rust into JavaScript. So when the outermost call into a runtime ends, its
//! isolate stays entered ("left entered"), and the next call into the same runtime enters
//! nothing. A call into another runtime first exits the one left entered when it is on top,
//! so entries never pile up; a call nested in another runtime's (from one of its ops) enters
//! and exits as V8 expects; a runtime about to be disposed takes its own entry back.
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

// The v8 crate binds these in its `binding.cc` and keeps the bindings private; the archive it
// links exports them.
unsafe extern "C" {
    fn v8__Isolate__GetCurrent() -> *mut v8::RealIsolate;
    fn v8__Isolate__Exit(isolate: *mut v8::RealIsolate);
}

fn raw(isolate: &v8::Isolate) -> *mut v8::RealIsolate {
    // SAFETY: `UnsafeRawIsolatePtr` is a `repr(transparent)` raw pointer to the isolate.
    unsafe {
        std::mem::transmute::<v8::UnsafeRawIsolatePtr, *mut v8::RealIsolate>(
            isolate.as_raw_isolate_ptr(),
        )
    }
}

fn current() -> *mut v8::RealIsolate {
    // SAFETY: reads V8's thread-local current isolate.
    unsafe { v8__Isolate__GetCurrent() }
}

/// How a call found its isolate: left entered by the last call (nothing entered), or entered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// It was left entered: the call took that entry.
    Taken,
    /// The call entered it.
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
    // SAFETY: the caller's isolate, alive, on its thread.
    unsafe { isolate.enter() };
    Entry::Entered
}

/// Ends a call [`begin_call`] began: the outermost call leaves its isolate entered when it is
/// the current one and nothing else is left entered; any other exits what it entered.
///
/// # Safety
/// `isolate` and `entry` as [`begin_call`] gave them, calls ending in reverse order of their
/// beginning.
pub(crate) unsafe fn end_call(isolate: &v8::Isolate, entry: Entry) {
    let calls = CALLS.get() - 1;
    CALLS.set(calls);
    let me = raw(isolate);
    match entry {
        // The entry left by the last call is still this isolate's, whatever was entered above
        // it meanwhile (`take_back` then sees that it cannot be exited).
        Entry::Taken => LEFT_ENTERED.set(me),
        Entry::Entered if calls == 0 && LEFT_ENTERED.get().is_null() && current() == me => {
            LEFT_ENTERED.set(me);
        }
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
