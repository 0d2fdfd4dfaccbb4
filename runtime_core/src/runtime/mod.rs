//! `Runtime`: one isolate, one context, and the ops of its extensions, and what only a runtime
//! does: making them (here), startup snapshots (`snapshot.rs`), calls into JavaScript
//! (`js_call.rs`), driving the event loop (`polling.rs`), loading ES modules (`loading.rs`)
//! and the timer globals (`timer_globals.rs`). What it is made of lives below it:
//! [`Extension`](crate::Extension) in `crate::extension`, [`OpState`](crate::OpState) in
//! `crate::ops`, starting V8, termination and heap limits in `crate::isolate`.

mod blob;
pub(crate) mod js_call;
mod loading;
mod memory_globals;
mod polling;
pub(crate) mod snapshot;
mod timer_globals;

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::sync::Arc;

use crate::event_loop::EventLoop;
use crate::isolate::heap_limit::NearHeapLimit;
use crate::isolate::memory_budget::MemoryBudget;
use crate::isolate::scripts::{
    run_builtin_script, run_extension_script, run_script, CreatingSnapshot,
};
use crate::isolate::termination::InterruptCheck;
use crate::modules::map::ModuleMap;
use crate::ops::metrics::{self, OpMetricsFactoryFn};
use crate::ops::ops_object::{internal_ops_object, new_ops_object, OpIndex, OpTable};
use crate::ops::OpCtx;
use crate::structured::limits::ConversionLimits;
use crate::{
    init_v8, Extension, JsError, OpCallCounts, OpDecl, OpStackTraceFn, OpState, TerminationHandle,
};
use blob::Meta;
use snapshot::Startup;

/// How to build a [`Runtime`].
pub struct RuntimeOptions {
    /// Extensions whose ops are installed, in order.
    pub extensions: Vec<Extension>,
    /// The global object the ops are installed on: `globalThis[ops_object_name].op_name`.
    pub ops_object_name: &'static str,
    /// Count calls per op and per path (fast, slow); see [`Runtime::op_call_counts`]. Off by
    /// default: a runtime without counters does no counting work at all. (The counters are
    /// a metrics observer, run before any from `op_metrics_factory_fn`.)
    pub op_call_counters: bool,
    /// Chooses a metrics observer per op, told of each call's dispatch and outcome (as
    /// deno_core's `op_metrics_factory_fn`). Ops it gives none run variants of their
    /// functions that do no metrics work at all.
    pub op_metrics_factory_fn: Option<OpMetricsFactoryFn>,
    /// Told of the JavaScript stack of every call of an op marked `#[op(stack_trace)]` (see
    /// [`OpStackTraceFn`]). Those ops then capture it first, on the slow path only; unset, they
    /// cost what any op costs.
    pub op_stack_trace_callback: Option<OpStackTraceFn>,
    /// Where `console.log` and friends print ([`crate::console`]): standard output and error by
    /// default; `None` leaves `console` out.
    pub console: Option<crate::console::ConsoleFn>,
    /// V8's heap limits; `None` keeps V8's defaults (sized from the machine's memory). Either
    /// way, a script that reaches the limit is terminated with
    /// [`JsErrorKind::OutOfMemory`](crate::JsErrorKind::OutOfMemory) instead of ending the
    /// process, and the runtime stays usable.
    pub heap_limits: Option<crate::HeapLimits>,
    /// One budget, in bytes, for the JavaScript heap and the memory scripts hold outside it
    /// (ArrayBuffers fixed and resizable, typed arrays, WebAssembly memories); `None`: no
    /// budget beyond `heap_limits`. The heap's limit is at most this; an ArrayBuffer or a
    /// growth that does not fit is a `RangeError` before any of it is taken; and past the
    /// budget at a garbage collection (what WebAssembly grows from its own code), the script
    /// ends as [`JsErrorKind::OutOfMemory`](crate::JsErrorKind::OutOfMemory).
    pub memory_limit: Option<usize>,
    /// The longest sequence (array, iterable, or object's key list) a conversion reads into
    /// Rust (`Vec<T>` through `FromV8`, `#[serde]`, WebIDL sequences and records): longer is a
    /// `RangeError`. An array's `length` costs a script nothing, its Rust value an element per
    /// index. Default [`DEFAULT_MAX_SEQUENCE_LENGTH`](crate::structured::limits::DEFAULT_MAX_SEQUENCE_LENGTH).
    pub max_sequence_length: u32,
    /// A blob made by [`SnapshotBuilder`](crate::SnapshotBuilder) with the same extensions and
    /// options: the runtime starts from its heap instead of running the extensions'
    /// JavaScript (and whatever bootstrap code the builder ran). A blob made for other
    /// extensions or options is refused with an error (see [`Runtime::try_new`]).
    pub startup_snapshot: Option<std::borrow::Cow<'static, [u8]>>,
    /// Resolves and loads ES modules. `None` loads nothing
    /// ([`NoModuleLoader`](crate::modules::NoModuleLoader)): only the extensions' `ext:`
    /// modules can be imported. [`FsModuleLoader::new(root)`](crate::modules::FsModuleLoader)
    /// serves the files under one directory, [`StaticModuleLoader`](crate::modules::StaticModuleLoader)
    /// sources held in memory; whatever the loader gives a script is what it can reach.
    pub module_loader: Option<Rc<dyn crate::modules::ModuleLoader>>,
    /// Whether user code sees the ops object (`globalThis[ops_object_name]`). `false` removes
    /// it once the extensions' JavaScript has run: their glue still reaches the ops, through
    /// `import { op_x } from "ext:core/ops"` or what its scripts kept.
    pub expose_ops: bool,
    /// The tokio runtime async ops and timers use, entered around every call into the
    /// runtime's JavaScript (so an op that uses tokio works however the host calls in: from
    /// inside `block_on`, or from plain code). `None`: the runtime the `Runtime` is made in,
    /// if any.
    #[cfg(feature = "tokio")]
    pub tokio_handle: Option<tokio::runtime::Handle>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            extensions: Vec::new(),
            ops_object_name: "ops",
            op_call_counters: false,
            op_metrics_factory_fn: None,
            op_stack_trace_callback: None,
            console: Some(crate::console::stdio()),
            heap_limits: None,
            memory_limit: None,
            max_sequence_length: crate::structured::limits::DEFAULT_MAX_SEQUENCE_LENGTH,
            module_loader: None,
            startup_snapshot: None,
            expose_ops: true,
            #[cfg(feature = "tokio")]
            tokio_handle: None,
        }
    }
}

