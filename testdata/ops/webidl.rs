// `#[derive(WebIDL)]`: deno_ops' `webidl/test_cases/` (the same types and attributes). Read by
// the expansion snapshots; `runtime_core/tests/integration/webidl.rs` runs them.

/// deno's `dict.rs`.
#[derive(WebIDL)]
#[webidl(dictionary)]
pub struct Dict {
    a: u8,
    #[options(clamp = true)]
    b: Vec<u16>,
    #[webidl(default = Some(3))]
    c: Option<u32>,
    #[webidl(rename = "e")]
    d: u64,
    f: Option<u32>,
}

/// deno's `dict_and_enum.rs`.
#[derive(WebIDL)]
#[webidl(dictionary)]
pub struct GPURequestAdapterOptions {
    pub power_preference: Option<GPUPowerPreference>,
    #[webidl(default = false)]
    pub force_fallback_adapter: bool,
}

/// deno's `dict_and_enum.rs`.
#[derive(WebIDL)]
#[webidl(enum)]
pub enum GPUPowerPreference {
    LowPower,
    HighPerformance,
}

/// deno's `enum.rs`.
#[derive(WebIDL)]
#[webidl(enum)]
pub enum Enumeration {
    FooBar,
    Baz,
    #[webidl(rename = "hello")]
    World,
}

/// A `#[webidl]` op argument.
#[op]
#[string]
fn op_request_adapter(#[webidl] options: GPURequestAdapterOptions) -> String {
    format!(
        "{:?} {}",
        options.power_preference.map(|preference| preference.as_str()),
        options.force_fallback_adapter
    )
}

/// Members named like the generated code's locals.
#[derive(WebIDL)]
#[webidl(dictionary)]
pub struct Shadowing {
    value: u8,
    scope: Option<u8>,
    object: Option<u8>,
    keys: Option<u8>,
    d: Option<u8>,
}

/// deno's `#[webidl(default = .., options(..))]` arguments: `undefined` takes the default; the
/// options are the conversion's extended attributes.
#[op]
#[string]
fn op_webidl_args(
    #[webidl(options(clamp = true))] level: u8,
    #[webidl(default = 7, options(enforce_range = true))] count: u32,
    #[webidl(default = "none")] label: String,
) -> String {
    format!("{level} {count} {label}")
}
