//! Startup snapshots: a runtime made from a blob has what the builder's runtime had (its
//! extensions' JavaScript, bootstrap globals, ES modules with their state, classes) and works
//! as a fresh one does (ops on both paths, async ops, timers, imports); a blob for other
//! extensions, or no blob at all, is an error, not a crash. (`every_kind.rs` runs the whole
//! kind table from a snapshot.)

use crate::common;

use std::rc::Rc;

use common::{init_test_flags, tokio};
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
    // Found without loading, as a host's `MakeRuntime` finds its handler (no future to
    // await); a module the runtime does not have is an error, not a load.
    let id = rt.loaded_module("file:///app/state.js").unwrap();
    let next = rt.module_function(id, "next").unwrap();
    assert_eq!(rt.call::<u32>(&next, ()).unwrap(), 3);
    let missing = rt.loaded_module("file:///app/other.js").unwrap_err();
    assert!(
        missing.message.contains("not loaded in this runtime"),
        "{missing}"
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

// ---- issue 37: a blob is checked whole; `build()` reports what it cannot snapshot -----------

fn try_restore(bytes: Vec<u8>) -> Result<Runtime, runtime_core::JsError> {
    Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(bytes.into()),
        ..options(true)
    })
}

/// Where V8's part of a blob ends: the trailer is read from the end.
fn v8_part_len(blob: &[u8]) -> usize {
    let u32_at = |end: usize| u32::from_le_bytes(blob[end - 4..end].try_into().unwrap()) as usize;
    let mut end = blob.len() - 8 - 4 - 8; // magic, format, checksum
    let version = u32_at(end);
    end -= 4 + version + 8; // its length, the version, the fingerprint
    let meta = u32_at(end);
    end - 4 - meta
}

#[test]
fn a_corrupt_blob_is_an_error_never_an_abort() {
    // Issue 37, 8: one flipped byte in V8's part aborted the process, a halved or zeroed part
    // was a SIGTRAP, 64 flips a libc++ assertion; single flips elsewhere went unnoticed.
    let blob = blob(true);
    let v8_len = v8_part_len(&blob);
    let mut damaged: Vec<Vec<u8>> = Vec::new();
    for at in [
        0,
        1,
        100,
        v8_len / 2,
        v8_len - 1,
        v8_len,
        v8_len + 3,
        blob.len() - 30,
    ] {
        let mut bytes = blob.clone();
        bytes[at] ^= 0x40;
        damaged.push(bytes);
    }
    let mut halved = blob.clone();
    halved.drain(v8_len / 2..v8_len);
    damaged.push(halved);
    let mut zeroed = blob.clone();
    zeroed[..v8_len].fill(0);
    damaged.push(zeroed);
    let mut flipped = blob.clone();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        flipped[(state % v8_len as u64) as usize] ^= 0xff;
    }
    damaged.push(flipped);
    for (index, bytes) in damaged.into_iter().enumerate() {
        let err = try_restore(bytes).err().expect("a damaged blob is refused");
        assert!(
            err.message.contains("corrupt") || err.message.contains("not a snapshot"),
            "damage {index}: {}",
            err.message
        );
    }
    // A blob compiled into the host (`&'static`) is checked as well.
    let mut bytes = blob.clone();
    bytes[v8_len / 3] ^= 1;
    let leaked: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    let err = Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(leaked.into()),
        ..options(true)
    })
    .err()
    .expect("refused");
    assert!(err.message.contains("corrupt"), "{}", err.message);
    // The intact blob still restores.
    assert!(try_restore(blob).is_ok());
}

#[test]
fn a_blob_of_another_v8_is_refused_by_name() {
    let blob = blob(true);
    let v8_len = v8_part_len(&blob);
    let meta_and_fingerprint_end = {
        let version_len =
            u32::from_le_bytes(blob[blob.len() - 24..blob.len() - 20].try_into().unwrap()) as usize;
        blob.len() - 24 - version_len
    };
    let mut forged = blob[..meta_and_fingerprint_end].to_vec();
    forged.extend_from_slice(b"9.9.9.9");
    forged.extend_from_slice(&7u32.to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&forged);
    forged.extend_from_slice(&checksum.to_le_bytes());
    forged.extend_from_slice(&blob[blob.len() - 12..]); // format and magic
    assert!(forged.len() > v8_len);
    let err = try_restore(forged).err().expect("another V8");
    assert!(
        err.message.contains("made by V8 9.9.9.9"),
        "{}",
        err.message
    );
}

