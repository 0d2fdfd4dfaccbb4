//! Startup snapshots: a runtime made from a blob has what the builder's runtime had (its
//! extensions' JavaScript, bootstrap globals, ES modules with their state, classes) and works
//! as a fresh one does (ops on both paths, async ops, timers, imports); a blob for other
//! extensions, or no blob at all, is an error, not a crash. (`every_kind.rs` runs the whole
//! kind table from a snapshot.)

mod common;

use std::rc::Rc;

use common::init_test_flags;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{
    op, Extension, ExtensionSource, OpState, Runtime, RuntimeOptions, SnapshotBuilder,
};

#[op]
async fn op_later(x: u32) -> u32 {
    tokio::task::yield_now().await;
    x * 2
}

#[op(fast)]
fn op_bump(state: &mut OpState) -> u32 {
    let count = state.borrow_mut::<u32>();
    *count += 1;
    *count
}

pub struct Counter {
    count: std::cell::Cell<u32>,
}

#[op]
impl Counter {
    #[constructor]
    fn new() -> Counter {
        Counter {
            count: std::cell::Cell::new(0),
        }
    }

    fn add(&self, by: u32) -> u32 {
        self.count.set(self.count.get() + by);
        self.count.get()
    }

    async fn later(&self) -> u32 {
        tokio::task::yield_now().await;
        self.count.get()
    }
}

static GLUE: [ExtensionSource; 2] = [
    ExtensionSource::new(
        "ext:snap/glue.js",
        "import { op_later, op_bump } from 'ext:core/ops';
         export const twice = (x) => op_later(x);
         export const bump = () => op_bump();",
    ),
    ExtensionSource::new(
        "ext:snap/init.js",
        "import { twice, bump } from 'ext:snap/glue.js';
         globalThis.twice = twice; globalThis.bump = bump;",
    ),
];

fn options(expose_ops: bool) -> RuntimeOptions {
    init_test_flags();
    RuntimeOptions {
        extensions: vec![Extension::new("snap")
            .ops(&[op_later::DECL, op_bump::DECL])
            .classes(&[Counter::CLASS])
            .esm(&GLUE)
            .esm_entry_point("ext:snap/init.js")
            .state(|state| {
                state.put(0_u32);
            })],
        module_loader: Some(Rc::new(StaticModuleLoader::new([(
            "file:///app/state.js".to_owned(),
            ModuleSource::js(
                "let count = 0;
                 export function next() { return ++count; }
                 export const url = import.meta.url;",
            ),
        )]))),
        expose_ops,
        ..Default::default()
    }
}

fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A snapshot whose bootstrap defined a global, loaded a module and advanced its state.
fn blob(expose_ops: bool) -> Vec<u8> {
    let tokio = tokio();
    let mut builder = SnapshotBuilder::new(options(expose_ops)).unwrap();
    builder
        .execute_script("boot.js", "globalThis.booted = 'at build time';")
        .unwrap();
    let id = tokio
        .block_on(builder.load_side_module("file:///app/state.js"))
        .unwrap();
    tokio.block_on(builder.mod_evaluate(id)).unwrap();
    builder
        .execute_script(
            "boot2.js",
            "import('file:///app/state.js').then((m) => { globalThis.first = m.next(); });",
        )
        .unwrap();
    tokio.block_on(builder.run_event_loop()).unwrap();
    builder.build().unwrap()
}

fn restored(blob: Vec<u8>, expose_ops: bool) -> Runtime {
    Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..options(expose_ops)
    })
}

#[test]
fn a_restored_runtime_has_the_bootstrap_heap_and_its_modules() {
    let mut rt = restored(blob(true), true);
    let tokio = tokio();
    assert_eq!(
        rt.execute_script_to_string("a.js", "[booted, first, typeof ops.op_bump].join(' ')")
            .unwrap(),
        "at build time 1 function"
    );
    // The module is the snapshotted instance (not evaluated again): its state goes on, and
    // `import.meta` still knows it.
    rt.execute_script(
        "b.js",
        "import('file:///app/state.js').then((m) => { globalThis.second = [m.next(), m.url].join(' '); });",
    )
    .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("c.js", "second").unwrap(),
        "2 file:///app/state.js"
    );
}