/// A V8 isolate with one context in which the ops of its extensions are installed.
///
/// Any number of runtimes may live on one thread (and on many threads at once, each its
/// own), used in any interleaving and dropped in any order: a runtime's isolate is entered
/// only while one of its methods runs (V8 keeps a per-thread stack of entered isolates, and
/// `rusty_v8` enters a new isolate for good unless told otherwise).
///
/// Field order is drop order: the context handle goes before the isolate, and the op contexts
/// (whose addresses V8 holds) outlive the isolate.
pub struct Runtime {
    /// The classes installed (`#[op] impl`), for the TypeScript declarations.
    classes: Vec<&'static crate::ClassDecl>,
    /// Dropped with the isolate (a snapshot may hold no handle).
    context: ManuallyDrop<v8::Global<v8::Context>>,
    /// Pending async ops: dropped (in `Drop`) while the isolate and the op contexts live.
    pub(crate) event_loop: Rc<EventLoop>,
    /// Its modules: dropped (in `Drop`) while the isolate lives.
    pub(crate) modules: Rc<ModuleMap>,
    /// Dropped in `Drop` (or made a snapshot of), before the fields after it.
    isolate: ManuallyDrop<v8::OwnedIsolate>,
    /// Whether `isolate` is still the runtime's (not taken by a snapshot).
    isolate_owned: bool,
    /// Whether the isolate is a snapshot creator (see `crate::SnapshotBuilder`).
    for_snapshot: SnapshotState,
    /// The timers' loop source (its `fire` goes into a snapshot).
    timers: Rc<crate::event_loop::timers::Timers>,
    /// Registered with the isolate: dropped after it.
    near_heap_limit: Box<NearHeapLimit>,
    /// The memory budget, whose check after each collection is registered with the isolate:
    /// dropped after it.
    _memory_budget: Option<Arc<MemoryBudget>>,
    /// Its class instances (their finalizers count down as the isolate goes): dropped after it.
    instances: Box<crate::class::instance::Instances>,
    /// What a snapshot of this runtime is made for (see `blob::fingerprint`): only for a
    /// snapshot creator.
    fingerprint: Option<u64>,
    /// The op contexts (whose addresses V8 holds) and the ops object's interceptor data.
    ops: Box<OpTable>,
    /// Where the ops are installed: `globalThis[ops_object_name]`.
    ops_object_name: &'static str,
    state: Rc<RefCell<OpState>>,
    termination: TerminationHandle,
    /// Entered around calls into JavaScript (see `RuntimeOptions::tokio_handle`).
    #[cfg(feature = "tokio")]
    tokio: Option<tokio::runtime::Handle>,
}

