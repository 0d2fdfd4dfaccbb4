//! The argument half of the kind table: every argument type an op can take and, in one
//! `match` per question with no wildcard, everything the checks and emitters ask of it. A new
//! kind is a variant here, and the compiler points at each decision it must make.

use super::contract::{FastHelper, Marker, SlowHelper};
use super::strategy::{FastArg, FastConvert, SlowArg, V8Access};
use super::values::{
    BigIntType, BufferSource, CType, ElementType, LocalType, NumberType, Passed, PtrTarget,
    TsOfRustType, TypeAttribute,
};

/// Every argument type an op can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `bool`.
    Bool,
    /// A number type; the 64-bit and pointer-sized ones with `#[number]`.
    Number(NumberType),
    /// `#[smi] T`: any integer type (aliases too), as an `i32`.
    Smi,
    /// `#[bigint] T`.
    BigInt(BigIntType),
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
    /// `#[buffer(copy)] Vec<u8>`, `Box<[u8]>`, `bytes::Bytes`, `bytes::BytesMut`: a view's
    /// bytes, copied (the type is inferred: `runtime_core::__op::CopiedBytes`).
    BufferCopy,
    /// `#[buffer] &[T]` / `#[buffer] &mut [T]`: a typed array's elements, borrowed.
    Typed {
        /// The element type.
        elem: ElementType,
        /// `&mut [T]`.
        mutable: bool,
    },
    /// `#[buffer(copy)] Vec<T>` / `Box<[T]>`: a typed array's elements, copied.
    TypedCopy {
        /// The element type.
        elem: ElementType,
        /// `Box<[T]>`.
        boxed: bool,
    },
    /// `#[arraybuffer] &[u8]` / `#[arraybuffer] &mut [u8]`: an ArrayBuffer's bytes.
    ArrayBuffer {
        /// `&mut [u8]`.
        mutable: bool,
    },
    /// `#[anybuffer] &[u8]` / `&mut [u8]`: an ArrayBuffer's or a view's bytes.
    AnyBuffer {
        /// `&mut [u8]`.
        mutable: bool,
    },
    /// `#[arraybuffer(copy)]` of the same types: an ArrayBuffer's bytes, copied.
    ArrayBufferCopy,
    /// `#[buffer] *const u8` / `*mut u8`: a pointer to a view's bytes (null when empty); to an
    /// ArrayBuffer's with `#[arraybuffer]`; `#[buffer] *const T`, to a typed array's elements.
    BufferPtr {
        /// `*mut`.
        mutable: bool,
        target: PtrTarget,
    },
    /// `JsBuffer` (`V8Slice<u8>`): JavaScript's memory kept without a copy.
    JsBuffer(BufferSource),
    /// `#[buffer] V8Slice<T>`: a typed array's memory kept without a copy.
    TypedJsBuffer(ElementType),
    /// `DetachedBuffer` (`#[buffer(detach)]`, ...): JavaScript's memory taken.
    Detached(BufferSource),
    /// `v8::Local<v8::T>`, or `&v8::T` (deno's form: the same handle, dereferenced).
    Local {
        /// The handle type.
        ty: LocalType,
        /// `&v8::T`.
        by_ref: bool,
    },
    /// `v8::Global<v8::T>`: the handle, kept beyond the call.
    Global(LocalType),
    /// `*const c_void` / `*mut c_void`: an External's pointer.
    External {
        /// `*mut c_void`.
        mutable: bool,
    },
    /// `#[from_v8] T`: any `T: FromV8`.
    FromV8,
    /// `#[serde] T`: any `T: serde::de::DeserializeOwned`.
    Serde,
    /// `#[webidl] T`: any `T: WebIdlConverter` (WebIDL's conversion rules).
    WebIdl,
    /// A class method's receiver, `&self` (`#[this] &T` in the op `#[op] impl` makes).
    Receiver,
    /// `#[cppgc] &T`: an instance of `T`'s class (`#[op] impl T`).
    Cppgc,
    /// An instance held beyond the call (`Held<T>`, a cppgc persistent handle): the receiver of
    /// an async method (`receiver`), or a `#[cppgc] Held<T>` argument.
    Held { receiver: bool },
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
    /// Through it the op can reach (detach, resize, write) any buffer's memory.
    pub reaches_buffers: bool,
    /// What of V8 the slow path must hold to read it.
    pub slow_access: V8Access,
    /// The op can reach the runtime's `TerminationHandle` through it (the op state).
    pub can_request_termination: bool,
    /// The type attribute that may mark it (`#[bigint]`, `#[string]`, `#[buffer]`...); any
    /// other is refused at the attribute.
    pub marked_by: Option<TypeAttribute>,
}

/// What a kind that JavaScript passes and that needs nothing special is.
const PLAIN: ArgTraits = ArgTraits {
    js_visible: true,
    reads_string: false,
    may_allocate_during_call: false,
    can_run_js: false,
    borrows_buffer: None,
    reaches_buffers: false,
    slow_access: V8Access::Nothing,
    can_request_termination: false,
    marked_by: None,
};

