// `#[derive(FromV8, ToV8)]`: deno_ops' `conversion/` test cases in opwire's spelling (the same
// types and attributes; deno's `#[v8(...)]` is accepted for both derives). Read by the expansion
// snapshots (one per derive); `runtime_core/tests/integration/derive.rs` runs the same shapes.

/// deno's `from_v8/struct.rs` (and `to_v8/struct.rs`'s renamed field).
#[derive(FromV8, ToV8)]
pub struct Struct {
    a: u8,
    #[from_v8(default = Some(3))]
    c: Option<u32>,
    #[v8(rename = "e")]
    d: u16,
    f: Option<u32>,
}

/// deno's `to_v8/struct.rs`: a serde field.
#[derive(ToV8)]
pub struct SerdeStruct {
    a: u8,
    #[to_v8(serde)]
    c: Vec<u32>,
    #[to_v8(rename = "e")]
    d: u16,
    f: Option<u32>,
}

/// deno's `to_v8/struct.rs`: a handle field.
#[derive(ToV8)]
pub struct LifetimeStruct<'a> {
    a: v8::Local<'a, v8::Value>,
    b: u8,
}

/// deno's `to_v8/struct.rs`: fields left out by a predicate.
#[derive(ToV8)]
pub struct SkipIfStruct {
    a: u8,
    #[to_v8(skip_if = Option::is_none)]
    b: Option<u32>,
    #[to_v8(rename = "cc", skip_if = Option::is_none)]
    c: Option<String>,
    #[to_v8(skip_if = Vec::is_empty)]
    e: Vec<u32>,
    d: bool,
}

/// deno's `struct_tuple.rs`.
#[derive(FromV8, ToV8)]
pub struct Tuple(#[v8(serde)] u8, u8);

/// deno's `from_v8/enum.rs`.
#[derive(FromV8)]
pub enum SimpleEnum {
    VariantA,
    #[from_v8(rename = "customName")]
    VariantB,
    VariantC(u32),
    #[from_v8(rename = "renamedNewtype")]
    VariantD(String),
}

/// deno's `from_v8/enum.rs`.
#[derive(FromV8)]
pub enum SerdeEnum {
    WithoutSerde,
    #[from_v8(serde)]
    WithSerde(Vec<u32>),
}

/// deno's `to_v8/enum.rs`.
#[derive(ToV8)]
pub enum ToSimpleEnum {
    VariantA,
    #[to_v8(rename = "customName")]
    VariantB,
    VariantC { field: u32 },
    #[to_v8(rename = "renamedWithFields")]
    VariantD { value: String },
}

/// deno's `to_v8/enum.rs`; opwire reads the tagged forms too.
#[derive(FromV8, ToV8)]
#[v8(tag = "type")]
pub enum InternallyTaggedEnum {
    #[v8(rename = "custom_a")]
    A,
    B { data: u32 },
}

/// deno's `to_v8/enum.rs`.
#[derive(FromV8, ToV8)]
#[v8(tag = "kind", content = "data")]
pub enum AdjacentlyTaggedEnum {
    #[v8(rename = "FIRST")]
    First,
    Second(u32),
}

/// deno's `to_v8/enum.rs`.
#[derive(ToV8)]
pub enum ToSerdeEnum {
    #[to_v8(serde)]
    WithSerde {
        data: Vec<u32>,
        #[to_v8(rename = "renamedField")]
        other: String,
    },
    WithoutSerde { value: u32 },
}

/// deno's `to_v8/enum.rs`.
#[derive(FromV8, ToV8)]
#[v8(untagged)]
pub enum UntaggedEnum {
    Empty,
    Newtype(String),
    Tuple(u32, u32),
    Named { field: u32 },
}

/// Generic, with the bound the derive adds.
#[derive(FromV8, ToV8)]
pub struct Page<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
}