/// The isolate of a [`Runtime`], the thread's current one for as long as this guard lives
/// (and, unless another isolate came between, left entered after it: see
/// `crate::isolate::entry`).
pub struct EnteredIsolate<'a> {
    isolate: &'a mut v8::OwnedIsolate,
    entry: crate::isolate::entry::Entry,
}

impl<'a> EnteredIsolate<'a> {
    fn new(isolate: &'a mut v8::OwnedIsolate) -> Self {
        // SAFETY: the runtime's isolate, alive on its thread; a runtime takes its entry back
        // before its isolate goes (`Runtime`'s `Drop`, `take_blob`).
        let entry = unsafe { crate::isolate::entry::begin_call(isolate) };
        Self { isolate, entry }
    }
}

impl Drop for EnteredIsolate<'_> {
    fn drop(&mut self) {
        // SAFETY: as `new` began it; guards and scopes are strictly nested.
        unsafe { crate::isolate::entry::end_call(self.isolate, self.entry) };
    }
}

impl std::ops::Deref for EnteredIsolate<'_> {
    type Target = v8::Isolate;
    fn deref(&self) -> &v8::Isolate {
        self.isolate
    }
}

impl std::ops::DerefMut for EnteredIsolate<'_> {
    fn deref_mut(&mut self) -> &mut v8::Isolate {
        self.isolate
    }
}

/// Whether a runtime's isolate is a snapshot creator, and whether its default context is set
/// (V8 allows that once, and makes no blob without it), with the global handles V8 itself
/// keeps for that (the host may keep none: see `snapshot.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum SnapshotState {
    No,
    Creator,
    ContextSet { handles: usize },
}

/// Sets `context` as the snapshot's default context: the global handles (in bytes) that V8
/// keeps for it.
fn set_default_context(
    scope: &mut v8::PinScope<'_, '_, ()>,
    context: v8::Local<'_, v8::Context>,
) -> usize {
    let before = scope.get_heap_statistics().used_global_handles_size();
    scope.set_default_context(context);
    let after = scope.get_heap_statistics().used_global_handles_size();
    after.saturating_sub(before)
}

impl Runtime {
    /// Creates the isolate and context, fills the op state, installs the ops and runs the
    /// extensions' JavaScript. Starts V8 first if needed ([`crate::init_v8`]).
    ///
    /// # Panics
    /// If two ops have the same name, the ops object name is not a valid property name, or an
    /// extension's JavaScript throws (see [`Runtime::try_new`]).
    pub fn new(options: RuntimeOptions) -> Self {
        Self::try_new(options)
            .unwrap_or_else(|error| panic!("an extension's JavaScript failed: {error}"))
    }

    /// As [`Runtime::new`], with the error of an extension's JavaScript (a classic script or
    /// an ES module entry point that threw, or did not load) as the `Err`.
    ///
    /// # Panics
    /// If two ops have the same name, or the ops object name is not a valid property name.
    pub fn try_new(options: RuntimeOptions) -> Result<Self, JsError> {
        Self::make(options, Startup::Fresh)
    }