impl ArgKind {
    /// One of each kind (every handle type, both mutabilities, every number type), for the
    /// supported-types list and the tests over the whole table.
    pub fn examples() -> Vec<ArgKind> {
        let mut kinds = vec![ArgKind::Bool];
        kinds.extend(NumberType::ALL.map(ArgKind::Number));
        kinds.push(ArgKind::Smi);
        kinds.extend(BigIntType::ALL.map(ArgKind::BigInt));
        kinds.extend([
            ArgKind::Str,
            ArgKind::CowStr,
            ArgKind::String,
            ArgKind::OneByte,
            ArgKind::ByteString,
        ]);
        for mutable in [false, true] {
            kinds.push(ArgKind::Buffer { mutable });
        }
        kinds.push(ArgKind::BufferCopy);
        for elem in ElementType::ALL {
            for mutable in [false, true] {
                kinds.push(ArgKind::Typed { elem, mutable });
            }
            for boxed in [false, true] {
                kinds.push(ArgKind::TypedCopy { elem, boxed });
            }
            for mutable in [false, true] {
                kinds.push(ArgKind::BufferPtr {
                    mutable,
                    target: PtrTarget::Typed(elem),
                });
            }
        }
        for mutable in [false, true] {
            kinds.push(ArgKind::ArrayBuffer { mutable });
        }
        for flag in [false, true] {
            kinds.push(ArgKind::AnyBuffer { mutable: flag });
            kinds.push(ArgKind::BufferPtr {
                mutable: flag,
                target: PtrTarget::View,
            });
            kinds.push(ArgKind::BufferPtr {
                mutable: flag,
                target: PtrTarget::ArrayBuffer,
            });
        }
        kinds.push(ArgKind::ArrayBufferCopy);
        kinds.extend(BufferSource::ALL.map(ArgKind::JsBuffer));
        kinds.extend(ElementType::ALL.map(ArgKind::TypedJsBuffer));
        kinds.extend(BufferSource::ALL.map(ArgKind::Detached));
        for by_ref in [false, true] {
            kinds.extend(
                LocalType::ALL
                    .iter()
                    .map(|&ty| ArgKind::Local { ty, by_ref }),
            );
        }
        kinds.extend(LocalType::ALL.iter().map(|&ty| ArgKind::Global(ty)));
        for mutable in [false, true] {
            kinds.push(ArgKind::External { mutable });
        }
        kinds.extend([
            ArgKind::FromV8,
            ArgKind::Serde,
            ArgKind::WebIdl,
            ArgKind::Receiver,
            ArgKind::Cppgc,
            ArgKind::Held { receiver: true },
            ArgKind::Held { receiver: false },
            ArgKind::OpStateRef,
            ArgKind::OpStateMut,
            ArgKind::OpStateRc,
            ArgKind::Scope,
            ArgKind::Isolate,
        ]);
        kinds
    }

    /// How the docs and the "supported" list spell it.
    pub fn spelling(self) -> String {
        match self {
            ArgKind::Bool => "bool".into(),
            ArgKind::Number(number) if number.is_wide() => format!("#[number] {}", number.name()),
            ArgKind::Number(number) => number.name().into(),
            ArgKind::Smi => "#[smi] <any integer type>".into(),
            ArgKind::BigInt(bigint) => format!("#[bigint] {}", bigint.name()),
            ArgKind::Str => "#[string] &str".into(),
            ArgKind::CowStr => "#[string] Cow<str>".into(),
            ArgKind::String => "#[string] String".into(),
            ArgKind::OneByte => "#[string(onebyte)] Cow<[u8]>".into(),
            ArgKind::ByteString => "ByteString".into(),
            ArgKind::Buffer { mutable: false } => "#[buffer] &[u8]".into(),
            ArgKind::Buffer { mutable: true } => "#[buffer] &mut [u8]".into(),
            ArgKind::BufferCopy => {
                "#[buffer(copy)] Vec<u8> / Box<[u8]> / bytes::Bytes / bytes::BytesMut".into()
            }
            // One spelling per family: the element type is the user's.
            ArgKind::Typed { mutable: false, .. } => "#[buffer] &[T]".into(),
            ArgKind::Typed { mutable: true, .. } => "#[buffer] &mut [T]".into(),
            ArgKind::TypedCopy { boxed: false, .. } => "#[buffer(copy)] Vec<T>".into(),
            ArgKind::TypedCopy { boxed: true, .. } => "#[buffer(copy)] Box<[T]>".into(),
            ArgKind::ArrayBuffer { mutable: false } => "#[arraybuffer] &[u8]".into(),
            ArgKind::ArrayBuffer { mutable: true } => "#[arraybuffer] &mut [u8]".into(),
            ArgKind::AnyBuffer { mutable: false } => "#[anybuffer] &[u8]".into(),
            ArgKind::AnyBuffer { mutable: true } => "#[anybuffer] &mut [u8]".into(),
            ArgKind::ArrayBufferCopy => {
                "#[arraybuffer(copy)] Vec<u8> / Box<[u8]> / bytes::Bytes / bytes::BytesMut".into()
            }
            ArgKind::BufferPtr { mutable, target } => {
                let pointer = if mutable { "*mut" } else { "*const" };
                match target {
                    PtrTarget::View => format!("#[buffer] {pointer} u8"),
                    PtrTarget::ArrayBuffer => format!("#[arraybuffer] {pointer} u8"),
                    PtrTarget::Typed(_) => format!("#[buffer] {pointer} T"),
                }
            }
            ArgKind::JsBuffer(source) => format!("{} JsBuffer", source.attribute()),
            ArgKind::TypedJsBuffer(_) => "#[buffer] V8Slice<T>".into(),
            ArgKind::Detached(source) => format!(
                "{}(detach)] DetachedBuffer",
                source.attribute().trim_end_matches(']')
            ),
            ArgKind::Local {
                ty: LocalType::Value,
                by_ref: false,
            } => "v8::Local<v8::Value>".into(),
            ArgKind::Local {
                ty: LocalType::Value,
                by_ref: true,
            } => "&v8::Value".into(),
            ArgKind::Local { by_ref: false, .. } => "v8::Local<v8::T>".into(),
            ArgKind::Local { by_ref: true, .. } => "&v8::T".into(),
            ArgKind::Global(_) => "v8::Global<v8::T>".into(),
            ArgKind::External { mutable: false } => "*const c_void".into(),
            ArgKind::External { mutable: true } => "*mut c_void".into(),
            ArgKind::FromV8 => "#[from_v8] T".into(),
            ArgKind::Serde => "#[serde] T".into(),
            ArgKind::WebIdl => "#[webidl] T".into(),
            ArgKind::Receiver => "&self (in `#[op] impl`)".into(),
            ArgKind::Cppgc => "#[cppgc] &T".into(),
            ArgKind::Held { receiver: true } => "&self (in an async method)".into(),
            ArgKind::Held { receiver: false } => "#[cppgc] Held<T>".into(),
            ArgKind::OpStateRef => "&OpState".into(),
            ArgKind::OpStateMut => "&mut OpState".into(),
            ArgKind::OpStateRc => "Rc<RefCell<OpState>>".into(),
            ArgKind::Scope => "&mut v8::PinScope".into(),
            ArgKind::Isolate => "&mut v8::Isolate".into(),
        }
    }

