//! Everything a runtime owns is freed with it: the Rust memory its ops handed to V8 (vectors
//! behind Uint8Arrays), its op state, its op contexts and their caches. Measured as the net
//! bytes of this process's Rust heap (V8's own heap is not Rust's), around many runtimes.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

use runtime_core::{op, ByteString, Extension, Runtime, RuntimeOptions};

/// The system allocator, keeping the net count of live bytes.
struct NetBytes;

static LIVE: AtomicI64 = AtomicI64::new(0);

// SAFETY: forwards to `System`, only counting.
unsafe impl GlobalAlloc for NetBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded from the caller.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: NetBytes = NetBytes;

#[op]
fn op_vec(len: u32) -> Vec<u8> {
    vec![1; len as usize]
}

#[op]
fn op_boxed(len: u32) -> Box<[u8]> {
    vec![2; len as usize].into_boxed_slice()
}

#[op]
fn op_string(len: u32) -> String {
    "é".repeat(len as usize)
}

#[op]
fn op_bytestring(len: u32) -> ByteString {
    ByteString(vec![b'x'; len as usize])
}

#[op]
fn op_static() -> &'static str {
    "a static string, cached per op"
}

/// A runtime whose ops hand V8 about 13 MB of Rust memory, half of it still reachable from
/// JavaScript when the runtime goes.
fn use_and_drop_a_runtime() {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("drops")
            .ops(&[
                op_vec::DECL,
                op_boxed::DECL,
                op_string::DECL,
                op_bytestring::DECL,
                op_static::DECL,
            ])
            .state(|state| {
                state.put(vec![0u8; 1 << 20]);
            })],
        ..Default::default()
    });
    let kept = runtime
        .execute_script_to_string(
            "drops.js",
            "globalThis.kept = [];
             for (let i = 0; i < 50; i++) {
               kept.push(ops.op_vec(65536), ops.op_boxed(65536));
               ops.op_vec(65536); ops.op_boxed(65536);
               kept.push(ops.op_string(100), ops.op_bytestring(100), ops.op_static());
             }
             gc();
             kept.length",
        )
        .unwrap();
    assert_eq!(kept, "250");
}

#[test]
fn a_dropped_runtime_leaves_no_rust_memory_behind() {
    common::init_test_flags();
    use_and_drop_a_runtime(); // warms what lives for the process (V8's platform, thread-locals)
    let before = LIVE.load(Ordering::Relaxed);
    for _ in 0..10 {
        use_and_drop_a_runtime();
    }
    let leaked = LIVE.load(Ordering::Relaxed) - before;
    // Ten runtimes each handed V8 ~13 MB; a leak of any of it would show in megabytes.
    assert!(
        leaked.abs() < 64 * 1024,
        "{leaked} bytes left after ten runtimes"
    );
}
