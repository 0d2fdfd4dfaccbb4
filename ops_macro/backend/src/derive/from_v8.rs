//! `FromV8` from the derive's IR: a pure function of it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ir::container::{Body, Container, Field, Missing, Repr, Shape, Variant};
use crate::typegen::types::Position;

/// `::runtime_core::structured::__derive`.
fn support() -> TokenStream {
    quote!(::runtime_core::structured::__derive)
}

/// The type a field is read as: its own, or `Serde<T>` for a `serde` field; spanned at the
/// field's type so a missing `FromV8` is reported there.
fn read_type(field: &Field) -> TokenStream {
    let ty = &field.ty;
    if field.serde {
        quote_spanned!(ty.span()=> ::runtime_core::serde::Serde<#ty>)
    } else {
        quote_spanned!(ty.span()=> #ty)
    }
}

fn unwrap_serde(field: &Field) -> TokenStream {
    if field.serde {
        quote!(.map(|wrapped| wrapped.0))
    } else {
        quote!()
    }
}

/// `path` (`Self` or `Self::V`) made from `value` read as `shape`; an expression of type
/// `Result<Self, OpError>` that may `return` early.
fn read_shape(shape: &Shape, path: TokenStream, what: &str) -> TokenStream {
    let d = support();
    match shape {
        Shape::Named(fields) => {
            let names = fields.iter().map(|field| &field.key);
            let count = fields.len();
            let object_what = format!("an object ({what})");
            let members = fields.iter().enumerate().map(|(index, field)| {
                let member = &field.member;
                let key = &field.key;
                let read_type = read_type(field);
                let unwrap = unwrap_serde(field);
                let missing = match &field.missing {
                    Missing::Required => {
                        quote!(return ::std::result::Result::Err(#d::missing(#key, #what)))
                    }
                    Missing::None => quote!(::std::option::Option::None),
                    Missing::Expr(expr) => quote!(#expr),
                    Missing::Default => quote!(::std::default::Default::default()),
                };
                quote! {
                    #member: match #d::field::<#read_type>(scope, object, keys[#index], #key)?#unwrap {
                        ::std::option::Option::Some(value) => value,
                        ::std::option::Option::None => #missing,
                    }
                }
            });
            quote!({
                static KEYS: #d::Keys<#count> = #d::Keys::new([#(#names),*]);
                let object = #d::object(value, #object_what)?;
                let _depth = #d::Depth::enter()?;
                let keys = KEYS.get(scope);
                ::std::result::Result::Ok(#path { #(#members,)* })
            })
        }
        Shape::Newtype(field) => {
            let read_type = read_type(field);
            let unwrap = if field.serde { quote!(.0) } else { quote!() };
            quote! {
                <#read_type as ::runtime_core::FromV8>::from_v8(scope, value)
                    .map(|inner| #path(inner #unwrap))
            }
        }
        Shape::Tuple(fields) => {
            let len = fields.len() as u32;
            let array_what = format!("an array of {len} elements ({what})");
            let elements = fields.iter().enumerate().map(|(index, field)| {
                let index = index as u32;
                let read_type = read_type(field);
                let unwrap = if field.serde { quote!(.0) } else { quote!() };
                quote!(#d::element::<#read_type>(scope, array, #index)? #unwrap)
            });
            quote!({
                let array = #d::array(value, #len, #array_what)?;
                let _depth = #d::Depth::enter()?;
                ::std::result::Result::Ok(#path(#(#elements),*))
            })
        }
        Shape::Unit => quote!(::std::result::Result::Ok(#path)),
    }
}

/// "one of 'a', 'b'" for errors.
fn one_of<'v>(keys: impl Iterator<Item = &'v String>) -> String {
    let quoted: Vec<String> = keys.map(|key| format!("'{key}'")).collect();
    format!("one of {}", quoted.join(", "))
}

/// What an externally tagged enum is, for errors: "one of 'a', 'b', or an object keyed by
/// one of 'c' (E)".
fn external_what(type_name: &str, variants: &[Variant]) -> String {
    let (units, others): (Vec<&Variant>, Vec<&Variant>) = variants
        .iter()
        .partition(|variant| matches!(variant.shape, Shape::Unit));
    let mut what = String::new();
    if !units.is_empty() {
        what += &one_of(units.iter().map(|variant| &variant.key));
    }
    if !others.is_empty() {
        if !what.is_empty() {
            what += ", or ";
        }
        what += &format!(
            "an object keyed by {}",
            one_of(others.iter().map(|variant| &variant.key))
        );
    }
    format!("{what} ({type_name})")
}

fn read_enum(type_name: &str, repr: &Repr, variants: &[Variant]) -> TokenStream {
    let d = support();
    let variant_what = |variant: &Variant| format!("{type_name}::{}", variant.ident);
    match repr {
        Repr::External => {
            let (units, others): (Vec<&Variant>, Vec<&Variant>) = variants
                .iter()
                .partition(|variant| matches!(variant.shape, Shape::Unit));
            let what = external_what(type_name, variants);
            let unit_arms = units.iter().map(|variant| {
                let ident = &variant.ident;
                let key = &variant.key;
                quote!(#key => ::std::result::Result::Ok(Self::#ident),)
            });
            let keys = others.iter().map(|variant| &variant.key);
            let count = others.len();
            let tries = others.iter().enumerate().map(|(index, variant)| {
                let ident = &variant.ident;
                let key = &variant.key;
                let read = read_shape(&variant.shape, quote!(Self::#ident), &variant_what(variant));
                quote! {
                    let inner = #d::property(scope, object, keys[#index])?;
                    if !inner.is_undefined() {
                        let value = inner;
                        return (|| -> ::std::result::Result<Self, ::runtime_core::OpError> { #read })()
                            .map_err(|error| #d::ValueError::at_key(error, #key));
                    }
                }
            });
            let objects = (!others.is_empty()).then(|| {
                quote! {
                    static KEYS: #d::Keys<#count> = #d::Keys::new([#(#keys),*]);
                    let object = #d::object(value, #what)?;
                    let _depth = #d::Depth::enter()?;
                    let keys = KEYS.get(scope);
                    #(#tries)*
                }
            });
            quote! {
                if let ::std::option::Option::Some(name) = #d::variant_name(scope, value) {
                    return match name.as_str() {
                        #(#unit_arms)*
                        _ => ::std::result::Result::Err(#d::unexpected(#what, value)),
                    };
                }
                #objects
                ::std::result::Result::Err(#d::unexpected(#what, value))
            }
        }
        Repr::Internal { tag } | Repr::Adjacent { tag, .. } => {
            let content = match repr {
                Repr::Adjacent { content, .. } => Some(content),
                _ => None,
            };
            let names = one_of(variants.iter().map(|variant| &variant.key));
            let object_what = format!("an object with '{tag}' {names} ({type_name})");
            let tag_what = format!("{names} ({type_name})");
            let keys = std::iter::once(tag).chain(content);
            let count = 1 + usize::from(content.is_some());
            let arms = variants.iter().map(|variant| {
                let ident = &variant.ident;
                let key = &variant.key;
                let read = read_shape(&variant.shape, quote!(Self::#ident), &variant_what(variant));
                let read = match (content, &variant.shape) {
                    (_, Shape::Unit) | (None, _) => read,
                    (Some(content), _) => quote!({
                        let value = #d::property(scope, object, keys[1])?;
                        (|| -> ::std::result::Result<Self, ::runtime_core::OpError> { #read })()
                            .map_err(|error| #d::ValueError::at_key(error, #content))
                    }),
                };
                quote!(#key => #read,)
            });
            quote! {
                static KEYS: #d::Keys<#count> = #d::Keys::new([#(#keys),*]);
                let object = #d::object(value, #object_what)?;
                let keys = KEYS.get(scope);
                let name = #d::property(scope, object, keys[0])?;
                let ::std::option::Option::Some(text) = #d::variant_name(scope, name) else {
                    return ::std::result::Result::Err(#d::ValueError::at_key(#d::unexpected(#tag_what, name), #tag));
                };
                match text.as_str() {
                    #(#arms)*
                    _ => ::std::result::Result::Err(#d::ValueError::at_key(#d::unexpected(#tag_what, name), #tag)),
                }
            }
        }
        Repr::Untagged => {
            let what = format!("any form of '{type_name}'");
            let tries = variants.iter().map(|variant| {
                let ident = &variant.ident;
                match &variant.shape {
                    Shape::Unit => quote! {
                        if value.is_null_or_undefined() {
                            return ::std::result::Result::Ok(Self::#ident);
                        }
                    },
                    shape => {
                        let read = read_shape(shape, quote!(Self::#ident), &variant_what(variant));
                        quote! {
                            if let ::std::result::Result::Ok(read) =
                                (|| -> ::std::result::Result<Self, ::runtime_core::OpError> { #read })()
                            {
                                return ::std::result::Result::Ok(read);
                            }
                        }
                    }
                }
            });
            quote! {
                #(#tries)*
                ::std::result::Result::Err(#d::unexpected(#what, value))
            }
        }
    }
}

/// For types that read strings (see `FromV8::READS_ONE_BYTE`): the constant's value and the
/// body of `from_one_byte(latin1)`, which must answer as `from_v8` does for that string. A
/// newtype answers as its field; an externally tagged enum with unit variants matches their
/// names, and is no other form for a string. Other shapes read no string.
fn read_one_byte(container: &Container) -> Option<(TokenStream, TokenStream)> {
    let d = support();
    match &container.body {
        Body::Struct(Shape::Newtype(field)) => {
            let read_type = read_type(field);
            let unwrap = if field.serde { quote!(.0) } else { quote!() };
            let reads = quote!(<#read_type as ::runtime_core::FromV8<'s>>::READS_ONE_BYTE);
            let body = quote! {
                <#read_type as ::runtime_core::FromV8<'s>>::from_one_byte(latin1)
                    .map(|inner| Self(inner #unwrap))
            };
            Some((reads, body))
        }
        Body::Enum {
            repr: Repr::External,
            variants,
        } => {
            let units: Vec<&Variant> = variants
                .iter()
                .filter(|variant| matches!(variant.shape, Shape::Unit))
                .collect();
            if units.is_empty() {
                return None;
            }
            let what = external_what(&container.type_name, variants);
            let arms = units.iter().map(|variant| {
                let ident = &variant.ident;
                let key = &variant.key;
                quote!(#key => ::std::result::Result::Ok(Self::#ident),)
            });
            let body = quote! {
                #d::with_one_byte_str(latin1, |name| match name {
                    #(#arms)*
                    _ => ::std::result::Result::Err(#d::unexpected_string(#what)),
                })
            };
            Some((quote!(true), body))
        }
        Body::Struct(_) | Body::Enum { .. } => None,
    }
}

/// The `impl FromV8`.
pub fn generate(container: &Container) -> TokenStream {
    let ident = &container.ident;
    let body = match &container.body {
        Body::Struct(shape) => read_shape(shape, quote!(Self), &container.type_name),
        Body::Enum { repr, variants } => read_enum(&container.type_name, repr, variants),
    };
    let one_byte = read_one_byte(container).map(|(reads, body)| {
        quote! {
            const READS_ONE_BYTE: bool = #reads;

            fn from_one_byte(
                latin1: &[u8],
            ) -> ::std::result::Result<Self, ::runtime_core::OpError> {
                #body
            }
        }
    });
    let mut generics = container.generics.clone();
    let type_params: Vec<syn::Ident> = generics
        .type_params()
        .map(|param| param.ident.clone())
        .collect();
    let (_, type_generics, _) = container.generics.split_for_impl();
    generics.params.insert(0, syn::parse_quote!('s));
    {
        let where_clause = generics.make_where_clause();
        for param in &type_params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: ::runtime_core::FromV8<'s>));
        }
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let typescript = crate::typegen::types::declaration(container, Position::Input);
    let typescript_types = super::typescript_types(container, Position::Input);
    quote! {
        impl #impl_generics ::runtime_core::FromV8<'s> for #ident #type_generics #where_clause {
            const TYPESCRIPT: &'static str = #typescript;
            #typescript_types

            #one_byte

            fn from_v8(
                scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
                value: ::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>,
            ) -> ::std::result::Result<Self, ::runtime_core::OpError> {
                #body
            }
        }
    }
}