    /// Everything the checks and emitters ask of this kind; see [`ArgTraits`].
    pub fn traits(self) -> ArgTraits {
        // Read through a `ValueView` made from the isolate: it may flatten the string (an
        // allocation, inside the handle scope V8 opens for every callback).
        const STRING: ArgTraits = ArgTraits {
            reads_string: true,
            may_allocate_during_call: true,
            slow_access: V8Access::Isolate,
            marked_by: Some(TypeAttribute::Utf8String),
            ..PLAIN
        };
        const BUFFER: ArgTraits = ArgTraits {
            marked_by: Some(TypeAttribute::Buffer),
            ..PLAIN
        };
        // Not from JavaScript: the runtime's state.
        const STATE: ArgTraits = ArgTraits {
            js_visible: false,
            can_request_termination: true,
            ..PLAIN
        };
        match self {
            ArgKind::Bool | ArgKind::Smi => PLAIN,
            ArgKind::Number(_) => ArgTraits {
                marked_by: Some(TypeAttribute::Number),
                ..PLAIN
            },
            ArgKind::BigInt(_) => ArgTraits {
                marked_by: Some(TypeAttribute::BigInt),
                ..PLAIN
            },
            ArgKind::Str | ArgKind::CowStr | ArgKind::String | ArgKind::ByteString => STRING,
            ArgKind::OneByte => ArgTraits {
                marked_by: Some(TypeAttribute::OneByteString),
                ..STRING
            },
            // A small array on the V8 heap borrowed mutably is moved off it first (rare paths
            // make their own scope, so the slow path holds nothing).
            ArgKind::Buffer { mutable } => ArgTraits {
                may_allocate_during_call: mutable,
                borrows_buffer: Some(mutable),
                ..BUFFER
            },
            ArgKind::BufferCopy | ArgKind::TypedCopy { .. } => BUFFER,
            // As the bytes of a view (they are read as those, then checked and cast).
            ArgKind::Typed { mutable, .. } => ArgTraits {
                may_allocate_during_call: mutable,
                borrows_buffer: Some(mutable),
                ..BUFFER
            },
            ArgKind::ArrayBuffer { mutable } => ArgTraits {
                borrows_buffer: Some(mutable),
                ..BUFFER
            },
            // As a view's bytes, which it may be.
            ArgKind::AnyBuffer { mutable } => ArgTraits {
                may_allocate_during_call: mutable,
                borrows_buffer: Some(mutable),
                ..BUFFER
            },
            ArgKind::ArrayBufferCopy => BUFFER,
            // No Rust borrow (what the op does with the pointer is its own `unsafe`), but a
            // small array is moved off the V8 heap first, as for `&mut [u8]`.
            ArgKind::BufferPtr {
                target: PtrTarget::View | PtrTarget::Typed(_),
                ..
            } => ArgTraits {
                may_allocate_during_call: true,
                ..BUFFER
            },
            // An ArrayBuffer's memory is never on the V8 heap.
            ArgKind::BufferPtr {
                target: PtrTarget::ArrayBuffer,
                ..
            } => BUFFER,
            // A view's buffer may be made on the V8 heap to keep; through its cells the op can
            // write memory another argument borrows.
            ArgKind::JsBuffer(_) | ArgKind::TypedJsBuffer(_) => ArgTraits {
                may_allocate_during_call: true,
                reaches_buffers: true,
                ..BUFFER
            },
            // Detaching needs the view's ArrayBuffer (made on the V8 heap, in a scope).
            ArgKind::Detached(_) => ArgTraits {
                may_allocate_during_call: true,
                reaches_buffers: true,
                slow_access: V8Access::Scope,
                ..BUFFER
            },
            // A handle that can reach a buffer lets the op move or detach its bytes
            // (`get_backing_store` needs no scope).
            ArgKind::Local { ty, .. } => ArgTraits {
                may_allocate_during_call: ty.can_reach_buffers(),
                reaches_buffers: ty.can_reach_buffers(),
                ..PLAIN
            },
            // Made with the isolate (a global handle, not the V8 heap); as reaching as a local.
            ArgKind::Global(ty) => ArgTraits {
                may_allocate_during_call: ty.can_reach_buffers(),
                reaches_buffers: ty.can_reach_buffers(),
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
            ArgKind::External { .. } => PLAIN,
            // Getters may run during the conversion.
            // V8 checked the receiver against the class's signature; unwrapping reads the
            // object's wrapped pointer with the isolate.
            ArgKind::Receiver => ArgTraits {
                js_visible: false,
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
            ArgKind::Cppgc => ArgTraits {
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
            ArgKind::Held { receiver } => ArgTraits {
                js_visible: !receiver,
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
            ArgKind::FromV8 | ArgKind::Serde | ArgKind::WebIdl => ArgTraits {
                can_run_js: true,
                reaches_buffers: true,
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
                reaches_buffers: true,
                slow_access: V8Access::Scope,
                ..PLAIN
            },
            ArgKind::Isolate => ArgTraits {
                js_visible: false,
                can_run_js: true,
                reaches_buffers: true,
                slow_access: V8Access::Isolate,
                ..PLAIN
            },
        }
    }

    /// The slow-path strategy.
    pub fn slow(self) -> SlowArg {
        let convert = |helper| SlowArg::Convert { helper };
        let lent = |helper| SlowArg::Lent { helper };
        let buffered = |in_place, copied| SlowArg::Buffered { in_place, copied };
        match self {
            ArgKind::Bool => SlowArg::Trait(Marker::Bool),
            ArgKind::Number(_) => SlowArg::Trait(Marker::Number),
            ArgKind::Smi => SlowArg::Trait(Marker::Smi),
            ArgKind::BigInt(_) => SlowArg::Trait(Marker::BigInt),
            ArgKind::Str => buffered(SlowHelper::Str, SlowHelper::StrCopied),
            ArgKind::CowStr => buffered(SlowHelper::CowStr, SlowHelper::CowStrCopied),
            ArgKind::String => convert(SlowHelper::String),
            ArgKind::OneByte => buffered(SlowHelper::OneByte, SlowHelper::OneByteCopied),
            ArgKind::ByteString => convert(SlowHelper::ByteString),
            ArgKind::Buffer { mutable: false } => SlowArg::WithStorage {
                helper: SlowHelper::Buffer,
            },
            ArgKind::Buffer { mutable: true } => lent(SlowHelper::BufferMut),
            // The owned type is inferred from the function's parameter.
            ArgKind::BufferCopy => convert(SlowHelper::BufferCopy),
            // The element type is inferred from the function's parameter.
            ArgKind::Typed { mutable: false, .. } => SlowArg::WithStorage {
                helper: SlowHelper::Typed,
            },
            ArgKind::Typed { mutable: true, .. } => lent(SlowHelper::TypedMut),
            ArgKind::TypedCopy { boxed: false, .. } => convert(SlowHelper::TypedVec),
            ArgKind::TypedCopy { boxed: true, .. } => convert(SlowHelper::TypedBox),
            ArgKind::ArrayBuffer { mutable: false } => lent(SlowHelper::ArrayBuffer),
            ArgKind::ArrayBuffer { mutable: true } => lent(SlowHelper::ArrayBufferMut),
            ArgKind::AnyBuffer { mutable: false } => SlowArg::WithStorage {
                helper: SlowHelper::AnyBuffer,
            },
            ArgKind::AnyBuffer { mutable: true } => lent(SlowHelper::AnyBufferMut),
            ArgKind::ArrayBufferCopy => convert(SlowHelper::ArrayBufferCopy),
            // The element type is inferred from the function's parameter.
            ArgKind::BufferPtr { mutable, target } => convert(match (target, mutable) {
                (PtrTarget::View, false) => SlowHelper::BufferPtrConst,
                (PtrTarget::View, true) => SlowHelper::BufferPtr,
                (PtrTarget::ArrayBuffer, false) => SlowHelper::ArrayBufferPtrConst,
                (PtrTarget::ArrayBuffer, true) => SlowHelper::ArrayBufferPtr,
                (PtrTarget::Typed(_), false) => SlowHelper::TypedPtrConst,
                (PtrTarget::Typed(_), true) => SlowHelper::TypedPtr,
            }),
            ArgKind::JsBuffer(source) => SlowArg::FromSource {
                helper: SlowHelper::JsBuffer,
                source,
            },
            // The element type is inferred from the function's parameter.
            ArgKind::TypedJsBuffer(_) => convert(SlowHelper::TypedJsBuffer),
            ArgKind::Detached(source) => SlowArg::FromSource {
                helper: SlowHelper::Detached,
                source,
            },
            ArgKind::Local { ty, .. } => SlowArg::Local(ty),
            ArgKind::Global(ty) => SlowArg::Global(ty),
            ArgKind::External { mutable: false } => convert(SlowHelper::External),
            ArgKind::External { mutable: true } => convert(SlowHelper::ExternalMut),
            ArgKind::FromV8 => SlowArg::FromV8,
            ArgKind::Serde => SlowArg::Serde,
            ArgKind::WebIdl => SlowArg::WebIdl,
            ArgKind::Receiver => SlowArg::Receiver,
            ArgKind::Cppgc => SlowArg::Cppgc,
            ArgKind::Held { receiver } => SlowArg::Held { receiver },
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
            ArgKind::Bool => param(CType::Bool, FastConvert::Trait(Marker::Bool)),
            ArgKind::Number(number) => param(number.ctype(), FastConvert::Trait(Marker::Number)),
            ArgKind::Smi => param(CType::Int32, FastConvert::Trait(Marker::Smi)),
            ArgKind::BigInt(bigint) => param(bigint.ctype(), FastConvert::Trait(Marker::BigInt)),
            ArgKind::Str => string(FastHelper::Str, true),
            ArgKind::CowStr => string(FastHelper::CowStr, true),
            ArgKind::String => string(FastHelper::String, false),
            ArgKind::OneByte => string(FastHelper::OneByte, false),
            ArgKind::ByteString => string(FastHelper::ByteString, false),
            ArgKind::Buffer { mutable: false } => param(
                CType::V8Value,
                FastConvert::CheckedWithStorage { name: FastHelper::Buffer },
            ),
            ArgKind::Buffer { mutable: true } => checked(FastHelper::BufferMut),
            ArgKind::BufferCopy => checked(FastHelper::BufferCopy),
            ArgKind::Typed { mutable: false, .. } => param(
                CType::V8Value,
                FastConvert::CheckedWithStorage { name: FastHelper::Typed },
            ),
            ArgKind::Typed { mutable: true, .. } => checked(FastHelper::TypedMut),
            ArgKind::TypedCopy { boxed: false, .. } => checked(FastHelper::TypedVec),
            ArgKind::TypedCopy { boxed: true, .. } => checked(FastHelper::TypedBox),
            ArgKind::ArrayBuffer { mutable: false } => checked(FastHelper::ArrayBuffer),
            ArgKind::ArrayBuffer { mutable: true } => checked(FastHelper::ArrayBufferMut),
            ArgKind::AnyBuffer { mutable: false } => param(
                CType::V8Value,
                FastConvert::CheckedWithStorage {
                    name: FastHelper::AnyBuffer,
                },
            ),
            ArgKind::AnyBuffer { mutable: true } => checked(FastHelper::AnyBufferMut),
            ArgKind::ArrayBufferCopy => checked(FastHelper::ArrayBufferCopy),
            ArgKind::BufferPtr { mutable, target } => checked(match (target, mutable) {
                (PtrTarget::View, false) => FastHelper::BufferPtrConst,
                (PtrTarget::View, true) => FastHelper::BufferPtr,
                (PtrTarget::ArrayBuffer, false) => FastHelper::ArrayBufferPtrConst,
                (PtrTarget::ArrayBuffer, true) => FastHelper::ArrayBufferPtr,
                (PtrTarget::Typed(_), false) => FastHelper::TypedPtrConst,
                (PtrTarget::Typed(_), true) => FastHelper::TypedPtr,
            }),
            ArgKind::JsBuffer(source) => param(
                CType::V8Value,
                FastConvert::CheckedWithSource {
                    name: FastHelper::JsBuffer,
                    source,
                },
            ),
            ArgKind::TypedJsBuffer(_) => checked(FastHelper::TypedJsBuffer),
            ArgKind::Detached(_) => FastArg::Unsupported(
                "detaching an ArrayBuffer needs a handle scope, which a fast call does not hold",
            ),
            ArgKind::Local {
                ty: LocalType::Value,
                ..
            } => param(CType::V8Value, FastConvert::Direct),
            ArgKind::Local { ty, .. } => param(CType::V8Value, FastConvert::CheckedLocal(ty)),
            ArgKind::Global(_) => FastArg::Unsupported(
                "a `v8::Global` is made with the isolate, which a fast call does not hold; take a `v8::Local`",
            ),
            ArgKind::External { mutable: false } => param(CType::Pointer, FastConvert::CastConst),
            ArgKind::External { mutable: true } => param(CType::Pointer, FastConvert::Direct),
            ArgKind::OpStateRef => FastArg::StateRef,
            ArgKind::OpStateMut => FastArg::StateMut,
            ArgKind::OpStateRc => FastArg::StateRc,
            // V8 takes these fast paths only for a sequential one-byte string, which runs no
            // JavaScript; any other value (an object's getters may run) takes the slow path.
            // A `FromV8` type's is registered only if it reads strings (`READS_ONE_BYTE`).
            ArgKind::FromV8 => param(
                CType::SeqOneByteString,
                FastConvert::FromOneByte { serde: false },
            ),
            ArgKind::Serde => param(
                CType::SeqOneByteString,
                FastConvert::FromOneByte { serde: true },
            ),
            ArgKind::WebIdl => FastArg::Unsupported(
                "a WebIDL conversion may allocate on the V8 heap and run JavaScript",
            ),
            ArgKind::Receiver => FastArg::Receiver,
            ArgKind::Cppgc => param(CType::V8Value, FastConvert::Cppgc),
            ArgKind::Held { .. } => FastArg::Unsupported(
                "holding an instance beyond the call makes a persistent handle (an allocation), which opwire does on the slow path only",
            ),
            ArgKind::Scope => FastArg::Unsupported(
                "a handle scope lets the op allocate on the V8 heap and run JavaScript, which a fast call must not do",
            ),
            ArgKind::Isolate => FastArg::Unsupported(
                "the isolate lets the op allocate on the V8 heap and run JavaScript, which a fast call must not do",
            ),
        }
    }

    /// Whether `Option<T>` of it is read on the fast path (numbers and handles, from the value
    /// itself: no Fast API type takes `undefined`); other `Option`s take the slow path.
    pub fn optional_is_fast(self) -> bool {
        match self {
            ArgKind::Number(_) | ArgKind::Local { .. } | ArgKind::Cppgc => true,
            ArgKind::Bool
            | ArgKind::Smi
            | ArgKind::BigInt(_)
            | ArgKind::Str
            | ArgKind::CowStr
            | ArgKind::String
            | ArgKind::OneByte
            | ArgKind::ByteString
            | ArgKind::Buffer { .. }
            | ArgKind::BufferCopy
            | ArgKind::Typed { .. }
            | ArgKind::TypedCopy { .. }
            | ArgKind::ArrayBuffer { .. }
            | ArgKind::AnyBuffer { .. }
            | ArgKind::ArrayBufferCopy
            | ArgKind::BufferPtr { .. }
            | ArgKind::JsBuffer(_)
            | ArgKind::TypedJsBuffer(_)
            | ArgKind::Detached(_)
            | ArgKind::Global(_)
            | ArgKind::External { .. }
            | ArgKind::FromV8
            | ArgKind::Serde
            | ArgKind::WebIdl
            | ArgKind::Receiver
            | ArgKind::Held { .. }
            | ArgKind::OpStateRef
            | ArgKind::OpStateMut
            | ArgKind::OpStateRc
            | ArgKind::Scope
            | ArgKind::Isolate => false,
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

impl ArgKind {
    /// The number of variants (see [`ArgKind::variant_index`]).
    pub const VARIANTS: usize = 35;

    /// A distinct number per variant, below [`ArgKind::VARIANTS`]: a `match` without a
    /// wildcard, so a new variant does not compile until it is counted, and a test then checks
    /// that [`ArgKind::examples`] has it.
    pub fn variant_index(self) -> usize {
        match self {
            ArgKind::Bool => 0,
            ArgKind::Number(_) => 1,
            ArgKind::Smi => 2,
            ArgKind::BigInt(_) => 3,
            ArgKind::Str => 4,
            ArgKind::CowStr => 5,
            ArgKind::String => 6,
            ArgKind::OneByte => 7,
            ArgKind::ByteString => 8,
            ArgKind::Buffer { .. } => 9,
            ArgKind::BufferCopy => 10,
            ArgKind::Typed { .. } => 11,
            ArgKind::TypedCopy { .. } => 12,
            ArgKind::ArrayBuffer { .. } => 13,
            ArgKind::AnyBuffer { .. } => 14,
            ArgKind::ArrayBufferCopy => 15,
            ArgKind::BufferPtr { .. } => 16,
            ArgKind::JsBuffer(_) => 17,
            ArgKind::TypedJsBuffer(_) => 28,
            ArgKind::Detached(_) => 18,
            ArgKind::Local { .. } => 19,
            ArgKind::Global(_) => 20,
            ArgKind::External { .. } => 21,
            ArgKind::FromV8 => 22,
            ArgKind::Serde => 29,
            ArgKind::WebIdl => 30,
            ArgKind::Receiver => 31,
            ArgKind::Cppgc => 32,
            ArgKind::Held { receiver } => 33 + usize::from(receiver),
            ArgKind::OpStateRef => 23,
            ArgKind::OpStateMut => 24,
            ArgKind::OpStateRc => 25,
            ArgKind::Scope | ArgKind::Isolate => 26 + usize::from(self == ArgKind::Isolate),
        }
    }

    /// What JavaScript passes for it, for the generated docs table.
    pub fn accepts(self) -> &'static str {
        match self {
            ArgKind::Bool => "any value, by `ToBoolean`",
            ArgKind::Number(NumberType::F32) => "a Number, rounded to the nearest `f32`",
            ArgKind::Number(NumberType::F64) => "a Number, as is",
            ArgKind::Number(number) if number.is_wide() => {
                "a Number, truncated toward zero and saturated at the type's bounds (NaN: 0)"
            }
            ArgKind::Number(_) => "a Number, by `ToInt32`/`ToUint32`, then wrapped to the width",
            ArgKind::Smi => "a Number, by `ToInt32`, then cast to the type (wrapping)",
            ArgKind::BigInt(_) => "a BigInt, wrapped to 64 bits",
            ArgKind::Str | ArgKind::CowStr => {
                "a string, as UTF-8 (lone surrogates become U+FFFD), borrowed or buffered"
            }
            ArgKind::String => "a string: one allocation of the exact UTF-8 length",
            ArgKind::OneByte => "a string of characters up to U+00FF, as its Latin-1 bytes",
            ArgKind::ByteString => "likewise, owned",
            ArgKind::Buffer { .. } => {
                "the bytes of any ArrayBufferView, borrowed; detached: `TypeError`"
            }
            ArgKind::BufferCopy => "likewise, copied: safe to keep",
            ArgKind::Typed { .. } => {
                "a typed array of `T` (i8, u16, i16, u32, i32, u64, i64, f32, f64: Int8Array ... \
                 Float64Array), borrowed; memory not aligned for `T`: `TypeError`"
            }
            ArgKind::TypedCopy { .. } => "likewise, copied (any alignment)",
            ArgKind::ArrayBuffer { .. } => "an ArrayBuffer's bytes, borrowed",
            ArgKind::AnyBuffer { .. } => "an ArrayBuffer's or any view's bytes, borrowed",
            ArgKind::ArrayBufferCopy => "an ArrayBuffer's bytes, copied",
            ArgKind::BufferPtr {
                target: PtrTarget::View,
                ..
            } => {
                "a pointer to a view's bytes (null when empty); what the op does with it is its `unsafe`"
            }
            ArgKind::BufferPtr {
                target: PtrTarget::ArrayBuffer,
                ..
            } => "a pointer to an ArrayBuffer's bytes (null when empty)",
            ArgKind::BufferPtr {
                target: PtrTarget::Typed(_),
                ..
            } => {
                "a pointer to a typed array of `T`'s elements (null when empty); memory not aligned for `T`: `TypeError`"
            }
            ArgKind::JsBuffer(_) => {
                "that buffer's memory, kept alive without a copy (as cells: JavaScript may write it); shared or resizable memory: `TypeError`"
            }
            ArgKind::TypedJsBuffer(_) => {
                "a typed array of `T`, its memory kept alive without a copy (as cells)"
            }
            ArgKind::Detached(_) => {
                "that buffer's memory, taken: JavaScript's ArrayBuffer is detached; `Send`, derefs to `[u8]`"
            }
            ArgKind::Local {
                ty: LocalType::Value,
                ..
            } => "any value",
            ArgKind::Local { .. } => "a value of that type (else a `TypeError`)",
            ArgKind::Global(_) => "likewise, kept in a global handle",
            ArgKind::External { .. } => "an External (or `null`: a null pointer)",
            ArgKind::FromV8 => "anything `T: FromV8` accepts",
            ArgKind::Serde => "anything `T: serde::Deserialize` reads (JSON-like values)",
            ArgKind::Receiver => "nothing: the method's receiver (`this`), checked by V8",
            ArgKind::Cppgc => "an instance of `T`'s class (else a `TypeError`)",
            ArgKind::Held { receiver: true } => "nothing: the async method's receiver, held until it settles",
            ArgKind::Held { receiver: false } => "an instance of `T`'s class, held until the op settles",
            ArgKind::WebIdl => "what WebIDL's rules convert to `T` (`#[derive(WebIDL)]` dictionaries and enums, numbers, strings, sequences)",
            ArgKind::OpStateRef | ArgKind::OpStateMut | ArgKind::OpStateRc => {
                "nothing: the runtime's typed state"
            }
            ArgKind::Scope | ArgKind::Isolate => "nothing: for ops that call back into V8",
        }
    }
}

impl ArgKind {
    /// For kinds that borrow what lives only during the call (and so cannot be held by an
    /// `async fn` op's future): what to take instead. `None`: it outlives the call.
    pub fn owned_alternative(self) -> Option<&'static str> {
        match self {
            ArgKind::Bool
            | ArgKind::Number(_)
            | ArgKind::Smi
            | ArgKind::BigInt(_)
            | ArgKind::String
            | ArgKind::ByteString
            | ArgKind::BufferCopy
            | ArgKind::TypedCopy { .. }
            | ArgKind::ArrayBufferCopy
            | ArgKind::JsBuffer(_)
            | ArgKind::TypedJsBuffer(_)
            | ArgKind::Detached(_)
            | ArgKind::Global(_)
            | ArgKind::External { .. }
            | ArgKind::FromV8
            | ArgKind::Serde
            | ArgKind::WebIdl
            | ArgKind::Held { .. }
            | ArgKind::OpStateRc => None,
            ArgKind::Receiver => {
                Some("an async method's `&self` is held for it (write `async fn name(&self, ..)`)")
            }
            ArgKind::Cppgc => Some("`#[cppgc] Held<T>` (a handle that keeps the instance alive)"),
            ArgKind::Str | ArgKind::CowStr => Some("`#[string] String`"),
            ArgKind::OneByte => Some("`ByteString`"),
            ArgKind::Buffer { .. } | ArgKind::Typed { .. } | ArgKind::BufferPtr { .. } => {
                Some("`#[buffer(copy)] Vec<T>`, or `#[buffer] JsBuffer` (no copy)")
            }
            ArgKind::ArrayBuffer { .. } => {
                Some("`#[arraybuffer(copy)] Vec<u8>`, or `#[arraybuffer] JsBuffer` (no copy)")
            }
            ArgKind::AnyBuffer { .. } => Some("`#[anybuffer] JsBuffer`"),
            ArgKind::Local { .. } => Some("`v8::Global<v8::T>`"),
            ArgKind::OpStateRef | ArgKind::OpStateMut => {
                Some("`Rc<RefCell<OpState>>`, and borrow it between awaits")
            }
            ArgKind::Scope | ArgKind::Isolate => Some(
                "nothing of V8: do the V8 work in a `fn` that returns `impl Future` (the scope is \
                 usable before the future starts)",
            ),
        }
    }
}

impl ArgKind {
    /// Whether its TypeScript type is the Rust type's (then [`ArgKind::ts`] is the fallback).
    pub fn ts_of_rust_type(self) -> Option<TsOfRustType> {
        match self {
            ArgKind::Cppgc | ArgKind::Held { .. } => Some(TsOfRustType::Class),
            ArgKind::FromV8 => Some(TsOfRustType::Structured),
            ArgKind::Serde => Some(TsOfRustType::Serde),
            ArgKind::Bool
            | ArgKind::Number(_)
            | ArgKind::Smi
            | ArgKind::BigInt(_)
            | ArgKind::Str
            | ArgKind::CowStr
            | ArgKind::String
            | ArgKind::OneByte
            | ArgKind::ByteString
            | ArgKind::Buffer { .. }
            | ArgKind::BufferCopy
            | ArgKind::Typed { .. }
            | ArgKind::TypedCopy { .. }
            | ArgKind::ArrayBuffer { .. }
            | ArgKind::AnyBuffer { .. }
            | ArgKind::ArrayBufferCopy
            | ArgKind::BufferPtr { .. }
            | ArgKind::JsBuffer(_)
            | ArgKind::TypedJsBuffer(_)
            | ArgKind::Detached(_)
            | ArgKind::Local { .. }
            | ArgKind::Global(_)
            | ArgKind::External { .. }
            | ArgKind::WebIdl
            | ArgKind::Receiver
            | ArgKind::OpStateRef
            | ArgKind::OpStateMut
            | ArgKind::OpStateRc
            | ArgKind::Scope
            | ArgKind::Isolate => None,
        }
    }

    /// How the user's function is handed the converted argument.
    pub fn passed(self) -> Passed {
        match self {
            ArgKind::OpStateRef => Passed::StateRef,
            ArgKind::OpStateMut => Passed::StateMut,
            ArgKind::Scope => Passed::Scope,
            ArgKind::Isolate => Passed::Isolate,
            ArgKind::Local { by_ref: true, .. } => Passed::HandleRef,
            ArgKind::Local { by_ref: false, .. }
            | ArgKind::Bool
            | ArgKind::Number(_)
            | ArgKind::Smi
            | ArgKind::BigInt(_)
            | ArgKind::Str
            | ArgKind::CowStr
            | ArgKind::String
            | ArgKind::OneByte
            | ArgKind::ByteString
            | ArgKind::Buffer { .. }
            | ArgKind::BufferCopy
            | ArgKind::Typed { .. }
            | ArgKind::TypedCopy { .. }
            | ArgKind::ArrayBuffer { .. }
            | ArgKind::AnyBuffer { .. }
            | ArgKind::ArrayBufferCopy
            | ArgKind::BufferPtr { .. }
            | ArgKind::JsBuffer(_)
            | ArgKind::TypedJsBuffer(_)
            | ArgKind::Detached(_)
            | ArgKind::Global(_)
            | ArgKind::External { .. }
            | ArgKind::FromV8
            | ArgKind::Serde
            | ArgKind::WebIdl
            | ArgKind::Receiver
            | ArgKind::Cppgc
            | ArgKind::Held { .. }
            | ArgKind::OpStateRc => Passed::Value,
        }
    }

    /// Its TypeScript type (for JavaScript-visible kinds; `never` for the others, which no
    /// declaration shows).
    pub fn ts(self) -> String {
        let source = |source: BufferSource| match source {
            BufferSource::View => "ArrayBufferView",
            BufferSource::ArrayBuffer => "ArrayBuffer",
            BufferSource::Any => "ArrayBuffer | ArrayBufferView",
        };
        match self {
            ArgKind::Bool => "boolean".into(),
            ArgKind::Number(_) | ArgKind::Smi => "number".into(),
            ArgKind::BigInt(_) => "bigint".into(),
            ArgKind::Str
            | ArgKind::CowStr
            | ArgKind::String
            | ArgKind::OneByte
            | ArgKind::ByteString => "string".into(),
            ArgKind::Buffer { .. }
            | ArgKind::BufferCopy
            | ArgKind::BufferPtr {
                target: PtrTarget::View,
                ..
            } => "ArrayBufferView".into(),
            ArgKind::BufferPtr {
                target: PtrTarget::ArrayBuffer,
                ..
            } => "ArrayBuffer".into(),
            ArgKind::BufferPtr {
                target: PtrTarget::Typed(elem),
                ..
            } => elem.array().into(),
            ArgKind::Typed { elem, .. } | ArgKind::TypedCopy { elem, .. } => elem.array().into(),
            ArgKind::ArrayBuffer { .. } | ArgKind::ArrayBufferCopy => "ArrayBuffer".into(),
            ArgKind::AnyBuffer { .. } => source(BufferSource::Any).into(),
            ArgKind::JsBuffer(from) | ArgKind::Detached(from) => source(from).into(),
            ArgKind::TypedJsBuffer(elem) => elem.array().into(),
            ArgKind::Local { ty, .. } | ArgKind::Global(ty) => ty.ts().into(),
            ArgKind::External { .. } => "object | null".into(),
            ArgKind::FromV8 | ArgKind::Serde | ArgKind::WebIdl => "unknown".into(),
            ArgKind::Receiver => "never".into(),
            ArgKind::Cppgc => "object".into(),
            ArgKind::Held { .. } => "object".into(),
            ArgKind::OpStateRef
            | ArgKind::OpStateMut
            | ArgKind::OpStateRc
            | ArgKind::Scope
            | ArgKind::Isolate => "never".into(),
        }
    }
}
