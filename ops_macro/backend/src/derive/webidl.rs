//! `#[derive(WebIDL)]` (as deno's), emitted from its IR ([`crate::ir::webidl_definition`],
//! parsed in `crate::internals::webidl_input`): pure functions of it.
//!
//! Dictionary members are read in lexicographic order of their JavaScript names, as the spec
//! orders them; a member that is `undefined` takes its `#[webidl(default = expr)]`, `None` for
//! an `Option`, or is a `TypeError` when required. `#[options(clamp = true)]` passes the member
//! type's extended attributes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::Ctxt;
use crate::ir::webidl_definition::{Definition, Dictionary, Enumeration};

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
    let definition = crate::internals::webidl_input::parse(&cx, &input);
    if let Err(errors) = cx.check() {
        return errors.iter().map(syn::Error::to_compile_error).collect();
    }
    match definition.expect("no errors, so parsed") {
        Definition::Dictionary(definition) => dictionary(&definition),
        Definition::Enumeration(definition) => enumeration(&definition),
    }
}
