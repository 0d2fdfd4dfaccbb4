//! The return half of the kind table.

use super::contract::Marker;
use super::strategy::{FastRet, SlowRet, V8Access};
use super::values::{
    BigIntType, CType, ElementType, LocalType, NumberType, TsOfRustType, TypeAttribute,
};

/// Every return type an op can have (inside any `Result` and `Option`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetKind {
    /// `()`: `undefined`.
    Unit,
    /// `bool`.
    Bool,
    /// A number type; the 64-bit and pointer-sized ones with `#[number]` (a `RangeError`
    /// beyond 2^53 - 1).
    Number(NumberType),
    /// `#[smi] T`: any integer type, as an `i32`.
    Smi,
    /// `#[bigint] T`.
    BigInt(BigIntType),
    /// `String`, `&str`, `Cow<str>`, `ByteString`: a string made from the text.
    String,
    /// `&'static str`, `Cow<'static, str>`: ASCII not copied.
    StaticString,
    /// `#[string(onebyte)] Cow<[u8]>` / `Vec<u8>`: Latin-1 bytes as a string.
    OneByte,
    /// `Vec<T>` / `Box<[T]>` (optionally `#[buffer]`): a typed array over the memory.
    Buffer,
    /// `#[arraybuffer] Vec<u8>` / `Box<[u8]>`: an ArrayBuffer over the memory.
    ArrayBuffer,
    /// `*const c_void` / `*mut c_void`: an External (null: `null`).
    External,
    /// `v8::Local<v8::T>`.
    Local,
    /// `v8::Global<v8::T>`.
    Global,
    /// `#[to_v8] T`: any `T: ToV8`.
    ToV8,
    /// `#[serde] T`: any `T: serde::Serialize`.
    Serde,
    /// `#[cppgc] T`: a new instance of `T`'s class (or, in its constructor, `this`).
    Cppgc,
}

const ALLOCATING_RETURN_IS_SLOW: &str =
    "this return value is made on the V8 heap, which a fast call must not do";

impl RetKind {
    /// One of each kind, for the supported-types list and the tests over the whole table.
    pub fn examples() -> Vec<RetKind> {
        let mut kinds = vec![RetKind::Unit, RetKind::Bool];
        kinds.extend(NumberType::ALL.map(RetKind::Number));
        kinds.push(RetKind::Smi);
        kinds.extend(BigIntType::ALL.map(RetKind::BigInt));
        kinds.extend([
            RetKind::String,
            RetKind::StaticString,
            RetKind::OneByte,
            RetKind::Buffer,
            RetKind::ArrayBuffer,
            RetKind::External,
            RetKind::Local,
            RetKind::Global,
            RetKind::ToV8,
            RetKind::Serde,
            RetKind::Cppgc,
        ]);
        kinds
    }

    /// How the docs and the "supported" list spell it: every type of the kind.
    pub fn spellings(self) -> Vec<String> {
        let list = |spellings: &[&str]| spellings.iter().map(|s| s.to_string()).collect();
        match self {
            RetKind::Unit => list(&["()"]),
            RetKind::Bool => list(&["bool"]),
            RetKind::Number(number) if number.is_wide() => {
                vec![format!("#[number] {}", number.name())]
            }
            RetKind::Number(number) => vec![number.name().to_owned()],
            RetKind::Smi => list(&["#[smi] <any integer type>"]),
            RetKind::BigInt(bigint) => vec![format!("#[bigint] {}", bigint.name())],
            RetKind::String => list(&["String", "&str", "Cow<str>", "ByteString"]),
            RetKind::StaticString => list(&["&'static str", "Cow<'static, str>"]),
            RetKind::OneByte => list(&["#[string(onebyte)] Cow<[u8]>"]),
            RetKind::Buffer => list(&[
                "Vec<u8>",
                "Box<[u8]>",
                "Vec<T>",
                "Box<[T]>",
                "JsBuffer",
                "V8Slice<T>",
                "DetachedBuffer",
                "bytes::Bytes",
                "bytes::BytesMut",
            ]),
            RetKind::ArrayBuffer => list(&[
                "#[arraybuffer] Vec<u8>",
                "#[arraybuffer] Box<[u8]>",
                "#[arraybuffer] JsBuffer",
                "#[arraybuffer] DetachedBuffer",
                "#[arraybuffer] bytes::Bytes",
                "#[arraybuffer] bytes::BytesMut",
            ]),
            RetKind::External => list(&["*const c_void", "*mut c_void"]),
            RetKind::Local => list(&["v8::Local<v8::T>"]),
            RetKind::Global => list(&["v8::Global<v8::T>"]),
            RetKind::ToV8 => list(&["#[to_v8] T"]),
            RetKind::Serde => list(&["#[serde] T"]),
            RetKind::Cppgc => list(&["#[cppgc] T"]),
        }
    }

