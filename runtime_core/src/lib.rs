//! The opwire runtime: one V8 isolate and context per [`Runtime`], ops grouped in
//! [`Extension`]s and installed on `globalThis.ops`, typed [`OpState`], and the
//! conversion helpers that `#[op]`-generated code calls.
//!
//! ```
//! use runtime_core::{op, Extension, Runtime, RuntimeOptions};
//!
//! #[op]
//! fn op_add(a: i32, b: i32) -> i32 {
//!     a.wrapping_add(b)
//! }
//!
//! let mut runtime = Runtime::new(RuntimeOptions {
//!     extensions: vec![Extension::new("math").ops(&[op_add::DECL])],
//!     ..Default::default()
//! });
//! let sum = runtime.execute_script_to_string("<doc>", "ops.op_add(40, 2)").unwrap();
//! assert_eq!(sum, "42");
//! ```
//!
//! # Argument conversions
//!
//! Every op has a slow path (a V8 `FunctionCallback`) and, where its signature allows, a
//! fast path (a V8 Fast API `CFunction`) that optimized code calls directly. Both follow the
//! same rules, so a call gives the same result or the same exception on either path:
//!
//! (The tables are generated from the macro's kind table by `cargo xtask docs`.)
//!
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![doc = include_str!("kinds.md")]
//!
//! Anything else (a string, `undefined`, `null`, a boolean, a BigInt where a Number is
//! expected, an object, ...) throws a `TypeError` naming the op, the argument's position and
//! name, the expected and the received type. On the fast path, V8 itself checks numbers,
//! BigInts and strings and leaves the optimized code for the slow path when they do not
//! match, so the slow path throws; buffers, typed locals and `Option<number>` arrive as plain
//! values, and the fast function checks them and throws the same error itself. Missing
//! arguments are `undefined`; extra arguments are ignored (V8 then takes the slow path).
//!
//! Returns that allocate on the V8 heap are slow-path only. `Result<T, E>` throws `E`
//! ([`JsErrorClass`], [`OpError`]) on `Err`, from either path; a panic in an op is thrown as an
//! `Error` naming the op.
//!
//! Where string arguments are read to (in place, a stack buffer, a thread-local buffer lent
//! for the call) is described in the [`op`] documentation ("Strings without the heap").
//!
//! # What the crate root holds
//!
//! Every name a host or an op's author writes is at the root, flat, as in `wasmtime` and
//! `deno_core`: the runtime ([`Runtime`], [`RuntimeOptions`], [`SnapshotBuilder`]), what it
//! is built from ([`Extension`], [`OpDecl`], [`ClassDecl`], the loaders), its budgets
//! ([`TerminationHandle`], [`Deadline`], [`HeapLimits`]), its errors ([`JsError`],
//! [`OpError`], [`JsErrorClass`], with their [`JsStackFrame`]s), the traits a user implements ([`ModuleLoader`], [`FromV8`],
//! [`ToV8`], [`Trace`]) and the types ops take and return ([`JsBuffer`], [`ByteString`],
//! [`Held`], ...). A family with more than those names keeps them in its module too
//! ([`modules`], [`class`], [`structured`], [`webidl`], `serde`, [`console`], [`inspector`],
//! [`inspect`]), where its documentation groups them. What only generated code calls is under `__op` (hidden: not an
//! API); the test tools are not part of the crate (the counting allocator is the
//! `alloc_counter` crate; the fuzz targets' conversions are behind the `fuzzing` feature).

#![warn(missing_docs)]

pub mod class;
mod convert;
mod errors;
mod event_loop;
mod extension;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod globals;
pub mod inspect;
pub mod inspector;
mod isolate;
pub mod modules;
mod ops;
mod runtime;
#[cfg(feature = "serde")]
pub mod serde;
#[cfg(feature = "tokio")]
pub mod serve;
pub mod structured;
mod typescript;
mod v8_raw;
mod values;
pub mod webidl;

#[doc(hidden)]
pub mod __op;

// `#[op]` names everything `::runtime_core::...`: so does it inside this crate (the globals).
extern crate self as runtime_core;

pub use class::{ClassDecl, Held, Trace, Wrapped};
pub use errors::frames::{JsLocation, JsStackFrame};
pub use errors::js_error::{JsError, JsErrorKind};
pub use errors::op_error::{ErrorProperty, JsErrorClass, OpError};
pub use event_loop::calls::CallInFlight;
pub use event_loop::work_owner::AbandonedCalls;
pub use event_loop::LoopSource;
pub use extension::{Extension, ExtensionSource, GlobalScript, KeepFn};
pub use globals::console;
pub use isolate::external_memory::{ExternalMemory, HeldMemory};
pub use isolate::heap_limit::HeapLimits;
pub use isolate::platform::{init_v8, set_v8_flags, V8AlreadyInitialized};
pub use isolate::termination::{Deadline, TerminationHandle};
pub use modules::{
    FsModuleLoader, LoadRequest, ModuleCode, ModuleId, ModuleLoadError, ModuleLoadFuture,
    ModuleLoader, ModuleSource, ModuleType, NoModuleLoader, ResolutionKind, StaticModuleLoader,
};
pub use ops::metrics::{OpMetricsEvent, OpMetricsFactoryFn, OpMetricsFn, OpMetricsSource};
pub use ops::stack_trace::OpStackTraceFn;
pub use ops::state::OpState;
pub use ops::{OpCallCounts, OpCtx, OpDecl};
/// Derives [`FromV8`](trait@FromV8) for a struct (an object, or an array for a tuple struct) or an
/// enum of unit variants (a string); fields convert through their own `FromV8`.
pub use ops_macro::FromV8;
/// Derives [`ToV8`](trait@ToV8), the other way.
pub use ops_macro::ToV8;
/// Derives [`webidl::WebIdlConverter`] for a dictionary (`#[webidl(dictionary)]` struct) or an
/// enum (`#[webidl(enum)]`).
pub use ops_macro::WebIDL;
pub use runtime::js_call::{Callee, JsArgs, Method};
pub use runtime::snapshot::SnapshotBuilder;
pub use runtime::{EnteredIsolate, Runtime, RuntimeOptions};
pub use typescript::typescript_declarations;
pub use values::element::Element;
pub use values::js_buffer::{DetachedBuffer, JsBuffer, V8Slice};
pub use values::string_buffers::ByteString;
pub use values::ts_type::{TsType, TsTypes};
pub use values::v8_traits::{FromV8, ToV8};

#[doc = include_str!("op.md")]
#[doc = include_str!("kinds.md")]
pub use ops_macro::op;
/// deno's `#[op2]`, written by habit: a compile error that says to write `#[op]`.
#[doc(hidden)]
pub use ops_macro::op2;
/// The `v8` crate this runtime is built on; generated code names it through this path.
pub use v8;
