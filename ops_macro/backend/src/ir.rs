//! The op as data. [`ArgKind`] and [`RetKind`] list every argument and return type an op can
//! have; each kind knows its conversion strategy on the slow path ([`SlowArg`], [`SlowRet`])
//! and on the fast path ([`FastArg`], [`FastRet`]). Adding a type means adding a variant here,
//! its strategies below, and (if it needs new code shapes) its emitter in [`crate::codegen`].
//!
//! Two wrappers apply to many kinds and are flags rather than kinds: `Option<T>` arguments and
//! returns ([`Arg::optional`], [`Ret::optional`]: `undefined`/`null` and `None`), and
//! `Result<T, E>` returns ([`Ret::fallible`]: `Err` throws).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use crate::internals::ast::{OpFn, Param};
use crate::internals::attr::{BufferMode, FastMode, Markers, OpAttrs, StringMode};
use crate::internals::Ctxt;

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
    /// `#[op(no_side_effects)]`.
    pub no_side_effects: bool,
}

/// One argument.
pub struct Arg {
    /// The argument's name.
    pub ident: syn::Ident,
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
}

/// The return value.
pub struct Ret {
    /// What it is (inside any `Result` and `Option`).
    pub kind: RetKind,
    /// `Option<T>`: `None` is `null`.
    pub optional: bool,
    /// `Result<T, E>`: `Err` throws, as `E: JsErrorClass` (or `OpError`) says.
    pub fallible: bool,
    /// The return type as written (or the function name for `()`), for error spans.
    pub span: Span,
}

/// The V8 handle types a `v8::Local<T>` argument may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalType {
    /// `v8::Value`: anything, unchecked.
    Value,
    /// `v8::Object`.
    Object,
    /// `v8::String`.
    String,
    /// `v8::Function`.
    Function,
    /// `v8::Array`.
    Array,
    /// `v8::Number`.
    Number,
    /// `v8::BigInt`.
    BigInt,
    /// `v8::Boolean`.
    Boolean,
    /// `v8::Symbol`.
    Symbol,
    /// `v8::Promise`.
    Promise,
    /// `v8::Uint8Array`.
    Uint8Array,
    /// `v8::ArrayBuffer`.
    ArrayBuffer,
    /// `v8::ArrayBufferView`.
    ArrayBufferView,
    /// `v8::External`.
    External,
}

impl LocalType {
    /// Every handle type, in declaration order.
    pub const ALL: [LocalType; 14] = [
        LocalType::Value,
        LocalType::Object,
        LocalType::String,
        LocalType::Function,
        LocalType::Array,
        LocalType::Number,
        LocalType::BigInt,
        LocalType::Boolean,
        LocalType::Symbol,
        LocalType::Promise,
        LocalType::Uint8Array,
        LocalType::ArrayBuffer,
        LocalType::ArrayBufferView,
        LocalType::External,
    ];

    /// The `v8::` type name.
    pub fn name(self) -> &'static str {
        match self {
            LocalType::Value => "Value",
            LocalType::Object => "Object",
            LocalType::String => "String",
            LocalType::Function => "Function",
            LocalType::Array => "Array",
            LocalType::Number => "Number",
            LocalType::BigInt => "BigInt",
            LocalType::Boolean => "Boolean",
            LocalType::Symbol => "Symbol",
            LocalType::Promise => "Promise",
            LocalType::Uint8Array => "Uint8Array",
            LocalType::ArrayBuffer => "ArrayBuffer",
            LocalType::ArrayBufferView => "ArrayBufferView",
            LocalType::External => "External",
        }
    }

    /// What a `TypeError` says was expected.
    pub fn expected(self) -> &'static str {
        match self {
            LocalType::Value => "any value",
            LocalType::Object => "an object",
            LocalType::String => "a string",
            LocalType::Function => "a function",
            LocalType::Array => "an array",
            LocalType::Number => "a number",
            LocalType::BigInt => "a BigInt",
            LocalType::Boolean => "a boolean",
            LocalType::Symbol => "a symbol",
            LocalType::Promise => "a promise",
            LocalType::Uint8Array => "a Uint8Array",
            LocalType::ArrayBuffer => "an ArrayBuffer",
            LocalType::ArrayBufferView => "a TypedArray or DataView",
            LocalType::External => "an External",
        }
    }

    /// Whether a handle of this type can reach a buffer's bytes (and so alias a `&mut [u8]`).
    pub fn can_reach_buffers(self) -> bool {
        !matches!(
            self,
            LocalType::String
                | LocalType::Number
                | LocalType::BigInt
                | LocalType::Boolean
                | LocalType::Symbol
                | LocalType::External
        )
    }

    fn from_name(name: &str) -> Option<LocalType> {
        Self::ALL.into_iter().find(|local| local.name() == name)
    }
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
    /// `#[string] &str`.
    Str,
    /// `#[string] Cow<str>`.
    CowStr,
    /// `#[string] String`.
    String,
    /// `#[string(onebyte)] Cow<[u8]>`.
    OneByte,
    /// `ByteString`.
    ByteString,
    /// `#[buffer] &[u8]` / `#[buffer] &mut [u8]`: a Uint8Array's bytes, borrowed.
    Buffer {
        /// `&mut [u8]`.
        mutable: bool,
    },
    /// `#[buffer(copy)] Vec<u8>`.
    BufferVec,
    /// `#[buffer(copy)] Box<[u8]>`.
    BufferBox,
    /// `#[arraybuffer] &[u8]` / `#[arraybuffer] &mut [u8]`: an ArrayBuffer's bytes.
    ArrayBuffer {
        /// `&mut [u8]`.
        mutable: bool,
    },
    /// `v8::Local<v8::T>`.
    Local(LocalType),
    /// `*const c_void` / `*mut c_void`: an External's pointer.
    External {
        /// `*mut c_void`.
        mutable: bool,
    },
    /// `#[from_v8] T`: any `T: FromV8`.
    FromV8,
    /// `&OpState`.
    OpStateRef,
    /// `&mut OpState`.
    OpStateMut,
    /// `Rc<RefCell<OpState>>`.
    OpStateRc,
    /// `&mut v8::PinScope`: the handle scope of the call, for ops that call back into V8.
    Scope,
    /// `&mut v8::Isolate`.
    Isolate,
}

