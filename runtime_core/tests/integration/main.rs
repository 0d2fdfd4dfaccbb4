//! runtime_core's integration tests, one module per area, linked into one test binary: each
//! binary links V8, so one binary instead of dozens saves minutes of linking and gigabytes of
//! disk. Tests that need a process of their own (a global allocator, V8 flags of their own,
//! counting the process's threads, a child process per case) are binaries beside this one.

#[path = "../common/mod.rs"]
mod common;

mod async_ops;
mod calls_in_flight;
mod classes;
mod console;
mod deadlines;
mod deno_forms;
mod deno_sync;
mod derive;
mod embedding;
mod embedding_modules;
mod errors;
mod every_kind;
mod examples;
mod fast_slow_agreement;
mod hostile;
mod hostile_globals;
mod inspect;
mod inspector;
mod kinds;
mod loading;
mod metrics;
mod robustness;
mod runtime;
mod serde;
mod serving;
mod snapshot;
mod stack_traces;
mod strings;
mod timers;
mod typescript;
mod url_spaces;
mod webidl;

/// V8 takes its flags once per process, before it starts, and this binary's tests race to start
/// it: the flags the tests need are queued before `main`, as the `ctor` crate does it.
#[used]
#[cfg_attr(
    any(target_os = "linux", target_os = "freebsd"),
    link_section = ".init_array"
)]
#[cfg_attr(target_vendor = "apple", link_section = "__DATA,__mod_init_func")]
#[cfg_attr(windows, link_section = ".CRT$XCU")]
static QUEUE_V8_FLAGS_BEFORE_MAIN: extern "C" fn() = {
    extern "C" fn queue() {
        common::init_test_flags();
    }
    queue
};
