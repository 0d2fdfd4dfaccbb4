//! The fast path: a V8 Fast API function and its `CFunctionInfo`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{call_args, internal_ident, primitive};
use crate::ir::{CType, FastArg, FastRet, Op};

fn ctype_info(ctype: CType) -> TokenStream {
    let variant = format_ident!("{}", ctype.variant());
    quote!(::runtime_core::v8::fast_api::Type::#variant.as_info())
}

/// `const FAST_FN_INFO: CFunctionInfo = ...;`: receiver, parameters, callback options.
pub fn fast_fn_info(op: &Op) -> TokenStream {
    let params = op.args.iter().filter_map(|arg| match arg.kind.fast() {
        FastArg::Param { ctype, .. } => Some(ctype_info(ctype)),
        _ => None,
    });
    let ret = match op.ret.kind.fast() {
        FastRet::Value { ctype, .. } => ctype_info(ctype),
        FastRet::Unsupported(_) => unreachable!("fast_fn_info of an op without a fast path"),
    };
    let repr = if op.uses_bigint() {
        quote!(BigInt)
    } else {
        quote!(Number)
    };
    quote! {
        const FAST_FN_INFO: ::runtime_core::v8::fast_api::CFunctionInfo =
            ::runtime_core::v8::fast_api::CFunctionInfo::new(
                #ret,
                &[
                    ::runtime_core::v8::fast_api::Type::V8Value.as_info(),
                    #(#params,)*
                    ::runtime_core::v8::fast_api::Type::CallbackOptions.as_info(),
                ],
                ::runtime_core::v8::fast_api::Int64Representation::#repr,
            );
    }
}

/// `extern "C" fn fast_fn<const COUNTED: bool>(receiver, params.., options) -> ret`.
pub fn fast_fn(op: &Op) -> TokenStream {
    let options = internal_ident("options");
    let op_ctx = internal_ident("op_ctx");
    let result = internal_ident("result");
    let mut params = Vec::new();
    let mut prologue = Vec::new();
    let needs_op_ctx = op.args.iter().any(|arg| {
        matches!(
            arg.kind.fast(),
            FastArg::StateRef | FastArg::StateMut | FastArg::StateRc
        )
    });
    if needs_op_ctx {
        prologue.push(quote! {
            // SAFETY: V8 passes the options of this call, whose data is the op's context.
            let #op_ctx = unsafe { ::runtime_core::__op::fast_op_ctx(#options) };
        });
    }
    for arg in &op.args {
        let ident = &arg.ident;
        match arg.kind.fast() {
            FastArg::Param { ctype, narrow_to } => {
                let ty = primitive(ctype.rust_type().expect("a parameter is never void"));
                params.push(quote!(#ident: #ty));
                if let Some(narrow) = narrow_to {
                    let narrow = primitive(narrow);
                    // Wrapping, as the slow path's ToInt32/ToUint32-then-wrap does.
                    prologue.push(quote!(let #ident = #ident as #narrow;));
                }
            }
            FastArg::StateRef => prologue.push(quote!(let #ident = #op_ctx.fast_state();)),
            FastArg::StateMut => prologue.push(quote!(let mut #ident = #op_ctx.fast_state_mut();)),
            FastArg::StateRc => prologue.push(quote!(let #ident = #op_ctx.state_rc();)),
            FastArg::Unsupported(_) => unreachable!("fast_fn of an op without a fast path"),
        }
    }
    let function = &op.ident;
    let args = call_args(op);
    let (ret_ty, body_end) = match op.ret.kind.fast() {
        FastRet::Value { ctype, widen_to } => match ctype.rust_type() {
            None => (quote!(), quote!(#function(#(#args),*);)),
            Some(ty) => {
                let ty = primitive(ty);
                let body_end = match widen_to {
                    Some(wide) => {
                        let wide = primitive(wide);
                        quote! {
                            let #result = #function(#(#args),*);
                            #result as #wide
                        }
                    }
                    None => quote!(#function(#(#args),*)),
                };
                (quote!(-> #ty), body_end)
            }
        },
        FastRet::Unsupported(_) => unreachable!("fast_fn of an op without a fast path"),
    };
    quote! {
        extern "C" fn fast_fn<const COUNTED: bool>(
            _receiver: ::runtime_core::v8::Local<::runtime_core::v8::Object>,
            #(#params,)*
            #options: *mut ::runtime_core::__op::FastApiCallbackOptions,
        ) #ret_ty {
            if COUNTED {
                // SAFETY: V8 passes the options of this call, whose data is the op's context.
                unsafe { ::runtime_core::__op::count_fast_call(#options) };
            }
            #(#prologue)*
            #body_end
        }
    }
}
