//! `#[derive(FromV8, ToV8)]` parsed into the derives' IR ([`crate::ir::container`]): each
//! field's key and rules decided from `#[v8(...)]`, `#[from_v8(...)]` and `#[to_v8(...)]`, with
//! errors in one `Ctxt`.

use quote::format_ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::Ctxt;
use crate::ir::container::{Body, Container, Direction, Field, Missing, Repr, Shape, Variant};

/// The attribute of a direction (`v8` applies to both, as in deno).
fn attribute(direction: Direction) -> &'static str {
    match direction {
        Direction::From => "from_v8",
        Direction::To => "to_v8",
    }
}

/// `snake_case` or `PascalCase` → `camelCase`.
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper_next = false;
    for (index, ch) in name.chars().enumerate() {
        if ch == '_' && index > 0 {
            upper_next = true;
        } else if index == 0 {
            out.extend(ch.to_lowercase());
        } else if upper_next {
            out.extend(ch.to_uppercase());
            upper_next = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// The options on one field, variant or container.
#[derive(Default)]
struct Options {
    rename: Option<String>,
    missing: Option<Missing>,
    serde: bool,
    skip_if: Option<syn::Expr>,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Container,
    Variant,
    Field,
}

fn options(cx: &Ctxt, attrs: &[syn::Attribute], direction: Direction, place: Place) -> Options {
    let mut options = Options::default();
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident("v8") || attr.path().is_ident(attribute(direction)))
    {
        let result = attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.is_ident("rename") && place != Place::Container {
                options.rename = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if path.is_ident("default") && place == Place::Field {
                // Only reading has a use for it; `#[v8(default)]` serves both derives.
                let missing = if meta.input.peek(syn::Token![=]) {
                    Missing::Expr(Box::new(meta.value()?.parse()?))
                } else {
                    Missing::Default
                };
                if direction == Direction::From {
                    options.missing = Some(missing);
                }
            } else if path.is_ident("skip_if") && place == Place::Field {
                let predicate: syn::Expr = meta.value()?.parse()?;
                if direction == Direction::To {
                    options.skip_if = Some(predicate);
                }
            } else if path.is_ident("serde") && place != Place::Container {
                options.serde = true;
            } else if path.is_ident("tag") && place == Place::Container {
                options.tag = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if path.is_ident("content") && place == Place::Container {
                options.content = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if path.is_ident("untagged") && place == Place::Container {
                options.untagged = true;
            } else {
                return Err(meta.error(match place {
                    Place::Container => {
                        "expected `tag = \"...\"`, `content = \"...\"` or `untagged` (on an enum)"
                    }
                    Place::Variant => "expected `rename = \"...\"` or `serde`",
                    Place::Field => {
                        "expected `rename = \"...\"`, `default`, `default = <expr>`, `skip_if = <path>` or `serde`"
                    }
                }));
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    options
}

/// Whether `ty` is `Option<...>` (a missing property is then `None`).
pub fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path)
        if path.qself.is_none() && path.path.segments.last().is_some_and(|last| last.ident == "Option"))
}

fn shape(cx: &Ctxt, fields: &syn::Fields, direction: Direction, variant_serde: bool) -> Shape {
    let mut parsed: Vec<Field> = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let options = options(cx, &field.attrs, direction, Place::Field);
            let member = match &field.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(index.into()),
            };
            let key = options.rename.unwrap_or_else(|| match &field.ident {
                Some(ident) => camel_case(&ident.unraw().to_string()),
                None => index.to_string(),
            });
            // A buffer V8 lends lives for a call; a derived value is kept.
            if let syn::Type::Path(path) = &field.ty {
                let last = path.path.segments.last().map(|last| last.ident.to_string());
                if let Some(name @ ("JsBuffer" | "V8Slice" | "DetachedBuffer")) = last.as_deref() {
                    cx.error_spanned_by(
                        &field.ty,
                        format!(
                            "a derived struct's field cannot be a `{name}` (an op argument's \
                             kind): take `bytes::Bytes` (any ArrayBufferView or ArrayBuffer, \
                             copied; given back as a `Uint8Array` without a copy), or pass the \
                             buffer as an argument of its own"
                        ),
                    );
                }
            }
            if direction == Direction::From {
                if let syn::Type::Reference(reference) = &field.ty {
                    cx.error_spanned_by(
                        reference,
                        "a `FromV8` value owns its data: take `String` for `&str`, `Vec<T>` for `&[T]`, `T` for `&T`",
                    );
                }
            }
            let missing = options.missing.unwrap_or(if is_option(&field.ty) {
                Missing::None
            } else {
                Missing::Required
            });
            Field {
                member,
                binding: format_ident!("v{index}"),
                ty: field.ty.clone(),
                key,
                missing,
                serde: options.serde || variant_serde,
                skip_if: options.skip_if,
            }
        })
        .collect();
    match fields {
        syn::Fields::Named(_) => Shape::Named(parsed),
        syn::Fields::Unnamed(_) if parsed.len() == 1 => Shape::Newtype(Box::new(parsed.remove(0))),
        syn::Fields::Unnamed(_) => Shape::Tuple(parsed),
        syn::Fields::Unit => Shape::Unit,
    }
}

