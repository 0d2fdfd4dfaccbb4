//! `Runtime`: one isolate, one context, and the ops of its extensions, and what only a runtime
//! does: its options (`options.rs`), making it (`create.rs`), its context installed or
//! restored (`context.rs`), what it holds of its isolate and ends in order
//! (`isolate_state.rs`), entering it (`scopes.rs`: `with_scope`, `try_with_scope`),
//! startup snapshots (`snapshot.rs`: a builder that owns its runtime and ends its isolate by
//! making the blob; their format in `blob.rs`), calls into JavaScript
//! (`js_call.rs`), driving the event loop (`polling.rs`) and loading ES modules
//! (`loading.rs`). What it is made of lives below it: [`Extension`](crate::Extension) in
//! `crate::extension`, its built-in globals in `crate::globals`, [`OpState`](crate::OpState)
//! in `crate::ops`, starting V8, termination and heap limits in `crate::isolate`.

mod blob;
mod context;
mod create;
mod inspecting;
mod isolate_state;
pub(crate) mod js_call;
mod loading;
mod options;
mod polling;
mod scopes;
pub(crate) mod snapshot;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::isolate::heap_limit::NearHeapLimit;
use crate::isolate::memory_budget::MemoryBudget;
use crate::isolate::scripts::run_script;
use crate::ops::ops_object::OpTable;
use crate::ops::OpCtx;
use crate::{JsError, OpCallCounts, OpDecl, OpState, TerminationHandle};
use isolate_state::IsolateState;
pub use options::RuntimeOptions;
use snapshot::Startup;

/// A V8 isolate with one context in which the ops of its extensions are installed.
///
/// Any number of runtimes may live on one thread (and on many threads at once, each its
/// own), used in any interleaving and dropped in any order: a runtime's isolate is entered
/// only while one of its methods runs (V8 keeps a per-thread stack of entered isolates, and
/// `rusty_v8` enters a new isolate for good unless told otherwise).
///
/// Field order is drop order: the isolate and what must go in order with it first
/// ([`IsolateState`]'s `Drop`), and the op contexts (whose addresses V8 holds) after it.
pub struct Runtime {
    /// The isolate, its context, event loop, modules and inspector.
    pub(crate) inner: IsolateState,
    /// The classes installed (`#[op] impl`), for the TypeScript declarations.
    classes: Vec<&'static crate::ClassDecl>,
    /// What the globals that keep something were given when installed (a snapshot carries
    /// them).
    installed: Vec<v8::Global<v8::Value>>,
    /// The TypeScript declarations of the globals installed.
    globals_dts: Vec<&'static str>,
    /// The `declare module` blocks of the extensions' public `ext:` modules.
    modules_dts: String,
    /// Whether user code sees the ops object (`RuntimeOptions::expose_ops`): else its
    /// namespace is not declared.
    ops_exposed: bool,
    /// Registered with the isolate: dropped after it.
    near_heap_limit: Box<NearHeapLimit>,
    /// The memory budget, whose check after each collection is registered with the isolate:
    /// dropped after it.
    _memory_budget: Option<Arc<MemoryBudget>>,
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
        // before its isolate goes (`IsolateState`'s `Drop`, the snapshot builder's `take_blob`).
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
        let assembled = Self::assemble(options, Startup::Fresh)?;
        let mut runtime = assembled.runtime;
        runtime.finish(assembled.rest)?;
        Ok(runtime)
    }

    /// Runs a classic script; returns its completion value, or the exception it threw (or
    /// that it was terminated: [`JsError::is_terminated`]).
    pub fn execute_script(
        &mut self,
        name: &str,
        source: &str,
    ) -> Result<v8::Global<v8::Value>, JsError> {
        let ran = self.with_scope_checked(|scope| {
            let value = run_script(scope, name, source)?;
            Ok(v8::Global::new(scope, value))
        });
        self.inner
            .event_loop
            .calls
            .may_have_settled(&self.inner.event_loop);
        ran
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

    /// A TypeScript declaration file of what this runtime's scripts can reach: the globals it
    /// installs (the console, if it has one, and the timers: written to merge with
    /// TypeScript's DOM library, not to clash with it), its ops (see
    /// [`crate::typescript_declarations`]) unless
    /// [`RuntimeOptions::expose_ops`](crate::RuntimeOptions::expose_ops) hid them, and the
    /// extensions' public `ext:` modules ([`Extension::esm_typescript`](crate::Extension::esm_typescript)).
    pub fn typescript_declarations(&self) -> String {
        let mut out = self.globals_dts.concat();
        if self.ops_exposed {
            out.push('\n');
            out.push_str(&crate::typescript_declarations(
                self.ops_object_name,
                // Class members are declared with their class; internal ops never.
                self.ops.public_ops().map(|op_ctx| op_ctx.decl),
                self.classes.iter().copied(),
            ));
        }
        if !self.modules_dts.is_empty() {
            out.push('\n');
            out.push_str(&self.modules_dts);
        }
        out
    }

    /// Sets every op's call counts to zero.
    pub fn reset_op_call_counts(&self) {
        self.ops.ctxs.iter().for_each(OpCtx::reset_counts);
    }

    /// The isolate, entered for as long as the guard lives: e.g. to request a garbage
    /// collection.
    pub fn isolate(&mut self) -> EnteredIsolate<'_> {
        EnteredIsolate::new(&mut self.inner.isolate)
    }
}