/// What an argument kind is and may do: one row per kind in [`ArgKind::traits`], every field
/// decided there (a `match` without a wildcard), so that a new kind cannot silently inherit a
/// property that makes a fast path or an in-place borrow unsound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgTraits {
    /// It comes from a JavaScript argument (and so has a position and a name in errors).
    pub js_visible: bool,
    /// It is read from a JavaScript string.
    pub reads_string: bool,
    /// Reading it, or the op through it, may allocate on the V8 heap during the call, moving
    /// what V8 lends (strings borrowed in place, the strings of a fast call).
    pub may_allocate_during_call: bool,
    /// JavaScript may run during the call because of it (so nothing may be borrowed from V8's
    /// heap across the call).
    pub can_run_js: bool,
    /// It borrows a buffer's memory: `Some(mutably)`.
    pub borrows_buffer: Option<bool>,
    /// What of V8 the slow path must hold to read it.
    pub slow_access: V8Access,
    /// The op can reach the runtime's `TerminationHandle` through it (the op state).
    pub can_request_termination: bool,
}

/// Every return type an op can have (inside any `Result` and `Option`).
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
    /// `String`.
    String,
    /// `&'static str`.
    StaticStr,
    /// `Cow<'static, str>`.
    CowStr,
    /// `ByteString`.
    ByteString,
    /// `Vec<u8>`: a Uint8Array over the vector's memory (no copy).
    BytesVec,
    /// `Box<[u8]>`: likewise.
    BytesBox,
    /// `*const c_void` / `*mut c_void`: an External (null: `null`).
    External,
    /// `#[to_v8] T`: any `T: ToV8`.
    ToV8,
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
    /// `void*`: an External's pointer (or null).
    Pointer,
    /// `v8::Local<v8::Value>`: any value, unconverted.
    V8Value,
    /// A sequential one-byte string, passed as `const FastOneByteString&`; V8 takes the slow
    /// path for any other string representation.
    SeqOneByteString,
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
            CType::Pointer => "Pointer",
            CType::V8Value => "V8Value",
            CType::SeqOneByteString => "SeqOneByteString",
        }
    }

    /// Whether this type makes the function's 64-bit integers BigInts.
    pub fn is_64_bit(self) -> bool {
        matches!(self, CType::Int64 | CType::Uint64)
    }
}

/// What of V8 a slow call holds, in increasing cost: nothing, the isolate (one V8 call, which
/// also reads the return value and the function's data), or a handle scope (one more).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum V8Access {
    /// Nothing: arguments are read and numbers returned through the callback info.
    Nothing,
    /// The isolate.
    Isolate,
    /// A handle scope.
    Scope,
}

/// How an argument reaches the function on the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowArg {
    /// From the next JavaScript argument, through `SlowCall::<helper>(index)`.
    Convert {
        /// The `runtime_core::__op::SlowCall` method that converts (and throws on bad input).
        helper: &'static str,
    },
    /// From the next JavaScript argument, through `SlowCall::<helper>(index, &mut buffer)`
    /// with a `StringBuffer` that lives for the call.
    Buffered {
        /// The helper for an op that cannot run JavaScript: may borrow V8's memory in place.
        in_place: &'static str,
        /// The helper for an op that takes the scope (JavaScript may run and move the
        /// string): always copies into the buffer.
        copied: &'static str,
    },
    /// From the next JavaScript argument, through `SlowCall::<helper>(index, &mut storage)`
    /// with a `BufferStorage` that lives for the call (a small array on the V8 heap is copied
    /// there: reading it allocates nothing).
    WithStorage {
        /// The helper.
        helper: &'static str,
    },
    /// From the next JavaScript argument, checked to be a `v8::Local<T>` of this type.
    Local(LocalType),
    /// From the next JavaScript argument, through the argument type's `FromV8`.
    FromV8,
    /// The call's scope.
    Scope,
    /// The isolate.
    Isolate,
    /// A shared borrow of the op state.
    StateRef,
    /// An exclusive borrow of the op state.
    StateMut,
    /// The op state handle.
    StateRc,
}

