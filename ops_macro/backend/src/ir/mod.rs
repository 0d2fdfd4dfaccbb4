//! The op as data. Each argument has an [`ArgKind`] and the return value a [`RetKind`]; the
//! kind table ([`arg_kind`], [`ret_kind`]) says what each kind is and may do, and its
//! conversion strategy on the slow and the fast path ([`strategy`]). The IR names nothing of
//! parsing: `crate::internals` builds it (`lower.rs`, classifying syn types in `classify/`).
//!
//! Two wrappers apply to many kinds and are flags rather than kinds: `Option<T>` arguments and
//! returns ([`Arg::optional`], [`Ret::optional`]: `undefined`/`null` and `None`), and
//! `Result<T, E>` returns ([`Ret::fallible`]: `Err` throws).

mod arg_kind;
mod class;
pub mod container;
mod contract;
mod ret_kind;
mod strategy;
mod values;
pub mod webidl_definition;

pub use arg_kind::*;
pub use class::*;
pub use contract::{FastHelper, Marker, SlowHelper};
pub use ret_kind::*;
pub use strategy::*;
pub use values::*;

use proc_macro2::Span;
use syn::Type;

/// A checked op, ready for code generation.
pub struct Op {
    /// The function's name (and JavaScript name).
    pub ident: syn::Ident,
    /// The function's visibility.
    pub vis: syn::Visibility,
    /// The arguments, in order.
    pub args: Vec<Arg>,
    /// The return value.
    pub ret: Ret,
    /// Whether a fast path is wanted.
    pub fast_mode: FastMode,
    /// `#[op(fast(op_other))]`: the op whose fast path this one registers.
    pub fast_alternative: Option<syn::ExprPath>,
    /// `#[op(no_side_effects)]`.
    pub no_side_effects: bool,
    /// `#[op(stack_trace)]`.
    pub stack_trace: bool,
    /// The function's generic parameters and where clause.
    pub generics: syn::Generics,
    /// For an async op: how it runs. Its `ret` is then the future's output.
    pub async_op: Option<AsyncOp>,
    /// `required(n)`: how many arguments a call must pass.
    pub required: Option<u32>,
    /// `validate(f)`: the function that checks a call's arguments first (slow path only: a
    /// fast call has no arguments object to hand it).
    pub validate: Option<syn::ExprPath>,
    /// The function's doc comment, line by line (its TypeScript declaration's JSDoc).
    pub docs: Vec<String>,
    /// The name errors and the declaration use, when not the function's (a class member's
    /// op is `__Foo_x`, known to JavaScript as `Foo.prototype.x`).
    pub js_name: Option<String>,
    /// The function as emitted: the user's, without this macro's attributes.
    pub item: syn::ItemFn,
}

/// How the raw call of an async op tells its JavaScript wrapper the outcome (as
/// `runtime_core::__op::AsyncCall`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncCall {
    /// The value, or a marker (pending: the wrapper claims the promise).
    Value,
    /// `0` (done with `undefined`) or `1` (pending: the wrapper claims the promise).
    Status,
}

/// Whether the op gets a fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastMode {
    /// Inferred from the signature (`#[op]`).
    Auto,
    /// Demanded (`#[op(fast)]`): an error if the signature cannot be fast.
    Required,
    /// Refused (`#[op(nofast)]`).
    Disabled,
}

/// When an async op's future is first polled and its promise settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncMode {
    /// During the call; a ready outcome settles the promise at once.
    Eager,
    /// First by the event loop.
    Lazy,
    /// During the call, settled on the next turn of the loop.
    Deferred,
}

impl AsyncMode {
    /// The runtime's `AsyncMode` variant.
    pub fn variant(self) -> &'static str {
        match self {
            AsyncMode::Eager => "Eager",
            AsyncMode::Lazy => "Lazy",
            AsyncMode::Deferred => "Deferred",
        }
    }
}

/// How an async op runs.
#[derive(Clone, Copy, Debug)]
pub struct AsyncOp {
    /// When its future is first polled and its promise settled.
    pub mode: AsyncMode,
    /// `async fn` (its arguments live in the future) or `fn -> impl Future`.
    pub is_async_fn: bool,
    /// `fn -> Result<impl Future, E>`: `Err` throws during the call.
    pub fallible_start: bool,
    /// `async` or the return type, for error spans.
    pub span: Span,
}

