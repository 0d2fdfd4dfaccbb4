//! Making a runtime: its extensions (the built-in globals among them), op state and op
//! contexts, then the isolate (fresh, for a snapshot, or from one), its context installed or
//! restored (`context.rs`), and the extensions' JavaScript run.

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;

use super::blob;
use super::context::{install, restore_context, Parts};
use super::isolate_state::IsolateState;
use super::snapshot::{self, Startup};
use super::{Runtime, RuntimeOptions};
use crate::event_loop::EventLoop;
use crate::isolate::external_memory::ExternalMemory;
use crate::isolate::heap_limit::NearHeapLimit;
use crate::isolate::memory_budget::MemoryBudget;
use crate::isolate::scripts::{run_extension_script, CreatingSnapshot};
use crate::isolate::termination::InterruptCheck;
use crate::modules::dynamic_import::DynamicImports;
use crate::modules::graph::GraphLoad;
use crate::modules::map::ModuleMap;
use crate::ops::metrics;
use crate::ops::ops_object::{OpIndex, OpTable};
use crate::ops::OpCtx;
use crate::structured::limits::ConversionLimits;
use crate::{init_v8, Extension, JsError, OpState, TerminationHandle};

/// A runtime made, and what is left to do before it is used: its extensions' JavaScript.
pub(crate) struct Assembled {
    pub(crate) runtime: Runtime,
    pub(crate) rest: Rest,
    /// What a snapshot of it is made for (see `blob::fingerprint`): for a snapshot creator.
    pub(crate) fingerprint: Option<u64>,
}

/// What [`Runtime::finish`] does.
pub(crate) struct Rest {
    extensions: Vec<Extension>,
    restored: bool,
    expose_ops: bool,
    inspector: bool,
}

