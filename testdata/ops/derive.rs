// `#[derive(FromV8, ToV8)]`: deno_ops' `conversion/` test cases in opwire's spelling. Read by
// the expansion snapshots (one per derive); `runtime_core/tests/derive.rs` runs the same shapes.

/// deno's `struct.rs`.
#[derive(FromV8, ToV8)]
pub struct Struct {
    a: u8,
    #[from_v8(default = Some(3))]
    c: Option<u32>,
    #[from_v8(rename = "e")]
    #[to_v8(rename = "e")]
    d: u16,
    f: Option<u32>,
}

/// deno's `struct_tuple.rs`, without its serde field.
#[derive(FromV8, ToV8)]
pub struct Tuple(u8, u8);

/// deno's `enum.rs`, unit variants.
#[derive(FromV8, ToV8)]
pub enum SimpleEnum {
    VariantA,
    #[from_v8(rename = "customName")]
    #[to_v8(rename = "customName")]
    VariantB,
}
