//! The value types kinds are made of: V8 handle types, number and BigInt types, and the
//! runtime's conversion markers.

use super::strategy::CType;

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

    pub fn from_name(name: &str) -> Option<LocalType> {
        Self::ALL.into_iter().find(|local| local.name() == name)
    }
}

/// The Rust types a Number converts to and from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberType {
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
    /// `#[number] i64`.
    I64,
    /// `#[number] u64`.
    U64,
    /// `#[number] isize`.
    Isize,
    /// `#[number] usize`.
    Usize,
}

impl NumberType {
    /// Every number type.
    pub const ALL: [NumberType; 12] = [
        NumberType::I8,
        NumberType::I16,
        NumberType::I32,
        NumberType::U8,
        NumberType::U16,
        NumberType::U32,
        NumberType::F32,
        NumberType::F64,
        NumberType::I64,
        NumberType::U64,
        NumberType::Isize,
        NumberType::Usize,
    ];

    /// The Rust type's name.
    pub fn name(self) -> &'static str {
        match self {
            NumberType::I8 => "i8",
            NumberType::I16 => "i16",
            NumberType::I32 => "i32",
            NumberType::U8 => "u8",
            NumberType::U16 => "u16",
            NumberType::U32 => "u32",
            NumberType::F32 => "f32",
            NumberType::F64 => "f64",
            NumberType::I64 => "i64",
            NumberType::U64 => "u64",
            NumberType::Isize => "isize",
            NumberType::Usize => "usize",
        }
    }

    /// Whether it needs `#[number]`: integers a Number cannot hold all of (the alternative is
    /// `#[bigint]`, so the user must choose).
    pub fn is_wide(self) -> bool {
        self.ctype() == CType::Float64 && self != NumberType::F64
    }

    /// The Fast API type V8 passes and takes it as (converting with the slow path's rules).
    pub fn ctype(self) -> CType {
        match self {
            NumberType::I8 | NumberType::I16 | NumberType::I32 => CType::Int32,
            NumberType::U8 | NumberType::U16 | NumberType::U32 => CType::Uint32,
            NumberType::F32 => CType::Float32,
            NumberType::F64
            | NumberType::I64
            | NumberType::U64
            | NumberType::Isize
            | NumberType::Usize => CType::Float64,
        }
    }

    /// The number type named `name`, if any.
    pub fn from_name(name: &str) -> Option<NumberType> {
        Self::ALL.into_iter().find(|number| number.name() == name)
    }
}

/// The Rust types a BigInt converts to and from (`#[bigint]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BigIntType {
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `isize`.
    Isize,
    /// `usize`.
    Usize,
}

impl BigIntType {
    /// Every BigInt type.
    pub const ALL: [BigIntType; 4] = [
        BigIntType::I64,
        BigIntType::U64,
        BigIntType::Isize,
        BigIntType::Usize,
    ];

    /// The Rust type's name.
    pub fn name(self) -> &'static str {
        match self {
            BigIntType::I64 => "i64",
            BigIntType::U64 => "u64",
            BigIntType::Isize => "isize",
            BigIntType::Usize => "usize",
        }
    }

    /// The Fast API type: signed or unsigned 64 bits.
    pub fn ctype(self) -> CType {
        match self {
            BigIntType::I64 | BigIntType::Isize => CType::Int64,
            BigIntType::U64 | BigIntType::Usize => CType::Uint64,
        }
    }

    /// The BigInt type named `name`, if any.
    pub fn from_name(name: &str) -> Option<BigIntType> {
        Self::ALL.into_iter().find(|bigint| bigint.name() == name)
    }
}

/// The `runtime_core::__op::kind` marker a trait-converted kind goes through: the macro picks
/// the marker, the Rust type's impl of `FromArg`/`IntoReturn`/`FromFast`/`IntoFast` for it
/// does the conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `kind::Bool`.
    Bool,
    /// `kind::Number`.
    Number,
    /// `kind::Smi`.
    Smi,
    /// `kind::BigInt`.
    BigInt,
    /// `kind::String`.
    String,
    /// `kind::StaticString`.
    StaticString,
    /// `kind::OneByte`.
    OneByte,
    /// `kind::Buffer`.
    Buffer,
    /// `kind::ArrayBuffer`.
    ArrayBuffer,
    /// `kind::External`.
    External,
    /// `kind::Handle`.
    Handle,
    /// `kind::ToV8`.
    ToV8,
}

impl Marker {
    /// The marker type's name in `runtime_core::__op::kind`.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Bool => "Bool",
            Marker::Number => "Number",
            Marker::Smi => "Smi",
            Marker::BigInt => "BigInt",
            Marker::String => "String",
            Marker::StaticString => "StaticString",
            Marker::OneByte => "OneByte",
            Marker::Buffer => "Buffer",
            Marker::ArrayBuffer => "ArrayBuffer",
            Marker::External => "External",
            Marker::Handle => "Handle",
            Marker::ToV8 => "ToV8",
        }
    }
}