/// How a fast-call parameter becomes the function's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastConvert {
    /// Passed as is.
    Direct,
    /// Narrowed with a wrapping `as` to this Rust type (no Fast API type is that small).
    Narrow(&'static str),
    /// Through the `runtime_core::__op` function of this name; `buffered` ones also take a
    /// `StringBuffer` for the call.
    Helper {
        /// The helper's name.
        name: &'static str,
        /// Whether it takes a `&mut StringBuffer`.
        buffered: bool,
    },
    /// Through `runtime_core::__op::<name>(value, options, index)`, which checks the value and
    /// throws the same `TypeError` the slow path would (V8 allows throwing from a fast call);
    /// `None` then, and the fast function returns at once.
    Checked {
        /// The helper's name.
        name: &'static str,
    },
    /// As `Checked`, with a `BufferStorage` for the call: `<name>(value, options, index,
    /// &mut storage)`.
    CheckedWithStorage {
        /// The helper's name.
        name: &'static str,
    },
    /// Checked to be a `v8::Local<T>` of this type, throwing as the slow path would.
    CheckedLocal(LocalType),
    /// A `*mut c_void` made `*const c_void`.
    CastConst,
    /// `Option<number>`: through `runtime_core::__op::fast_option_number::<T>`, where `T` is
    /// this Rust number type: nullish is `None`, a Number converts as on the slow path.
    OptionalNumber(&'static str),
}

/// How an argument reaches the function on the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastArg {
    /// A parameter of the fast function, of `ctype`, converted by `convert`.
    Param {
        /// The Fast API type V8 passes.
        ctype: CType,
        /// How it becomes the Rust argument.
        convert: FastConvert,
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
     #[bigint] u64, #[string] &str, #[string] Cow<str>, #[string] String, \
     #[string(onebyte)] Cow<[u8]>, ByteString, #[buffer] &[u8], #[buffer] &mut [u8], \
     #[buffer(copy)] Vec<u8>, #[buffer(copy)] Box<[u8]>, #[arraybuffer] &[u8], \
     #[arraybuffer] &mut [u8], v8::Local<v8::T>, *const c_void, *mut c_void, #[from_v8] T, \
     Option<T> of any of those, &OpState, &mut OpState, Rc<RefCell<OpState>>, \
     &mut v8::PinScope, &mut v8::Isolate";
const SUPPORTED_RETS: &str = "(), bool, i8, i16, i32, u8, u16, u32, f32, f64, #[bigint] i64, \
     #[bigint] u64, String, &'static str, Cow<'static, str>, ByteString, Vec<u8>, Box<[u8]>, \
     *const c_void, *mut c_void, #[to_v8] T, and Option<T> and Result<T, E> of those";

const ALLOCATING_RETURN_IS_SLOW: &str =
    "this return value is made on the V8 heap, which a fast call must not do";

/// What a type looks like, for classification: enough structure to tell the supported kinds
/// apart without caring how the user spelled the path (`Cow`, `std::borrow::Cow`, ...).
#[derive(Debug, PartialEq, Eq)]
enum Shape<'a> {
    /// A path type: its last segment's name, its type arguments, its first lifetime argument.
    Path {
        name: String,
        types: Vec<&'a Type>,
        lifetime: Option<&'a syn::Lifetime>,
    },
    /// `&T` / `&mut T`.
    Reference {
        mutable: bool,
        lifetime: Option<&'a syn::Lifetime>,
        target: &'a Type,
    },
    /// `*const T` / `*mut T`.
    Pointer { mutable: bool, target: &'a Type },
    /// Anything else.
    Other,
}

fn shape(ty: &Type) -> Shape<'_> {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return Shape::Other;
            };
            let mut types = Vec::new();
            let mut lifetime = None;
            if let PathArguments::AngleBracketed(args) = &last.arguments {
                for arg in &args.args {
                    match arg {
                        GenericArgument::Type(ty) => types.push(ty),
                        GenericArgument::Lifetime(lt) => lifetime = lifetime.or(Some(lt)),
                        _ => {}
                    }
                }
            }
            Shape::Path {
                name: last.ident.to_string(),
                types,
                lifetime,
            }
        }
        Type::Reference(reference) => Shape::Reference {
            mutable: reference.mutability.is_some(),
            lifetime: reference.lifetime.as_ref(),
            target: &reference.elem,
        },
        Type::Ptr(pointer) => Shape::Pointer {
            mutable: pointer.mutability.is_some(),
            target: &pointer.elem,
        },
        Type::Group(group) => shape(&group.elem),
        Type::Paren(paren) => shape(&paren.elem),
        _ => Shape::Other,
    }
}

/// The name of a plain path type (`u32`, `str`, `OpState`), if `ty` is one.
fn path_name(ty: &Type) -> Option<String> {
    match shape(ty) {
        Shape::Path { name, types, .. } if types.is_empty() => Some(name),
        _ => None,
    }
}

/// Whether `ty` is `[u8]`.
fn is_byte_slice(ty: &Type) -> bool {
    matches!(ty, Type::Slice(slice) if path_name(&slice.elem).as_deref() == Some("u8"))
}

/// The single type argument of `Wrapper<T>` (`Option`, `Result`'s first), if `ty` is one.
fn unwrap_generic<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    match shape(ty) {
        Shape::Path { name, types, .. } if name == wrapper && !types.is_empty() => Some(types[0]),
        _ => None,
    }
}

/// The number and boolean types both arguments and returns can be.
#[derive(Clone, Copy)]
enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    U8,
    U16,
    U32,
    F32,
    F64,
    BigIntI64,
    BigIntU64,
}

/// The scalar type `name` is; `Some(Err(()))` for a 64-bit integer without `#[bigint]`.
fn scalar(name: &str, markers: &Markers) -> Option<Result<Scalar, ()>> {
    let bigint = markers.bigint.is_some();
    Some(Ok(match name {
        "bool" => Scalar::Bool,
        "i8" => Scalar::I8,
        "i16" => Scalar::I16,
        "i32" => Scalar::I32,
        "u8" => Scalar::U8,
        "u16" => Scalar::U16,
        "u32" => Scalar::U32,
        "f32" => Scalar::F32,
        "f64" => Scalar::F64,
        "i64" if bigint => Scalar::BigIntI64,
        "u64" if bigint => Scalar::BigIntU64,
        "i64" | "u64" => return Some(Err(())),
        _ => return None,
    }))
}

macro_rules! from_scalar {
    ($kind:ident) => {
        impl From<Scalar> for $kind {
            fn from(scalar: Scalar) -> Self {
                match scalar {
                    Scalar::Bool => $kind::Bool,
                    Scalar::I8 => $kind::I8,
                    Scalar::I16 => $kind::I16,
                    Scalar::I32 => $kind::I32,
                    Scalar::U8 => $kind::U8,
                    Scalar::U16 => $kind::U16,
                    Scalar::U32 => $kind::U32,
                    Scalar::F32 => $kind::F32,
                    Scalar::F64 => $kind::F64,
                    Scalar::BigIntI64 => $kind::BigIntI64,
                    Scalar::BigIntU64 => $kind::BigIntU64,
                }
            }
        }
    };
}

from_scalar!(ArgKind);
from_scalar!(RetKind);

