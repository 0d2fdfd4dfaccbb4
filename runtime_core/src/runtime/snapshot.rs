//! Startup snapshots: a runtime's heap after its extensions' JavaScript and a host's bootstrap code
//! ran, saved at build time ([`SnapshotBuilder`]) and deserialized by
//! [`RuntimeOptions::startup_snapshot`](crate::RuntimeOptions::startup_snapshot) instead of running
//! that code again.
//!
//! The heap refers to Rust by address: each op's functions and `CFunctionInfo`s, its `OpCtx` (the
//! functions' data), the event loop, runtime_core's own callbacks. V8 stores each as an index into
//! the external-reference list the isolate was made with ([`external_references`]); a runtime made
//! from the blob passes its own addresses in the same order, so the restored functions reach its op
//! contexts. Only the same extensions, in the same order, with the same options give the same list:
//! the blob carries a fingerprint of them ([`fingerprint`]), checked before V8 sees the blob.
//!
//! What Rust holds of the heap (the ops object, what the globals keep (the timers' `fire`), the
//! class templates, the module records) goes in as snapshot data, with the indices after V8's blob,
//! and a trailer that lets a runtime check the blob whole before V8 sees a byte (`blob.rs`).
//!
//! Isolates of a process share V8's read-only space. V8 would extend it with objects of the
//! snapshotted heap, making blobs that cannot be used beside isolates made without them (and racing
//! with isolates being made while the blob is); `crate::init_v8` turns that off
//! (`--no-extensible-ro-snapshot`), so snapshots can be made and used beside any runtime.

use v8::MapFnTo;

use super::blob::{self, Meta, Restore};
use super::isolate_state::{shut_down_inspector, IsolateParts};
use super::EnteredIsolate;
use crate::isolate::termination::InterruptCheck;
use crate::ops::ops_object::OpTable;
use crate::ops::OpCtx;
use crate::{JsError, Runtime, RuntimeOptions};

/// Builds a startup snapshot: a [`Runtime`] made as
/// [`Runtime::try_new`] makes one (its extensions' JavaScript runs), for the host to run its
/// bootstrap code in (`execute_script`, `load_side_module` and `mod_evaluate`, calls), then
/// [`SnapshotBuilder::build`] to save the heap.
///
/// ```
/// use runtime_core::{RuntimeOptions, Runtime, SnapshotBuilder};
///
/// let mut builder = SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
/// builder.execute_script("boot.js", "globalThis.greet = (n) => `hello, ${n}`").unwrap();
/// let blob: Vec<u8> = builder.build().unwrap();
///
/// let mut runtime = Runtime::new(RuntimeOptions {
///     startup_snapshot: Some(blob.into()),
///     ..Default::default()
/// });
/// assert_eq!(runtime.execute_script_to_string("x.js", "greet('you')").unwrap(), "hello, you");
/// ```
///
/// A build script makes the blob once (`std::fs::write(out_dir.join("snapshot.bin"), blob)`)
/// and the host includes it (`include_bytes!(concat!(env!("OUT_DIR"), "/snapshot.bin"))`,
/// given as `Cow::Borrowed`). The blob is for the V8 build and flags it was made with, and
/// for a runtime with the same extensions in the same order and the same op options
/// (`console`, `ops_object_name`, metrics, stack traces); anything else is refused with an
/// error when the runtime is made.
///
/// At `build`, nothing may be pending (ops, timers, imports), and no instance of a
/// `#[op] impl` class may be alive: their Rust values live outside the heap.
pub struct SnapshotBuilder {
    /// `None` once built.
    runtime: Option<Runtime>,
    /// What the snapshot is made for (see `blob::fingerprint`).
    fingerprint: u64,
}

impl SnapshotBuilder {
    /// A runtime to snapshot, made with `options` (`startup_snapshot` must be `None`).
    pub fn new(options: RuntimeOptions) -> Result<Self, JsError> {
        if options.startup_snapshot.is_some() {
            return Err(JsError::host(
                "Error",
                "a snapshot is built from scratch: RuntimeOptions::startup_snapshot must be None",
            ));
        }
        if options.inspector {
            // What V8's inspector puts in the heap names native code no snapshot can hold:
            // building would stop the process.
            return Err(JsError::host(
                "Error",
                "a snapshot builder has no inspector: RuntimeOptions::inspector must be false \
                 (a runtime made from the snapshot may have one)",
            ));
        }
        let assembled = Runtime::assemble(options, Startup::ForSnapshot)?;
        let mut builder = Self {
            runtime: Some(assembled.runtime),
            fingerprint: assembled
                .fingerprint
                .expect("a snapshot creator's fingerprint is made with it"),
        };
        // A failure drops the builder, which ends its isolate as a snapshot creator's ends.
        builder.finish(assembled.rest)?;
        Ok(builder)
    }