/// One argument.
pub struct Arg {
    /// The argument's name.
    pub ident: syn::Ident,
    /// Its name in errors: empty for a `_` argument (errors then say its position alone).
    pub js_name: String,
    /// What it is.
    pub kind: ArgKind,
    /// `Option<T>`: `undefined` and `null` are `None`.
    pub optional: bool,
    /// The JavaScript argument it is read from (`None` for the scope, the isolate, the state).
    pub js_index: Option<usize>,
    /// The type as written, inside any `Option` (named by `#[from_v8]` conversions).
    pub ty: Type,
    /// The argument as written, for error spans.
    pub span: Span,
    /// `#[webidl(default = .., options(..))]` (empty for other kinds).
    pub webidl: WebIdlArgs,
}

/// What `#[webidl(..)]` on an argument says (deno's spelling): `default = expr`, the value
/// when JavaScript passes `undefined` (a Rust expression `T: From` it: `5`, `""`), and
/// `options(name = value, ..)`, fields of the type's conversion options (`clamp = true`).
#[derive(Clone, Default)]
pub struct WebIdlArgs {
    /// `default = expr`.
    pub default: Option<syn::Expr>,
    /// `options(name = value, ..)`.
    pub options: Vec<(syn::Ident, syn::Expr)>,
}

impl std::fmt::Debug for WebIdlArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use quote::ToTokens;
        let default = self
            .default
            .as_ref()
            .map(|e| e.to_token_stream().to_string());
        let options: Vec<String> = self
            .options
            .iter()
            .map(|(name, value)| format!("{name} = {}", value.to_token_stream()))
            .collect();
        f.debug_struct("WebIdlArgs")
            .field("default", &default)
            .field("options", &options)
            .finish()
    }
}

/// The return value.
pub struct Ret {
    /// What it is (inside any `Result` and `Option`).
    pub kind: RetKind,
    /// `Option<T>`: `None` is `null`.
    pub optional: bool,
    /// `Result<T, E>`: `Err` throws, as `E: JsErrorClass` (or `OpError`) says.
    pub fallible: bool,
    /// It may borrow from the arguments (a non-`'static` `&str` or `Cow`): string arguments
    /// are then read into buffers, never borrowed from V8 in place, and the return value is
    /// made before the buffers go.
    pub borrows: bool,
    /// The typed array's element of a `Vec<T>`/`Box<[T]>` return, for its TypeScript type.
    pub element: Option<ElementType>,
    /// The handle type of a `v8::Local<T>`/`v8::Global<T>` return, likewise.
    pub handle: Option<LocalType>,
    /// The value's type as written (inside any `Result` and `Option`; `None` for `()`), for
    /// the TypeScript name of a class instance.
    pub ty: Option<syn::Type>,
    /// The return type as written (or the function name for `()`), for error spans.
    pub span: Span,
}

impl Arg {
    /// The fast-path strategy of this argument, `Option` included: `Option` of a number is
    /// read from the value itself (no Fast API type takes `undefined`); other `Option`s take
    /// the slow path.
    pub fn fast(&self) -> FastArg {
        match (self.optional, self.kind.optional_is_fast(), self.kind) {
            (false, _, _) => self.kind.fast(),
            (true, true, ArgKind::Local { ty, .. }) => FastArg::Param {
                ctype: CType::V8Value,
                convert: FastConvert::OptionalLocal(ty),
            },
            (true, true, ArgKind::Cppgc) => FastArg::Param {
                ctype: CType::V8Value,
                convert: FastConvert::OptionalCppgc,
            },
            (true, true, _) => FastArg::Param {
                ctype: CType::V8Value,
                convert: FastConvert::OptionalNumber,
            },
            (true, false, _) => FastArg::Unsupported("this `Option` argument takes the slow path"),
        }
    }

    /// Whether its fast path runs a user type's conversion (`FromV8`, serde): the value it
    /// makes may have a `Drop` of its own, to run under the panic guard.
    pub fn fast_converts_user_value(&self) -> bool {
        matches!(
            self.fast(),
            FastArg::Param {
                convert: FastConvert::FromOneByte { .. },
                ..
            }
        )
    }

    /// Whether its fast path exists only if its type says so (`FromV8::READS_ONE_BYTE`): a
    /// `FromV8` type's; a `#[serde]` one always reads strings.
    pub fn fast_depends_on_type(&self) -> bool {
        matches!(
            self.fast(),
            FastArg::Param {
                convert: FastConvert::FromOneByte { serde: false },
                ..
            }
        )
    }
}

