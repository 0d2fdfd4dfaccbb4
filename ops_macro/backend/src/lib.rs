//! The `#[op]` expander as a library, in three stages (as serde_derive and
//! napi-derive-backend do):
//!
//! 1. **parse** ([`internals::ast`], [`internals::attr`]): what the user wrote, with every
//!    error collected in one [`internals::Ctxt`] instead of stopping at the first;
//! 2. **IR** ([`ir`]): the op as data: one [`ir::ArgKind`] per argument and one
//!    [`ir::RetKind`] for the return, each with its conversion strategy; [`internals::check`]
//!    validates the combination (fast eligibility, conflicting borrows);
//! 3. **codegen** ([`codegen`]): pure functions of the IR that emit the slow path, the fast
//!    path and the `OpDecl`.
//!
//! [`expand`] runs all three; tests call it (or the stages) directly.

pub mod codegen;
pub mod internals;
pub mod ir;

use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[op(<attr>)] <item>`. On error, returns the compile errors (each pointing at the
/// offending argument or attribute) followed by the function itself, so that the errors are
/// the only ones the user sees.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand_op(attr, item.clone()) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let errors = errors.iter().map(syn::Error::to_compile_error);
            let item = match syn::parse2::<syn::ItemFn>(item) {
                Ok(mut item_fn) => {
                    internals::ast::strip_op_attributes(&mut item_fn);
                    quote!(#item_fn)
                }
                Err(_) => TokenStream::new(),
            };
            quote! { #(#errors)* #item }
        }
    }
}

/// Expands `#[op(<attr>)] <item>`, or returns every error found.
pub fn expand_op(attr: TokenStream, item: TokenStream) -> Result<TokenStream, Vec<syn::Error>> {
    let item_fn: syn::ItemFn = syn::parse2(item).map_err(|err| vec![err])?;
    let op = parse_op(attr, &item_fn)?;
    Ok(codegen::generate(&op, &item_fn))
}

/// Stages 1 and 2: parses and checks an op into its IR.
pub fn parse_op(attr: TokenStream, item_fn: &syn::ItemFn) -> Result<ir::Op, Vec<syn::Error>> {
    let cx = internals::Ctxt::new();
    let op_attrs = internals::attr::OpAttrs::from_tokens(&cx, attr);
    let op_fn = internals::ast::OpFn::from_item(&cx, item_fn);
    let op = ir::Op::from_ast(&cx, op_attrs, op_fn);
    if let Some(op) = &op {
        internals::check::check(&cx, op);
    }
    cx.check()?;
    Ok(op.expect("an op without errors was built"))
}
