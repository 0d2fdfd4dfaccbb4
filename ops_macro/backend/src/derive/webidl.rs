//! `#[derive(WebIDL)]` (as deno's): `#[webidl(dictionary)]` on a struct with named fields, or
//! `#[webidl(enum)]` on an enum of unit variants. Parse (into [`Dictionary`] / [`Enumeration`],
//! errors in one `Ctxt`) → emit (pure functions of them).
//!
//! Dictionary members are read in lexicographic order of their JavaScript names (camelCase,
//! or `#[webidl(rename = "...")]`), as the spec orders them; a member that is `undefined` takes
//! its `#[webidl(default = expr)]`, `None` for an `Option`, or is a `TypeError` when required.
//! `#[options(clamp = true)]` passes the member type's extended attributes. Enum values are
//! kebab-case (or `rename`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::internals::Ctxt;

struct Member {
    ident: syn::Ident,
    ty: syn::Type,
    /// The JavaScript name.
    key: String,
    /// When `undefined`: `Some(expr)`, or `None` (required).
    default: Option<TokenStream>,
    /// `#[options(name = value, ...)]`.
    options: Vec<(syn::Ident, syn::Expr)>,
}

struct Dictionary {
    ident: syn::Ident,
    name: String,
    /// In the order they are read (by key).
    members: Vec<Member>,
}

struct Enumeration {
    ident: syn::Ident,
    name: String,
    values: Vec<(syn::Ident, String)>,
}

enum Definition {
    Dictionary(Dictionary),
    Enumeration(Enumeration),
}

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

fn parse(cx: &Ctxt, input: &syn::DeriveInput) -> Option<Definition> {
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
                        crate::internals::derive_input::is_option(&field.ty)
                            .then(|| quote!(::std::option::Option::None))
                    });
                    Member {
                        key: rename.unwrap_or_else(|| {
                            crate::internals::derive_input::camel_case(&ident.unraw().to_string())
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

fn dictionary(dictionary: &Dictionary) -> TokenStream {
    let ident = &dictionary.ident;
    let name = &dictionary.name;
    let keys = dictionary.members.iter().map(|member| &member.key);
    let count = dictionary.members.len();
    // Members are bound to `m0`, `m1`, ... (a member named `value` or `scope` must not shadow).
    let binding = |index: usize| quote::format_ident!("m{index}");
    let reads = dictionary.members.iter().enumerate().map(|(index, member)| {
        let field = binding(index);
        let key = &member.key;
        let ty = &member.ty;
        let converter = quote_spanned!(ty.span()=> <#ty as ::runtime_core::webidl::WebIdlConverter>);
        let options = if member.options.is_empty() {
            quote!(&::std::default::Default::default())
        } else {
            let fields = member.options.iter().map(|(name, value)| quote!(#name: #value));
            quote!(&{
                type Options<'a> = <#ty as ::runtime_core::webidl::WebIdlConverter<'a>>::Options;
                Options { #(#fields,)* ..::std::default::Default::default() }
            })
        };
        let missing = match &member.default {
            Some(default) => default.clone(),
            None => quote!(return ::std::result::Result::Err(d::required(#name, #key))),
        };
        quote! {
            let #field = match d::member(scope, object, keys[#index])? {
                ::std::option::Option::Some(value) => #converter::convert(scope, value, #options)
                    .map_err(|error| d::ValueError::at_key(error, #key))?,
                ::std::option::Option::None => #missing,
            };
        }
    });
    let fields = dictionary
        .members
        .iter()
        .enumerate()
        .map(|(index, member)| {
            let ident = &member.ident;
            let bound = binding(index);
            quote!(#ident: #bound)
        });
    quote! {
        impl<'s> ::runtime_core::webidl::WebIdlConverter<'s> for #ident {
            type Options = ();

            fn convert(
                scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
                value: ::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>,
                _: &(),
            ) -> ::std::result::Result<Self, ::runtime_core::OpError> {
                use ::runtime_core::webidl::__derive as d;
                static KEYS: d::Keys<#count> = d::Keys::new([#(#keys),*]);
                let object = d::dictionary(value)?;
                let keys = KEYS.get(scope);
                #(#reads)*
                ::std::result::Result::Ok(Self { #(#fields),* })
            }
        }
    }
}

fn enumeration(enumeration: &Enumeration) -> TokenStream {
    let ident = &enumeration.ident;
    let name = &enumeration.name;
    let reads = enumeration
        .values
        .iter()
        .map(|(variant, value)| quote!(#value => ::std::result::Result::Ok(Self::#variant),));
    let names = enumeration
        .values
        .iter()
        .map(|(variant, value)| quote!(Self::#variant => #value,));
    quote! {
        impl<'s> ::runtime_core::webidl::WebIdlConverter<'s> for #ident {
            type Options = ();

            fn convert(
                scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
                value: ::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>,
                _: &(),
            ) -> ::std::result::Result<Self, ::runtime_core::OpError> {
                use ::runtime_core::webidl::__derive as d;
                d::enum_value(scope, value, |text| match text {
                    #(#reads)*
                    other => ::std::result::Result::Err(d::invalid_enum_value(#name, other)),
                })?
            }
        }

        impl #ident {
            /// The value's WebIDL string.
            pub fn as_str(&self) -> &'static str {
                match self {
                    #(#names)*
                }
            }
        }
    }
}

/// `#[derive(WebIDL)]`.
pub fn webidl(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let definition = parse(&cx, &input);
    if let Err(errors) = cx.check() {
        return errors.iter().map(syn::Error::to_compile_error).collect();
    }
    match definition.expect("no errors, so parsed") {
        Definition::Dictionary(definition) => dictionary(&definition),
        Definition::Enumeration(definition) => enumeration(&definition),
    }
}
