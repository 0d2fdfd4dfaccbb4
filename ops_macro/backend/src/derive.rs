//! `#[derive(FromV8)]` and `#[derive(ToV8)]` (as deno's): a struct with named fields is an
//! object (fields by name; `#[from_v8(rename = "x")]`, `#[from_v8(default = expr)]`, `Option`
//! fields may be missing), a newtype its field, a tuple struct an array of its fields, an enum
//! of unit variants a string (the variant's name, or its `rename`). Generated code calls
//! `runtime_core::structured::__derive` and each field type's `FromV8`/`ToV8`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    From,
    To,
}

impl Direction {
    fn attribute(self) -> &'static str {
        match self {
            Direction::From => "from_v8",
            Direction::To => "to_v8",
        }
    }
}

/// A field's or variant's options: `rename = "..."`, `default = expr` (`FromV8` only).
#[derive(Default)]
struct Options {
    rename: Option<String>,
    default: Option<syn::Expr>,
}

fn options(attrs: &[syn::Attribute], direction: Direction) -> syn::Result<Options> {
    let mut options = Options::default();
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident(direction.attribute()))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let name: syn::LitStr = meta.value()?.parse()?;
                options.rename = Some(name.value());
                Ok(())
            } else if meta.path.is_ident("default") && direction == Direction::From {
                options.default = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error(match direction {
                    Direction::From => "expected `rename = \"...\"` or `default = <expr>`",
                    Direction::To => "expected `rename = \"...\"`",
                }))
            }
        })?;
    }
    Ok(options)
}

/// Whether `ty` is `Option<...>` (a missing property is then `None`).
fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path)
        if path.path.segments.last().is_some_and(|last| last.ident == "Option"))
}

/// `#[derive(FromV8)]`.
pub fn from_v8(input: TokenStream) -> TokenStream {
    derive(input, Direction::From).unwrap_or_else(|error| error.to_compile_error())
}

/// `#[derive(ToV8)]`.
pub fn to_v8(input: TokenStream) -> TokenStream {
    derive(input, Direction::To).unwrap_or_else(|error| error.to_compile_error())
}

