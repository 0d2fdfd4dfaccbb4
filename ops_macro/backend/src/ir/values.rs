//! The value types kinds are made of: V8 handle types, number and BigInt types, and the
//! runtime's conversion markers.

/// Declares [`LocalType`]: one row per V8 handle type an argument may name, with what a
/// `TypeError` says was expected and whether the handle can reach a buffer's memory (and so
/// alias a borrowed one).
macro_rules! local_types {
    ($($variant:ident => $expected:literal, reaches_buffers: $reaches:literal, sample: $sample:literal, ts: $ts:literal;)*) => {
        /// The V8 handle types a `v8::Local<T>`, `&v8::T` or `v8::Global<T>` argument may name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum LocalType {
            $(
                #[doc = concat!("`v8::", stringify!($variant), "`.")]
                $variant,
            )*
        }

        impl LocalType {
            /// Every handle type, in declaration order.
            pub const ALL: &'static [LocalType] = &[$(LocalType::$variant),*];

            /// The `v8::` type name.
            pub fn name(self) -> &'static str {
                match self {
                    $(LocalType::$variant => stringify!($variant),)*
                }
            }

            /// What a `TypeError` says was expected.
            pub fn expected(self) -> &'static str {
                match self {
                    $(LocalType::$variant => $expected,)*
                }
            }

            /// Whether a handle of this type can reach a buffer's bytes (and so alias a
            /// borrowed `&mut [u8]`).
            pub fn can_reach_buffers(self) -> bool {
                match self {
                    $(LocalType::$variant => $reaches,)*
                }
            }

            /// A JavaScript expression of this type, for the every-kind test.
            pub fn sample(self) -> &'static str {
                match self {
                    $(LocalType::$variant => $sample,)*
                }
            }

            /// Its TypeScript type.
            pub fn ts(self) -> &'static str {
                match self {
                    $(LocalType::$variant => $ts,)*
                }
            }
        }
    };
}

local_types! {
    Value => "any value", reaches_buffers: true, sample: "1", ts: "unknown";
    Object => "an object", reaches_buffers: true, sample: "({})", ts: "object";
    String => "a string", reaches_buffers: false, sample: "'s'", ts: "string";
    Function => "a function", reaches_buffers: true, sample: "(() => 1)", ts: "Function";
    Array => "an array", reaches_buffers: true, sample: "[]", ts: "unknown[]";
    Number => "a number", reaches_buffers: false, sample: "1.5", ts: "number";
    Integer => "an integer", reaches_buffers: false, sample: "1", ts: "number";
    Int32 => "a 32-bit integer", reaches_buffers: false, sample: "-1", ts: "number";
    Uint32 => "an unsigned 32-bit integer", reaches_buffers: false, sample: "1", ts: "number";
    BigInt => "a BigInt", reaches_buffers: false, sample: "1n", ts: "bigint";
    Boolean => "a boolean", reaches_buffers: false, sample: "true", ts: "boolean";
    Symbol => "a symbol", reaches_buffers: false, sample: "Symbol()", ts: "symbol";
    Name => "a string or a symbol", reaches_buffers: false, sample: "'n'", ts: "string | symbol";
    Primitive => "a primitive", reaches_buffers: false, sample: "null", ts: "string | number | bigint | boolean | symbol | null | undefined";
    Promise => "a promise", reaches_buffers: true, sample: "Promise.resolve()", ts: "Promise<unknown>";
    Map => "a Map", reaches_buffers: true, sample: "new Map()", ts: "Map<unknown, unknown>";
    Set => "a Set", reaches_buffers: true, sample: "new Set()", ts: "Set<unknown>";
    Date => "a Date", reaches_buffers: true, sample: "new Date(0)", ts: "Date";
    RegExp => "a RegExp", reaches_buffers: true, sample: "/a/", ts: "RegExp";
    Proxy => "a Proxy", reaches_buffers: true, sample: "new Proxy({}, {})", ts: "object";
    ArrayBuffer => "an ArrayBuffer", reaches_buffers: true, sample: "new ArrayBuffer(1)", ts: "ArrayBuffer";
    SharedArrayBuffer => "a SharedArrayBuffer", reaches_buffers: true, sample: "new SharedArrayBuffer(1)", ts: "SharedArrayBuffer";
    ArrayBufferView => "a TypedArray or DataView", reaches_buffers: true, sample: "new DataView(new ArrayBuffer(1))", ts: "ArrayBufferView";
    TypedArray => "a TypedArray", reaches_buffers: true, sample: "new Int8Array(1)", ts: "ArrayBufferView";
    DataView => "a DataView", reaches_buffers: true, sample: "new DataView(new ArrayBuffer(1))", ts: "DataView";
    Uint8Array => "a Uint8Array", reaches_buffers: true, sample: "new Uint8Array(1)", ts: "Uint8Array";
    Uint8ClampedArray => "a Uint8ClampedArray", reaches_buffers: true, sample: "new Uint8ClampedArray(1)", ts: "Uint8ClampedArray";
    Int8Array => "an Int8Array", reaches_buffers: true, sample: "new Int8Array(1)", ts: "Int8Array";
    Uint16Array => "a Uint16Array", reaches_buffers: true, sample: "new Uint16Array(1)", ts: "Uint16Array";
    Int16Array => "an Int16Array", reaches_buffers: true, sample: "new Int16Array(1)", ts: "Int16Array";
    Uint32Array => "a Uint32Array", reaches_buffers: true, sample: "new Uint32Array(1)", ts: "Uint32Array";
    Int32Array => "an Int32Array", reaches_buffers: true, sample: "new Int32Array(1)", ts: "Int32Array";
    Float32Array => "a Float32Array", reaches_buffers: true, sample: "new Float32Array(1)", ts: "Float32Array";
    Float64Array => "a Float64Array", reaches_buffers: true, sample: "new Float64Array(1)", ts: "Float64Array";
    BigInt64Array => "a BigInt64Array", reaches_buffers: true, sample: "new BigInt64Array(1)", ts: "BigInt64Array";
    BigUint64Array => "a BigUint64Array", reaches_buffers: true, sample: "new BigUint64Array(1)", ts: "BigUint64Array";
    External => "an External", reaches_buffers: false, sample: "ops.ret_external()", ts: "object";
}