    /// Makes the runtime: fresh, ready for a snapshot, or from one (in `options`).
    pub(crate) fn make(mut options: RuntimeOptions, mut startup: Startup) -> Result<Self, JsError> {
        init_v8();
        let termination = TerminationHandle::new();
        let console = options.console.take();
        if let Some(sink) = &console {
            options
                .extensions
                .push(crate::console::extension(sink.clone()));
        }
        let memory_budget = options
            .memory_limit
            .map(|limit| MemoryBudget::new(limit, termination.clone()));
        if let Some(budget) = &memory_budget {
            options
                .extensions
                .push(memory_globals::extension(budget.clone()));
        }
        let timers = Rc::new(crate::event_loop::timers::Timers::default());
        options
            .extensions
            .push(timer_globals::extension(timers.clone()));
        let state = Rc::new(RefCell::new(OpState::new()));
        state.borrow_mut().put(termination.clone());
        for extension in &mut options.extensions {
            if let Some(init) = extension.take_state_init() {
                init(&mut state.borrow_mut());
            }
        }

        let event_loop = Rc::new(EventLoop::new(termination.clone()));
        let loader = options
            .module_loader
            .take()
            .unwrap_or_else(|| Rc::new(crate::modules::NoModuleLoader));
        let modules = Rc::new(ModuleMap::new(loader));
        event_loop.add_source(modules.clone());
        event_loop.add_source(timers.clone());
        let ops = op_table(&options, &state, &event_loop, &termination);
        let classes: Vec<&'static crate::ClassDecl> = options
            .extensions
            .iter()
            .flat_map(|extension| extension.class_decls())
            .collect();

        // The op contexts exist before the isolate: a snapshot's external references name
        // their addresses.
        let fingerprint =
            || blob::fingerprint(options.ops_object_name, &ops, &classes, &options.extensions);
        if let Some(snapshot) = options.startup_snapshot.take() {
            startup = Startup::FromSnapshot(blob::open(snapshot, fingerprint())?);
        }
        let fingerprint = matches!(startup, Startup::ForSnapshot).then(fingerprint);
        let mut params = v8::CreateParams::default();
        let heap_limits = match (options.heap_limits, options.memory_limit) {
            (Some(limits), Some(budget)) => Some((limits.initial, limits.max.min(budget))),
            (Some(limits), None) => Some((limits.initial, limits.max)),
            (None, Some(budget)) => Some((0, budget)),
            (None, None) => None,
        };
        if let Some((initial, max)) = heap_limits {
            params = params.heap_limits(initial, max);
        }
        if let Some(budget) = &memory_budget {
            params = params.array_buffer_allocator(budget.allocator());
        }
        let references = || {
            std::borrow::Cow::Owned(snapshot::external_references(&ops, Rc::as_ptr(&event_loop)))
        };
        // Each enters the isolate; it is exited again before this returns.
        let for_snapshot = match startup {
            Startup::ForSnapshot => SnapshotState::Creator,
            Startup::Fresh | Startup::FromSnapshot(_) => SnapshotState::No,
        };
        let (mut isolate, restore) = match startup {
            Startup::Fresh => (v8::Isolate::new(params), None),
            Startup::ForSnapshot => (
                v8::Isolate::snapshot_creator(Some(references()), Some(params)),
                None,
            ),
            Startup::FromSnapshot(restore) => {
                let params = params
                    .external_references(references())
                    .snapshot_blob(v8::StartupData::from(restore.v8_blob));
                (v8::Isolate::new(params), Some(restore.meta))
            }
        };
        termination.attach(isolate.thread_safe_handle());
        if for_snapshot == SnapshotState::Creator {
            isolate.set_slot(CreatingSnapshot);
        }
        let near_heap_limit = NearHeapLimit::new(termination.clone());
        near_heap_limit.register(&mut isolate);
        if let Some(budget) = &memory_budget {
            budget.watch(&mut isolate);
        }
        let instances = crate::class::instance::Instances::new();
        instances.attach(&mut isolate);
        isolate.set_slot(termination.clone());
        isolate.set_slot(ConversionLimits::new(
            options.max_sequence_length,
            termination.clone(),
        ));

        let parts = Parts {
            ops: &ops,
            event_loop: &event_loop,
            modules: &modules,
            timers: &timers,
            classes: &classes,
        };
        let (context, interrupt_check) = {
            v8::scope!(let scope, &mut isolate);
            match &restore {
                None => install(
                    scope,
                    &parts,
                    options.ops_object_name,
                    Builtins {
                        console: console.is_some(),
                        memory: memory_budget.is_some(),
                    },
                ),
                Some(meta) => restore_context(scope, &parts, meta)?,
            }
        };
        isolate.set_slot(InterruptCheck(interrupt_check));
        isolate.set_slot(event_loop.clone());
        isolate.set_promise_reject_callback(crate::event_loop::promise_reject_callback);
        isolate.set_slot(modules.clone());
        isolate.set_host_initialize_import_meta_object_callback(
            crate::modules::callbacks::import_meta_callback,
        );
        isolate.set_host_import_module_dynamically_callback(
            crate::modules::callbacks::dynamic_import_callback,
        );
        // Without it, `import.source()` or `import.defer()` under the flags that enable them
        // stops the process (a V8 check).
        isolate.set_host_import_module_with_phase_dynamically_callback(
            crate::modules::callbacks::dynamic_import_with_phase_callback,
        );
        // SAFETY: `Isolate::new` entered it and nothing entered since is still entered.
        unsafe { isolate.exit() };

        for extension in &options.extensions {
            for source in extension.esm_sources() {
                modules.add_ext_module(
                    source.specifier.to_owned(),
                    crate::modules::ModuleSource::js(source.code),
                    extension.is_public_esm(source.specifier),
                );
            }
        }
        let mut runtime = Self {
            classes,
            context: ManuallyDrop::new(context),
            event_loop,
            modules,
            isolate: ManuallyDrop::new(isolate),
            isolate_owned: true,
            for_snapshot,
            timers,
            near_heap_limit,
            _memory_budget: memory_budget,
            instances,
            fingerprint,
            ops,
            ops_object_name: options.ops_object_name,
            state,
            termination,
            #[cfg(feature = "tokio")]
            tokio: options
                .tokio_handle
                .take()
                .or_else(|| tokio::runtime::Handle::try_current().ok()),
        };
        if restore.is_none() {
            runtime.run_extension_javascript(&options.extensions)?;
        }
        if restore.is_some() || !options.expose_ops {
            runtime.expose_ops(options.expose_ops)?;
        }
        Ok(runtime)
    }

