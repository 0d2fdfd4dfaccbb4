//! Extensions: named groups of ops with an optional state initialiser, and the JavaScript
//! that wraps them (classic scripts and ES modules shipped in the host's binary).

#![deny(unsafe_code)]

use crate::{ClassDecl, OpDecl, OpState};

/// Fills the op state when a runtime is created.
type StateInit = Box<dyn FnOnce(&mut OpState)>;

/// Stores what a global's install script returned (in the op state, where the extension's
/// Rust side finds it): given it when the context is made, and again when a runtime starts
/// from a snapshot of that context (the snapshot carries the value). A `v8::Global` kept so
/// is dropped when a snapshot builder makes its blob, with the rest of its op state.
pub type KeepFn = for<'s, 'i> fn(&mut v8::PinScope<'s, 'i>, v8::Local<'s, v8::Value>, &OpState);

/// What an extension installs on the global object when a context is made: the way a host's
/// extension defines web-style globals (runtime_core's own console and timers are made so).
///
/// The script evaluates to `function (internalOps, internals) { ... }`. The runtime calls it
/// once per new context, before any other script runs, with
///
/// - `internalOps`: the extension's [`Extension::internal_ops`], which no other code reaches
///   (not `globalThis.ops`, not `ext:core/ops`);
/// - `internals`: one object of no prototype per context, shared by every extension's
///   install script and reachable by no other code: an earlier extension leaves there what a
///   later one builds on (the web's `DOMException`, its event classes).
///
/// What the function captures of the language then (`Reflect.apply`, `Promise.prototype.then`)
/// is the original: scripts that patch intrinsics later change nothing of it. Runtime_core's
/// own globals (the memory budget's wrappers, the console, the timers) are installed first,
/// then the extensions' in order.
///
/// ```
/// use runtime_core::{op, Extension, GlobalScript, Runtime, RuntimeOptions};
///
/// #[op(fast)]
/// fn op_answer() -> u32 {
///     42
/// }
///
/// let answer = Extension::new("answer")
///     .internal_ops(&[op_answer::DECL])
///     .global(GlobalScript::new(
///         "<answer>",
///         "(function ({ op_answer }) {
///            Object.defineProperty(globalThis, 'answer', {
///              value: () => op_answer(), writable: true, configurable: true,
///            });
///          })",
///     ));
/// let mut runtime = Runtime::new(RuntimeOptions {
///     extensions: vec![answer],
///     ..Default::default()
/// });
/// let value = runtime.execute_script_to_string("<doc>", "answer()").unwrap();
/// assert_eq!(value, "42");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GlobalScript {
    /// The script's name, as stacks show it.
    pub(crate) name: &'static str,
    /// JavaScript evaluating to `function (internalOps, internals) { ... }`.
    pub(crate) script: &'static str,
    /// Given what the function returned; `None` if the global keeps nothing.
    pub(crate) keep: Option<KeepFn>,
    /// The TypeScript declarations of what it installs.
    pub(crate) typescript: &'static str,
}

impl GlobalScript {
    /// The install script `script`, named `name` in stacks; it keeps nothing and declares
    /// nothing.
    pub const fn new(name: &'static str, script: &'static str) -> Self {
        Self {
            name,
            script,
            keep: None,
            typescript: "",
        }
    }

    /// Gives `keep` what the install function returned (see [`KeepFn`]).
    pub const fn keep(mut self, keep: KeepFn) -> Self {
        self.keep = Some(keep);
        self
    }

    /// The TypeScript declarations of the globals it installs: they join the runtime's
    /// [`Runtime::typescript_declarations`](crate::Runtime::typescript_declarations).
    pub const fn typescript(mut self, declarations: &'static str) -> Self {
        self.typescript = declarations;
        self
    }
}