#[test]
fn ops_classes_async_ops_and_timers_work_from_a_snapshot() {
    let mut rt = restored(blob(true), true);
    let tokio = tokio();
    // Sync ops through the glue (state is the new runtime's), on both paths.
    let bumps = rt
        .execute_script_to_string(
            "bump.js",
            "function b() { return bump(); }
             %PrepareFunctionForOptimization(b); b(); b(); %OptimizeFunctionOnNextCall(b); b()",
        )
        .unwrap();
    assert_eq!(bumps, "3");
    assert_eq!(*rt.op_state().borrow().borrow::<u32>(), 3);
    rt.execute_script(
        "async.js",
        "globalThis.out = [];
         const c = new ops.Counter();
         c.add(5);
         (async () => {
           out.push(await twice(21));
           out.push(await ops.op_later(4));
           out.push(await c.later());
           out.push(c instanceof ops.Counter, String(c));
           await new Promise((resolve) => setTimeout(resolve, 5));
           out.push('timer');
         })();",
    )
    .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out.join(' ')")
            .unwrap(),
        "42 8 5 true [object Counter] timer"
    );
}

/// An op the bootstrap never read is made in the restored runtime when first read (through
/// the getter and the async wrapper the snapshot keeps), beside one the bootstrap made.
#[test]
fn ops_never_read_at_build_time_are_made_after_restore() {
    let plain = || {
        init_test_flags();
        RuntimeOptions {
            extensions: vec![Extension::new("lazy")
                .ops(&[op_later::DECL, op_bump::DECL])
                .state(|state| {
                    state.put(0_u32);
                })],
            ..Default::default()
        }
    };
    let mut builder = SnapshotBuilder::new(plain()).unwrap();
    builder
        .execute_script("boot.js", "globalThis.bumpAtBuild = ops.op_bump;")
        .unwrap();
    let blob = builder.build().unwrap();
    let mut rt = Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..plain()
    });
    rt.execute_script(
        "after.js",
        "globalThis.out = [bumpAtBuild === ops.op_bump, ops.op_bump()];
         ops.op_later(4).then((value) => out.push(value));",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out.join(' ')")
            .unwrap(),
        "true 1 8"
    );
}

#[test]
fn ops_hidden_at_build_time_stay_hidden() {
    let mut rt = restored(blob(false), false);
    let tokio = tokio();
    rt.execute_script(
        "hidden.js",
        "globalThis.seen = typeof ops; twice(2).then((v) => { globalThis.v = v; });",
    )
    .unwrap();
    tokio.block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("v.js", "seen + ' ' + v")
            .unwrap(),
        "undefined 4"
    );
}

#[test]
fn a_blob_for_other_extensions_or_no_blob_is_an_error() {
    let blob = blob(true);
    let other = Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(blob.clone().into()),
        extensions: vec![Extension::new("other").ops(&[op_later::DECL])],
        ..Default::default()
    })
    .err()
    .expect("another extension set");
    assert!(
        other
            .message
            .contains("made for other extensions or options"),
        "{}",
        other.message
    );
    // The same extensions with metrics on register other functions: refused too.
    let metered = Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(blob.clone().into()),
        op_call_counters: true,
        ..options(true)
    })
    .err()
    .expect("other options");
    assert!(metered.message.contains("made for other extensions"));
    let mut cut = blob;
    cut.truncate(cut.len() / 2);
    for bytes in [cut, b"not a snapshot".to_vec()] {
        let err = Runtime::try_new(RuntimeOptions {
            startup_snapshot: Some(bytes.into()),
            ..options(true)
        })
        .err()
        .expect("not a blob");
        assert!(err.message.contains("not a snapshot"), "{}", err.message);
    }
}

#[test]
fn a_runtime_with_work_pending_cannot_be_snapshotted() {
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    builder
        .execute_script("pending.js", "ops.op_later(1);")
        .unwrap();
    let err = builder.build().expect_err("an op is pending");
    assert!(err.message.contains("pending"), "{}", err.message);
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    builder
        .execute_script("timer.js", "setTimeout(() => {}, 10000);")
        .unwrap();
    let err = builder.build().expect_err("a timer is pending");
    assert!(err.message.contains("pending"), "{}", err.message);
}

#[test]
fn snapshots_are_made_beside_other_runtimes_and_builders() {
    // Two builders on one thread, interleaved, and a runtime made between them: V8 is told
    // to leave the shared read-only space alone (`--no-extensible-ro-snapshot`), so a blob is
    // made without touching what other isolates read.
    let mut first = SnapshotBuilder::new(options(true)).unwrap();
    let mut second = SnapshotBuilder::new(options(true)).unwrap();
    first
        .execute_script("a.js", "globalThis.which = 'first'")
        .unwrap();
    let mut runtime = Runtime::new(options(true));
    assert_eq!(
        runtime.execute_script_to_string("x.js", "1 + 1").unwrap(),
        "2"
    );
    second
        .execute_script("b.js", "globalThis.which = 'second'")
        .unwrap();
    let second = second.build().unwrap();
    let first = first.build().unwrap();
    for (blob, which) in [(first, "first"), (second, "second")] {
        let mut restored = restored(blob, true);
        assert_eq!(
            restored.execute_script_to_string("w.js", "which").unwrap(),
            which
        );
    }
    drop(runtime);
}
