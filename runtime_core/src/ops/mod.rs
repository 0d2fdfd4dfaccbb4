//! Op declarations (made by `#[op]`) and the per-runtime context each registered op gets; the
//! state ops share (`state.rs`), the ops object whose ops are made on first read
//! (`ops_object.rs`), the template an op is installed from (`template.rs`), what
//! errors say of an op's arguments and panics (`messages.rs`), the metrics observers of op
//! calls (`metrics.rs`) and the stack traces ops can capture (`stack_trace.rs`).

pub(crate) mod messages;
pub(crate) mod metrics;
pub(crate) mod ops_object;
pub(crate) mod stack_trace;
pub(crate) mod state;
pub(crate) mod template;

use std::cell::{Cell, RefCell};
use std::ptr::NonNull;
use std::rc::Rc;

use crate::event_loop::async_wrap::AsyncCall;
use crate::event_loop::EventLoop;
use crate::{OpState, TerminationHandle, TsTypes};
use metrics::OpMetricsFn;
use stack_trace::OpStackTraceFn;

/// What `#[op]` generates for one op: everything `Runtime` needs to install it.
///
/// Only `#[op]` makes one (its constructor is `unsafe`): V8 calls its functions with the
/// arguments their `CFunctionInfo` describes, so a declaration pairing a fast function with
/// another signature would be undefined behaviour from safe code.
#[derive(Clone, Copy)]
pub struct OpDecl {
    /// The JavaScript name (the Rust function's name).
    pub(crate) name: &'static str,
    /// Names of the JavaScript-visible arguments, in order (scope and state arguments are
    /// not JavaScript-visible); their count is the function's `length`.
    pub(crate) arg_names: &'static [&'static str],
    /// The `FunctionCallback` for calls that do not take the fast path (for an op with a
    /// metrics observer, called by runtime_core's one metered callback).
    pub(crate) slow_fn: v8::FunctionCallback,
    /// The Fast API functions, when the signature allows a fast call.
    pub(crate) fast_fn: Option<FastFn>,
    /// Flags from the attribute (`#[op(no_side_effects)]`).
    pub(crate) flags: OpFlags,
    /// Its declaration in the ops namespace in TypeScript: the doc comment as JSDoc, then
    /// `function name(params): ret;` (see [`crate::Extension::typescript_declarations`]).
    pub(crate) typescript: &'static str,
    /// The types `typescript` names, declared beside it.
    pub(crate) typescript_types: TsTypes,
}

impl OpDecl {
    /// What `#[op]` writes.
    ///
    /// # Safety
    /// `slow_fn` must be a `FunctionCallback` that reads its data as the [`OpCtx`] `Runtime`
    /// registers it with; each `CFunction` of `fast_fn` must pair a
    /// function with the `CFunctionInfo` of its exact C signature, reading its options' data
    /// likewise; `flags.async_op` must be the protocol the functions speak.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const unsafe fn new(
        name: &'static str,
        arg_names: &'static [&'static str],
        slow_fn: v8::FunctionCallback,
        fast_fn: Option<FastFn>,
        flags: OpFlags,
        typescript: &'static str,
    ) -> Self {
        Self {
            name,
            arg_names,
            slow_fn,
            fast_fn,
            flags,
            typescript,
            typescript_types: &[],
        }
    }

    /// The types its TypeScript declaration names (`#[op]` writes it where there are any).
    #[doc(hidden)]
    pub const fn with_typescript_types(self, typescript_types: TsTypes) -> Self {
        Self {
            typescript_types,
            ..self
        }
    }

    /// The JavaScript name (the Rust function's name, or `#[op(rename = ..)]`).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Names of the JavaScript-visible arguments, in order.
    pub const fn arg_names(&self) -> &'static [&'static str] {
        self.arg_names
    }

    /// The number of JavaScript-visible arguments.
    pub const fn arity(&self) -> usize {
        self.arg_names.len()
    }

    /// Whether optimized JavaScript may call the op through the V8 Fast API.
    pub const fn has_fast_path(&self) -> bool {
        self.fast_fn.is_some()
    }

    /// Whether the op is async (it returns a promise).
    pub const fn is_async(&self) -> bool {
        self.flags.async_op.is_some()
    }

    /// `#[op(no_side_effects)]`.
    pub const fn no_side_effects(&self) -> bool {
        self.flags.no_side_effects
    }

    /// Its TypeScript declaration: `function name(params): ret;`.
    pub const fn typescript(&self) -> &'static str {
        self.typescript
    }

    /// The types its TypeScript declaration names (derived types, classes), each with its own
    /// declaration.
    pub const fn typescript_types(&self) -> TsTypes {
        self.typescript_types
    }

    /// The fast functions, for `#[op(fast(other))]`.
    #[doc(hidden)]
    pub const fn fast_fn(&self) -> Option<FastFn> {
        self.fast_fn
    }
}

impl OpDecl {
    /// The `FunctionCallback` registered for an op with a metrics observer or a stack trace
    /// callback: one for all ops, reaching the op's body through its context.
    pub(crate) fn slow_fn_metered(&self) -> v8::FunctionCallback {
        metrics::metered_slow_fn
    }
}

/// The two Fast API variants of one op: identical but for reporting to a metrics observer, so
/// that an op without one pays nothing for metrics.
#[derive(Clone, Copy)]
pub struct FastFn {
    /// Registered for ops without a metrics observer.
    pub(crate) plain: v8::fast_api::CFunction,
    /// Registered for ops with one: reports dispatch and outcome around what `plain` does.
    pub(crate) metered: v8::fast_api::CFunction,
}