impl LocalType {
    /// The handle type named `name`, if any.
    pub fn from_name(name: &str) -> Option<LocalType> {
        Self::ALL.iter().copied().find(|local| local.name() == name)
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

/// What a raw pointer argument points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtrTarget {
    /// `#[buffer] *const u8`: a view's bytes.
    View,
    /// `#[arraybuffer] *const u8`: an ArrayBuffer's bytes.
    ArrayBuffer,
    /// `#[buffer] *const T`: a typed array's elements.
    Typed(ElementType),
}

/// The element types of typed arrays other than bytes (`u8` is the byte buffer kinds, which
/// take any view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    /// `i8`: an Int8Array.
    I8,
    /// `u16`: a Uint16Array.
    U16,
    /// `i16`: an Int16Array.
    I16,
    /// `u32`: a Uint32Array.
    U32,
    /// `i32`: an Int32Array.
    I32,
    /// `u64`: a BigUint64Array.
    U64,
    /// `i64`: a BigInt64Array.
    I64,
    /// `f32`: a Float32Array.
    F32,
    /// `f64`: a Float64Array.
    F64,
}

impl ElementType {
    /// Every element type.
    pub const ALL: [ElementType; 9] = [
        ElementType::I8,
        ElementType::U16,
        ElementType::I16,
        ElementType::U32,
        ElementType::I32,
        ElementType::U64,
        ElementType::I64,
        ElementType::F32,
        ElementType::F64,
    ];

    /// The Rust type's name.
    pub fn name(self) -> &'static str {
        match self {
            ElementType::I8 => "i8",
            ElementType::U16 => "u16",
            ElementType::I16 => "i16",
            ElementType::U32 => "u32",
            ElementType::I32 => "i32",
            ElementType::U64 => "u64",
            ElementType::I64 => "i64",
            ElementType::F32 => "f32",
            ElementType::F64 => "f64",
        }
    }

    /// Its typed array's constructor.
    pub fn array(self) -> &'static str {
        match self {
            ElementType::I8 => "Int8Array",
            ElementType::U16 => "Uint16Array",
            ElementType::I16 => "Int16Array",
            ElementType::U32 => "Uint32Array",
            ElementType::I32 => "Int32Array",
            ElementType::U64 => "BigUint64Array",
            ElementType::I64 => "BigInt64Array",
            ElementType::F32 => "Float32Array",
            ElementType::F64 => "Float64Array",
        }
    }

    /// The element type named `name`, if any.
    pub fn from_name(name: &str) -> Option<ElementType> {
        Self::ALL.into_iter().find(|element| element.name() == name)
    }
}

/// What JavaScript may pass for a buffer that is kept (`JsBuffer`) or taken (`DetachedBuffer`):
/// `runtime_core::__op::BufferSource`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSource {
    /// `#[buffer]`: a typed array or DataView.
    View,
    /// `#[arraybuffer]`: an ArrayBuffer.
    ArrayBuffer,
    /// `#[anybuffer]`: either.
    Any,
}

impl BufferSource {
    /// Every source.
    pub const ALL: [BufferSource; 3] = [
        BufferSource::View,
        BufferSource::ArrayBuffer,
        BufferSource::Any,
    ];