fn unsupported_arg(ty: &Type) -> String {
    // A struct or enum of the user's own: say how to make it an argument.
    let own_type = matches!(shape(ty), Shape::Path { .. })
        .then_some(
            "; for a type of your own, implement `runtime_core::FromV8` for it and mark the \
             argument `#[from_v8]`",
        )
        .unwrap_or("");
    format!(
        "unsupported argument type `{}`{own_type}; supported: {SUPPORTED_ARGS}",
        type_text(ty)
    )
}

impl ArgKind {
    /// Classifies an argument type (already out of any `Option`), or explains why it cannot
    /// be one.
    pub fn classify(ty: &Type, markers: &Markers) -> Result<ArgKind, syn::Error> {
        let error = |message: String| Err(syn::Error::new_spanned(ty, message));
        let string_mode = markers.string.as_ref().map(|(_, mode)| *mode);
        let buffer_mode = markers.buffer.as_ref().map(|(_, mode)| *mode);
        if markers.v8_trait.is_some() {
            return Ok(ArgKind::FromV8);
        }
        let kind = match shape(ty) {
            Shape::Path { name, types, .. } if types.is_empty() => match scalar(&name, markers) {
                Some(Ok(scalar)) => ArgKind::from(scalar),
                Some(Err(())) => {
                    return error(format!(
                        "`{name}` needs `#[bigint]`: a Number holds integers only up to 2^53, so 64-bit integers are passed as BigInt"
                    ))
                }
                None => match name.as_str() {
                    "String" if string_mode.is_some() => ArgKind::String,
                    "String" => return error("`String` needs `#[string]`".to_owned()),
                    "ByteString" => ArgKind::ByteString,
                    "isize" | "usize" | "i128" | "u128" => {
                        return error(format!(
                            "unsupported argument type `{}`; use a fixed-width type: {SUPPORTED_ARGS}",
                            type_text(ty)
                        ))
                    }
                    _ => return error(unsupported_arg(ty)),
                },
            },
            Shape::Path { name, types, .. } if name == "Cow" && types.len() == 1 => {
                match (path_name(types[0]).as_deref(), string_mode) {
                    (Some("str"), Some(_)) => ArgKind::CowStr,
                    (Some("str"), _) => return error("`Cow<str>` needs `#[string]`".to_owned()),
                    (None, Some(StringMode::OneByte)) if is_byte_slice(types[0]) => {
                        ArgKind::OneByte
                    }
                    (None, _) if is_byte_slice(types[0]) => {
                        return error("`Cow<[u8]>` needs `#[string(onebyte)]`".to_owned())
                    }
                    _ => return error(unsupported_arg(ty)),
                }
            }
            Shape::Path { name, types, .. } if name == "Vec" && types.len() == 1 => {
                match (path_name(types[0]).as_deref(), buffer_mode) {
                    (Some("u8"), Some(BufferMode::Copy)) => ArgKind::BufferVec,
                    (Some("u8"), _) => {
                        return error("`Vec<u8>` needs `#[buffer(copy)]`".to_owned())
                    }
                    _ => return error(unsupported_arg(ty)),
                }
            }
            Shape::Path { name, types, .. }
                if name == "Box" && types.len() == 1 && is_byte_slice(types[0]) =>
            {
                match buffer_mode {
                    Some(BufferMode::Copy) => ArgKind::BufferBox,
                    _ => return error("`Box<[u8]>` needs `#[buffer(copy)]`".to_owned()),
                }
            }
            Shape::Path { name, types, .. } if name == "Rc" && types.len() == 1 => {
                match shape(types[0]) {
                    Shape::Path { name, types, .. }
                        if name == "RefCell"
                            && types.len() == 1
                            && path_name(types[0]).as_deref() == Some("OpState") =>
                    {
                        ArgKind::OpStateRc
                    }
                    _ => return error(unsupported_arg(ty)),
                }
            }
            Shape::Path { name, types, .. } if name == "Local" && types.len() == 1 => {
                match path_name(types[0]).as_deref().and_then(LocalType::from_name) {
                    Some(local) => ArgKind::Local(local),
                    None => {
                        let names: Vec<&str> = LocalType::ALL.iter().map(|l| l.name()).collect();
                        return error(format!(
                            "unsupported `v8::Local` type `{}`; supported: v8::{}",
                            type_text(types[0]),
                            names.join(", v8::")
                        ));
                    }
                }
            }
            Shape::Pointer { mutable, target } if path_name(target).as_deref() == Some("c_void") => {
                ArgKind::External { mutable }
            }
            Shape::Reference {
                mutable, target, ..
            } if is_byte_slice(target) => match (buffer_mode, &markers.arraybuffer) {
                (Some(BufferMode::View), None) => ArgKind::Buffer { mutable },
                (None, Some(_)) => ArgKind::ArrayBuffer { mutable },
                _ => {
                    return error(format!(
                        "`{}` needs `#[buffer]` (a Uint8Array) or `#[arraybuffer]` (an ArrayBuffer)",
                        type_text(ty)
                    ))
                }
            },
            Shape::Reference {
                mutable, target, ..
            } => match (path_name(target).as_deref(), mutable) {
                (Some("str"), false) if string_mode.is_some() => ArgKind::Str,
                (Some("str"), false) => return error("`&str` needs `#[string]`".to_owned()),
                (Some("OpState"), false) => ArgKind::OpStateRef,
                (Some("OpState"), true) => ArgKind::OpStateMut,
                (Some("Isolate"), true) => ArgKind::Isolate,
                _ if mutable && matches!(shape(target), Shape::Path { ref name, .. } if name == "PinScope") => {
                    ArgKind::Scope
                }
                _ => return error(unsupported_arg(ty)),
            },
            _ => return error(unsupported_arg(ty)),
        };
        kind.check_markers(markers)?;
        Ok(kind)
    }