/// A named group of ops, registered on a [`crate::Runtime`] when it is created.
///
/// ```
/// use runtime_core::{op, Extension, OpState};
///
/// struct Greeting(u32);
///
/// #[op]
/// fn op_greeting_count(state: &OpState) -> u32 {
///     state.borrow::<Greeting>().0
/// }
///
/// let extension = Extension::new("greet")
///     .ops(&[op_greeting_count::DECL])
///     .state(|state| {
///         state.put(Greeting(3));
///     });
/// assert_eq!(extension.name(), "greet");
/// ```
pub struct Extension {
    name: &'static str,
    ops: &'static [OpDecl],
    internal_ops: &'static [OpDecl],
    classes: &'static [ClassDecl],
    state_init: Option<StateInit>,
    js: &'static [ExtensionSource],
    esm: &'static [ExtensionSource],
    /// Modules made at run time ([`Extension::esm_module`]): specifier and source.
    esm_made: Vec<(String, String)>,
    esm_public: &'static [&'static str],
    esm_entry_point: Option<&'static str>,
    esm_typescript: &'static [ExtensionSource],
    global: Option<GlobalScript>,
    loop_source: Option<std::rc::Rc<dyn crate::LoopSource>>,
}

/// JavaScript an extension ships: its specifier (for modules, `ext:<extension>/<file>`; for
/// scripts, the name stacks show) and its source, usually `include_str!`'d (a `&'static str`:
/// V8 compiles it where it lies, no copy).
#[derive(Clone, Copy, Debug)]
pub struct ExtensionSource {
    /// `ext:name/file.js`.
    pub specifier: &'static str,
    /// The source text.
    pub code: &'static str,
}

impl ExtensionSource {
    /// A source named `specifier`.
    pub const fn new(specifier: &'static str, code: &'static str) -> Self {
        Self { specifier, code }
    }
}

