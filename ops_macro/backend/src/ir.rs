//! The op as data. [`ArgKind`] and [`RetKind`] list every argument and return type an op can
//! have; each kind knows its conversion strategy on the slow path ([`SlowArg`], [`SlowRet`])
//! and on the fast path ([`FastArg`], [`FastRet`]). Adding a type means adding a variant here,
//! its strategies below, and (if it needs new code shapes) its emitter in [`crate::codegen`].

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use crate::internals::ast::{OpFn, Param};
use crate::internals::attr::{FastMode, Markers, OpAttrs};
use crate::internals::Ctxt;

/// A checked op, ready for code generation.
pub struct Op {
    /// The function's name (and JavaScript name).
    pub ident: syn::Ident,
    /// The function's visibility.
    pub vis: syn::Visibility,
    /// The arguments, in order.
    pub args: Vec<Arg>,
    /// The return kind.
    pub ret: Ret,
    /// Whether a fast path is wanted.
    pub fast_mode: FastMode,
    /// `#[op(no_side_effects)]`.
    pub no_side_effects: bool,
}

/// One argument.
pub struct Arg {
    /// The argument's name.
    pub ident: syn::Ident,
    /// What it is.
    pub kind: ArgKind,
    /// The argument as written, for error spans.
    pub span: Span,
}

/// The return value.
pub struct Ret {
    /// What it is.
    pub kind: RetKind,
    /// The return type as written (or the function name for `()`), for error spans.
    pub span: Span,
}

/// Every argument type an op can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `#[bigint] i64`.
    BigIntI64,
    /// `#[bigint] u64`.
    BigIntU64,
    /// `&OpState`.
    OpStateRef,
    /// `&mut OpState`.
    OpStateMut,
    /// `Rc<RefCell<OpState>>`.
    OpStateRc,
    /// `&mut v8::PinScope`: the handle scope of the call, for ops that call back into V8.
    Scope,
}

/// Every return type an op can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetKind {
    /// `()`: `undefined`.
    Unit,
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `#[bigint] i64`.
    BigIntI64,
    /// `#[bigint] u64`.
    BigIntU64,
}

/// A V8 Fast API C type (`v8::fast_api::Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    /// `void`.
    Void,
    /// `bool`.
    Bool,
    /// `int32_t`.
    Int32,
    /// `uint32_t`.
    Uint32,
    /// `int64_t`.
    Int64,
    /// `uint64_t`.
    Uint64,
    /// `float`.
    Float32,
    /// `double`.
    Float64,
}

impl CType {
    /// The `v8::fast_api::Type` variant name.
    pub fn variant(self) -> &'static str {
        match self {
            CType::Void => "Void",
            CType::Bool => "Bool",
            CType::Int32 => "Int32",
            CType::Uint32 => "Uint32",
            CType::Int64 => "Int64",
            CType::Uint64 => "Uint64",
            CType::Float32 => "Float32",
            CType::Float64 => "Float64",
        }
    }

    /// The Rust type V8 passes for it; `None` for `void`.
    pub fn rust_type(self) -> Option<&'static str> {
        match self {
            CType::Void => None,
            CType::Bool => Some("bool"),
            CType::Int32 => Some("i32"),
            CType::Uint32 => Some("u32"),
            CType::Int64 => Some("i64"),
            CType::Uint64 => Some("u64"),
            CType::Float32 => Some("f32"),
            CType::Float64 => Some("f64"),
        }
    }

    /// Whether this type makes the function's 64-bit integers BigInts.
    pub fn is_64_bit(self) -> bool {
        matches!(self, CType::Int64 | CType::Uint64)
    }
}

/// How an argument reaches the function on the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowArg {
    /// From the next JavaScript argument, through `SlowCall::<helper>(index)`.
    Convert {
        /// The `runtime_core::__op::SlowCall` method that converts (and throws on bad input).
        helper: &'static str,
    },
    /// The call's scope.
    Scope,
    /// A shared borrow of the op state.
    StateRef,
    /// An exclusive borrow of the op state.
    StateMut,
    /// The op state handle.
    StateRc,
}

/// How an argument reaches the function on the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastArg {
    /// A parameter of the fast function, of `ctype`; narrowed to `narrow_to` (with a
    /// wrapping `as`) when the Rust type is smaller than any Fast API type.
    Param {
        /// The Fast API type V8 passes.
        ctype: CType,
        /// The Rust type the function takes, when it differs from `ctype`'s.
        narrow_to: Option<&'static str>,
    },
    /// A shared borrow of the op state, reached through the callback options.
    StateRef,
    /// An exclusive borrow of the op state.
    StateMut,
    /// The op state handle.
    StateRc,
    /// Cannot be passed to a fast call, for this reason.
    Unsupported(&'static str),
}