    /// Saves the heap and the data to restore it; consumes the runtime.
    pub fn build(mut self) -> Result<Vec<u8>, JsError> {
        let mut runtime = self.runtime.take().expect("built once");
        let meta = match snapshot_meta(&mut runtime) {
            Ok(meta) => meta,
            Err(error) => {
                abandon(runtime);
                return Err(error);
            }
        };
        let handles = set_default_context(&mut runtime);
        let blob = take_blob(runtime, handles)?;
        Ok(blob::seal(&blob, &meta, self.fingerprint))
    }
}

impl Drop for SnapshotBuilder {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            abandon(runtime);
        }
    }
}

impl std::ops::Deref for SnapshotBuilder {
    type Target = Runtime;
    fn deref(&self) -> &Runtime {
        self.runtime.as_ref().expect("not built yet")
    }
}

impl std::ops::DerefMut for SnapshotBuilder {
    fn deref_mut(&mut self) -> &mut Runtime {
        self.runtime.as_mut().expect("not built yet")
    }
}

/// Ends a snapshot creator's runtime that makes no snapshot: a creator's isolate ends only by
/// making its blob, of a default context; the blob is thrown away.
fn abandon(mut runtime: Runtime) {
    let handles = set_default_context(&mut runtime);
    if let Err(error) = take_blob(runtime, handles) {
        log::warn!("opwire: a SnapshotBuilder ended without a snapshot: {error}");
    }
}

/// Leaves a snapshot creator's isolate that has no runtime yet (its context failed to
/// install): it cannot be disposed of without a blob, nor a blob made of a heap whose handles
/// are held, so it is exited and leaked.
pub(super) fn abandon_creator(isolate: v8::OwnedIsolate) {
    // SAFETY: made (and so entered) by `Runtime::assemble` on this thread, with nothing
    // entered since still entered; exited once, then never used or disposed.
    unsafe { isolate.exit() };
    std::mem::forget(isolate);
}

/// Sets the runtime's context as the snapshot's default context (V8 allows that once, and
/// makes no blob without it): the global handles, in bytes, that V8 keeps for it.
fn set_default_context(runtime: &mut Runtime) -> usize {
    let context = (*runtime.inner.context).clone();
    let mut isolate = EnteredIsolate::new(&mut runtime.inner.isolate);
    v8::scope!(let scope, &mut *isolate);
    let context = v8::Local::new(scope, context);
    let before = scope.get_heap_statistics().used_global_handles_size();
    scope.set_default_context(context);
    let after = scope.get_heap_statistics().used_global_handles_size();
    after.saturating_sub(before)
}

/// How a runtime starts.
pub(crate) enum Startup {
    /// A new heap, the extensions' JavaScript run.
    Fresh,
    /// As `Fresh`, in an isolate that can be snapshotted.
    ForSnapshot,
    /// From a snapshot.
    FromSnapshot(Restore),
}