    /// The type attribute that may mark it (`#[bigint]`, `#[string]`, `#[buffer]`...); any
    /// other is refused at the attribute.
    pub fn marked_by(self) -> Option<TypeAttribute> {
        match self {
            RetKind::Number(_) => Some(TypeAttribute::Number),
            RetKind::BigInt(_) => Some(TypeAttribute::BigInt),
            RetKind::String | RetKind::StaticString => Some(TypeAttribute::Utf8String),
            RetKind::OneByte => Some(TypeAttribute::OneByteString),
            RetKind::Buffer | RetKind::ArrayBuffer => Some(TypeAttribute::Buffer),
            RetKind::Unit
            | RetKind::Bool
            | RetKind::Smi
            | RetKind::External
            | RetKind::Local
            | RetKind::Global
            | RetKind::ToV8
            | RetKind::Serde
            | RetKind::Cppgc => None,
        }
    }

    /// The marker it is set through.
    pub fn marker(self) -> Option<Marker> {
        Some(match self {
            RetKind::Unit => return None,
            RetKind::Bool => Marker::Bool,
            RetKind::Number(_) => Marker::Number,
            RetKind::Smi => Marker::Smi,
            RetKind::BigInt(_) => Marker::BigInt,
            RetKind::String => Marker::String,
            RetKind::StaticString => Marker::StaticString,
            RetKind::OneByte => Marker::OneByte,
            RetKind::Buffer => Marker::Buffer,
            RetKind::ArrayBuffer => Marker::ArrayBuffer,
            RetKind::External => Marker::External,
            RetKind::Local | RetKind::Global => Marker::Handle,
            RetKind::ToV8 => Marker::ToV8,
            RetKind::Serde => Marker::Serde,
            RetKind::Cppgc => Marker::Cppgc,
        })
    }

    /// The slow-path strategy.
    pub fn slow(self) -> SlowRet {
        match self.marker() {
            Some(marker) => SlowRet::Set(marker),
            None => SlowRet::Undefined,
        }
    }

    /// What of V8 setting this return value on the slow path needs: the isolate for the values
    /// runtime_core makes in the handle scope V8 opens for the callback, a handle scope for
    /// the others made on the V8 heap.
    pub fn slow_access(self) -> V8Access {
        match self {
            RetKind::Unit | RetKind::Bool | RetKind::Number(_) | RetKind::Smi | RetKind::Local => {
                V8Access::Nothing
            }
            RetKind::BigInt(_)
            | RetKind::String
            | RetKind::StaticString
            | RetKind::OneByte
            | RetKind::External => V8Access::Isolate,
            RetKind::Buffer
            | RetKind::ArrayBuffer
            | RetKind::Global
            | RetKind::ToV8
            | RetKind::Serde
            | RetKind::Cppgc => V8Access::Scope,
        }
    }

    /// The fast-path strategy.
    pub fn fast(self) -> FastRet {
        let value = |ctype, marker| FastRet::Value {
            ctype,
            marker,
            throws: false,
        };
        match self {
            RetKind::Unit => FastRet::Void,
            RetKind::Bool => value(CType::Bool, Marker::Bool),
            RetKind::Number(number) => FastRet::Value {
                ctype: number.ctype(),
                marker: Marker::Number,
                throws: number.is_wide(),
            },
            RetKind::Smi => value(CType::Int32, Marker::Smi),
            RetKind::BigInt(bigint) => value(bigint.ctype(), Marker::BigInt),
            RetKind::External => value(CType::Pointer, Marker::External),
            RetKind::Local | RetKind::Global => FastRet::Unsupported(
                "a fast call cannot return a handle; V8 takes numbers, booleans and pointers",
            ),
            RetKind::String
            | RetKind::StaticString
            | RetKind::OneByte
            | RetKind::Buffer
            | RetKind::ArrayBuffer
            | RetKind::ToV8
            | RetKind::Serde
            | RetKind::Cppgc => FastRet::Unsupported(ALLOCATING_RETURN_IS_SLOW),
        }
    }
}

