//! `#[derive(WebIDL)]` parsed (as deno's): `#[webidl(dictionary)]` on a struct with named
//! fields, or `#[webidl(enum)]` on an enum of unit variants, into
//! [`crate::ir::webidl_definition`], errors in one `Ctxt`. Dictionary members are ordered by
//! their JavaScript names (camelCase, or `#[webidl(rename = "...")]`), as the spec orders
//! them; enum values are kebab-case (or `rename`).

use quote::quote;
use syn::ext::IdentExt;

use super::Ctxt;
use crate::ir::webidl_definition::{Definition, Dictionary, Enumeration, Member};

/// `FooBar` → `foo-bar`.
fn kebab_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (index, ch) in name.chars().enumerate() {
        if ch.is_uppercase() && index > 0 {
            out.push('-');
        }
        out.extend(ch.to_lowercase());
    }
    out
}

/// `#[webidl(rename = "..", default = ..)]` on a member or value.
fn member_options(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    allow_default: bool,
) -> (Option<String>, Option<syn::Expr>) {
    let (mut rename, mut default) = (None, None);
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("webidl")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                rename = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.path.is_ident("default") && allow_default {
                default = Some(meta.value()?.parse()?);
            } else if allow_default {
                return Err(meta.error("expected `rename = \"...\"` or `default = <expr>`"));
            } else {
                return Err(meta.error("expected `rename = \"...\"`"));
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    (rename, default)
}

fn converter_options(cx: &Ctxt, attrs: &[syn::Attribute]) -> Vec<(syn::Ident, syn::Expr)> {
    let mut options = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("options")) {
        let result = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .cloned()
                .ok_or_else(|| meta.error("expected `name = value`"))?;
            options.push((name, meta.value()?.parse()?));
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    options
}

/// Parses `#[derive(WebIDL)]`'s input, recording every error in `cx`.
pub fn parse(cx: &Ctxt, input: &syn::DeriveInput) -> Option<Definition> {
    let mut kind = None;
    for attr in input
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("webidl"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("dictionary") || meta.path.is_ident("enum") {
                kind = Some(meta.path.is_ident("dictionary"));
                Ok(())
            } else {
                Err(meta.error("expected `dictionary` or `enum`"))
            }
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    let name = input.ident.unraw().to_string();
    match (kind, &input.data) {
        (
            Some(true),
            syn::Data::Struct(syn::DataStruct {
                fields: syn::Fields::Named(fields),
                ..
            }),
        ) => {
            let mut members: Vec<Member> = fields
                .named
                .iter()
                .map(|field| {
                    let ident = field.ident.clone().expect("a named field");
                    let (rename, default) = member_options(cx, &field.attrs, true);
                    let default = default.map(|expr| quote!(#expr)).or_else(|| {
                        super::derive_input::is_option(&field.ty)
                            .then(|| quote!(::std::option::Option::None))
                    });
                    Member {
                        key: rename.unwrap_or_else(|| {
                            super::derive_input::camel_case(&ident.unraw().to_string())
                        }),
                        ident,
                        ty: field.ty.clone(),
                        default,
                        options: converter_options(cx, &field.attrs),
                    }
                })
                .collect();
            members.sort_by(|a, b| a.key.cmp(&b.key));
            Some(Definition::Dictionary(Dictionary {
                ident: input.ident.clone(),
                name,
                members,
            }))
        }
        (Some(false), syn::Data::Enum(data)) => {
            let values = data
                .variants
                .iter()
                .filter_map(|variant| {
                    if !matches!(variant.fields, syn::Fields::Unit) {
                        cx.error_spanned_by(
                            &variant.fields,
                            "a WebIDL enum is a set of strings: its variants take no fields",
                        );
                        return None;
                    }
                    let (rename, _) = member_options(cx, &variant.attrs, false);
                    let value =
                        rename.unwrap_or_else(|| kebab_case(&variant.ident.unraw().to_string()));
                    Some((variant.ident.clone(), value))
                })
                .collect();
            Some(Definition::Enumeration(Enumeration {
                ident: input.ident.clone(),
                name,
                values,
            }))
        }
        (Some(true), _) => {
            cx.error_at(
                input.ident.span(),
                "`#[webidl(dictionary)]` is for a struct with named fields",
            );
            None
        }
        (Some(false), _) => {
            cx.error_at(
                input.ident.span(),
                "`#[webidl(enum)]` is for an enum of unit variants",
            );
            None
        }
        (None, _) => {
            cx.error_at(
                input.ident.span(),
                "say what it is: `#[webidl(dictionary)]` (a struct) or `#[webidl(enum)]`",
            );
            None
        }
    }
}