/// Every address the heap may hold, in a fixed order: runtime_core's callbacks, the event
/// loop, then per op its context and functions (both variants: which one a template holds
/// depends on the options, which the fingerprint pins).
pub(crate) fn external_references(
    ops: &OpTable,
    event_loop: *const crate::event_loop::EventLoop,
) -> Vec<v8::ExternalReference> {
    let function = |function: v8::FunctionCallback| v8::ExternalReference { function };
    let pointer = |pointer: *const std::ffi::c_void| v8::ExternalReference {
        pointer: pointer.cast_mut(),
    };
    let mut refs = vec![
        function(crate::event_loop::async_wrap::claim_callback.map_fn_to()),
        pointer(crate::event_loop::async_wrap::CLAIM_FAST.0.as_ptr().cast()),
        function(crate::class::templates::constructor_trampoline),
        function(crate::ops::metrics::metered_slow_fn),
        function(crate::errors::throw::illegal_constructor.map_fn_to()),
        function(crate::modules::callbacks::import_meta_resolve.map_fn_to()),
        function(crate::modules::dynamic_import::to_namespace.map_fn_to()),
        function(crate::event_loop::calls::settled_callback.map_fn_to()),
        pointer(event_loop.cast()),
        pointer((ops as *const OpTable).cast()),
    ];
    refs.extend(crate::ops::ops_object::interceptor_references());
    for steps in crate::modules::synthetic::evaluation_steps_addresses() {
        refs.push(pointer(steps));
    }
    for op_ctx in ops.ctxs.iter() {
        let decl = op_ctx.decl;
        refs.push(pointer((op_ctx as *const OpCtx).cast()));
        refs.push(function(decl.slow_fn));
        // V8 keeps the address of the `CFunction` itself (in the `'static` decl).
        if let Some(fast_fn) = &decl.fast_fn {
            refs.push(pointer(
                (&fast_fn.plain as *const v8::fast_api::CFunction).cast(),
            ));
            refs.push(pointer(
                (&fast_fn.metered as *const v8::fast_api::CFunction).cast(),
            ));
        }
    }
    refs
}

/// What Rust holds of the heap, added to the snapshot as data (see `blob.rs`): refused while
/// anything is pending.
fn snapshot_meta(runtime: &mut Runtime) -> Result<Meta, JsError> {
    let event_loop = runtime.inner.event_loop.clone();
    // A timer an unref'd one too: the restored runtime would know nothing of it, and give its
    // id to the next timer.
    if !event_loop.ops_idle() || event_loop.sources_pending() {
        return Err(JsError::host(
            "Error",
            "cannot snapshot while ops, timers (unref'd ones too) or imports are pending: run \
             the event loop first, and clear the timers left",
        ));
    }
    let modules = runtime.inner.modules.clone();
    let ops_object = modules.ops_object();
    let left = event_loop.claims.left_marker();
    let wrap = event_loop.claims.wrap();
    let track = event_loop.calls.track();
    let context = (*runtime.inner.context).clone();
    let made_ops = runtime.ops.made_ops();
    let mut isolate = EnteredIsolate::new(&mut runtime.inner.isolate);
    let noop = isolate
        .get_slot::<InterruptCheck>()
        .map(|InterruptCheck { noop, .. }| noop.clone());
    let templates: Option<Vec<_>> = {
        let slot = isolate.get_slot::<crate::class::templates::ClassTemplates>();
        runtime
            .classes
            .iter()
            .map(|class| slot.and_then(|slot| slot.0.get(&(class.type_id)()).cloned()))
            .collect()
    };
    let (Some(ops_object), Some(left), Some(wrap), Some(track), Some(noop), Some(templates)) =
        (ops_object, left, wrap, track, noop, templates)
    else {
        return Err(JsError::host("Error", "the runtime is not fully made"));
    };
    v8::scope!(let scope, &mut *isolate);
    let context = v8::Local::new(scope, &context);
    let scope = &mut v8::ContextScope::new(scope, context);
    let keep = |scope: &mut v8::PinScope<'_, '_>, data: v8::Local<'_, v8::Data>| {
        scope.add_context_data(context, data)
    };
    let ops_object = v8::Local::new(scope, ops_object);
    let noop = v8::Local::new(scope, noop);
    let left = v8::Local::new(scope, left);
    let wrap = v8::Local::new(scope, wrap);
    let track = v8::Local::new(scope, track);
    let mut meta = Meta {
        ops_object: keep(scope, ops_object.into()),
        interrupt_check: keep(scope, noop.into()),
        left_marker: keep(scope, left.into()),
        async_wrap: keep(scope, wrap.into()),
        call_track: keep(scope, track.into()),
        made_ops,
        ..Meta::default()
    };
    for installed in &runtime.installed {
        let installed = v8::Local::new(scope, installed);
        meta.installed.push(keep(scope, installed.into()));
    }
    for template in templates {
        let template = v8::Local::new(scope, template);
        meta.class_templates.push(scope.add_isolate_data(template));
    }
    meta.modules = modules.snapshot_records(scope, |scope, module| {
        scope.add_context_data(context, module)
    })?;
    Ok(meta)
}