fn derive(input: TokenStream, direction: Direction) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "`#[derive(FromV8, ToV8)]` does not take generic types yet: derive it for a concrete type",
        ));
    }
    let name = &input.ident;
    let type_name = name.to_string();
    let derive = quote!(::runtime_core::structured::__derive);
    let body = match (&input.data, direction) {
        (Data::Struct(data), Direction::From) => match &data.fields {
            Fields::Named(fields) => {
                let fields = fields
                    .named
                    .iter()
                    .map(|field| {
                        let ident = field.ident.as_ref().expect("a named field");
                        let options = options(&field.attrs, direction)?;
                        let key = options.rename.unwrap_or_else(|| ident.to_string());
                        let missing = match (options.default, is_option(&field.ty)) {
                            (Some(default), _) => quote!(#default),
                            (None, true) => quote!(::std::option::Option::None),
                            (None, false) => {
                                quote!(return ::std::result::Result::Err(#derive::missing(#key, #type_name)))
                            }
                        };
                        Ok(quote! {
                            #ident: match #derive::field(scope, object, #key)? {
                                ::std::option::Option::Some(value) => value,
                                ::std::option::Option::None => #missing,
                            }
                        })
                    })
                    .collect::<syn::Result<Vec<_>>>()?;
                quote! {
                    let object = #derive::object(value, #type_name)?;
                    ::std::result::Result::Ok(Self { #(#fields,)* })
                }
            }
            // A newtype is its field (transparent).
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => quote! {
                ::runtime_core::FromV8::from_v8(scope, value).map(Self)
            },
            Fields::Unnamed(fields) => {
                let len = fields.unnamed.len() as u32;
                let elements =
                    (0..len).map(|index| quote!(#derive::element(scope, array, #index)?));
                quote! {
                    let array = #derive::array(value, #len, #type_name)?;
                    ::std::result::Result::Ok(Self(#(#elements),*))
                }
            }
            Fields::Unit => quote!({
                let _ = (scope, value);
                ::std::result::Result::Ok(Self)
            }),
        },
        (Data::Struct(data), Direction::To) => match &data.fields {
            Fields::Named(fields) => {
                let sets = fields
                    .named
                    .iter()
                    .map(|field| {
                        let ident = field.ident.as_ref().expect("a named field");
                        let options = options(&field.attrs, direction)?;
                        let key = options.rename.unwrap_or_else(|| ident.to_string());
                        Ok(quote!(#derive::set_field(scope, object, #key, self.#ident)?;))
                    })
                    .collect::<syn::Result<Vec<_>>>()?;
                quote! {
                    let object = #derive::new_object(scope);
                    #(#sets)*
                    ::std::result::Result::Ok(object.into())
                }
            }
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => quote! {
                ::runtime_core::ToV8::to_v8(self.0, scope)
            },
            Fields::Unnamed(fields) => {
                let values = (0..fields.unnamed.len()).map(|index| {
                    let index = syn::Index::from(index);
                    quote!(::runtime_core::ToV8::to_v8(self.#index, scope)?)
                });
                quote! {
                    let values = [#(#values),*];
                    ::std::result::Result::Ok(#derive::new_array(scope, &values))
                }
            }
            Fields::Unit => quote!(::std::result::Result::Ok(
                ::runtime_core::v8::null(scope).into()
            )),
        },
        (Data::Enum(data), _) => {
            let mut variants = Vec::new();
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    return Err(syn::Error::new_spanned(
                        &variant.fields,
                        "`#[derive(FromV8, ToV8)]` takes enums of unit variants (strings) only yet",
                    ));
                }
                let options = options(&variant.attrs, direction)?;
                let key = options.rename.unwrap_or_else(|| variant.ident.to_string());
                variants.push((&variant.ident, key));
            }
            match direction {
                Direction::From => {
                    let arms = variants
                        .iter()
                        .map(|(ident, key)| quote!(#key => Self::#ident,));
                    let names: Vec<&String> = variants.iter().map(|(_, key)| key).collect();
                    let expected = format!(
                        "expected one of {} ({type_name})",
                        names
                            .iter()
                            .map(|name| format!("'{name}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    quote! {
                        let text = <::std::string::String as ::runtime_core::FromV8>::from_v8(scope, value)
                            .map_err(|_| ::runtime_core::OpError::type_error(#expected))?;
                        ::std::result::Result::Ok(match text.as_str() {
                            #(#arms)*
                            _ => return ::std::result::Result::Err(::runtime_core::OpError::type_error(#expected)),
                        })
                    }
                }
                Direction::To => {
                    let arms = variants
                        .iter()
                        .map(|(ident, key)| quote!(Self::#ident => #key,));
                    quote! {
                        let text: &str = match self { #(#arms)* };
                        ::runtime_core::ToV8::to_v8(text, scope)
                    }
                }
            }
        }
        (Data::Union(data), _) => {
            return Err(syn::Error::new_spanned(
                data.union_token,
                "`#[derive(FromV8, ToV8)]` does not take unions",
            ))
        }
    };
    Ok(match direction {
        Direction::From => quote! {
            impl<'s> ::runtime_core::FromV8<'s> for #name {
                fn from_v8(
                    scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
                    value: ::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>,
                ) -> ::std::result::Result<Self, ::runtime_core::OpError> {
                    #body
                }
            }
        },
        Direction::To => quote! {
            impl ::runtime_core::ToV8 for #name {
                fn to_v8<'s>(
                    self,
                    scope: &mut ::runtime_core::v8::PinScope<'s, '_>,
                ) -> ::std::result::Result<::runtime_core::v8::Local<'s, ::runtime_core::v8::Value>, ::runtime_core::OpError> {
                    #body
                }
            }
        },
    })
}