    /// Puts the ops object on the global object, or takes it off (`RuntimeOptions::expose_ops`;
    /// a snapshot keeps whichever it was made with).
    fn expose_ops(&mut self, expose: bool) -> Result<(), JsError> {
        let name = self.ops_object_name;
        let ops_object = self.modules.ops_object();
        self.try_with_scope(|scope| {
            let key = v8::String::new(scope, name)?;
            let global = scope.get_current_context().global(scope);
            match (&ops_object, expose) {
                (Some(ops_object), true) => {
                    let ops_object = v8::Local::new(scope, ops_object);
                    global.set(scope, key.into(), ops_object.into())
                }
                _ => global.delete(scope, key.into()),
            }
        })?;
        Ok(())
    }

    /// The extensions' classic scripts, in order, then their module entry points, evaluated
    /// to the end (their microtasks run; no top-level `await` is left waiting).
    fn run_extension_javascript(&mut self, extensions: &[Extension]) -> Result<(), JsError> {
        for extension in extensions {
            for source in extension.js_sources() {
                self.with_scope(|scope| {
                    run_extension_script(scope, source.specifier, source.code).map(drop)
                })?;
            }
        }
        let modules = self.modules.clone();
        let event_loop = self.event_loop.clone();
        for entry in extensions.iter().filter_map(Extension::entry_point) {
            let mut load = modules.start_load(
                entry,
                crate::modules::ModuleType::JavaScript,
                crate::modules::ResolutionKind::Import,
            );
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let loaded = self.with_scope(|scope| load.poll(&modules, scope, &mut cx));
            let std::task::Poll::Ready(id) = loaded else {
                return Err(JsError::exception(
                    "Error",
                    &format!("{entry}: an extension's modules must load at once"),
                ));
            };
            let id = id?;
            self.try_with_scope(|scope| Some(modules.instantiate(scope, id)))??;
            self.try_with_scope(|scope| {
                let evaluated = match modules.evaluate(scope, id) {
                    Ok(evaluated) => evaluated,
                    Err(error) => return Some(Err(error)),
                };
                scope.perform_microtask_checkpoint();
                let promise = v8::Local::<v8::Promise>::try_from(evaluated).ok()?;
                Some(match promise.state() {
                    v8::PromiseState::Fulfilled => Ok(()),
                    v8::PromiseState::Rejected => {
                        let reason = promise.result(scope);
                        event_loop.forget_unhandled(promise);
                        Err(JsError::from_exception(scope, reason))
                    }
                    v8::PromiseState::Pending => Err(JsError::exception(
                        "Error",
                        &format!("{entry}: an extension's module must not wait (top-level await)"),
                    )),
                })
            })??;
        }
        Ok(())
    }

    /// Runs a classic script; returns its completion value, or the exception it threw (or
    /// that it was terminated: [`JsError::is_terminated`]).
    pub fn execute_script(
        &mut self,
        name: &str,
        source: &str,
    ) -> Result<v8::Global<v8::Value>, JsError> {
        self.with_scope_checked(|scope| {
            let value = run_script(scope, name, source)?;
            Ok(v8::Global::new(scope, value))
        })
    }

    /// Runs a classic script and converts its completion value with JavaScript's `String()`.
    pub fn execute_script_to_string(
        &mut self,
        name: &str,
        source: &str,
    ) -> Result<String, JsError> {
        self.with_scope_checked(|scope| {
            let value = run_script(scope, name, source)?;
            Ok(value.to_rust_string_lossy(scope))
        })
    }