/// Makes the snapshot creator's blob, which ends the isolate: the handles Rust holds go first
/// (a snapshot may hold none), then the isolate, taken out of the runtime, whose other fields
/// drop once V8 is done with their addresses. `handles`: what V8 keeps for the default
/// context.
///
/// V8 stops the process rather than make a blob of a heap that the host still holds a handle
/// into, or that holds a class instance (whose value lives outside it), and a snapshot creator
/// can end only by making its blob. So both are looked for first, after a full garbage
/// collection; if either is found, the isolate is leaked (never disposed) and the error says
/// which.
fn take_blob(mut runtime: Runtime, handles: usize) -> Result<v8::StartupData, JsError> {
    let IsolateParts {
        mut inspector,
        context,
        event_loop,
        modules,
        mut isolate,
        instances,
    } = runtime.inner.into_parts();
    shut_down_inspector(&mut inspector, &mut isolate);
    event_loop.clear();
    modules.clear();
    event_loop.forget_sources();
    runtime.installed.clear();
    // What extensions keep in the op state (a handle their install script gave, as
    // `GlobalScript::keep` hands it) goes too: the builder's runtime ends here, and a runtime
    // made from the blob is given the value again.
    let kept = std::mem::take(&mut *runtime.state.borrow_mut());
    drop(kept);
    drop(context);
    for op_ctx in runtime.ops.ctxs.iter() {
        op_ctx.static_str_cache.take();
    }
    isolate.remove_slot::<InterruptCheck>();
    isolate.remove_slot::<crate::class::templates::ClassTemplates>();
    crate::structured::keys::forget_caches(&mut isolate);
    // From here on, no `Held` reads the heap: it is the snapshot's, or leaked.
    instances.heap_gone();
    // SAFETY: the runtime's isolate, alive on its thread.
    if !unsafe { crate::isolate::entry::take_back(&isolate) } {
        // Another isolate is entered above this one: it cannot be exited, so it is leaked.
        std::mem::forget(isolate);
        return Err(JsError::host(
            "Error",
            "cannot snapshot while another isolate is entered above the builder's: its \
             isolate is leaked",
        ));
    }
    if let Err(why) = holds_nothing_outside(&mut isolate, &instances, handles) {
        // SAFETY: current with one entry (taken back above); exited so that it leaves the
        // thread's stack of entered isolates as it found it, then never disposed.
        unsafe { isolate.exit() };
        std::mem::forget(isolate);
        return Err(JsError::host(
            "Error",
            &format!("cannot snapshot: {why}; the builder's isolate is leaked"),
        ));
    }
    // A FinalizationRegistry whose target the last collection found dead is a heap V8 refuses
    // to serialize (it ends the process): the cleanup task V8 queued for it runs first. Then
    // V8's tasks for the isolate go with it.
    for _ in 0..16 {
        if !event_loop.run_v8_tasks(&isolate) {
            break;
        }
    }
    event_loop.close_tasks(&isolate);
    // Current, with one entry, which `create_blob` exits as it disposes of the isolate; the
    // op contexts (the rest of `runtime`, dropped as this returns) outlive it.
    isolate
        .create_blob(v8::FunctionCodeHandling::Keep)
        .ok_or_else(|| JsError::host("Error", "V8 could not make the snapshot"))
}

/// After the runtime's own handles are gone: `Err` if the host still holds a handle into the
/// heap, or an instance of a class is alive. `own`: the handles V8 keeps for the default
/// context.
fn holds_nothing_outside(
    isolate: &mut v8::OwnedIsolate,
    instances: &crate::class::instance::Instances,
    own: usize,
) -> Result<(), String> {
    isolate.low_memory_notification();
    let live = instances.live();
    if live > 0 {
        return Err(format!(
            "{live} instance(s) of #[op] classes are alive (their values live outside the \
             heap): drop what refers to them before build()"
        ));
    }
    let handles = isolate.get_heap_statistics().used_global_handles_size();
    if handles > own {
        return Err(
            "the host still holds handles it took from the builder (a v8::Global: the value of \
             execute_script, call, get_module_namespace...): drop them before build()"
                .to_owned(),
        );
    }
    Ok(())
}