    /// The runtime's variant name.
    pub fn variant(self) -> &'static str {
        match self {
            BufferSource::View => "View",
            BufferSource::ArrayBuffer => "ArrayBuffer",
            BufferSource::Any => "Any",
        }
    }

    /// The marker attribute that asks for it.
    pub fn attribute(self) -> &'static str {
        match self {
            BufferSource::View => "#[buffer]",
            BufferSource::ArrayBuffer => "#[arraybuffer]",
            BufferSource::Any => "#[anybuffer]",
        }
    }
}

/// What a kind's TypeScript type is when the kind table cannot name it: the Rust type's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsOfRustType {
    /// A class instance: the class the type names (`Foo`, `Held<Foo>`), declared apart.
    Class,
    /// A structured value through `FromV8`/`ToV8`: std types by their shape, the user's types
    /// by name, each declared by its impl's `TYPESCRIPT` (a derive's interface).
    Structured,
    /// A value through serde: std types by their shape, the user's types `unknown` (serde's
    /// derives declare nothing).
    Serde,
}

/// How the user's function is handed an argument once it is converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passed {
    /// The value itself.
    Value,
    /// `&state` (the call borrowed the op state).
    StateRef,
    /// `&mut state`.
    StateMut,
    /// The call's handle scope.
    Scope,
    /// The isolate.
    Isolate,
    /// `&v8::T`: the handle, dereferenced (`Option<&v8::T>` when optional).
    HandleRef,
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
    /// path for any other value (another string representation, or not a string).
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

    /// The primitive Rust type V8 passes for it; `None` for the non-primitive ones.
    pub fn primitive(self) -> Option<&'static str> {
        Some(match self {
            CType::Bool => "bool",
            CType::Int32 => "i32",
            CType::Uint32 => "u32",
            CType::Int64 => "i64",
            CType::Uint64 => "u64",
            CType::Float32 => "f32",
            CType::Float64 => "f64",
            CType::Void | CType::Pointer | CType::V8Value | CType::SeqOneByteString => return None,
        })
    }

    /// Whether V8 passes it as a pointer into its heap, which an allocation there during the
    /// call could move.
    pub fn borrows_v8_heap(self) -> bool {
        self == CType::SeqOneByteString
    }

    /// Whether this type makes the function's 64-bit integers BigInts.
    pub fn is_64_bit(self) -> bool {
        matches!(self, CType::Int64 | CType::Uint64)
    }
}

/// An attribute that says how a value of several possible kinds crosses (`#[bigint] u64`,
/// `#[string] &str`, `#[buffer] &[u8]`): which kinds each may mark is a column of the kind
/// table ([`ArgTraits::marked_by`](super::ArgTraits::marked_by), [`RetKind::marked_by`](super::RetKind::marked_by)),
/// and what to write instead is said here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeAttribute {
    /// `#[bigint]`.
    BigInt,
    /// `#[number]`.
    Number,
    /// `#[string]`.
    Utf8String,
    /// `#[string(onebyte)]`.
    OneByteString,
    /// `#[buffer]`, `#[arraybuffer]`, `#[anybuffer]` (`written`: which).
    Buffer,
}

impl TypeAttribute {
    /// The error at an argument's attribute that marks a kind it does not apply to.
    pub fn misplaced_on_arg(self, written: &str) -> String {
        match self {
            TypeAttribute::BigInt => {
                "`#[bigint]` applies to `i64`, `u64`, `isize` and `usize`".into()
            }
            TypeAttribute::Number => "`#[number]` applies to number types only".into(),
            TypeAttribute::Utf8String => {
                "`#[string]` applies to `&str`, `Cow<str>` and `String` only".into()
            }
            TypeAttribute::OneByteString => {
                "`#[string(onebyte)]` applies to `Cow<[u8]>` only".into()
            }
            TypeAttribute::Buffer => format!(
                "`#[{written}]` applies to buffer types: `&[T]`, `&mut [T]`, `Vec<T>`, `Box<[T]>` \
                 (T: u8, i8, u16, i16, u32, i32, u64, i64, f32, f64), `*const u8`, \
                 `*mut u8`, `JsBuffer`, `DetachedBuffer`"
            ),
        }
    }

    /// The error at a return value's attribute that marks a kind it does not apply to.
    pub fn misplaced_on_ret(self, written: &str) -> String {
        match self {
            TypeAttribute::BigInt => {
                "`#[bigint]` applies to `i64`, `u64`, `isize` and `usize` returns".into()
            }
            TypeAttribute::Number => "`#[number]` applies to number returns only".into(),
            TypeAttribute::Utf8String | TypeAttribute::OneByteString => {
                "`#[string]` applies to `String`, `&str` and `Cow<str>` returns, \
                 `#[string(onebyte)]` to `Cow<[u8]>` and `Vec<u8>`"
                    .into()
            }
            TypeAttribute::Buffer => format!(
                "`#[{written}]` applies to buffer returns: `Vec<T>`, `Box<[T]>`, `JsBuffer`, `DetachedBuffer`"
            ),
        }
    }
}