impl RetKind {
    /// The number of variants (see [`RetKind::variant_index`]).
    pub const VARIANTS: usize = 16;

    /// A distinct number per variant, below [`RetKind::VARIANTS`] (as
    /// [`crate::ir::ArgKind::variant_index`]).
    pub fn variant_index(self) -> usize {
        match self {
            RetKind::Unit => 0,
            RetKind::Bool => 1,
            RetKind::Number(_) => 2,
            RetKind::Smi => 3,
            RetKind::BigInt(_) => 4,
            RetKind::String => 5,
            RetKind::StaticString => 6,
            RetKind::OneByte => 7,
            RetKind::Buffer => 8,
            RetKind::ArrayBuffer => 9,
            RetKind::External => 10,
            RetKind::Local => 11,
            RetKind::Global => 12,
            RetKind::ToV8 => 13,
            RetKind::Serde => 14,
            RetKind::Cppgc => 15,
        }
    }

    /// What JavaScript gets, for the generated docs table.
    pub fn gives(self) -> &'static str {
        match self {
            RetKind::Unit => "`undefined`",
            RetKind::Bool => "a boolean",
            RetKind::Number(number) if number.is_wide() => {
                "a Number; beyond 2^53 - 1 in magnitude a `RangeError`"
            }
            RetKind::Number(_) => "a Number",
            RetKind::Smi => "a Number: the value cast to `i32` (wrapping)",
            RetKind::BigInt(_) => "a BigInt",
            RetKind::String => "a string (ASCII made one-byte)",
            RetKind::StaticString => "a string; ASCII is an external string over the static bytes",
            RetKind::OneByte => "a one-byte string of the bytes",
            RetKind::Buffer => {
                "a Uint8Array (for `T`, the typed array of `T`) over the Rust memory (no copy)"
            }
            RetKind::ArrayBuffer => {
                "an ArrayBuffer over the memory (no copy; a `JsBuffer` of part of a buffer: a copy of the part)"
            }
            RetKind::External => "an External; null is `null`",
            RetKind::Local | RetKind::Global => "the handle's value",
            RetKind::ToV8 => "what `T: ToV8` makes",
            RetKind::Serde => "what `T: serde::Serialize` writes (JSON-like values)",
            RetKind::Cppgc => "an instance of `T`'s class, wrapping the value",
        }
    }
}

impl RetKind {
    /// Whether its TypeScript type is the Rust type's (then [`RetKind::ts`] is the fallback).
    pub fn ts_of_rust_type(self) -> Option<TsOfRustType> {
        match self {
            RetKind::Cppgc => Some(TsOfRustType::Class),
            RetKind::ToV8 => Some(TsOfRustType::Structured),
            RetKind::Serde => Some(TsOfRustType::Serde),
            RetKind::Unit
            | RetKind::Bool
            | RetKind::Number(_)
            | RetKind::Smi
            | RetKind::BigInt(_)
            | RetKind::String
            | RetKind::StaticString
            | RetKind::OneByte
            | RetKind::Buffer
            | RetKind::ArrayBuffer
            | RetKind::External
            | RetKind::Local
            | RetKind::Global => None,
        }
    }

    /// Its TypeScript type; `element` and `handle` are the typed array's element and the
    /// handle's type when the return type names them.
    pub fn ts(self, element: Option<ElementType>, handle: Option<LocalType>) -> String {
        match self {
            RetKind::Unit => "void".into(),
            RetKind::Bool => "boolean".into(),
            RetKind::Number(_) | RetKind::Smi => "number".into(),
            RetKind::BigInt(_) => "bigint".into(),
            RetKind::String | RetKind::StaticString | RetKind::OneByte => "string".into(),
            RetKind::Buffer => element.map_or("Uint8Array", ElementType::array).into(),
            RetKind::ArrayBuffer => "ArrayBuffer".into(),
            RetKind::External => "object | null".into(),
            RetKind::Local | RetKind::Global => handle.map_or("unknown", LocalType::ts).into(),
            RetKind::ToV8 | RetKind::Serde => "unknown".into(),
            RetKind::Cppgc => "object".into(),
        }
    }
}