    /// As [`Runtime::with_scope`] for `f` that returns a `Result`: a termination spent as it
    /// returned (one that stopped the script's microtasks, after its value) is the `Err`.
    fn with_scope_checked<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> Result<R, JsError>,
    ) -> Result<R, JsError> {
        match self.with_scope_spent(f) {
            (Err(error), _) | (Ok(_), Some(error)) => Err(error),
            (Ok(value), None) => Ok(value),
        }
    }

    /// Calls `f` with a handle scope entered in this runtime's context.
    ///
    /// A termination requested while `f` ran is spent when it returns: the next call runs
    /// normally. (Ops cannot reach their `Runtime`, so this is always the outermost call into
    /// this runtime's isolate.)
    pub fn with_scope<R>(&mut self, f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> R) -> R {
        self.with_scope_spent(f).0
    }

    /// As [`Runtime::with_scope`], and the error of a termination request spent (it stopped
    /// `f`'s JavaScript, or came while `f` ran).
    pub(crate) fn with_scope_spent<R>(
        &mut self,
        f: impl FnOnce(&mut v8::PinScope<'_, '_>) -> R,
    ) -> (R, Option<JsError>) {
        // Only when the caller is in no tokio runtime: a host driving the loop in another
        // runtime than the one this was made in means that one.
        #[cfg(feature = "tokio")]
        let _entered = self
            .tokio
            .as_ref()
            .filter(|_| tokio::runtime::Handle::try_current().is_err())
            .map(tokio::runtime::Handle::enter);
        let termination = &self.termination;
        let mut isolate = EnteredIsolate::new(&mut self.isolate);
        let result = {
            v8::scope!(let scope, &mut *isolate);
            let context = v8::Local::new(scope, &*self.context);
            let scope = &mut v8::ContextScope::new(scope, context);
            f(scope)
        };
        // The heap's loan back first: the collection that takes it may find the runtime still
        // over its memory budget, and that request is this call's too.
        self.near_heap_limit.restore(&mut isolate);
        // The error of a request spent now (out of memory, if that is why).
        let spent = termination.spend(&mut isolate);
        (result, spent)
    }

    /// The op state shared by this runtime's ops.
    pub fn op_state(&self) -> Rc<RefCell<OpState>> {
        self.state.clone()
    }

    /// A handle that stops this runtime's JavaScript from any thread; see
    /// [`TerminationHandle`].
    pub fn termination_handle(&self) -> TerminationHandle {
        self.termination.clone()
    }

    /// Calls of op `name` per path since the runtime started or the last reset; `None` for
    /// an unknown op. All zero unless [`RuntimeOptions::op_call_counters`] is on.
    pub fn op_call_counts(&self, name: &str) -> Option<OpCallCounts> {
        self.ops
            .index
            .get(name)
            .map(|&index| self.ops.ctxs[index].counts())
    }

    /// The declaration of op `name`, if registered.
    pub fn op_decl(&self, name: &str) -> Option<&'static OpDecl> {
        self.ops
            .index
            .get(name)
            .map(|&index| self.ops.ctxs[index].decl)
    }

    /// A TypeScript declaration file for all of this runtime's ops (see
    /// [`crate::typescript_declarations`]), after the globals it installs
    /// ([`crate::GLOBALS_DTS`]: the console and the timers).
    pub fn typescript_declarations(&self) -> String {
        let ops = crate::typescript_declarations(
            self.ops_object_name,
            // Class members are declared with their class; internal ops never.
            self.ops.public_ops().map(|op_ctx| op_ctx.decl),
            self.classes.iter().copied(),
        );
        format!("{}\n{ops}", crate::GLOBALS_DTS)
    }

    /// Sets every op's call counts to zero.
    pub fn reset_op_call_counts(&self) {
        self.ops.ctxs.iter().for_each(OpCtx::reset_counts);
    }

    /// The isolate, entered for as long as the guard lives: e.g. to request a garbage
    /// collection.
    pub fn isolate(&mut self) -> EnteredIsolate<'_> {
        EnteredIsolate::new(&mut self.isolate)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if !self.isolate_owned {
            return;
        }
        if self.for_snapshot != SnapshotState::No {
            // A snapshot creator's isolate ends only by making its blob, of a default context.
            if self.for_snapshot == SnapshotState::Creator {
                let context = (*self.context).clone();
                let mut isolate = EnteredIsolate::new(&mut self.isolate);
                v8::scope!(let scope, &mut *isolate);
                let context = v8::Local::new(scope, context);
                let handles = set_default_context(scope, context);
                self.for_snapshot = SnapshotState::ContextSet { handles };
            }
            if let Err(error) = self.take_blob() {
                eprintln!("opwire: a SnapshotBuilder was dropped unbuilt: {error}");
            }
            return;
        }
        // SAFETY: the runtime's isolate, alive on its thread. `OwnedIsolate`'s own `Drop`
        // requires it to be the current one and exits it: the entry taken back pairs with that.
        let current = unsafe { crate::isolate::entry::take_back(&self.isolate) };
        // Pending ops go first: their futures' `Drop` may use the op state, and their promise
        // handles belong to the isolate.
        self.event_loop.clear();
        self.modules.clear();
        // SAFETY: dropped once, here, as the isolate.
        unsafe { ManuallyDrop::drop(&mut self.context) };
        if !current {
            // Left entered under another isolate still entered: V8 cannot exit it before that
            // one, so it is leaked rather than disposed under it (see `crate::isolate::entry`).
            eprintln!(
                "opwire: a Runtime was dropped while an isolate entered after its last call is \
                 still entered; its isolate is leaked"
            );
            return;
        }
        // No `Held` reads the heap once it is gone.
        self.instances.heap_gone();
        // SAFETY: dropped once, here; the other fields' handles drop after it, which V8 allows
        // (a `Global` of a disposed isolate does nothing), and the op contexts outlive it.
        unsafe { ManuallyDrop::drop(&mut self.isolate) };
    }
}