impl FastFn {
    /// What `#[op]` writes.
    ///
    /// # Safety
    /// As [`OpDecl::new`]: each function is paired with the info of its exact signature, and
    /// `metered` does what `plain` does.
    #[doc(hidden)]
    pub const unsafe fn new(
        plain: v8::fast_api::CFunction,
        metered: v8::fast_api::CFunction,
    ) -> Self {
        Self { plain, metered }
    }
}

/// Op flags set by `#[op(...)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpFlags {
    /// `#[op(no_side_effects)]`: V8 may call the op while evaluating side-effect-free code
    /// (e.g. the inspector's eager evaluation).
    pub no_side_effects: bool,
    /// `#[op(stack_trace)]`: with `RuntimeOptions::op_stack_trace_callback` set, each call's
    /// JavaScript stack is captured and handed to it.
    pub stack_trace: bool,
    /// An async op: installed behind a JavaScript wrapper that makes its promise, following
    /// the protocol its raw call speaks.
    pub async_op: Option<AsyncCall>,
}

impl OpFlags {
    /// No flags.
    pub const fn empty() -> Self {
        Self {
            no_side_effects: false,
            stack_trace: false,
            async_op: None,
        }
    }
}

/// How often an op ran on each path, counted while the runtime's op call counters are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCallCounts {
    /// Calls through the V8 Fast API function.
    pub fast: u64,
    /// Calls through the `FunctionCallback`.
    pub slow: u64,
}

/// The context of one op in one runtime; V8 hands its address to both paths as the function's
/// data (`v8::External`).
pub struct OpCtx {
    pub(crate) decl: &'static OpDecl,
    /// The op's metrics observer (the call counters are one).
    pub(crate) metrics: Option<OpMetricsFn>,
    /// Told of each call's JavaScript stack (`#[op(stack_trace)]` ops, when the runtime asks).
    pub(crate) stack_trace: Option<OpStackTraceFn>,
    pub(crate) fast_calls: Cell<u64>,
    pub(crate) slow_calls: Cell<u64>,
    pub(crate) state: Rc<RefCell<OpState>>,
    /// The runtime's event loop, where async ops that are not done wait.
    pub(crate) event_loop: Rc<EventLoop>,
    /// The runtime's termination handle: a slow call returning while a termination is
    /// requested lets V8 act on it at once.
    pub(crate) termination: TerminationHandle,
    /// The last `&'static str` this op returned, by address and length, with its V8 string:
    /// an op returning the same static string again hands V8 the same (immutable) string
    /// instead of making a new one. (A `Global` dropped after its isolate does nothing.)
    pub(crate) static_str_cache: RefCell<Option<StaticStrEntry>>,
    /// An async op's memory between calls (see `EventLoop::start`).
    pub(crate) op_memory: crate::event_loop::OpMemory,
}

/// One entry of [`OpCtx::static_str_cache`].
pub(crate) struct StaticStrEntry {
    address: *const u8,
    len: usize,
    /// Keeps the string: read through `handle`.
    _string: v8::Global<v8::String>,
    /// Where `_string`'s handle is (`Global::open`), to make a `Local` of it without a scope.
    handle: NonNull<v8::String>,
}

impl StaticStrEntry {
    /// The entry of `value`, keeping `string`, made of it in `isolate`.
    pub(crate) fn new(
        isolate: &mut v8::Isolate,
        value: &'static str,
        string: v8::Global<v8::String>,
    ) -> Self {
        // SAFETY: `isolate` is the one `string` was made in, alive and used on this thread;
        // the pointer is kept only as long as `string`.
        let handle = NonNull::from(unsafe { string.open(isolate) });
        Self {
            address: value.as_ptr(),
            len: value.len(),
            _string: string,
            handle,
        }
    }

    /// Whether this is the entry of `value`: the same bytes, not equal ones.
    pub(crate) fn is_of(&self, value: &'static str) -> bool {
        std::ptr::eq(self.address, value.as_ptr()) && self.len == value.len()
    }

    /// Where the kept string's global handle is, as long as this entry lives.
    pub(crate) fn handle(&self) -> NonNull<v8::String> {
        self.handle
    }
}

impl OpCtx {
    pub(crate) fn new(
        decl: &'static OpDecl,
        metrics: Option<OpMetricsFn>,
        stack_trace: Option<OpStackTraceFn>,
        state: Rc<RefCell<OpState>>,
        event_loop: Rc<EventLoop>,
        termination: TerminationHandle,
    ) -> Self {
        Self {
            decl,
            metrics,
            stack_trace,
            fast_calls: Cell::new(0),
            slow_calls: Cell::new(0),
            state,
            event_loop,
            termination,
            static_str_cache: RefCell::new(None),
            op_memory: Default::default(),
        }
    }

    /// The op's declaration.
    pub fn decl(&self) -> &'static OpDecl {
        self.decl
    }

    pub(crate) fn counts(&self) -> OpCallCounts {
        OpCallCounts {
            fast: self.fast_calls.get(),
            slow: self.slow_calls.get(),
        }
    }

    pub(crate) fn reset_counts(&self) {
        self.fast_calls.set(0);
        self.slow_calls.set(0);
    }
}

/// # Safety
/// `data` must be the External made for an op's `OpCtx` (`template::op_template`,
/// `class::install`).
#[ops_macro::inline_hot]
pub(crate) unsafe fn op_ctx_from_data<'a>(data: v8::Local<'_, v8::Value>) -> &'a OpCtx {
    // SAFETY: the caller guarantees `data` is an External holding a live `OpCtx`.
    unsafe {
        let external = v8::Local::<v8::External>::cast_unchecked(data);
        &*(external.value() as *const OpCtx)
    }
}