    /// Refuses markers that do not apply to this kind.
    fn check_markers(self, markers: &Markers) -> Result<(), syn::Error> {
        let misplaced =
            |attr: &syn::Attribute, message: &str| Err(syn::Error::new_spanned(attr, message));
        if let Some(attr) = &markers.bigint {
            if !matches!(self, ArgKind::BigIntI64 | ArgKind::BigIntU64) {
                return misplaced(attr, "`#[bigint]` applies to `i64` and `u64` only");
            }
        }
        if let Some((attr, mode)) = &markers.string {
            let fits = match mode {
                StringMode::Utf8 => matches!(
                    self,
                    ArgKind::Str | ArgKind::CowStr | ArgKind::String | ArgKind::ByteString
                ),
                StringMode::OneByte => self == ArgKind::OneByte,
            };
            if !fits {
                return misplaced(
                    attr,
                    match mode {
                        StringMode::Utf8 => {
                            "`#[string]` applies to `&str`, `Cow<str>` and `String` only"
                        }
                        StringMode::OneByte => "`#[string(onebyte)]` applies to `Cow<[u8]>` only",
                    },
                );
            }
        }
        if let Some((attr, _)) = &markers.buffer {
            if !matches!(
                self,
                ArgKind::Buffer { .. } | ArgKind::BufferVec | ArgKind::BufferBox
            ) {
                return misplaced(
                    attr,
                    "`#[buffer]` applies to `&[u8]` and `&mut [u8]`, `#[buffer(copy)]` to `Vec<u8>` and `Box<[u8]>`",
                );
            }
        }
        if let Some(attr) = &markers.arraybuffer {
            if !matches!(self, ArgKind::ArrayBuffer { .. }) {
                return misplaced(
                    attr,
                    "`#[arraybuffer]` applies to `&[u8]` and `&mut [u8]` only",
                );
            }
        }
        Ok(())
    }

    /// The slow-path strategy.
    pub fn slow(self) -> SlowArg {
        let convert = |helper| SlowArg::Convert { helper };
        let buffered = |in_place, copied| SlowArg::Buffered { in_place, copied };
        match self {
            ArgKind::Bool => convert("arg_bool"),
            ArgKind::I8 => convert("arg_i8"),
            ArgKind::I16 => convert("arg_i16"),
            ArgKind::I32 => convert("arg_i32"),
            ArgKind::U8 => convert("arg_u8"),
            ArgKind::U16 => convert("arg_u16"),
            ArgKind::U32 => convert("arg_u32"),
            ArgKind::F32 => convert("arg_f32"),
            ArgKind::F64 => convert("arg_f64"),
            ArgKind::BigIntI64 => convert("arg_bigint_i64"),
            ArgKind::BigIntU64 => convert("arg_bigint_u64"),
            ArgKind::Str => buffered("arg_str", "arg_str_copied"),
            ArgKind::CowStr => buffered("arg_cow_str", "arg_cow_str_copied"),
            ArgKind::String => convert("arg_string"),
            ArgKind::OneByte => buffered("arg_onebyte", "arg_onebyte_copied"),
            ArgKind::ByteString => convert("arg_bytestring"),
            ArgKind::Buffer { mutable: false } => SlowArg::WithStorage {
                helper: "arg_buffer",
            },
            ArgKind::Buffer { mutable: true } => convert("arg_buffer_mut"),
            ArgKind::BufferVec => convert("arg_buffer_vec"),
            ArgKind::BufferBox => convert("arg_buffer_box"),
            ArgKind::ArrayBuffer { mutable: false } => convert("arg_arraybuffer"),
            ArgKind::ArrayBuffer { mutable: true } => convert("arg_arraybuffer_mut"),
            ArgKind::Local(local) => SlowArg::Local(local),
            ArgKind::External { mutable: false } => convert("arg_external"),
            ArgKind::External { mutable: true } => convert("arg_external_mut"),
            ArgKind::FromV8 => SlowArg::FromV8,
            ArgKind::OpStateRef => SlowArg::StateRef,
            ArgKind::OpStateMut => SlowArg::StateMut,
            ArgKind::OpStateRc => SlowArg::StateRc,
            ArgKind::Scope => SlowArg::Scope,
            ArgKind::Isolate => SlowArg::Isolate,
        }
    }

