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
//! | Rust | accepts | conversion |
//! |---|---|---|
//! | `bool` | any value | ECMAScript `ToBoolean` (WebIDL `boolean`): V8's fast path passes truthiness, so the slow path does too |
//! | `i32`, `u32` | a Number | `ToInt32` / `ToUint32`: truncate toward zero, wrap modulo 2^32, NaN and ±Infinity become 0 |
//! | `i8`, `i16`, `u8`, `u16` | a Number | `ToInt32` / `ToUint32`, then wrap to the width (WebIDL `byte`, `short`, ... without `[EnforceRange]`) |
//! | `f64` | a Number | as is (NaN, ±0 and ±Infinity kept) |
//! | `f32` | a Number | rounded to the nearest `f32` |
//! | `#[bigint] i64`, `#[bigint] u64` | a BigInt | `BigInt.asIntN(64, x)` / `BigInt.asUintN(64, x)` |
//! | `#[string] &str`, `#[string] Cow<str>`, `#[string] String` | a string | its UTF-8; lone surrogates become U+FFFD (as `String.prototype.toWellFormed`) |
//! | `#[string(onebyte)] Cow<[u8]>`, [`ByteString`] | a string whose characters are all at most U+00FF | its Latin-1 bytes, no UTF-8 validation; a wider character throws a `TypeError` |
//! | `#[buffer] &[u8]`, `#[buffer] &mut [u8]` | a Uint8Array, or any ArrayBufferView (as deno_core) | its bytes (offset and length of the view), borrowed; a detached buffer throws a `TypeError` |
//! | `#[buffer(copy)] Vec<u8>`, `#[buffer(copy)] Box<[u8]>` | likewise | a copy of its bytes |
//! | `#[arraybuffer] &[u8]`, `#[arraybuffer] &mut [u8]` | an ArrayBuffer | its bytes, borrowed |
//! | `v8::Local<v8::Value>` | any value | the handle |
//! | `v8::Local<v8::Object>` (and `String`, `Function`, `Array`, ...) | a value of that kind | the handle |
//! | `*const c_void`, `*mut c_void` | an External, or `null` | its pointer; null |
//! | `#[from_v8] T` | what `T`'s [`FromV8`] accepts | `T`; an `Err` throws, prefixed with the op and argument |
//! | `Option<T>` | `undefined`, `null`, or what `T` accepts | `None`, or `Some` |
//!
//! Anything else (a string, `undefined`, `null`, a boolean, a BigInt where a Number is
//! expected, an object, ...) throws a `TypeError` naming the op, the argument's position and
//! name, the expected and the received type. On the fast path, V8 itself checks numbers,
//! BigInts and strings and leaves the optimized code for the slow path when they do not
//! match, so the slow path throws; buffers, typed locals and `Option<number>` arrive as plain
//! values, and the fast function checks them and throws the same error itself. Missing
//! arguments are `undefined`; extra arguments are ignored (V8 then takes the slow path).
//!
//! Returns: `()` is `undefined`; `bool` a boolean; every number kind a Number; `#[bigint]`
//! `i64`/`u64` a BigInt; `String`, `&'static str`, `Cow<'static, str>` a string (ASCII made
//! as a one-byte string, an ASCII `&'static str` as an external string over the static bytes);
//! [`ByteString`] a one-byte string of its bytes; `Vec<u8>`/`Box<[u8]>` a Uint8Array over the
//! Rust memory (no copy); pointers an External (null: `null`); `#[to_v8] T` what `T`'s [`ToV8`]
//! makes; `Option<T>` `null` for `None`. Returns that allocate on the V8 heap are slow-path
//! only. `Result<T, E>` throws `E` ([`JsErrorClass`], [`OpError`]) on `Err`, from either path; a
//! panic in an op is thrown as an `Error` naming the op.
//!
//! Where string arguments are read to (in place, a stack buffer, a thread-local buffer lent
//! for the call) is described in the README ("Strings without the heap").

#![warn(missing_docs)]

pub mod alloc_counter;
pub mod convert;
mod error;
mod extension;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod metrics;
mod op_error;
mod ops;
mod platform;
mod runtime;
mod state;
mod strings;
mod termination;
mod v8_traits;

#[doc(hidden)]
pub mod __op;

pub use error::{JsError, JsErrorKind};
pub use extension::Extension;
pub use metrics::{OpMetricsEvent, OpMetricsFactoryFn, OpMetricsFn, OpMetricsSource};
pub use op_error::{ErrorProperty, JsErrorClass, OpError};
pub use ops::{FastFn, OpCallCounts, OpCtx, OpDecl, OpFlags};
pub use platform::{init_v8, set_v8_flags, V8AlreadyInitialized};
pub use runtime::{EnteredIsolate, Runtime, RuntimeOptions};
pub use state::OpState;
pub use strings::{ByteString, STRING_BUFFER_RETAIN_LIMIT, STRING_STACK_BUFFER_SIZE};
pub use termination::TerminationHandle;
pub use v8_traits::{FromV8, ToV8};

/// The attribute that turns a Rust function into an op; see the crate README.
pub use ops_macro::op;
/// The `v8` crate this runtime is built on; generated code names it through this path.
pub use v8;
