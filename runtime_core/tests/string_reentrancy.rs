//! Reentrancy of string buffers: an op taking `#[string] &str` calls back into JavaScript,
//! which calls the same op with a different 1 MB string; each invocation must see its own
//! content (the op asserts it), for 10^4 rounds under `--stress-compaction`, which moves
//! objects at every GC.

// The testdata files hold ops that other tests register.
#![allow(dead_code)]

use std::borrow::Cow;

use runtime_core::{op, v8, ByteString, Extension, Runtime, RuntimeOptions};

include!("../../testdata/ops/strings.rs");

#[test]
fn reentrant_calls_never_share_a_string_buffer() {
    // A test binary of its own, so the flag slows nothing else.
    runtime_core::set_v8_flags(&["--stress-compaction", "--expose-gc"]).unwrap();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("reenter").ops(&[op_reenter::DECL])],
        op_call_counters: true,
        ..Default::default()
    });
    let source = r#"
        const lower = "abcdefgh".repeat(1 << 17);    // 1 MB
        const upper = "ABCDEFGH".repeat(1 << 17);    // 1 MB, other content
        globalThis.reenter = (depth) => ops.op_reenter(depth % 2 ? lower : upper, depth);
        let rounds = 0;
        for (let i = 0; i < 10000; i++) {
          // Outer: one string; inner (depth 0): the other; they alternate every round.
          ops.op_reenter(i % 2 ? lower : upper, 1 + (i % 2));
          if (i % 1000 === 0) gc();
          rounds++;
        }
        rounds
    "#;
    let rounds = runtime
        .execute_script_to_string("reenter.js", source)
        .unwrap();
    assert_eq!(rounds, "10000");
    let counts = runtime.op_call_counts("op_reenter").unwrap();
    // Every round runs the op twice or three times (depth 1 or 2), all on the slow path.
    assert_eq!(counts.fast, 0);
    assert_eq!(counts.slow, 5000 * 2 + 5000 * 3);
}