impl Runtime {
    /// Makes the runtime (fresh, ready for a snapshot, or from one, in `options`) up to its
    /// extensions' JavaScript: a runtime that exists, for its owner to end its own way if
    /// [`Runtime::finish`] fails (a snapshot creator's isolate cannot be disposed of as a
    /// runtime's).
    pub(crate) fn assemble(
        mut options: RuntimeOptions,
        mut startup: Startup,
    ) -> Result<Assembled, JsError> {
        init_v8();
        let termination = TerminationHandle::new();
        let external_memory = ExternalMemory::default();
        let memory_budget = options
            .memory_limit
            .map(|limit| MemoryBudget::new(limit, termination.clone(), external_memory.clone()));
        // The built-in globals first: the extensions' install scripts find them made (and
        // capture the memory budget's wrappers, not what they wrap).
        #[cfg(feature = "tokio")]
        let precise_timers = options.precise_timers;
        #[cfg(not(feature = "tokio"))]
        let precise_timers = false;
        let mut extensions = crate::globals::builtins(
            options.console.take(),
            memory_budget.clone(),
            precise_timers,
        );
        extensions.append(&mut options.extensions);
        options.extensions = extensions;
        let state = Rc::new(RefCell::new(OpState::new()));
        state.borrow_mut().put(termination.clone());
        state.borrow_mut().put(external_memory);
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
        let dynamic_imports = Rc::new(DynamicImports::default());
        event_loop.add_source(dynamic_imports.clone());
        for extension in &mut options.extensions {
            if let Some(source) = extension.take_loop_source() {
                event_loop.add_source(source);
            }
        }
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
        let creator = fingerprint.is_some();
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
        let tasks = crate::isolate::tasks::IsolateTasks::register(&isolate);
        isolate.set_slot(tasks.clone());
        event_loop.set_tasks(tasks);
        if creator {
            isolate.set_slot(CreatingSnapshot);
        }
        let near_heap_limit = NearHeapLimit::new(termination.clone(), memory_budget.clone());
        near_heap_limit.register(&mut isolate);
        if let Some(budget) = &memory_budget {
            budget.watch(&mut isolate);
        }
        let instances = crate::class::instance::Instances::new();
        instances.attach(&mut isolate);
        isolate.set_slot(termination.clone());
        isolate.set_slot(crate::isolate::source_maps::SourceMaps::default());
        isolate
            .set_prepare_stack_trace_callback(crate::isolate::stack_formatter::prepare_stack_trace);
        isolate.set_slot(ConversionLimits::new(
            options.max_sequence_length,
            termination.clone(),
        ));

        let parts = Parts {
            ops: &ops,
            event_loop: &event_loop,
            modules: &modules,
            classes: &classes,
            extensions: &options.extensions,
            state: &state,
        };
        let made = {
            v8::scope!(let scope, &mut isolate);
            match &restore {
                None => install(scope, &parts, options.ops_object_name),
                Some(meta) => restore_context(scope, &parts, meta),
            }
        };
        let made = match made {
            Ok(made) => made,
            Err(error) if creator => {
                snapshot::abandon_creator(isolate);
                return Err(error);
            }
            Err(error) => return Err(error),
        };
        let globals_dts = options
            .extensions
            .iter()
            .filter_map(Extension::global_install)
            .map(|global| global.typescript)
            .filter(|typescript| !typescript.is_empty())
            .collect();
        isolate.set_slot(InterruptCheck {
            noop: made.interrupt_check,
            context: made.context.clone(),
        });
        isolate.set_slot(event_loop.clone());
        isolate.set_promise_reject_callback(crate::event_loop::promise_reject_callback);
        isolate.set_slot(modules.clone());
        isolate.set_slot(dynamic_imports);
        isolate.set_host_initialize_import_meta_object_callback(
            crate::modules::callbacks::import_meta_callback,
        );
        isolate.set_host_import_module_dynamically_callback(
            crate::modules::dynamic_import::dynamic_import_callback,
        );
        // Without it, `import.source()` or `import.defer()` under the flags that enable them
        // stops the process (a V8 check).
        isolate.set_host_import_module_with_phase_dynamically_callback(
            crate::modules::dynamic_import::dynamic_import_with_phase_callback,
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
            for (specifier, code) in extension.made_esm_sources() {
                modules.add_ext_module(
                    specifier.clone(),
                    crate::modules::ModuleSource::js(code.clone()),
                    extension.is_public_esm(specifier),
                );
            }
        }
        let runtime = Self {
            inner: IsolateState {
                inspector: None,
                context: ManuallyDrop::new(made.context),
                event_loop,
                modules,
                isolate: ManuallyDrop::new(isolate),
                instances,
            },
            classes,
            installed: made.installed,
            globals_dts,
            modules_dts: options
                .extensions
                .iter()
                .map(Extension::module_declarations)
                .collect(),
            ops_exposed: options.expose_ops,
            near_heap_limit,
            _memory_budget: memory_budget,
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
        Ok(Assembled {
            runtime,
            rest: Rest {
                extensions: options.extensions,
                restored: restore.is_some(),
                expose_ops: options.expose_ops,
                inspector: options.inspector,
            },
            fingerprint,
        })
    }

    /// The rest of making it: the extensions' JavaScript run (a fresh runtime's), the ops
    /// object put on the global object or taken off, the inspector made if asked for.
    pub(crate) fn finish(&mut self, rest: Rest) -> Result<(), JsError> {
        if !rest.restored {
            self.run_extension_javascript(&rest.extensions)?;
        }
        if rest.restored || !rest.expose_ops {
            self.expose_ops(rest.expose_ops)?;
        }
        if rest.inspector {
            self.inspector();
        }
        Ok(())
    }

    /// Puts the ops object on the global object, or takes it off (`RuntimeOptions::expose_ops`;
    /// a snapshot keeps whichever it was made with).
    fn expose_ops(&mut self, expose: bool) -> Result<(), JsError> {
        let name = self.ops_object_name;
        let ops_object = self.inner.modules.ops_object();
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
        let modules = self.inner.modules.clone();
        let event_loop = self.inner.event_loop.clone();
        for entry in extensions.iter().filter_map(Extension::entry_point) {
            let mut load = GraphLoad::new(
                &modules,
                entry,
                crate::modules::ModuleType::JavaScript,
                crate::modules::ResolutionKind::Import,
            );
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let loaded = self.with_scope(|scope| load.poll(&modules, scope, &mut cx));
            let std::task::Poll::Ready(id) = loaded else {
                return Err(JsError::host(
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
                    v8::PromiseState::Pending => Err(JsError::host(
                        "Error",
                        &format!("{entry}: an extension's module must not wait (top-level await)"),
                    )),
                })
            })??;
        }
        Ok(())
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