/// Parses the input; `None` when there were errors (recorded in `cx`).
pub fn parse(cx: &Ctxt, input: &syn::DeriveInput, direction: Direction) -> Option<Container> {
    if direction == Direction::From {
        if let Some(lifetime) = input.generics.lifetimes().next() {
            cx.error_spanned_by(
                lifetime,
                "a `FromV8` type owns its data: it takes no lifetime parameters",
            );
        }
    }
    let container_options = options(cx, &input.attrs, direction, Place::Container);
    let body = match &input.data {
        syn::Data::Struct(data) => {
            if container_options.tag.is_some() || container_options.untagged {
                cx.error_at(
                    input.ident.span(),
                    "`tag`, `content` and `untagged` are for enums",
                );
            }
            Body::Struct(shape(cx, &data.fields, direction, false))
        }
        syn::Data::Enum(data) => {
            let repr = match (
                container_options.tag,
                container_options.content,
                container_options.untagged,
            ) {
                (None, None, false) => Repr::External,
                (Some(tag), None, false) => Repr::Internal { tag },
                (Some(tag), Some(content), false) => Repr::Adjacent { tag, content },
                (None, None, true) => Repr::Untagged,
                _ => {
                    cx.error_at(
                        input.ident.span(),
                        "write `tag = \"...\"`, `tag = \"...\", content = \"...\"` or `untagged`, not a mix",
                    );
                    Repr::External
                }
            };
            let variants = data
                .variants
                .iter()
                .map(|variant| {
                    let options = options(cx, &variant.attrs, direction, Place::Variant);
                    let shape = shape(cx, &variant.fields, direction, options.serde);
                    if let (Repr::Internal { .. }, Shape::Tuple(_)) = (&repr, &shape) {
                        cx.error_spanned_by(
                            &variant.fields,
                            "an internally tagged variant (`tag = \"...\"`) is an object: it cannot hold a tuple; use named fields or `content = \"...\"`",
                        );
                    }
                    Variant {
                        ident: variant.ident.clone(),
                        key: options
                            .rename
                            .unwrap_or_else(|| camel_case(&variant.ident.unraw().to_string())),
                        shape,
                    }
                })
                .collect();
            Body::Enum { repr, variants }
        }
        syn::Data::Union(data) => {
            cx.error_at(
                data.union_token.span(),
                "`#[derive(FromV8, ToV8)]` does not take unions: which field is live is not known",
            );
            return None;
        }
    };
    Some(Container {
        ident: input.ident.clone(),
        generics: input.generics.clone(),
        type_name: input.ident.unraw().to_string(),
        body,
        docs: input
            .attrs
            .iter()
            .filter_map(super::ast::doc_line)
            .collect(),
    })
}