    /// The fast-path strategy.
    pub fn fast(self) -> FastArg {
        let param = |ctype, convert| FastArg::Param { ctype, convert };
        let string = |name, buffered| {
            param(
                CType::SeqOneByteString,
                FastConvert::Helper { name, buffered },
            )
        };
        let checked = |name| param(CType::V8Value, FastConvert::Checked { name });
        match self {
            ArgKind::Bool => param(CType::Bool, FastConvert::Direct),
            ArgKind::I8 => param(CType::Int32, FastConvert::Narrow("i8")),
            ArgKind::I16 => param(CType::Int32, FastConvert::Narrow("i16")),
            ArgKind::I32 => param(CType::Int32, FastConvert::Direct),
            ArgKind::U8 => param(CType::Uint32, FastConvert::Narrow("u8")),
            ArgKind::U16 => param(CType::Uint32, FastConvert::Narrow("u16")),
            ArgKind::U32 => param(CType::Uint32, FastConvert::Direct),
            ArgKind::F32 => param(CType::Float32, FastConvert::Direct),
            ArgKind::F64 => param(CType::Float64, FastConvert::Direct),
            ArgKind::BigIntI64 => param(CType::Int64, FastConvert::Direct),
            ArgKind::BigIntU64 => param(CType::Uint64, FastConvert::Direct),
            ArgKind::Str => string("fast_str", true),
            ArgKind::CowStr => string("fast_cow_str", true),
            ArgKind::String => string("fast_string", false),
            ArgKind::OneByte => string("fast_onebyte", false),
            ArgKind::ByteString => string("fast_bytestring", false),
            ArgKind::Buffer { mutable: false } => param(
                CType::V8Value,
                FastConvert::CheckedWithStorage { name: "fast_buffer" },
            ),
            ArgKind::Buffer { mutable: true } => checked("fast_buffer_mut"),
            ArgKind::BufferVec => checked("fast_buffer_vec"),
            ArgKind::BufferBox => checked("fast_buffer_box"),
            ArgKind::ArrayBuffer { mutable: false } => checked("fast_arraybuffer"),
            ArgKind::ArrayBuffer { mutable: true } => checked("fast_arraybuffer_mut"),
            ArgKind::Local(LocalType::Value) => param(CType::V8Value, FastConvert::Direct),
            ArgKind::Local(local) => param(CType::V8Value, FastConvert::CheckedLocal(local)),
            ArgKind::External { mutable: false } => param(CType::Pointer, FastConvert::CastConst),
            ArgKind::External { mutable: true } => param(CType::Pointer, FastConvert::Direct),
            ArgKind::OpStateRef => FastArg::StateRef,
            ArgKind::OpStateMut => FastArg::StateMut,
            ArgKind::OpStateRc => FastArg::StateRc,
            ArgKind::FromV8 => FastArg::Unsupported(
                "a `FromV8` conversion may allocate on the V8 heap and run JavaScript",
            ),
            ArgKind::Scope => FastArg::Unsupported(
                "a handle scope lets the op allocate on the V8 heap and run JavaScript, which a fast call must not do",
            ),
            ArgKind::Isolate => FastArg::Unsupported(
                "the isolate lets the op allocate on the V8 heap and run JavaScript, which a fast call must not do",
            ),
        }
    }

