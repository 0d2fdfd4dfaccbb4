//! The fast path: V8 Fast API functions and their `CFunctionInfo`s.
//!
//! Two functions per op: `fast_fn`, registered for ops without a metrics observer, and
//! `fast_fn_metered`, which reports the call to the observer around a call of `fast_fn`. V8
//! 152 lets a fast call throw (tested in `runtime_core/tests/integration/errors.rs`), so arguments that
//! need checking, `Err` returns and panics throw right there, exactly as the slow path
//! would, and the op never runs twice.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::async_start;
use super::{
    buffer_ident, buffer_source, call_args, function_path, internal_ident, marker_type,
    plain_ident, storage_ident, v8_type,
};
use crate::ir::{AsyncOp, CType, FastArg, FastConvert, FastRet, Op};

/// The Rust type of a fast-call parameter or return of this C type; `None` for `void`.
fn ctype_rust(ctype: CType) -> Option<TokenStream> {
    if let Some(primitive) = ctype.primitive() {
        let ident = plain_ident(primitive);
        return Some(quote!(#ident));
    }
    Some(match ctype {
        CType::Void => return None,
        CType::Bool
        | CType::Int32
        | CType::Uint32
        | CType::Int64
        | CType::Uint64
        | CType::Float32
        | CType::Float64 => unreachable!("primitive types are handled above"),
        CType::Pointer => quote!(*mut ::std::ffi::c_void),
        CType::V8Value => quote!(::runtime_core::v8::Local<::runtime_core::v8::Value>),
        CType::SeqOneByteString => quote!(*const ::runtime_core::__op::FastApiOneByteString),
    })
}

fn ctype_info(ctype: CType) -> TokenStream {
    let variant = format_ident!("{}", ctype.variant());
    quote!(::runtime_core::v8::fast_api::Type::#variant.as_info())
}

/// `FAST_FN_INFO`: receiver, parameters, and the callback options when the op may throw or
/// reads its context (a panic alone does not need them: see [`guarded_call`]). An op without
/// them also gets `FAST_FN_INFO_METERED`, with them: the metered variant reads the op's
/// context.
pub fn fast_fn_info(op: &Op) -> TokenStream {
    let params: Vec<TokenStream> = op
        .args
        .iter()
        .filter_map(|arg| match arg.fast() {
            FastArg::Param { ctype, .. } => Some(ctype_info(ctype)),
            _ => None,
        })
        .collect();
    let ret = match op.fast_ret() {
        FastRet::Value { ctype, .. } => ctype_info(ctype),
        FastRet::Status => ctype_info(CType::Int32),
        FastRet::Void => ctype_info(CType::Void),
        FastRet::Unsupported(_) => unreachable!("fast_fn_info of an op without a fast path"),
    };
    let repr = if op.uses_bigint() {
        quote!(BigInt)
    } else {
        quote!(Number)
    };
    let info = |name: &str, options: bool| {
        let name = format_ident!("{name}");
        let options =
            options.then(|| quote!(::runtime_core::v8::fast_api::Type::CallbackOptions.as_info(),));
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
    };
    if op.fast_takes_options() {
        info("FAST_FN_INFO", true)
    } else {
        let plain = info("FAST_FN_INFO", false);
        let metered = info("FAST_FN_INFO_METERED", true);
        quote!(#plain #metered)
    }
}

/// `fn fast_body(receiver, params.., options) -> Option<ret>`,
/// `extern "C" fn fast_fn(receiver, params.., options) -> ret` and
/// `extern "C" fn fast_fn_metered(receiver, params.., options) -> ret`, which calls `fast_fn`.
pub fn fast_fn(op: &Op) -> TokenStream {
    let options = internal_ident("options");
    let op_ctx = internal_ident("op_ctx");
    let receiver = internal_ident("receiver");
    let result = internal_ident("result");
    let mut params = Vec::new();
    let mut param_idents = Vec::new();
    let mut prologue = Vec::new();
    let ret_ctype = match op.fast_ret() {
        FastRet::Value { ctype, .. } => ctype,
        FastRet::Status => CType::Int32,
        FastRet::Void => CType::Void,
        FastRet::Unsupported(_) => unreachable!("fast_fn of an op without a fast path"),
    };
    // The body returns `None` when it has thrown (each check is a `?`); the fast function then
    // hands V8 a default, which V8 ignores.
    let takes_state = op.args.iter().any(|arg| {
        matches!(
            arg.fast(),
            FastArg::StateRef | FastArg::StateMut | FastArg::StateRc
        )
    });
    // (An async op's start reads it in `async_fast_call`.)
    if takes_state && op.async_op.is_none() {
        prologue.push(quote! {
            // SAFETY: V8 passes the options of this call, whose data is the op's context.
            let #op_ctx = unsafe { ::runtime_core::__op::fast_op_ctx(#options) };
        });
    }
    for arg in &op.args {
        let ident = &arg.ident;
        let index = arg
            .js_index
            .map(|index| Literal::i32_unsuffixed(index as i32));
        match arg.fast() {
            FastArg::Param { ctype, convert } => {
                let ty = ctype_rust(ctype).expect("a parameter is never void");
                params.push(quote!(#ident: #ty));
                param_idents.push(ident);
                match convert {
                    FastConvert::Direct => {}
                    FastConvert::Trait(marker) => {
                        let marker = marker_type(marker);
                        prologue.push(quote! {
                            let #ident = #marker::from_fast(#ident);
                        });
                    }
                    FastConvert::Helper { name, buffered } => {
                        let helper = plain_ident(name.name());
                        let buffer = buffer_ident(ident);
                        let buffer_arg = buffered.then(|| quote!(, &mut #buffer));
                        if buffered {
                            prologue.push(
                                quote!(let mut #buffer = ::runtime_core::__op::StringBuffer::new();),
                            );
                        }
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value for this call; the result is used
                            // only during it.
                            let #ident = unsafe { ::runtime_core::__op::#helper(#ident #buffer_arg) };
                        });
                    }
                    FastConvert::Checked { name } => {
                        let helper = plain_ident(name.name());
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call; the
                            // result is used only during it.
                            let #ident =
                                (unsafe { ::runtime_core::__op::#helper(#ident, #options, #index) })?;
                        });
                    }
                    FastConvert::CheckedWithSource { name, source } => {
                        let helper = plain_ident(name.name());
                        let source = buffer_source(source);
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::#helper(#ident, #options, #index, #source)
                            })?;
                        });
                    }
                    FastConvert::CastConst => {
                        prologue.push(quote!(let #ident = #ident.cast_const();))
                    }
                    FastConvert::CheckedWithStorage { name } => {
                        let helper = plain_ident(name.name());
                        let storage = storage_ident(ident);
                        prologue.push(quote! {
                            let mut #storage = ::runtime_core::__op::BufferStorage::new();
                            // SAFETY: V8 passed this value and these options for this call; the
                            // result is used only during it.
                            let #ident = (unsafe {
                                ::runtime_core::__op::#helper(#ident, #options, #index, &mut #storage)
                            })?;
                        });
                    }
                    FastConvert::OptionalNumber => {
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::fast_option_number(#ident, #options, #index)
                            })?;
                        });
                    }
                    FastConvert::OptionalLocal(local) => {
                        let ty = v8_type(local.name());
                        let expected = local.expected();
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::fast_option_local::<#ty>(#ident, #options, #index, #expected)
                            })?;
                        });
                    }
                    FastConvert::Cppgc | FastConvert::OptionalCppgc => {
                        let ty = super::slow::referent(&arg.ty);
                        let class = quote!(#ty).to_string().replace(' ', "");
                        let helper = if convert == FastConvert::Cppgc {
                            quote!(fast_cppgc)
                        } else {
                            quote!(fast_option_cppgc)
                        };
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::#helper::<#ty>(#ident, #options, #index, #class)
                            })?;
                        });
                    }
                    FastConvert::FromOneByte { serde } => {
                        let ty = super::from_v8_type(arg, serde);
                        let unwrap = serde.then(|| quote!(.0));
                        prologue.push(quote! {
                            // SAFETY: V8 passed this string and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::fast_from_one_byte::<#ty>(#ident, #options, #index)
                            })?#unwrap;
                        });
                    }
                    FastConvert::CheckedLocal(local) => {
                        let ty = v8_type(local.name());
                        let expected = local.expected();
                        prologue.push(quote! {
                            // SAFETY: V8 passed this value and these options for this call.
                            let #ident = (unsafe {
                                ::runtime_core::__op::fast_local::<#ty>(#ident, #options, #index, #expected)
                            })?;
                        });
                    }
                }
            }
            FastArg::StateRef => prologue.push(quote! {
                // SAFETY: V8 passes the options of this call.
                let #ident =
                    (unsafe { ::runtime_core::__op::fast_state(#op_ctx, #options) })?;
            }),
            FastArg::StateMut => prologue.push(quote! {
                // SAFETY: V8 passes the options of this call.
                let mut #ident =
                    (unsafe { ::runtime_core::__op::fast_state_mut(#op_ctx, #options) })?;
            }),
            FastArg::StateRc => prologue.push(quote!(let #ident = #op_ctx.state_rc();)),
            FastArg::Receiver => {
                let ty = super::slow::referent(&arg.ty);
                prologue.push(quote! {
                    // SAFETY: V8 passed this receiver and these options for this call.
                    let #ident = (unsafe {
                        ::runtime_core::__op::fast_receiver::<#ty>(#receiver, #options)
                    })?;
                });
            }
            FastArg::Unsupported(_) => unreachable!("fast_fn of an op without a fast path"),
        }
    }
    let function = function_path(op);
    let args = call_args(op, None);
    if let Some(async_op) = &op.async_op {
        let call = async_fast_call(op, async_op, prologue);
        return fast_fns(op, Vec::new(), params, param_idents, call);
    }
    let (prologue, guarded) = guarded_call(op, prologue, quote!(#function(#(#args),*)));
    let guarded = quote! {
        let #result = #guarded;
    };
    let unwrap_result = op.ret.fallible.then(|| unwrap_or_throw(&result));
    // The body's last expression: the C value, or `None` once the conversion threw.
    let (ret_ty, value) = match (op.ret.fast(), ctype_rust(ret_ctype)) {
        (FastRet::Value { marker, throws, .. }, Some(ty)) => {
            let marker = marker_type(marker);
            // A kind that cannot throw converts without the options (its Rust types implement
            // `IntoFast` alone: the table and the runtime cannot disagree).
            let value = if throws {
                quote! {
                    // SAFETY: V8 passes the options of this call.
                    unsafe { #marker::into_fast_checked(#result, #options) }
                }
            } else {
                quote!(::std::option::Option::Some(#marker::into_fast(#result)))
            };
            (ty, value)
        }
        _ => (quote!(()), quote!(::std::option::Option::Some(#result))),
    };
    let call = quote! {
        #guarded
        #unwrap_result
        #value
    };
    fast_fns(op, prologue, params, param_idents, (ret_ty, call))
}

/// `call` under the panic guard (a panic is thrown as an `Error` naming the op), and the
/// argument conversions to run before it: the expression is its value, and returns `None` once
/// anything threw. Values a user type made (`FromV8`, serde) may have a `Drop` of their own,
/// which runs where a later argument's check returns early: such conversions go under the
/// guard too; others stay outside it (nothing of theirs runs user code). An op without the
/// callback options throws a panic in the isolate running it (`fast_call_guarded_current`).
fn guarded_call(
    op: &Op,
    prologue: Vec<TokenStream>,
    call: TokenStream,
) -> (Vec<TokenStream>, TokenStream) {
    let options = internal_ident("options");
    if !op.fast_takes_options() {
        let guarded = quote! {
            // SAFETY: V8 runs this fast function, in the isolate the panic is thrown in.
            (unsafe {
                ::runtime_core::__op::fast_call_guarded_current(Self::DECL.name(), || #call)
            })?
        };
        return (prologue, guarded);
    }
    if op.args.iter().any(crate::ir::Arg::fast_converts_user_value) {
        let guarded = quote! {
            // SAFETY: V8 passes the options of this call.
            (unsafe {
                ::runtime_core::__op::fast_call_guarded(#options, || -> ::std::option::Option<_> {
                    #(#prologue)*
                    ::std::option::Option::Some(#call)
                })
            })??
        };
        (Vec::new(), guarded)
    } else {
        let guarded = quote! {
            // SAFETY: V8 passes the options of this call.
            (unsafe { ::runtime_core::__op::fast_call_guarded(#options, || #call) })?
        };
        (prologue, guarded)
    }
}

/// `let value = match value { Ok(v) => v, Err(e) => throw e, return None }`: an op's `Err` (or
/// a `fn -> Result<impl Future, E>`'s) thrown from the fast call, as the slow path would.
fn unwrap_or_throw(value: &syn::Ident) -> TokenStream {
    let options = internal_ident("options");
    let error = internal_ident("error");
    quote! {
        let #value = match #value {
            ::std::result::Result::Ok(#value) => #value,
            ::std::result::Result::Err(#error) => {
                // SAFETY: V8 passes the options of this call.
                unsafe {
                    ::runtime_core::__op::fast_throw_op_error(
                        #options,
                        ::runtime_core::OpError::from(#error),
                    )
                };
                return ::std::option::Option::None;
            }
        };
    }
}

/// An async op's start on the fast path (see `AsyncCall::Status`): the arguments converted
/// (`prologue`) and the future made (the sync part of a `fn -> impl Future` run) in a block of
/// their own, so that, as on the slow path, nothing borrowed for them (the op state) is held
/// while the future is first polled; then the start, under the panic guard. The status is
/// returned, or `None` once an error was thrown.
fn async_fast_call(
    op: &Op,
    async_op: &AsyncOp,
    prologue: Vec<TokenStream>,
) -> (TokenStream, TokenStream) {
    let options = internal_ident("options");
    let op_ctx = internal_ident("op_ctx");
    let future = internal_ident("future");
    let result = internal_ident("result");
    let function = function_path(op);
    let args = call_args(op, None);
    let start = async_op.fallible_start.then(|| unwrap_or_throw(&future));
    let generics = async_start::generics(op);
    let mode = async_start::mode(async_op);
    let settlement = async_start::settlement(op);
    let (prologue, guarded) = guarded_call(op, prologue, quote!(#function(#(#args),*)));
    let call = quote! {
        // SAFETY: V8 passes the options of this call, whose data is the op's context.
        let #op_ctx = unsafe { ::runtime_core::__op::fast_op_ctx(#options) };
        let #future = {
            #(#prologue)*
            #guarded
        };
        #start
        // SAFETY: V8 passes the options of this call.
        let #result = (unsafe {
            ::runtime_core::__op::fast_call_guarded(#options, || {
                ::runtime_core::__op::start_async_status::#generics(
                    #op_ctx,
                    #mode,
                    #future,
                    #settlement,
                )
            })
        })?;
        // SAFETY: V8 passes the options of this call.
        unsafe { ::runtime_core::__op::fast_async_status(#options, #result) }
    };
    (quote!(i32), call)
}

/// The three fast functions around the call: `prologue` converts the `params`, `call` ends
/// with the body's `Option` of the return value, of type `ret_ty`.
fn fast_fns(
    op: &Op,
    prologue: Vec<TokenStream>,
    params: Vec<TokenStream>,
    param_idents: Vec<&syn::Ident>,
    (ret_ty, call): (TokenStream, TokenStream),
) -> TokenStream {
    let options = internal_ident("options");
    let receiver = internal_ident("receiver");
    let options_param = quote!(#options: *mut ::runtime_core::__op::FastApiCallbackOptions);
    let receiver_param = quote!(
        #receiver: ::runtime_core::v8::Local<::runtime_core::v8::Object>
    );
    // The plain function takes the options only if the body reads them (`FAST_FN_INFO`).
    let (body_options_param, body_options) = if op.fast_takes_options() {
        (Some(quote!(#options_param,)), Some(quote!(#options)))
    } else {
        (None, None)
    };
    quote! {
        #[inline(always)]
        fn fast_body(
            #receiver_param,
            #(#params,)*
            #body_options_param
        ) -> ::std::option::Option<#ret_ty> {
            let _ = #receiver;
            #(#prologue)*
            #call
        }

        // Never inlined: V8 calls it through its address, and the metered variant calls it
        // rather than compile the body again.
        #[inline(never)]
        extern "C" fn fast_fn(
            #receiver_param,
            #(#params,)*
            #body_options_param
        ) -> #ret_ty {
            ::runtime_core::__op::fast_return(Self::fast_body(#receiver, #(#param_idents,)* #body_options))
        }

        extern "C" fn fast_fn_metered(
            #receiver_param,
            #(#params,)*
            #options_param,
        ) -> #ret_ty {
            // SAFETY: V8 passes the options of this call, whose data is the op's context;
            // `Runtime` registers this variant for ops with a metrics observer.
            let op_ctx = unsafe { ::runtime_core::__op::metered_fast_begin(#options) };
            let result = Self::fast_fn(#receiver, #(#param_idents,)* #body_options);
            ::runtime_core::__op::metered_fast_end(op_ctx);
            result
        }
    }
}
