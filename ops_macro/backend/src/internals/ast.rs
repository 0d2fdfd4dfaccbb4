//! The function as written: name, visibility, arguments with their marker attributes, return
//! type, generics. Rejects shapes an op cannot have (`self`, `async`, patterns).

use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

use super::attr::{is_marker, Markers};
use super::Ctxt;

/// An op function as written.
/// The prefix of the names given to `_` arguments; their JavaScript name is empty.
pub const UNNAMED_PREFIX: &str = "__unnamed_";

pub struct OpFn {
    /// The function's name, which is also the op's JavaScript name.
    pub ident: syn::Ident,
    /// The function's visibility, given to the generated declaration too.
    pub vis: syn::Visibility,
    /// The arguments in order.
    pub params: Vec<Param>,
    /// The return type; `None` for `()`.
    pub ret: Option<Type>,
    /// `async fn`: the span of `async`.
    pub asyncness: Option<proc_macro2::Span>,
    /// The doc comment, line by line.
    pub docs: Vec<String>,
    /// Markers on the function, which apply to the return value.
    pub ret_markers: Markers,
    /// The generic parameters and where clause: a generic op has one declaration per
    /// instantiation (`op_x::<T>::DECL`), as in deno.
    pub generics: syn::Generics,
}

/// One argument as written.
pub struct Param {
    /// Its name.
    pub ident: syn::Ident,
    /// Its type.
    pub ty: Type,
    /// Its marker attributes.
    pub markers: Markers,
    /// The whole argument, for error spans.
    pub span: proc_macro2::Span,
}

impl OpFn {
    /// Reads `item`, recording every problem in `cx`; `None` if it cannot be an op at all.
    pub fn from_item(cx: &Ctxt, item: &ItemFn) -> Option<Self> {
        let sig = &item.sig;
        for attr in &item.attrs {
            if attr.path().is_ident("op") {
                cx.error_spanned_by(attr, "duplicate `#[op]` attribute");
            }
        }
        if let Some(unsafety) = &sig.unsafety {
            cx.error_spanned_by(
                unsafety,
                "an op cannot be `unsafe fn`: JavaScript would call it without anyone writing \
                 `unsafe`; make it safe, with the checks its contract needs inside",
            );
        }
        if let Some(variadic) = &sig.variadic {
            cx.error_spanned_by(variadic, "an op cannot be variadic");
        }
        // An associated function inside an `impl` block: the expansion (a struct and its impl
        // beside the function) cannot live there.
        if let Some(self_type) = mentions_self(&item.sig) {
            cx.error_spanned_by(
                self_type,
                "an op cannot mention `Self`: `#[op]` goes on free functions, or on the whole \
                 `impl` block (a class: `#[op] impl Foo { .. }`), not on a function inside one",
            );
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(receiver) => cx.error_spanned_by(
                    receiver,
                    "an op cannot take `self`: put `#[op]` on the whole `impl` block to make a class (`#[op] impl Foo { .. }`), or write a free function taking `&OpState`",
                ),
                FnArg::Typed(pat_type) => {
                    let markers = Markers::from_attributes(cx, &pat_type.attrs);
                    match &*pat_type.pat {
                        Pat::Ident(pat_ident) if pat_ident.subpat.is_none() => {
                            params.push(Param {
                                ident: pat_ident.ident.clone(),
                                ty: (*pat_type.ty).clone(),
                                markers,
                                // The name: the first token of the argument may be an
                                // attribute's `#`.
                                span: pat_ident.ident.span(),
                            });
                        }
                        // `_`: named by its position in errors (`argument 2`).
                        Pat::Wild(wild) => params.push(Param {
                            ident: quote::format_ident!(
                                "{}{}",
                                UNNAMED_PREFIX,
                                params.len(),
                                span = wild.underscore_token.span
                            ),
                            ty: (*pat_type.ty).clone(),
                            markers,
                            span: wild.underscore_token.span,
                        }),
                        other => cx.error_spanned_by(
                            other,
                            "op arguments must be plain names or `_` (the name appears in error messages)",
                        ),
                    }
                }
            }
        }

        let ret = match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        Some(OpFn {
            ident: sig.ident.clone(),
            vis: item.vis.clone(),
            params,
            ret,
            ret_markers: Markers::from_attributes(cx, &item.attrs),
            generics: sig.generics.clone(),
            asyncness: sig.asyncness.map(|token| token.span),
            docs: item.attrs.iter().filter_map(doc_line).collect(),
        })
    }
}

/// The text of a `#[doc = "..."]` attribute (a `///` line).
pub(super) fn doc_line(attr: &syn::Attribute) -> Option<String> {
    match &attr.meta {
        syn::Meta::NameValue(meta) if meta.path.is_ident("doc") => match &meta.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The first `Self` in the signature, if any.
fn mentions_self(sig: &syn::Signature) -> Option<proc_macro2::TokenStream> {
    fn find(tokens: proc_macro2::TokenStream) -> Option<proc_macro2::TokenStream> {
        tokens.into_iter().find_map(|token| match token {
            proc_macro2::TokenTree::Ident(ident) if ident == "Self" => {
                Some(proc_macro2::TokenTree::Ident(ident).into())
            }
            proc_macro2::TokenTree::Group(group) => find(group.stream()),
            _ => None,
        })
    }
    let inputs = sig
        .inputs
        .iter()
        .filter(|input| matches!(input, FnArg::Typed(_)));
    inputs
        .map(quote::ToTokens::to_token_stream)
        .chain([quote::ToTokens::to_token_stream(&sig.output)])
        .find_map(find)
}

/// Removes the marker attributes this macro consumed, from the function and its arguments,
/// so the function compiles as plain Rust.
pub fn strip_op_attributes(item: &mut ItemFn) {
    item.attrs
        .retain(|attr| !is_marker(attr) && !attr.path().is_ident("op"));
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(pat_type) = input {
            pat_type.attrs.retain(|attr| !is_marker(attr));
        }
    }
}
