//! `#[derive(FromV8)]`, `#[derive(ToV8)]` and `#[derive(WebIDL)]` (as deno's), through the
//! stages ops go through: parse (`crate::internals::derive_input`, `webidl_input`, one
//! `Ctxt`) → IR (`crate::ir::container`, `webidl_definition`) → emit (`from_v8.rs`,
//! `to_v8.rs`, `webidl.rs`: pure functions of the IR).
//!
//! A struct with named fields is an object (keys camelCase, or `rename`); a newtype its
//! field; a tuple struct an array. An enum's unit variant is its name; other variants are
//! `{name: body}`, or with `tag = "t"` `{t: name, ...fields}`, with `tag` and `content`
//! `{t: name, c: body}`, or `untagged` the body alone. Generated code calls
//! `runtime_core::structured::__derive`, with each type's keys made once per isolate.

mod from_v8;
mod to_v8;
mod webidl;

pub use webidl::webidl;

use proc_macro2::TokenStream;

use crate::internals::Ctxt;
use crate::ir::container::Direction;

/// `#[derive(FromV8)]`.
pub fn from_v8(input: TokenStream) -> TokenStream {
    derive(input, Direction::From)
}

/// `#[derive(ToV8)]`.
pub fn to_v8(input: TokenStream) -> TokenStream {
    derive(input, Direction::To)
}

fn derive(input: TokenStream, direction: Direction) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let container = crate::internals::derive_input::parse(&cx, &input, direction);
    if let Err(errors) = cx.check() {
        return errors.iter().map(syn::Error::to_compile_error).collect();
    }
    let container = container.expect("no errors, so parsed");
    match direction {
        Direction::From => from_v8::generate(&container),
        Direction::To => to_v8::generate(&container),
    }
}

/// `const TYPESCRIPT_TYPES` of a derive: the user's types its declaration names (none: the
/// trait's default, written by nothing).
fn typescript_types(
    container: &crate::ir::container::Container,
    position: crate::typegen::Position,
) -> Option<TokenStream> {
    let named: Vec<crate::typegen::NamedType> =
        crate::typegen::types::types_named_by(container, position)
            .into_iter()
            .map(|name| crate::typegen::NamedType {
                name,
                form: crate::typegen::Form::Value(position),
            })
            .collect();
    if named.is_empty() {
        return None;
    }
    let types = crate::codegen::ts_types(&named);
    Some(quote::quote! {
        const TYPESCRIPT_TYPES: ::runtime_core::TsTypes = #types;
    })
}