/// The op contexts of every op and class member of the extensions, in order, and their
/// index by name.
fn op_table(
    options: &RuntimeOptions,
    state: &Rc<RefCell<OpState>>,
    event_loop: &Rc<EventLoop>,
    termination: &TerminationHandle,
) -> Box<OpTable> {
    let count = options
        .extensions
        .iter()
        .map(|extension| {
            let members = extension
                .class_decls()
                .iter()
                .map(|class| usize::from(class.constructor.is_some()) + class.members.len());
            extension.op_decls().len()
                + extension.internal_op_decls().len()
                + members.sum::<usize>()
        })
        .sum();
    let mut op_index = OpIndex::with_capacity_and_hasher(count, Default::default());
    let mut op_ctxs = Vec::with_capacity(count);
    let mut internal = Vec::with_capacity(count);
    // A class's constructor and members are ops too (`new Foo`, `Foo.prototype.name`, ...),
    // with contexts of their own; installing the class finds them by name.
    for extension in &options.extensions {
        let members = extension.class_decls().iter().flat_map(|class| {
            class
                .constructor
                .iter()
                .chain(class.members.iter().map(|member| &member.decl))
        });
        let public = extension
            .op_decls()
            .iter()
            .chain(members)
            .map(|decl| (decl, false));
        let hidden = extension
            .internal_op_decls()
            .iter()
            .map(|decl| (decl, true));
        for (decl, is_internal) in public.chain(hidden) {
            internal.push(is_internal);
            let previous = op_index.insert(decl.name, op_ctxs.len());
            assert!(
                previous.is_none(),
                "op `{}` (extension `{}`) is registered twice",
                decl.name,
                extension.name()
            );
            let observer = options
                .op_metrics_factory_fn
                .as_ref()
                .and_then(|factory| factory(decl));
            let metrics = match (options.op_call_counters, observer) {
                (true, Some(observer)) => Some(metrics::both(metrics::call_counter(), observer)),
                (true, None) => Some(metrics::call_counter()),
                (false, observer) => observer,
            };
            let stack_trace = options
                .op_stack_trace_callback
                .clone()
                .filter(|_| decl.flags.stack_trace);
            op_ctxs.push(OpCtx::new(
                decl,
                metrics,
                stack_trace,
                state.clone(),
                event_loop.clone(),
                termination.clone(),
            ));
        }
    }
    OpTable::new(
        op_ctxs.into_boxed_slice(),
        op_index,
        internal.into_boxed_slice(),
    )
}

/// What installing or restoring a context fills in.
struct Parts<'a> {
    ops: &'a OpTable,
    event_loop: &'a EventLoop,
    modules: &'a ModuleMap,
    timers: &'a crate::event_loop::timers::Timers,
    classes: &'a [&'static crate::ClassDecl],
}