/// How the return value reaches JavaScript on the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowRet {
    /// Nothing: `undefined`.
    Undefined,
    /// Through `SlowCall::<helper>(value)`, widened first to `widen_to` when set.
    Set {
        /// The `runtime_core::__op::SlowCall` method that sets the return value.
        helper: &'static str,
        /// The Rust type the helper takes, when it differs from the function's.
        widen_to: Option<&'static str>,
    },
}

/// How the return value leaves the fast function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastRet {
    /// As `ctype`, widened first to `widen_to` when set.
    Value {
        /// The Fast API return type.
        ctype: CType,
        /// The Rust type V8 takes, when it differs from the function's.
        widen_to: Option<&'static str>,
    },
    /// Cannot be returned from a fast call, for this reason.
    Unsupported(&'static str),
}

const SUPPORTED_ARGS: &str = "bool, i8, i16, i32, u8, u16, u32, f32, f64, #[bigint] i64, \
     #[bigint] u64, &OpState, &mut OpState, Rc<RefCell<OpState>>, &mut v8::PinScope";
const SUPPORTED_RETS: &str =
    "(), bool, i8, i16, i32, u8, u16, u32, f32, f64, #[bigint] i64, #[bigint] u64";

impl ArgKind {
    /// Classifies an argument type, or explains why it cannot be one.
    pub fn classify(ty: &Type, markers: &Markers) -> Result<ArgKind, syn::Error> {
        let kind = match primitive_name(ty).as_deref() {
            Some("bool") => Some(ArgKind::Bool),
            Some("i8") => Some(ArgKind::I8),
            Some("i16") => Some(ArgKind::I16),
            Some("i32") => Some(ArgKind::I32),
            Some("u8") => Some(ArgKind::U8),
            Some("u16") => Some(ArgKind::U16),
            Some("u32") => Some(ArgKind::U32),
            Some("f32") => Some(ArgKind::F32),
            Some("f64") => Some(ArgKind::F64),
            Some(int64 @ ("i64" | "u64")) => match markers.bigint {
                Some(_) if int64 == "i64" => Some(ArgKind::BigIntI64),
                Some(_) => Some(ArgKind::BigIntU64),
                None => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!(
                            "`{int64}` needs `#[bigint]`: a Number holds integers only up to 2^53, so 64-bit integers are passed as BigInt"
                        ),
                    ))
                }
            },
            Some("isize" | "usize" | "i128" | "u128") => {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!("unsupported argument type `{}`; use a fixed-width type: {SUPPORTED_ARGS}", type_text(ty)),
                ))
            }
            _ => None,
        };
        let kind = kind.or_else(|| classify_special_arg(ty)).ok_or_else(|| {
            syn::Error::new_spanned(
                ty,
                format!(
                    "unsupported argument type `{}`; supported: {SUPPORTED_ARGS}",
                    type_text(ty)
                ),
            )
        })?;
        if let Some(attr) = &markers.bigint {
            if !matches!(kind, ArgKind::BigIntI64 | ArgKind::BigIntU64) {
                return Err(syn::Error::new_spanned(
                    attr,
                    "`#[bigint]` applies to `i64` and `u64` only",
                ));
            }
        }
        Ok(kind)
    }

    /// The slow-path strategy.
    pub fn slow(self) -> SlowArg {
        let helper = match self {
            ArgKind::Bool => "arg_bool",
            ArgKind::I8 => "arg_i8",
            ArgKind::I16 => "arg_i16",
            ArgKind::I32 => "arg_i32",
            ArgKind::U8 => "arg_u8",
            ArgKind::U16 => "arg_u16",
            ArgKind::U32 => "arg_u32",
            ArgKind::F32 => "arg_f32",
            ArgKind::F64 => "arg_f64",
            ArgKind::BigIntI64 => "arg_bigint_i64",
            ArgKind::BigIntU64 => "arg_bigint_u64",
            ArgKind::OpStateRef => return SlowArg::StateRef,
            ArgKind::OpStateMut => return SlowArg::StateMut,
            ArgKind::OpStateRc => return SlowArg::StateRc,
            ArgKind::Scope => return SlowArg::Scope,
        };
        SlowArg::Convert { helper }
    }

    /// The fast-path strategy.
    pub fn fast(self) -> FastArg {
        let param = |ctype, narrow_to| FastArg::Param { ctype, narrow_to };
        match self {
            ArgKind::Bool => param(CType::Bool, None),
            ArgKind::I8 => param(CType::Int32, Some("i8")),
            ArgKind::I16 => param(CType::Int32, Some("i16")),
            ArgKind::I32 => param(CType::Int32, None),
            ArgKind::U8 => param(CType::Uint32, Some("u8")),
            ArgKind::U16 => param(CType::Uint32, Some("u16")),
            ArgKind::U32 => param(CType::Uint32, None),
            ArgKind::F32 => param(CType::Float32, None),
            ArgKind::F64 => param(CType::Float64, None),
            ArgKind::BigIntI64 => param(CType::Int64, None),
            ArgKind::BigIntU64 => param(CType::Uint64, None),
            ArgKind::OpStateRef => FastArg::StateRef,
            ArgKind::OpStateMut => FastArg::StateMut,
            ArgKind::OpStateRc => FastArg::StateRc,
            ArgKind::Scope => FastArg::Unsupported(
                "a handle scope lets the op allocate on the V8 heap and run JavaScript, which a fast call must not do",
            ),
        }
    }

    /// Whether the argument comes from a JavaScript argument (and so has a position).
    pub fn is_js_visible(self) -> bool {
        matches!(self.slow(), SlowArg::Convert { .. })
    }
}