impl Extension {
    /// An extension with no ops yet.
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            ops: &[],
            internal_ops: &[],
            classes: &[],
            state_init: None,
            js: &[],
            esm: &[],
            esm_made: Vec::new(),
            esm_public: &[],
            esm_entry_point: None,
            esm_typescript: &[],
            global: None,
            loop_source: None,
        }
    }

    /// Classic scripts run in order when the runtime is made, after every extension's ops are
    /// installed and before any user code: glue that wraps ops into a nicer global API.
    pub fn js(mut self, sources: &'static [ExtensionSource]) -> Self {
        self.js = sources;
        self
    }

    /// ES modules importable as their specifiers (`ext:name/file.js`) by `ext:` modules and
    /// the extensions' classic scripts (deno's rule): user code can import only those named
    /// in [`Extension::esm_public`]. They are compiled only when first imported (lazily),
    /// unless one is the [`Extension::esm_entry_point`]. Inside them,
    /// `import { op_x } from "ext:core/ops"` reaches the ops, which user code never can: not
    /// when [`RuntimeOptions::expose_ops`](crate::RuntimeOptions::expose_ops) hides them.
    pub fn esm(mut self, sources: &'static [ExtensionSource]) -> Self {
        self.esm = sources;
        self
    }

    /// An ES module made at run time, as [`Extension::esm`]'s are shipped: a per-tenant
    /// wrapper or configuration the host generates (its source need not be `'static`).
    /// Private to `ext:` modules unless [`Extension::esm_public`] lists its specifier; it may
    /// be the [`Extension::esm_entry_point`].
    pub fn esm_module(mut self, specifier: impl Into<String>, code: impl Into<String>) -> Self {
        self.esm_made.push((specifier.into(), code.into()));
        self
    }

    /// The modules of [`Extension::esm`] that any module may import: the extension's API for
    /// user code (its glue over the ops, say). The others stay private to `ext:` modules.
    pub fn esm_public(mut self, specifiers: &'static [&'static str]) -> Self {
        self.esm_public = specifiers;
        self
    }

    pub(crate) fn is_public_esm(&self, specifier: &str) -> bool {
        self.esm_public.contains(&specifier)
    }

    /// TypeScript declarations of [`Extension::esm_public`] modules: each source's `code` is
    /// the body of the module's `declare module "ext:..." { ... }` block in
    /// [`Runtime::typescript_declarations`](crate::Runtime::typescript_declarations) (a private
    /// module's is left out: no tenant can import it).
    pub fn esm_typescript(mut self, declarations: &'static [ExtensionSource]) -> Self {
        self.esm_typescript = declarations;
        self
    }

    /// `declare module` blocks of the public modules' declarations.
    pub(crate) fn module_declarations(&self) -> String {
        let mut out = String::new();
        for module in self.esm_typescript {
            if !self.is_public_esm(module.specifier) {
                continue;
            }
            out.push_str(&format!("declare module {:?} {{\n", module.specifier));
            for line in module.code.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
            out.push_str("}\n");
        }
        out
    }

    /// The module of [`Extension::esm`] evaluated when the runtime is made (after the
    /// classic scripts); it may import the others. It must not wait on anything: no top-level
    /// `await` on work the event loop would do.
    pub fn esm_entry_point(mut self, specifier: &'static str) -> Self {
        self.esm_entry_point = Some(specifier);
        self
    }

    pub(crate) fn js_sources(&self) -> &'static [ExtensionSource] {
        self.js
    }

    pub(crate) fn esm_sources(&self) -> &'static [ExtensionSource] {
        self.esm
    }

    pub(crate) fn made_esm_sources(&self) -> &[(String, String)] {
        &self.esm_made
    }

    pub(crate) fn entry_point(&self) -> Option<&'static str> {
        self.esm_entry_point
    }

    /// Sets the ops: `&[op_a::DECL, op_b::DECL]` (a constant slice, so `'static`).
    pub fn ops(mut self, ops: &'static [OpDecl]) -> Self {
        self.ops = ops;
        self
    }

    /// Sets the internal ops: the machinery behind the extension's [`GlobalScript`] (the
    /// console's printing, the timers, a web API's parsing). They are never on the ops object,
    /// in `ext:core/ops` or in the TypeScript declarations; the runtime hands them to the
    /// extension's install script alone.
    pub fn internal_ops(mut self, ops: &'static [OpDecl]) -> Self {
        self.internal_ops = ops;
        self
    }

    pub(crate) fn internal_op_decls(&self) -> &'static [OpDecl] {
        self.internal_ops
    }

    /// Sets what the extension installs on the global object when a context is made.
    pub fn global(mut self, global: GlobalScript) -> Self {
        self.global = Some(global);
        self
    }

    pub(crate) fn global_install(&self) -> Option<GlobalScript> {
        self.global
    }

    /// Sets work the event loop drives for the extension (the timers are one), polled every
    /// turn; see [`LoopSource`](crate::LoopSource).
    pub fn loop_source(mut self, source: std::rc::Rc<dyn crate::LoopSource>) -> Self {
        self.loop_source = Some(source);
        self
    }

    pub(crate) fn take_loop_source(&mut self) -> Option<std::rc::Rc<dyn crate::LoopSource>> {
        self.loop_source.take()
    }

    /// Sets the classes: `&[Foo::CLASS]` (from `#[op] impl Foo`); each is `ops.Foo`.
    pub fn classes(mut self, classes: &'static [ClassDecl]) -> Self {
        self.classes = classes;
        self
    }

    /// The extension's classes.
    pub fn class_decls(&self) -> &'static [ClassDecl] {
        self.classes
    }

    /// Sets a function that fills the runtime's [`OpState`] before any op runs.
    pub fn state(mut self, init: impl FnOnce(&mut OpState) + 'static) -> Self {
        self.state_init = Some(Box::new(init));
        self
    }

    /// The extension's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The extension's ops.
    pub fn op_decls(&self) -> &'static [OpDecl] {
        self.ops
    }

    pub(crate) fn take_state_init(&mut self) -> Option<StateInit> {
        self.state_init.take()
    }

    /// A TypeScript declaration file for this extension's ops on the global `ops_object_name`
    /// (`"ops"` unless `RuntimeOptions::ops_object_name` says otherwise); see
    /// [`crate::typescript_declarations`].
    pub fn typescript_declarations(&self, ops_object_name: &str) -> String {
        crate::typescript::typescript_declarations(
            ops_object_name,
            self.op_decls(),
            self.class_decls(),
        )
    }
}