    /// Everything the checks and emitters ask of this kind; see [`ArgTraits`].
    pub fn traits(self) -> ArgTraits {
        // What a kind that JavaScript passes and that needs nothing special is.
        const PLAIN: ArgTraits = ArgTraits {
            js_visible: true,
            reads_string: false,
            may_allocate_during_call: false,
            can_run_js: false,
            borrows_buffer: None,
            slow_access: V8Access::Nothing,
            can_request_termination: false,
        };
        // Read through a `ValueView` made from the isolate: it may flatten the string (an
        // allocation, inside the handle scope V8 opens for every callback).
        const STRING: ArgTraits = ArgTraits {
            reads_string: true,
            may_allocate_during_call: true,
            slow_access: V8Access::Isolate,
            ..PLAIN
        };
        // Not from JavaScript: the runtime's state.
        const STATE: ArgTraits = ArgTraits {
            js_visible: false,
            can_request_termination: true,
            ..PLAIN
        };
        match self {
            ArgKind::Bool
            | ArgKind::I8
            | ArgKind::I16
            | ArgKind::I32
            | ArgKind::U8
            | ArgKind::U16
            | ArgKind::U32
            | ArgKind::F32
            | ArgKind::F64
            | ArgKind::BigIntI64
            | ArgKind::BigIntU64 => PLAIN,
            ArgKind::Str
            | ArgKind::CowStr
            | ArgKind::String
            | ArgKind::OneByte
            | ArgKind::ByteString => STRING,
            // A small array on the V8 heap borrowed mutably is moved off it first (rare paths
            // make their own scope, so the slow path holds nothing).
            ArgKind::Buffer { mutable } => ArgTraits {
                may_allocate_during_call: mutable,
                borrows_buffer: Some(mutable),
                ..PLAIN
            },
            ArgKind::BufferVec | ArgKind::BufferBox => PLAIN,
            ArgKind::ArrayBuffer { mutable } => ArgTraits {
                borrows_buffer: Some(mutable),
                ..PLAIN
            },
            // A handle that can reach a buffer lets the op move or detach its bytes
            // (`get_backing_store` needs no scope).
            ArgKind::Local(local) => ArgTraits {
                may_allocate_during_call: local.can_reach_buffers(),
                ..PLAIN
            },
            ArgKind::External { .. } => PLAIN,
            // Getters may run during the conversion.
            ArgKind::FromV8 => ArgTraits {
                can_run_js: true,
                slow_access: V8Access::Scope,
                ..PLAIN
            },
            ArgKind::OpStateRef | ArgKind::OpStateMut | ArgKind::OpStateRc => STATE,
            // `terminate_execution` on the isolate takes effect at V8's next interrupt check or
            // when the script ends: checking after every op that takes the scope or the isolate
            // would cost them a third of a bare call.
            ArgKind::Scope => ArgTraits {
                js_visible: false,
                can_run_js: true,
                slow_access: V8Access::Scope,
                ..PLAIN
            },
            ArgKind::Isolate => ArgTraits {
                js_visible: false,
                can_run_js: true,
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
        }
    }

    /// Whether the argument is read from a JavaScript string.
    pub fn is_string(self) -> bool {
        self.traits().reads_string
    }

    /// For arguments that borrow a buffer's memory (`&[u8]`/`&mut [u8]`): whether mutably.
    pub fn buffer_borrow_mutability(self) -> Option<bool> {
        self.traits().borrows_buffer
    }

    /// See [`ArgTraits::may_allocate_during_call`].
    pub fn may_allocate_during_call(self) -> bool {
        self.traits().may_allocate_during_call
    }

    /// See [`ArgTraits::slow_access`].
    pub fn slow_access(self) -> V8Access {
        self.traits().slow_access
    }

    /// See [`ArgTraits::can_request_termination`].
    pub fn can_request_termination(self) -> bool {
        self.traits().can_request_termination
    }

    /// Whether the argument comes from a JavaScript argument (and so has a position).
    pub fn is_js_visible(self) -> bool {
        self.traits().js_visible
    }
}

impl Arg {
    /// The fast-path strategy of this argument, `Option` included: `Option` of a number is
    /// read from the value itself (no Fast API type takes `undefined`); other `Option`s take
    /// the slow path.
    pub fn fast(&self) -> FastArg {
        if !self.optional {
            return self.kind.fast();
        }
        let number = match self.kind {
            ArgKind::I8 => "i8",
            ArgKind::I16 => "i16",
            ArgKind::I32 => "i32",
            ArgKind::U8 => "u8",
            ArgKind::U16 => "u16",
            ArgKind::U32 => "u32",
            ArgKind::F32 => "f32",
            ArgKind::F64 => "f64",
            _ => return FastArg::Unsupported("this `Option` argument takes the slow path"),
        };
        FastArg::Param {
            ctype: CType::V8Value,
            convert: FastConvert::OptionalNumber(number),
        }
    }
}

impl RetKind {
    /// Classifies a return type (already out of any `Result` and `Option`; `None` is `()`),
    /// or explains why it cannot be one.
    pub fn classify(ty: Option<&Type>, markers: &Markers) -> Result<RetKind, syn::Error> {
        let Some(ty) = ty else {
            return match markers.any() {
                Some(attr) => Err(syn::Error::new_spanned(
                    attr,
                    "this marker applies to no return value",
                )),
                None => Ok(RetKind::Unit),
            };
        };
        if matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty()) {
            return Ok(RetKind::Unit);
        }
        if markers.v8_trait.is_some() {
            return Ok(RetKind::ToV8);
        }
        let error = |message: String| Err(syn::Error::new_spanned(ty, message));
        let unsupported = || {
            let own_type = matches!(shape(ty), Shape::Path { .. })
                .then_some(
                    "; for a type of your own, implement `runtime_core::ToV8` for it and mark \
                     the function `#[to_v8]`",
                )
                .unwrap_or("");
            error(format!(
                "unsupported return type `{}`{own_type}; supported: {SUPPORTED_RETS}",
                type_text(ty)
            ))
        };
        let is_static =
            |lifetime: Option<&syn::Lifetime>| lifetime.is_some_and(|lt| lt.ident == "static");
        let kind = match shape(ty) {
            Shape::Path { name, types, .. } if types.is_empty() => match scalar(&name, markers) {
                Some(Ok(scalar)) => RetKind::from(scalar),
                Some(Err(())) => {
                    return error(format!(
                        "returning `{name}` needs `#[bigint]` on the function: 64-bit integers are returned as BigInt"
                    ))
                }
                None => match name.as_str() {
                    "String" => RetKind::String,
                    "ByteString" => RetKind::ByteString,
                    _ => return unsupported(),
                },
            },
            Shape::Path {
                name,
                types,
                lifetime,
            } if name == "Cow" && types.len() == 1 => {
                match (path_name(types[0]).as_deref(), is_static(lifetime)) {
                    (Some("str"), true) => RetKind::CowStr,
                    (Some("str"), false) => {
                        return error("a returned `Cow<str>` must be `Cow<'static, str>`: the op's arguments are gone when JavaScript reads the result".to_owned())
                    }
                    _ => return unsupported(),
                }
            }
            Shape::Path { name, types, .. }
                if name == "Vec" && types.len() == 1 && path_name(types[0]).as_deref() == Some("u8") =>
            {
                RetKind::BytesVec
            }
            Shape::Path { name, types, .. }
                if name == "Box" && types.len() == 1 && is_byte_slice(types[0]) =>
            {
                RetKind::BytesBox
            }
            Shape::Pointer { target, .. } if path_name(target).as_deref() == Some("c_void") => {
                RetKind::External
            }
            Shape::Reference {
                mutable: false,
                lifetime,
                target,
            } if path_name(target).as_deref() == Some("str") || is_byte_slice(target) => {
                if !is_static(lifetime) || is_byte_slice(target) {
                    return error(format!(
                        "an op cannot return `{}`: the op's arguments are gone when JavaScript reads the result; return `&'static str`, an owned `String` or `Vec<u8>`",
                        type_text(ty)
                    ));
                }
                RetKind::StaticStr
            }
            _ => return unsupported(),
        };
        if let Some(attr) = &markers.bigint {
            if !matches!(kind, RetKind::BigIntI64 | RetKind::BigIntU64) {
                return Err(syn::Error::new_spanned(
                    attr,
                    "`#[bigint]` applies to `i64` and `u64` returns only",
                ));
            }
        }
        if let Some((attr, _)) = &markers.string {
            return Err(syn::Error::new_spanned(
                attr,
                "string returns need no `#[string]`: put it on the arguments that are strings",
            ));
        }
        if let Some(attr) = markers
            .buffer
            .as_ref()
            .map(|(attr, _)| attr)
            .or(markers.arraybuffer.as_ref())
        {
            return Err(syn::Error::new_spanned(
                attr,
                "a returned `Vec<u8>` or `Box<[u8]>` becomes a Uint8Array without a marker",
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
            RetKind::String => set("ret_string", None),
            RetKind::StaticStr => set("ret_static_str", None),
            RetKind::CowStr => set("ret_cow_str", None),
            RetKind::ByteString => set("ret_bytestring", None),
            RetKind::BytesVec => set("ret_bytes_vec", None),
            RetKind::BytesBox => set("ret_bytes_box", None),
            RetKind::External => set("ret_external", None),
            RetKind::ToV8 => set("ret_to_v8", None),
        }
    }

    /// What of V8 setting this return value on the slow path needs: a handle scope for values
    /// made on the V8 heap.
    pub fn slow_access(self) -> V8Access {
        match self {
            RetKind::Unit
            | RetKind::Bool
            | RetKind::I8
            | RetKind::I16
            | RetKind::I32
            | RetKind::U8
            | RetKind::U16
            | RetKind::U32
            | RetKind::F32
            | RetKind::F64 => V8Access::Nothing,
            RetKind::BigIntI64
            | RetKind::BigIntU64
            | RetKind::String
            | RetKind::StaticStr
            | RetKind::CowStr
            | RetKind::ByteString
            | RetKind::BytesVec
            | RetKind::BytesBox
            | RetKind::External
            | RetKind::ToV8 => V8Access::Scope,
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
            RetKind::External => value(CType::Pointer, None),
            RetKind::String
            | RetKind::StaticStr
            | RetKind::CowStr
            | RetKind::ByteString
            | RetKind::BytesVec
            | RetKind::BytesBox
            | RetKind::ToV8 => FastRet::Unsupported(ALLOCATING_RETURN_IS_SLOW),
        }
    }
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

    /// Classifies `Result<Option<T>, E>`, `Option<T>` and `T` return types.
    fn classify(ty: Option<&Type>, markers: &Markers, span: Span) -> Result<Ret, syn::Error> {
        let fallible_inner = ty.and_then(|ty| unwrap_generic(ty, "Result"));
        let fallible = fallible_inner.is_some();
        let ty = fallible_inner.or(ty);
        let optional_inner = ty.and_then(|ty| unwrap_generic(ty, "Option"));
        let optional = optional_inner.is_some();
        let ty = optional_inner.or(ty);
        let kind = RetKind::classify(ty, markers)?;
        if optional && kind == RetKind::Unit {
            return Err(syn::Error::new(
                span,
                "`Option<()>` says nothing `()` does not",
            ));
        }
        Ok(Ret {
            kind,
            optional,
            fallible,
            span,
        })
    }
}

impl Op {
    /// Builds the IR, recording every unsupported type in `cx`.
    pub fn from_ast(cx: &Ctxt, attrs: OpAttrs, op_fn: Option<OpFn>) -> Option<Op> {
        let op_fn = op_fn?;
        let args: Vec<Arg> = op_fn
            .params
            .iter()
            .filter_map(|param: &Param| match classify_arg(param) {
                Ok(arg) => Some(arg),
                Err(err) => {
                    cx.syn_error(err);
                    None
                }
            })
            .collect();
        let span = op_fn.ret.as_ref().map_or(op_fn.ident.span(), Spanned::span);
        let ret = match Ret::classify(op_fn.ret.as_ref(), &op_fn.ret_markers, span) {
            Ok(ret) => Some(ret),
            Err(err) => {
                cx.syn_error(err);
                None
            }
        };
        (args.len() == op_fn.params.len()).then_some(())?;
        let mut next_js_index = 0;
        let args = args
            .into_iter()
            .map(|arg| Arg {
                js_index: arg.kind.is_js_visible().then(|| {
                    next_js_index += 1;
                    next_js_index - 1
                }),
                ..arg
            })
            .collect();
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
            .filter_map(|arg| arg.js_index.map(|index| (index, arg)))
    }

