//! `ToV8` from the derive's IR: a pure function of it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ir::container::{Body, Container, Field, Repr, Shape, Variant};

fn support() -> TokenStream {
    quote!(::runtime_core::structured::__derive)
}

/// The type a field is written as (its own, or `Serde<T>`), spanned at the field's type so a
/// missing `ToV8` is reported there.
fn written_type(field: &Field) -> TokenStream {
    let ty = &field.ty;
    if field.serde {
        quote_spanned!(ty.span()=> ::runtime_core::serde::Serde<#ty>)
    } else {
        quote_spanned!(ty.span()=> #ty)
    }
}

/// The field's bound local, wrapped in `Serde` for a `serde` field.
fn written(field: &Field) -> TokenStream {
    let binding = &field.binding;
    if field.serde {
        quote!(::runtime_core::serde::Serde(#binding))
    } else {
        quote!(#binding)
    }
}

/// The pattern that takes `path` (`Self`, `Self::V`) apart into the fields' bindings.
fn pattern(shape: &Shape, path: TokenStream) -> TokenStream {
    match shape {
        Shape::Named(fields) => {
            let members = fields.iter().map(|field| {
                let member = &field.member;
                let binding = &field.binding;
                quote!(#member: #binding)
            });
            quote!(#path { #(#members),* })
        }
        Shape::Newtype(field) => {
            let binding = &field.binding;
            quote!(#path(#binding))
        }
        Shape::Tuple(fields) => {
            let bindings = fields.iter().map(|field| &field.binding);
            quote!(#path(#(#bindings),*))
        }
        Shape::Unit => path,
    }
}

/// The value of the bound fields as `shape`: an expression of type `Local<Value>` (it may
/// `?`).
fn write_shape(shape: &Shape) -> TokenStream {
    let d = support();
    match shape {
        Shape::Named(fields) if fields.iter().any(|field| field.skip_if.is_some()) => {
            // Some fields may be left out: defined one by one, in order.
            let names = fields.iter().map(|field| &field.key);
            let count = fields.len();
            let defines = fields.iter().enumerate().map(|(index, field)| {
                let key = &field.key;
                let binding = &field.binding;
                let written = written(field);
                let ty = written_type(field);
                let define = quote! {
                    let value = #d::value::<#ty>(scope, #written, #key)?;
                    #d::define(scope, object, keys[#index].into(), value)?;
                };
                match &field.skip_if {
                    Some(skip_if) => quote!(if !(#skip_if)(&#binding) { #define }),
                    None => quote!({ #define }),
                }
            });
            quote!({
                static KEYS: #d::Keys<#count> = #d::Keys::new([#(#names),*]);
                let keys = KEYS.get(scope);
                let object = #d::null_object(scope);
                #(#defines)*
                object.into()
            })
        }
        Shape::Named(fields) => {
            let names = fields.iter().map(|field| &field.key);
            let count = fields.len();
            let values = fields.iter().map(|field| {
                let key = &field.key;
                let written = written(field);
                let ty = written_type(field);
                quote!(#d::value::<#ty>(scope, #written, #key)?)
            });
            quote!({
                static KEYS: #d::Keys<#count> = #d::Keys::new([#(#names),*]);
                let values = [#(#values),*];
                let keys = KEYS.get(scope);
                #d::object_of(scope, keys, &values)
            })
        }
        Shape::Newtype(field) => {
            let written = written(field);
            let ty = written_type(field);
            quote!(<#ty as ::runtime_core::ToV8>::to_v8(#written, scope)?)
        }
        Shape::Tuple(fields) => {
            let values = fields.iter().enumerate().map(|(index, field)| {
                let index = index as u32;
                let written = written(field);
                let ty = written_type(field);
                quote!(#d::element_value::<#ty>(scope, #written, #index)?)
            });
            quote!({
                let values = [#(#values),*];
                #d::array_of(scope, &values)
            })
        }
        Shape::Unit => quote!(::runtime_core::v8::null(scope).into()),
    }
}

fn write_variant(repr: &Repr, variant: &Variant) -> TokenStream {
    let d = support();
    let ident = &variant.ident;
    let key = &variant.key;
    let pattern = pattern(&variant.shape, quote!(Self::#ident));
    let unit = matches!(variant.shape, Shape::Unit);
    let body = write_shape(&variant.shape);
    let value = match repr {
        Repr::External if unit => quote!({
            static NAME: #d::Keys<1> = #d::Keys::new([#key]);
            let [name] = NAME.get(scope);
            name.into()
        }),
        Repr::External => quote!({
            static NAME: #d::Keys<1> = #d::Keys::new([#key]);
            let body = #body;
            let names = NAME.get(scope);
            #d::object_of(scope, names, &[body])
        }),
        Repr::Internal { tag } if unit => quote!({
            static KEYS: #d::Keys<2> = #d::Keys::new([#tag, #key]);
            let [tag, name] = KEYS.get(scope);
            #d::object_of(scope, [tag], &[name.into()])
        }),
        Repr::Internal { tag } => quote!({
            static KEYS: #d::Keys<2> = #d::Keys::new([#tag, #key]);
            let body = #body;
            let [tag, name] = KEYS.get(scope);
            #d::set_tag(scope, body, tag, name)?
        }),
        Repr::Adjacent { tag, .. } if unit => quote!({
            static KEYS: #d::Keys<2> = #d::Keys::new([#tag, #key]);
            let [tag, name] = KEYS.get(scope);
            #d::object_of(scope, [tag], &[name.into()])
        }),
        Repr::Adjacent { tag, content } => quote!({
            static KEYS: #d::Keys<3> = #d::Keys::new([#tag, #content, #key]);
            let body = #body;
            let [tag, content, name] = KEYS.get(scope);
            #d::object_of(scope, [tag, content], &[name.into(), body])
        }),
        Repr::Untagged => body,
    };
    quote!(#pattern => #value,)
}

/// The `impl ToV8`.
pub fn generate(container: &Container) -> TokenStream {
    let ident = &container.ident;
    let body = match &container.body {
        // A newtype's result is its field's.
        Body::Struct(shape @ Shape::Newtype(field)) => {
            let pattern = pattern(shape, quote!(Self));
            let written = written(field);
            let ty = written_type(field);
            quote! {
                let #pattern = self;
                <#ty as ::runtime_core::ToV8>::to_v8(#written, scope)
            }
        }
        Body::Struct(shape) => {
            let pattern = pattern(shape, quote!(Self));
            let value = write_shape(shape);
            quote! {
                let #pattern = self;
                ::std::result::Result::Ok(#value)
            }
        }
        Body::Enum { repr, variants } if variants.is_empty() => {
            let _ = repr;
            quote!(match self {})
        }
        Body::Enum { repr, variants } => {
            let arms = variants.iter().map(|variant| write_variant(repr, variant));
            quote!(::std::result::Result::Ok(match self { #(#arms)* }))
        }
    };
    let mut generics = container.generics.clone();
    let type_params: Vec<syn::Ident> = generics
        .type_params()
        .map(|param| param.ident.clone())
        .collect();
    {
        let where_clause = generics.make_where_clause();
        for param in &type_params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: ::runtime_core::ToV8));
        }
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let typescript =
        crate::typegen::types::declaration(container, crate::typegen::types::Position::Output);
    let typescript_types =
        super::typescript_types(container, crate::typegen::types::Position::Output);
    quote! {
        impl #impl_generics ::runtime_core::ToV8 for #ident #type_generics #where_clause {
            const TYPESCRIPT: &'static str = #typescript;
            #typescript_types

            fn to_v8<'s>(
                self,
                scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
            ) -> ::std::result::Result<::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>, ::runtime_core::OpError> {
                #body
            }
        }
    }
}