/// A new context: the ops object (its classes, and its ops made on first read), the async
/// wrappers, console and timers, `ext:core/ops` (made on first import). Returns the context
/// and the interrupt check function.
fn install(
    scope: &mut v8::PinScope<'_, '_, ()>,
    parts: &Parts<'_>,
    ops_object_name: &str,
    builtins: Builtins,
) -> (v8::Global<v8::Context>, v8::Global<v8::Function>) {
    let context = v8::Context::new(scope, Default::default());
    let scope = &mut v8::ContextScope::new(scope, context);
    let wrap = crate::event_loop::async_wrap::AsyncWrap::install(scope, parts.event_loop);
    let ops_object = new_ops_object(scope, parts.ops);
    let key = v8::String::new(scope, ops_object_name).expect("ops object name fits in a V8 string");
    context
        .global(scope)
        .set(scope, key.into(), ops_object.into())
        .expect("defining the ops object on a fresh global cannot throw");
    let internal_ops = internal_ops_object(scope, parts.ops);
    if builtins.memory {
        let install = run_builtin_script(scope, "<memory>", memory_globals::MEMORY_JS)
            .ok()
            .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
            .expect("the memory script evaluates to a function");
        let receiver = v8::undefined(scope).into();
        install
            .call(scope, receiver, &[internal_ops.into()])
            .expect("installing the memory wrappers cannot throw");
    }
    if builtins.console {
        let install = run_builtin_script(scope, "<console>", crate::console::CONSOLE_JS)
            .ok()
            .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
            .expect("the console script evaluates to a function");
        let receiver = v8::undefined(scope).into();
        install
            .call(scope, receiver, &[internal_ops.into()])
            .expect("installing the console cannot throw");
    }
    let install = run_builtin_script(scope, "<timers>", timer_globals::TIMERS_JS)
        .ok()
        .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
        .expect("the timers script evaluates to a function");
    let receiver = v8::undefined(scope).into();
    let fire = install
        .call(scope, receiver, &[internal_ops.into()])
        .and_then(|fire| v8::Local::<v8::Function>::try_from(fire).ok())
        .expect("installing the timers returns their fire function");
    parts.timers.set_fire(v8::Global::new(scope, fire));
    for &class in parts.classes {
        crate::class::install(
            scope,
            ops_object,
            class,
            &parts.ops.ctxs,
            &parts.ops.index,
            wrap,
        );
    }
    let noop = run_builtin_script(scope, "<interrupt check>", "(function () {})")
        .ok()
        .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
        .expect("a function expression evaluates to a function");
    parts
        .modules
        .set_ops_module(v8::Global::new(scope, ops_object), ops_exports(parts));
    (
        v8::Global::new(scope, context),
        v8::Global::new(scope, noop),
    )
}

/// Which of runtime_core's own globals a new context gets.
struct Builtins {
    console: bool,
    memory: bool,
}

/// What `ext:core/ops` exports: every public op, and every class.
fn ops_exports<'a>(parts: &'a Parts<'_>) -> impl Iterator<Item = &'static str> + 'a {
    parts
        .ops
        .public_ops()
        .map(|op_ctx| op_ctx.decl.name)
        .chain(parts.classes.iter().map(|class| class.name))
}

/// The context of a snapshot, and the handles Rust keeps of it, from its data.
fn restore_context(
    scope: &mut v8::PinScope<'_, '_, ()>,
    parts: &Parts<'_>,
    meta: &Meta,
) -> Result<(v8::Global<v8::Context>, v8::Global<v8::Function>), JsError> {
    let corrupt = || JsError::exception("Error", "startup snapshot: its data is missing");
    let context = v8::Context::new(scope, Default::default());
    let scope = &mut v8::ContextScope::new(scope, context);
    let mut templates = crate::class::templates::ClassTemplates::default();
    for (class, &index) in parts.classes.iter().zip(&meta.class_templates) {
        let template = scope
            .get_isolate_data_from_snapshot_once::<v8::FunctionTemplate>(index)
            .map_err(|_| corrupt())?;
        templates
            .0
            .insert((class.type_id)(), v8::Global::new(scope, template));
    }
    scope.set_slot(templates);
    let ops_object = scope
        .get_context_data_from_snapshot_once::<v8::Object>(meta.ops_object)
        .map_err(|_| corrupt())?;
    let fire = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.timers_fire)
        .map_err(|_| corrupt())?;
    let noop = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.interrupt_check)
        .map_err(|_| corrupt())?;
    let left = scope
        .get_context_data_from_snapshot_once::<v8::Object>(meta.left_marker)
        .map_err(|_| corrupt())?;
    let wrap = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.async_wrap)
        .map_err(|_| corrupt())?;
    if !parts.ops.restore_made(&meta.made_ops) {
        return Err(corrupt());
    }
    parts.timers.set_fire(v8::Global::new(scope, fire));
    parts
        .event_loop
        .set_left_marker(v8::Global::new(scope, left));
    parts
        .event_loop
        .set_async_wrap(v8::Global::new(scope, wrap));
    parts
        .modules
        .set_ops_module(v8::Global::new(scope, ops_object), ops_exports(parts));
    for record in &meta.modules {
        let module = scope
            .get_context_data_from_snapshot_once::<v8::Module>(record.module)
            .map_err(|_| corrupt())?;
        parts.modules.restore_record(scope, record, module);
    }
    Ok((
        v8::Global::new(scope, context),
        v8::Global::new(scope, noop),
    ))
}