    /// The first reason this op cannot have a fast path, with the span to blame; `None` if it
    /// can.
    pub fn fast_blocker(&self) -> Option<(Span, &'static str)> {
        let arg_blocker = self.args.iter().find_map(|arg| match arg.fast() {
            FastArg::Unsupported(reason) => Some((arg.span, reason)),
            _ => None,
        });
        // V8 hands a fast call its strings as pointers into its heap; anything that allocates
        // there during the call (moving a small array's bytes off the heap for `&mut [u8]`,
        // or the op doing it through a handle) could move those strings.
        let takes_strings = self.args.iter().any(|arg| arg.kind.is_string());
        let allocating = self
            .args
            .iter()
            .find(|arg| !arg.kind.is_string() && arg.kind.may_allocate_during_call());
        let arg_blocker = arg_blocker.or(match allocating {
            Some(arg) if takes_strings => Some((
                arg.span,
                "this argument may allocate on the V8 heap during the call (a small `&mut [u8]` \
                 array is moved off it; a handle lets the op reach a buffer's backing store), \
                 which would move the op's string arguments under a fast call",
            )),
            _ => None,
        });
        arg_blocker.or(match self.ret.fast() {
            FastRet::Unsupported(reason) => Some((self.ret.span, reason)),
            FastRet::Value { .. } => None,
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
    /// so the string is the op's only such argument.
    pub fn borrows_strings_in_place(&self) -> bool {
        let allocating = self
            .args
            .iter()
            .filter(|arg| arg.kind.may_allocate_during_call())
            .count();
        !self.can_run_js() && allocating == 1
    }

    /// What of V8 the slow path holds: the most any argument or the return value needs.
    pub fn slow_access(&self) -> V8Access {
        let args = self.args.iter().map(|arg| arg.kind.slow_access());
        let needed = args.chain([self.ret.kind.slow_access()]).max();
        // A fallible op that can run JavaScript is called under a `TryCatch` (its `Err` must not
        // replace an exception JavaScript threw), which needs a scope.
        if self.ret.fallible && self.can_run_js() {
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
        arg_64 || matches!(self.ret.fast(), FastRet::Value { ctype, .. } if ctype.is_64_bit())
    }
}

/// Classifies one argument, `Option<T>` included.
fn classify_arg(param: &Param) -> Result<Arg, syn::Error> {
    let inner = unwrap_generic(&param.ty, "Option");
    let ty = inner.unwrap_or(&param.ty);
    let kind = ArgKind::classify(ty, &param.markers)?;
    if inner.is_some() && !kind.is_js_visible() {
        return Err(syn::Error::new_spanned(
            &param.ty,
            format!(
                "`{}` cannot be optional: it does not come from JavaScript",
                type_text(ty)
            ),
        ));
    }
    Ok(Arg {
        ident: param.ident.clone(),
        kind,
        optional: inner.is_some(),
        js_index: None, // numbered once every argument is known, in `Op::from_ast`
        ty: ty.clone(),
        span: param.span,
    })
}

/// The type as the user wrote it, spaced as rustfmt would for short types.
fn type_text(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" :: ", "::")
        .replace("* const ", "*const ")
        .replace("* mut ", "*mut ")
}