/// Recognises the argument kinds that are not plain primitives.
fn classify_special_arg(ty: &Type) -> Option<ArgKind> {
    match ty {
        Type::Reference(reference) => {
            let target = last_segment(&reference.elem)?;
            match (
                target.ident.to_string().as_str(),
                reference.mutability.is_some(),
            ) {
                ("OpState", false) => Some(ArgKind::OpStateRef),
                ("OpState", true) => Some(ArgKind::OpStateMut),
                ("PinScope", true) => Some(ArgKind::Scope),
                _ => None,
            }
        }
        Type::Path(_) => {
            let rc = last_segment(ty)?;
            let cell = single_type_argument(rc).filter(|_| rc.ident == "Rc")?;
            let cell_segment = last_segment(cell).filter(|segment| segment.ident == "RefCell")?;
            let state = single_type_argument(cell_segment)?;
            (last_segment(state)?.ident == "OpState").then_some(ArgKind::OpStateRc)
        }
        _ => None,
    }
}

impl RetKind {
    /// Classifies a return type (`None` is `()`), or explains why it cannot be one.
    pub fn classify(ty: Option<&Type>, markers: &Markers) -> Result<RetKind, syn::Error> {
        let Some(ty) = ty else {
            return match &markers.bigint {
                Some(attr) => Err(syn::Error::new_spanned(
                    attr,
                    "`#[bigint]` on an op returning `()`",
                )),
                None => Ok(RetKind::Unit),
            };
        };
        if matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty()) {
            return Ok(RetKind::Unit);
        }
        let unsupported = || {
            syn::Error::new_spanned(
                ty,
                format!(
                    "unsupported return type `{}`; supported: {SUPPORTED_RETS}",
                    type_text(ty)
                ),
            )
        };
        let kind = match primitive_name(ty).as_deref() {
            Some("bool") => RetKind::Bool,
            Some("i8") => RetKind::I8,
            Some("i16") => RetKind::I16,
            Some("i32") => RetKind::I32,
            Some("u8") => RetKind::U8,
            Some("u16") => RetKind::U16,
            Some("u32") => RetKind::U32,
            Some("f32") => RetKind::F32,
            Some("f64") => RetKind::F64,
            Some(int64 @ ("i64" | "u64")) => match markers.bigint {
                Some(_) if int64 == "i64" => return Ok(RetKind::BigIntI64),
                Some(_) => return Ok(RetKind::BigIntU64),
                None => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!("returning `{int64}` needs `#[bigint]` on the function: 64-bit integers are returned as BigInt"),
                    ))
                }
            },
            _ => return Err(unsupported()),
        };
        if let Some(attr) = &markers.bigint {
            return Err(syn::Error::new_spanned(
                attr,
                "`#[bigint]` applies to `i64` and `u64` returns only",
            ));
        }
        Ok(kind)
    }

    /// The slow-path strategy.
    pub fn slow(self) -> SlowRet {
        let set = |helper, widen_to| SlowRet::Set { helper, widen_to };
        match self {
            RetKind::Unit => SlowRet::Undefined,
            RetKind::Bool => set("ret_bool", None),
            RetKind::I8 | RetKind::I16 => set("ret_i32", Some("i32")),
            RetKind::I32 => set("ret_i32", None),
            RetKind::U8 | RetKind::U16 => set("ret_u32", Some("u32")),
            RetKind::U32 => set("ret_u32", None),
            RetKind::F32 => set("ret_f64", Some("f64")),
            RetKind::F64 => set("ret_f64", None),
            RetKind::BigIntI64 => set("ret_bigint_i64", None),
            RetKind::BigIntU64 => set("ret_bigint_u64", None),
        }
    }

    /// The fast-path strategy.
    pub fn fast(self) -> FastRet {
        let value = |ctype, widen_to| FastRet::Value { ctype, widen_to };
        match self {
            RetKind::Unit => value(CType::Void, None),
            RetKind::Bool => value(CType::Bool, None),
            RetKind::I8 | RetKind::I16 => value(CType::Int32, Some("i32")),
            RetKind::I32 => value(CType::Int32, None),
            RetKind::U8 | RetKind::U16 => value(CType::Uint32, Some("u32")),
            RetKind::U32 => value(CType::Uint32, None),
            RetKind::F32 => value(CType::Float32, None),
            RetKind::F64 => value(CType::Float64, None),
            RetKind::BigIntI64 => value(CType::Int64, None),
            RetKind::BigIntU64 => value(CType::Uint64, None),
        }
    }
}

