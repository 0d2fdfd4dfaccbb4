//! The `OpDecl` constant.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::FastMode;
use crate::ir::{AsyncCall, Op};
use crate::typegen::{Form, NamedType, Position};

/// `const DECL: ::runtime_core::OpDecl = ...;`
pub fn decl(op: &Op) -> TokenStream {
    let vis = &op.vis;
    let name = op.js_name.clone().unwrap_or_else(|| op.ident.to_string());
    let arg_names = op.js_args().map(|(_, arg)| &arg.js_name);
    let no_side_effects = op.no_side_effects;
    let stack_trace = op.stack_trace;
    let typescript = crate::typegen::declaration(op);
    let named = crate::typegen::types_named(op);
    // A constant of its own: `&[..]` of const fn calls lives for `'static` only as a
    // constant's value, not as a method's argument.
    let (types_const, with_types) = if named.is_empty() {
        (None, None)
    } else {
        let types = ts_types(&named);
        (
            Some(quote!(const TYPESCRIPT_TYPES: ::runtime_core::TsTypes = #types;)),
            Some(quote!(.with_typescript_types(TYPESCRIPT_TYPES))),
        )
    };
    let async_op = match op.async_call() {
        None => quote!(::std::option::Option::None),
        Some(AsyncCall::Value) => {
            quote!(::std::option::Option::Some(
                ::runtime_core::__op::AsyncCall::Value
            ))
        }
        Some(AsyncCall::Status) => {
            quote!(::std::option::Option::Some(
                ::runtime_core::__op::AsyncCall::Status
            ))
        }
    };
    let arity = op.js_args().count();
    let fast_fn = if let Some(other) = &op.fast_alternative {
        let message = format!(
            "`#[op(fast(...))]`: the other op must take the same JavaScript arguments as `{}`",
            op.ident
        );
        let not_async = format!(
            "`#[op(fast(...))]`: the other op must not be async (its fast call returns a \
             status only its own wrapper reads), as `{}` must take its own",
            op.ident
        );
        quote! {
            {
                ::std::assert!(#other::DECL.arity() == #arity, #message);
                ::std::assert!(!#other::DECL.is_async(), #not_async);
                #other::DECL.fast_fn()
            }
        }
    } else if op.has_fast_path() {
        fast_fn(op)
    } else {
        quote!(::std::option::Option::None)
    };
    quote! {
        #vis const DECL: ::runtime_core::OpDecl = {
            #types_const
            let fast_fn = #fast_fn;
            let flags = ::runtime_core::__op::OpFlags {
                no_side_effects: #no_side_effects,
                stack_trace: #stack_trace,
                async_op: #async_op,
            };
            // SAFETY: the functions generated for this op, each fast one with its info.
            unsafe {
                ::runtime_core::OpDecl::new(
                    #name,
                    &[#(#arg_names),*],
                    Self::slow_fn,
                    fast_fn,
                    flags,
                    #typescript,
                )
            }
            #with_types
        };
    }
}

/// `&[fn() -> TsType, ..]` of the types a declaration names, each by the name the user's code
/// gives it (a single-segment path: the declaration names only those).
pub fn ts_types(named: &[NamedType]) -> TokenStream {
    let types = named.iter().map(|named| {
        let name = &named.name;
        let ty = syn::Ident::new(name, proc_macro2::Span::call_site());
        let probe = quote!((&&::runtime_core::__op::TsProbe::<#ty>::NEW));
        match named.form {
            Form::Value(Position::Input) => quote!(|| {
                use ::runtime_core::__op::{TsInput as _, TsInputMissing as _};
                #probe.ts_input(#name)
            }),
            Form::Value(Position::Output) => quote!(|| {
                use ::runtime_core::__op::{TsOutput as _, TsOutputMissing as _};
                #probe.ts_output(#name)
            }),
            Form::Class => quote!(|| ::runtime_core::TsType::class(#name)),
        }
    });
    quote!(&[#(#types),*])
}

/// The fast function, registered as its arguments' types allow: a `FromV8` argument's only if
/// its type reads strings (`READS_ONE_BYTE`, a constant: the choice costs nothing per call);
/// with `#[op(fast)]`, a type that does not is a compile-time error.
fn fast_fn(op: &Op) -> TokenStream {
    let metered_info = if op.fast_takes_options() {
        quote!(FAST_FN_INFO)
    } else {
        quote!(FAST_FN_INFO_METERED)
    };
    let registered = quote! {
        // SAFETY: each function has the signature its info describes.
        ::std::option::Option::Some(unsafe {
            ::runtime_core::__op::FastFn::new(
                ::runtime_core::v8::fast_api::CFunction::new(
                    Self::fast_fn as *const ::std::ffi::c_void,
                    &Self::FAST_FN_INFO,
                ),
                ::runtime_core::v8::fast_api::CFunction::new(
                    Self::fast_fn_metered as *const ::std::ffi::c_void,
                    &Self::#metered_info,
                ),
            )
        })
    };
    let conditions: Vec<TokenStream> = op
        .fast_path_conditions()
        .map(|arg| {
            let ty = super::from_v8_type(arg, false);
            quote!(<#ty as ::runtime_core::FromV8<'static>>::READS_ONE_BYTE)
        })
        .collect();
    if conditions.is_empty() {
        return registered;
    }
    if op.fast_mode == FastMode::Required {
        let message = format!(
            "`#[op(fast)]` on `{}`, but a `FromV8` argument's type does not read strings \
             (`FromV8::READS_ONE_BYTE` is false), so it has no fast path",
            op.ident
        );
        return quote!({
            ::std::assert!(#(#conditions)&&*, #message);
            #registered
        });
    }
    quote! {
        if #(#conditions)&&* {
            #registered
        } else {
            ::std::option::Option::None
        }
    }
}
