// `#[derive(FromV8, ToV8)]` and `#[serde]` misuse: each error is at the field, variant, type
// or attribute.
use runtime_core::{op, FromV8, ToV8, WebIDL};

#[derive(FromV8)]
union Bits {
    int: u32,
    float: f32,
}

#[derive(FromV8)]
struct Borrowed {
    name: &'static str,
}

#[derive(FromV8)]
struct WithLifetime<'a> {
    name: std::borrow::Cow<'a, str>,
}

#[derive(ToV8)]
struct BadAttribute {
    #[to_v8(rename = "x", flatten)]
    name: String,
}

#[derive(ToV8)]
#[to_v8(tag = "type")]
enum TupleInTaggedEnum {
    Pair(u32, u32),
}

#[derive(FromV8)]
#[from_v8(tag = "type", untagged)]
enum Mixed {
    A,
}

struct NotConvertible;

#[derive(ToV8)]
struct HoldsUnconvertible {
    inner: NotConvertible,
}

#[derive(WebIDL)]
struct NoKind {
    a: u8,
}

#[derive(WebIDL)]
#[webidl(enum)]
enum ValuesWithFields {
    Fast(u8),
}

#[derive(WebIDL)]
#[webidl(dictionary)]
struct BadMember {
    #[webidl(rename = "x", required)]
    a: u8,
    b: NotConvertible,
}

/// `#[serde]` on a type without `Deserialize`: the error is at the type.
#[op]
fn op_request_serde(#[serde] request: NotConvertible) -> u32 {
    let _ = request;
    0
}

/// An unknown `#[webidl(..)]` argument.
#[op]
fn op_webidl_unknown(#[webidl(required)] a: u8) -> u32 {
    u32::from(a)
}

/// An option the type's conversion lacks: the error is at the option.
#[op]
fn op_webidl_bad_option(#[webidl(options(truncate = true))] b: u8) -> u32 {
    u32::from(b)
}

fn main() {}