/// Whether a type mentions a lifetime (`Foo<'a>`, `&T`).
fn type_has_lifetime(ty: &Type) -> bool {
    use quote::ToTokens;
    fn any_lifetime(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Punct(punct) => {
                punct.as_char() == '\'' || punct.as_char() == '&'
            }
            proc_macro2::TokenTree::Group(group) => any_lifetime(group.stream()),
            _ => false,
        })
    }
    any_lifetime(ty.to_token_stream())
}

impl Ret {
    /// The fast-path strategy of the return value, `Option` included.
    pub fn fast(&self) -> FastRet {
        if self.optional {
            FastRet::Unsupported(
                "an `Option` return may be `null`, which no Fast API return type is",
            )
        } else {
            self.kind.fast()
        }
    }
}

impl Op {
    /// The JavaScript-visible arguments with their positions.
    pub fn js_args(&self) -> impl Iterator<Item = (usize, &Arg)> {
        self.args
            .iter()
            .filter_map(|arg| arg.js_index.map(|index| (index, arg)))
    }

    /// The first reason this op cannot have a fast path, with the span to blame; `None` if it
    /// can.
    pub fn fast_blocker(&self) -> Option<(Span, &'static str)> {
        // An async op's fast call returns a status (see `AsyncCall`): an eager op's value
        // would have to be returned from the call.
        if let Some(check) = &self.validate {
            return Some((
                syn::spanned::Spanned::span(check),
                "`validate(f)` checks the call's arguments object, which a fast call does not \
                 have: a validated op takes the slow path, so that the check always runs",
            ));
        }
        if let Some(async_op) = &self.async_op {
            let returns_nothing = self.ret.kind == RetKind::Unit && !self.ret.optional;
            if async_op.mode == AsyncMode::Eager && !returns_nothing {
                return Some((
                    self.ret.span,
                    "an eager async op that returns a value takes the slow path (a fast call \
                     cannot return it); return nothing, or make it `#[op(async(lazy))]` or \
                     `#[op(async(deferred))]` (its value then comes through the event loop)",
                ));
            }
        }
        let arg_blocker = self.args.iter().find_map(|arg| match arg.fast() {
            FastArg::Unsupported(reason) => Some((arg.span, reason)),
            _ if self.async_op.is_some() && arg.fast_depends_on_type() => Some((
                arg.span,
                "whether this argument has a fast path depends on its type \
                 (`FromV8::READS_ONE_BYTE`), and an async op's calls speak one protocol on both \
                 paths, fixed when the op is expanded",
            )),
            _ if arg.fast_depends_on_type() && type_has_lifetime(&arg.ty) => Some((
                arg.span,
                "whether this argument has a fast path depends on its type \
                 (`FromV8::READS_ONE_BYTE`), which the op's declaration cannot name with a \
                 lifetime in it",
            )),
            _ => None,
        });
        // V8 hands a fast call its strings as pointers into its heap; anything that allocates
        // there during the call (moving a small array's bytes off the heap for `&mut [u8]`,
        // or the op doing it through a handle) could move those strings.
        let passes_string = |arg: &&Arg| matches!(arg.fast(), FastArg::Param { ctype, .. } if ctype.borrows_v8_heap());
        let takes_strings = self.args.iter().any(|arg| passes_string(&arg));
        let allocating = self
            .args
            .iter()
            .find(|arg| !passes_string(arg) && arg.kind.may_allocate_during_call());
        let arg_blocker = arg_blocker.or(match allocating {
            Some(arg) if takes_strings => Some((
                arg.span,
                "this argument may allocate on the V8 heap during the call (a small `&mut [u8]` \
                 array is moved off it; a handle lets the op reach a buffer's backing store), \
                 which would move the op's string arguments under a fast call",
            )),
            _ => None,
        });
        arg_blocker.or(match self.fast_ret() {
            FastRet::Unsupported(reason) => Some((self.ret.span, reason)),
            FastRet::Value { .. } | FastRet::Void | FastRet::Status => None,
        })
    }

    /// The arguments whose types decide whether the fast path is registered (see
    /// [`Arg::fast_depends_on_type`]).
    pub fn fast_path_conditions(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(|arg| arg.fast_depends_on_type())
    }

