//! The fast path: V8 Fast API functions and their `CFunctionInfo`s.
//!
//! Two functions per op: `fast_fn`, registered when op call counters are off, takes exactly
//! what the op needs (the callback options only for op-state arguments), so it costs what a
//! hand-written fast function costs; `fast_fn_counted` counts the call, then forwards to it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{buffer_ident, call_args, internal_ident, primitive};
use crate::ir::{CType, FastArg, FastConvert, FastRet, Op};

/// The Rust type of a fast-call parameter or return of this C type; `None` for `void`.
fn ctype_rust(ctype: CType) -> Option<TokenStream> {
    let primitive = |name: &str| {
        let ident = primitive(name);
        quote!(#ident)
    };
    Some(match ctype {
        CType::Void => return None,
        CType::Bool => primitive("bool"),
        CType::Int32 => primitive("i32"),
        CType::Uint32 => primitive("u32"),
        CType::Int64 => primitive("i64"),
        CType::Uint64 => primitive("u64"),
        CType::Float32 => primitive("f32"),
        CType::Float64 => primitive("f64"),
        CType::SeqOneByteString => quote!(*const ::runtime_core::__op::FastApiOneByteString),
    })
}

fn ctype_info(ctype: CType) -> TokenStream {
    let variant = format_ident!("{}", ctype.variant());
    quote!(::runtime_core::v8::fast_api::Type::#variant.as_info())
}

fn c_function_info(op: &Op, name: &str, with_options: bool) -> TokenStream {
    let name = format_ident!("{}", name);
    let params = op.args.iter().filter_map(|arg| match arg.kind.fast() {
        FastArg::Param { ctype, .. } => Some(ctype_info(ctype)),
        _ => None,
    });
    let options = with_options
        .then(|| quote!(::runtime_core::v8::fast_api::Type::CallbackOptions.as_info(),));
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
        const #name: ::runtime_core::v8::fast_api::CFunctionInfo =
            ::runtime_core::v8::fast_api::CFunctionInfo::new(
                #ret,
                &[
                    ::runtime_core::v8::fast_api::Type::V8Value.as_info(),
                    #(#params,)*
                    #options
                ],
                ::runtime_core::v8::fast_api::Int64Representation::#repr,
            );
    }
}

/// `FAST_FN_INFO` and `FAST_FN_COUNTED_INFO`: receiver, parameters, callback options (always
/// for the counted variant, which reads its counter through them).
pub fn fast_fn_info(op: &Op) -> TokenStream {
    let plain = c_function_info(op, "FAST_FN_INFO", op.fast_needs_options());
    let counted = c_function_info(op, "FAST_FN_COUNTED_INFO", true);
    quote!(#plain #counted)
}

/// `extern "C" fn fast_fn(receiver, params.. [, options]) -> ret` and
/// `extern "C" fn fast_fn_counted(receiver, params.., options) -> ret`.
pub fn fast_fn(op: &Op) -> TokenStream {
    let options = internal_ident("options");
    let op_ctx = internal_ident("op_ctx");
    let receiver = internal_ident("receiver");
    let result = internal_ident("result");
    let mut params = Vec::new();
    let mut param_idents = Vec::new();
    let mut prologue = Vec::new();
    if op.fast_needs_options() {
        prologue.push(quote! {
            // SAFETY: V8 passes the options of this call, whose data is the op's context.
            let #op_ctx = unsafe { ::runtime_core::__op::fast_op_ctx(#options) };
        });
    }
    for arg in &op.args {
        let ident = &arg.ident;
        match arg.kind.fast() {
            FastArg::Param { ctype, convert } => {
                let ty = ctype_rust(ctype).expect("a parameter is never void");
                params.push(quote!(#ident: #ty));
                param_idents.push(ident);
                match convert {
                    FastConvert::Direct => {}
                    FastConvert::Narrow(narrow) => {
                        let narrow = primitive(narrow);
                        // Wrapping, as the slow path's ToInt32/ToUint32-then-wrap does.
                        prologue.push(quote!(let #ident = #ident as #narrow;));
                    }
                    FastConvert::Helper { name, buffered } => {
                        let helper = primitive(name);
                        let buffer = buffer_ident(ident);
                        let buffer_arg = buffered.then(|| quote!(, &mut #buffer));
                        if buffered {
                            prologue.push(quote!(let mut #buffer = ::runtime_core::__op::StringBuffer::new();));
                        }
                        prologue.push(quote! {
                            // SAFETY: V8 passed this string for this call; the result is used
                            // only during it.
                            let #ident = unsafe { ::runtime_core::__op::#helper(#ident #buffer_arg) };
                        });
                    }
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
        FastRet::Value { ctype, widen_to } => match ctype_rust(ctype) {
            None => (quote!(), quote!(#function(#(#args),*);)),
            Some(ty) => {
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
    let options_param = quote!(#options: *mut ::runtime_core::__op::FastApiCallbackOptions);
    let plain_options_param = op.fast_needs_options().then(|| quote!(#options_param,));
    let forwarded_options = op.fast_needs_options().then(|| quote!(#options,));
    quote! {
        extern "C" fn fast_fn(
            #receiver: ::runtime_core::v8::Local<::runtime_core::v8::Object>,
            #(#params,)*
            #plain_options_param
        ) #ret_ty {
            let _ = #receiver;
            #(#prologue)*
            #body_end
        }

        extern "C" fn fast_fn_counted(
            #receiver: ::runtime_core::v8::Local<::runtime_core::v8::Object>,
            #(#params,)*
            #options_param,
        ) #ret_ty {
            // SAFETY: V8 passes the options of this call, whose data is the op's context.
            unsafe { ::runtime_core::__op::count_fast_call(#options) };
            Self::fast_fn(#receiver, #(#param_idents,)* #forwarded_options)
        }
    }
}
