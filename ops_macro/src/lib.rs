//! `#[op]`: turns a plain Rust function into an opwire op. All the work is done by
//! `ops_macro_backend`, which tests call without a proc-macro boundary. Beside it, the derives
//! and `inline_hot`, an attribute of runtime_core's own.

#![deny(unsafe_code)]

use proc_macro::TokenStream;

/// Generates the slow path (`FunctionCallback`), the fast path (V8 Fast API function) where the
/// signature allows it, and `<fn_name>::DECL`, the `runtime_core::OpDecl` to register.
///
/// Use it through `runtime_core::op`, whose documentation holds the whole story: kinds,
/// strategies, rules, errors, options, async ops.
#[proc_macro_attribute]
pub fn op(attr: TokenStream, item: TokenStream) -> TokenStream {
    ops_macro_backend::expand(attr.into(), item.into()).into()
}

/// deno's spelling: a compile error pointing at `#[op]` (the op is still expanded).
#[proc_macro_attribute]
pub fn op2(attr: TokenStream, item: TokenStream) -> TokenStream {
    ops_macro_backend::expand_op2(attr.into(), item.into()).into()
}

/// `#[derive(FromV8)]`: see `runtime_core::FromV8`.
#[proc_macro_derive(FromV8, attributes(from_v8, v8))]
pub fn derive_from_v8(item: TokenStream) -> TokenStream {
    ops_macro_backend::derive::from_v8(item.into()).into()
}

/// `#[derive(ToV8)]`: see `runtime_core::ToV8`.
#[proc_macro_derive(ToV8, attributes(to_v8, v8))]
pub fn derive_to_v8(item: TokenStream) -> TokenStream {
    ops_macro_backend::derive::to_v8(item.into()).into()
}

/// `#[derive(WebIDL)]`: see `runtime_core::webidl`.
#[proc_macro_derive(WebIDL, attributes(webidl, options))]
pub fn derive_webidl(item: TokenStream) -> TokenStream {
    ops_macro_backend::derive::webidl(item.into()).into()
}

/// runtime_core's own: `#[inline(always)]` where debug assertions are off (the optimized
/// profiles), a plain `#[inline]` where they are on (the dev profile).
///
/// The conversions every op calls carry it. Always-inlined in a dev build, each of them was
/// copied into every op's functions, and a crate of ops took half again as long to build,
/// though nothing in a dev build is measured per call (BENCHMARKS.md). The switch is
/// `debug_assertions` because it is the profile's: a profile that optimizes with debug
/// assertions on gets the plain hint too.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn inline_hot(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attributes = if attr.is_empty() {
        "#[cfg_attr(debug_assertions, inline)] #[cfg_attr(not(debug_assertions), inline(always))]"
    } else {
        "::core::compile_error!(\"#[inline_hot] takes no arguments\");"
    };
    let mut out: TokenStream = attributes.parse().expect("attributes are tokens");
    out.extend(item);
    out
}