#[test]
fn build_reports_what_the_host_kept_instead_of_crashing() {
    // Issue 37, 9: a `v8::Global` kept across `build()` was a V8 fatal error, a live class
    // instance a SIGSEGV.
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    let kept = builder.execute_script("k.js", "({ kept: true })").unwrap();
    let err = builder.build().expect_err("a handle is kept");
    assert!(
        err.message.contains("still holds handles"),
        "{}",
        err.message
    );
    drop(kept);
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    builder
        .execute_script("i.js", "globalThis.keep = new ops.Counter(); undefined")
        .unwrap();
    let err = builder.build().expect_err("an instance is alive");
    assert!(
        err.message
            .contains("1 instance(s) of #[op] classes are alive"),
        "{}",
        err.message
    );
    // An instance nothing refers to any more is collected first: the build succeeds.
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    builder
        .execute_script("g.js", "new ops.Counter().add(1); undefined")
        .unwrap();
    let blob = builder.build().expect("no instance is reachable");
    let mut restored = restored(blob, true);
    assert_eq!(
        restored
            .execute_script_to_string("a.js", "new ops.Counter().add(2)")
            .unwrap(),
        "2"
    );
}

#[test]
fn unrefd_timers_are_pending_work_too() {
    // Issue 37, 10: a pending unref'd timer was snapshotted; restored, a new timer got its
    // id and `clearTimeout(oldId)` cancelled the new one.
    let mut builder = SnapshotBuilder::new(options(true)).unwrap();
    builder
        .execute_script(
            "t.js",
            "globalThis.old = setTimeout(() => {}, 60000); unrefTimer(old);",
        )
        .unwrap();
    let err = builder.build().expect_err("an unref'd timer is pending");
    assert!(err.message.contains("unref'd ones too"), "{}", err.message);
}

static FIRST_JS: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:snap/boot.js",
    "globalThis.version = 'first';",
)];
static SECOND_JS: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:snap/boot.js",
    "globalThis.version = 'second';",
)];

#[test]
fn a_blob_made_with_other_extension_javascript_is_refused() {
    // Issue 37, 10: extension JavaScript that changed while the ops did not was accepted, and
    // the snapshot's old JavaScript ran.
    let with = |js: &'static [ExtensionSource]| RuntimeOptions {
        extensions: vec![Extension::new("snap").ops(&[op_bump::DECL]).js(js)],
        ..Default::default()
    };
    init_test_flags();
    let blob = SnapshotBuilder::new(with(&FIRST_JS))
        .unwrap()
        .build()
        .unwrap();
    let err = Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(blob.clone().into()),
        ..with(&SECOND_JS)
    })
    .err()
    .expect("other JavaScript");
    assert!(
        err.message.contains("extension JavaScript"),
        "{}",
        err.message
    );
    let mut same = Runtime::try_new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..with(&FIRST_JS)
    })
    .unwrap();
    assert_eq!(
        same.execute_script_to_string("v.js", "version").unwrap(),
        "first"
    );
}

#[test]
fn a_finalization_registry_left_dirty_ends_no_process() {
    // A registry whose target died in the builder's last collection was a heap V8 refused to
    // serialize: it ended the process, as a build or as a builder dropped unbuilt (an error
    // in its script, say).
    let script = "globalThis.registry = new FinalizationRegistry(() => {});
                  (() => registry.register({}, 'gone'))();
                  globalThis.kept = [];
                  for (let i = 0; i < 100; i++) kept.push(new Array(1000).fill(i).length);";
    let mut builder = SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
    builder.execute_script("bundle.js", script).unwrap();
    let blob = builder.build().unwrap();
    let mut runtime = Runtime::new(RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..Default::default()
    });
    assert_eq!(
        runtime
            .execute_script_to_string("kept.js", "String(kept.length)")
            .unwrap(),
        "100"
    );
    let mut unbuilt = SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
    unbuilt.execute_script("bundle.js", script).unwrap();
    assert!(unbuilt
        .execute_script("broken.js", "throw new Error('no')")
        .is_err());
    drop(unbuilt);
}

/// A builder whose host JavaScript fails: an `Err`, the process kept (its isolate, a snapshot
/// creator, cannot be disposed of as a runtime's).
#[test]
fn a_builder_whose_javascript_throws_is_an_error() {
    init_test_flags();
    let broken = runtime_core::Extension::new("broken").global(runtime_core::GlobalScript::new(
        "<broken>",
        "(function () { throw new Error('no install') })",
    ));
    let error = SnapshotBuilder::new(RuntimeOptions {
        extensions: vec![broken],
        ..Default::default()
    })
    .err()
    .expect("an error");
    assert!(error.to_string().contains("no install"), "{error}");

    static THROWS: &[runtime_core::ExtensionSource] = &[runtime_core::ExtensionSource {
        specifier: "ext:boot/throws.js",
        code: "throw new TypeError('no boot')",
    }];
    let error = SnapshotBuilder::new(RuntimeOptions {
        extensions: vec![runtime_core::Extension::new("boot").js(THROWS)],
        ..Default::default()
    })
    .err()
    .expect("an error");
    assert!(error.to_string().contains("no boot"), "{error}");
    // Both isolates gone or left: a runtime still works on this thread.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    assert_eq!(
        runtime.execute_script_to_string("x.js", "1 + 1").unwrap(),
        "2"
    );
}
