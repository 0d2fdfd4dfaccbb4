//! How to build a [`Runtime`](crate::Runtime): its options.

use std::rc::Rc;

use crate::ops::metrics::OpMetricsFactoryFn;
use crate::{Extension, OpStackTraceFn};

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
    /// growth that does not fit, once garbage is collected, is a `RangeError` before any of
    /// it is taken; and past the
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
    /// [`Runtime::typescript_declarations`](crate::Runtime::typescript_declarations) then
    /// leaves the ops out (user code cannot reach them); the glue's own declarations come from
    /// [`Extension::typescript_declarations`](crate::Extension::typescript_declarations).
    pub expose_ops: bool,
    /// Makes the inspector ([`Runtime::inspector`](crate::Runtime::inspector)) with the runtime,
    /// before any script of the embedder's runs: a debugger sees every script and module. One
    /// made later sees only what is compiled after it (V8 files each script under the
    /// inspector's context when it compiles). `false` by default: a runtime made without it
    /// and never inspected pays nothing.
    pub inspector: bool,
    /// The tokio runtime async ops and timers use, entered around every call into the
    /// runtime's JavaScript (so an op that uses tokio works however the host calls in: from
    /// inside `block_on`, or from plain code). `None`: the runtime the `Runtime` is made in,
    /// if any.
    #[cfg(feature = "tokio")]
    pub tokio_handle: Option<tokio::runtime::Handle>,
    /// Timers fire within microseconds of their deadline: a `timerfd` registered with the
    /// tokio runtime's reactor wakes the loop, where tokio's own timers round a deadline up to
    /// the next millisecond tick and wait in whole milliseconds (up to two milliseconds after
    /// the deadline). Needs the reactor (`enable_io` or `enable_all` on the tokio
    /// runtime's builder: without it tokio panics at the first timer); costs a system call
    /// whenever the earliest deadline changes and one when it fires, and holds one file
    /// descriptor per runtime from its first timer on (where none can be had, tokio's timer
    /// wakes it instead). Linux only (elsewhere, and outside tokio, it changes nothing).
    /// `false` by default.
    #[cfg(feature = "tokio")]
    pub precise_timers: bool,
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
            inspector: false,
            #[cfg(feature = "tokio")]
            tokio_handle: None,
            #[cfg(feature = "tokio")]
            precise_timers: false,
        }
    }
}