    /// Whether the fast function takes V8's callback options: only when something in it may
    /// throw (beyond a panic: see `runtime_core::__op::fast_call_guarded_current`) or reads the
    /// op's context. V8 fills them in per call, so ops without them are cheaper to call.
    pub fn fast_takes_options(&self) -> bool {
        let ret_reads = match self.fast_ret() {
            FastRet::Value { throws, .. } => throws,
            FastRet::Void => false,
            FastRet::Status | FastRet::Unsupported(_) => true,
        };
        ret_reads
            || self.ret.fallible
            || self.async_op.is_some()
            || self.args.iter().any(|arg| arg.fast().reads_options())
    }

    /// What the fast function returns: the value's strategy, or an async op's status.
    pub fn fast_ret(&self) -> FastRet {
        match self.async_op {
            Some(_) => FastRet::Status,
            None => self.ret.fast(),
        }
    }

    /// For an async op, the protocol its raw call speaks: a status on both paths when it has
    /// a fast path of its own.
    pub fn async_call(&self) -> Option<AsyncCall> {
        self.async_op.map(|_| {
            if self.has_fast_path() && self.fast_alternative.is_none() {
                AsyncCall::Status
            } else {
                AsyncCall::Value
            }
        })
    }

    /// Whether code generation emits a fast path.
    pub fn has_fast_path(&self) -> bool {
        self.fast_mode != FastMode::Disabled && self.fast_blocker().is_none()
    }

    /// Whether JavaScript can run during a call of this op (it takes the scope or the
    /// isolate, or a `FromV8` conversion may run getters), so that nothing may be borrowed
    /// from V8's heap across the call.
    pub fn can_run_js(&self) -> bool {
        self.args.iter().any(|arg| arg.kind.traits().can_run_js)
    }

    /// Whether string arguments may be borrowed from V8's heap in place on the slow path. That
    /// is sound only while nothing can move the string: no JavaScript may run during the call
    /// (see [`Op::can_run_js`]), and no other argument may allocate on the V8 heap while it is
    /// read (reading a string may flatten it, a `&mut [u8]` may move its bytes off the heap),
    /// so the string is the op's only such argument. Nor may the return value borrow it: making
    /// that on the V8 heap would move the string under the borrow. And no argument read after
    /// it may throw: the view that lends the string holds off V8's heap allocation (V8 aborts
    /// on one), and an error is made on the heap.
    pub fn borrows_strings_in_place(&self) -> bool {
        let allocating = self
            .args
            .iter()
            .filter(|arg| arg.kind.may_allocate_during_call())
            .count();
        let throws_after = self
            .args
            .iter()
            .skip_while(|arg| !arg.kind.may_allocate_during_call())
            .skip(1)
            .any(|arg| arg.kind.slow().may_throw());
        !self.can_run_js() && allocating == 1 && !self.ret.borrows && !throws_after
    }

    /// What of V8 the slow path holds: the most any argument or the return value needs.
    pub fn slow_access(&self) -> V8Access {
        let args = self.args.iter().map(|arg| arg.kind.slow_access());
        let needed = args.chain([self.ret.kind.slow_access()]).max();
        // A fallible op that can run JavaScript is called under a `TryCatch` (its `Err` must not
        // replace an exception JavaScript threw), which needs a scope.
        if self.ret.fallible && self.can_run_js() || self.validate.is_some() {
            return V8Access::Scope;
        }
        // An async op that returns its value (or the wrappers' marker) makes it; a status is a
        // number.
        if self.async_call() == Some(AsyncCall::Value) {
            return V8Access::Scope;
        }
        needed.unwrap_or(V8Access::Nothing)
    }

    /// Whether the op may request termination during the call (see
    /// [`ArgKind::can_request_termination`]).
    pub fn can_request_termination(&self) -> bool {
        self.args
            .iter()
            .any(|arg| arg.kind.can_request_termination())
    }

    /// Whether the fast function's 64-bit integers are BigInts (V8 has one setting per
    /// function, for arguments and return alike).
    pub fn uses_bigint(&self) -> bool {
        let arg_64 = self
            .args
            .iter()
            .any(|arg| matches!(arg.fast(), FastArg::Param { ctype, .. } if ctype.is_64_bit()));
        arg_64 || matches!(self.fast_ret(), FastRet::Value { ctype, .. } if ctype.is_64_bit())
    }
}