impl Op {
    /// Builds the IR, recording every unsupported type in `cx`.
    pub fn from_ast(cx: &Ctxt, attrs: OpAttrs, op_fn: Option<OpFn>) -> Option<Op> {
        let op_fn = op_fn?;
        let args: Vec<Arg> = op_fn
            .params
            .iter()
            .filter_map(
                |param: &Param| match ArgKind::classify(&param.ty, &param.markers) {
                    Ok(kind) => Some(Arg {
                        ident: param.ident.clone(),
                        kind,
                        span: param.span,
                    }),
                    Err(err) => {
                        cx.syn_error(err);
                        None
                    }
                },
            )
            .collect();
        let ret = match RetKind::classify(op_fn.ret.as_ref(), &op_fn.ret_markers) {
            Ok(kind) => Some(Ret {
                kind,
                span: op_fn.ret.as_ref().map_or(op_fn.ident.span(), Spanned::span),
            }),
            Err(err) => {
                cx.syn_error(err);
                None
            }
        };
        (args.len() == op_fn.params.len()).then_some(())?;
        Some(Op {
            ident: op_fn.ident,
            vis: op_fn.vis,
            args,
            ret: ret?,
            fast_mode: attrs.fast,
            no_side_effects: attrs.no_side_effects,
        })
    }

    /// The JavaScript-visible arguments with their positions.
    pub fn js_args(&self) -> impl Iterator<Item = (usize, &Arg)> {
        self.args
            .iter()
            .filter(|arg| arg.kind.is_js_visible())
            .enumerate()
    }

    /// The first reason this op cannot have a fast path, with the span to blame; `None` if it
    /// can.
    pub fn fast_blocker(&self) -> Option<(Span, &'static str)> {
        let arg_blocker = self.args.iter().find_map(|arg| match arg.kind.fast() {
            FastArg::Unsupported(reason) => Some((arg.span, reason)),
            _ => None,
        });
        arg_blocker.or(match self.ret.kind.fast() {
            FastRet::Unsupported(reason) => Some((self.ret.span, reason)),
            FastRet::Value { .. } => None,
        })
    }

    /// Whether code generation emits a fast path.
    pub fn has_fast_path(&self) -> bool {
        self.fast_mode != FastMode::Disabled && self.fast_blocker().is_none()
    }

    /// Whether the fast function needs V8's callback options (to reach the op state).
    pub fn fast_needs_options(&self) -> bool {
        self.args.iter().any(|arg| {
            matches!(
                arg.kind.fast(),
                FastArg::StateRef | FastArg::StateMut | FastArg::StateRc
            )
        })
    }

    /// Whether the fast function's 64-bit integers are BigInts (V8 has one setting per
    /// function, for arguments and return alike).
    pub fn uses_bigint(&self) -> bool {
        let arg_64 = self.args.iter().any(
            |arg| matches!(arg.kind.fast(), FastArg::Param { ctype, .. } if ctype.is_64_bit()),
        );
        arg_64 || matches!(self.ret.kind.fast(), FastRet::Value { ctype, .. } if ctype.is_64_bit())
    }
}

/// The name of a single-segment primitive type path (`u32`), if `ty` is one.
fn primitive_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.get_ident().map(ToString::to_string),
        Type::Group(group) => primitive_name(&group.elem),
        Type::Paren(paren) => primitive_name(&paren.elem),
        _ => None,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

fn single_type_argument(segment: &syn::PathSegment) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(ty)] => Some(ty),
        _ => None,
    }
}

/// The type as the user wrote it, spaced as rustfmt would for short types.
fn type_text(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" :: ", "::")
}
