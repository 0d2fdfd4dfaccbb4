//! The slow path: a `FunctionCallback` converting each argument through a `SlowCall` helper.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::async_start;
use super::{
    buffer_ident, buffer_source, call_args, function_path, internal_ident, marker_type,
    plain_ident, storage_ident, v8_type,
};
use crate::ir::{Arg, AsyncCall, AsyncOp, LocalType, Op, SlowArg, SlowRet, V8Access};

/// The statements that bind one argument (none for the scope and the isolate, which are
/// passed at the call itself: they borrow `call` mutably).
fn bind_arg(op: &Op, arg: &Arg) -> TokenStream {
    let call = internal_ident("call");
    let ident = &arg.ident;
    let index = arg
        .js_index
        .map(|index| Literal::i32_unsuffixed(index as i32));
    let mut buffer_decl = quote!();
    let convert = match arg.kind.slow() {
        SlowArg::Trait(marker) => {
            let marker = marker_type(marker);
            quote!(#marker::arg(#call, #index)?)
        }
        SlowArg::Convert { helper } => {
            let helper = plain_ident(helper.name());
            quote!(#call.#helper(#index)?)
        }
        // SAFETY (of the lending helpers): the classification lets an op borrow V8's memory
        // only when it cannot run JavaScript (which could move, detach or write it) while the
        // borrow lives; the borrow ends with the call.
        SlowArg::Lent { helper } => {
            let helper = plain_ident(helper.name());
            quote!((unsafe { #call.#helper(#index) })?)
        }
        SlowArg::Buffered { in_place, copied } => {
            let buffer = buffer_ident(ident);
            buffer_decl = quote!(let mut #buffer = ::runtime_core::__op::StringBuffer::new(););
            if op.borrows_strings_in_place() {
                let helper = plain_ident(in_place.name());
                // SAFETY: as `Lent`'s.
                quote!((unsafe { #call.#helper(#index, &mut #buffer) })?)
            } else {
                let helper = plain_ident(copied.name());
                quote!(#call.#helper(#index, &mut #buffer)?)
            }
        }
        SlowArg::FromSource { helper, source } => {
            let helper = plain_ident(helper.name());
            let source = buffer_source(source);
            quote!(#call.#helper(#index, #source)?)
        }
        SlowArg::WithStorage { helper } => {
            let helper = plain_ident(helper.name());
            let storage = storage_ident(ident);
            buffer_decl = quote!(let mut #storage = ::runtime_core::__op::BufferStorage::new(););
            // SAFETY: as `Lent`'s.
            quote!((unsafe { #call.#helper(#index, &mut #storage) })?)
        }
        SlowArg::Local(LocalType::Value) => quote!(#call.arg_value(#index)),
        SlowArg::Local(local) => {
            let ty = v8_type(local.name());
            let expected = local.expected();
            quote!(#call.arg_local::<#ty>(#index, #expected)?)
        }
        SlowArg::Global(local) => {
            let ty = v8_type(local.name());
            let expected = local.expected();
            quote!(#call.arg_global::<#ty>(#index, #expected)?)
        }
        SlowArg::FromV8 => {
            let ty = super::from_v8_type(arg, false);
            quote!(#call.arg_from_v8::<#ty>(#index)?)
        }
        SlowArg::Serde => {
            let ty = super::from_v8_type(arg, true);
            quote!(#call.arg_from_v8::<#ty>(#index)?.0)
        }
        SlowArg::Receiver => {
            let ty = referent(&arg.ty);
            quote!(#call.receiver::<#ty>()?)
        }
        SlowArg::Cppgc => {
            let ty = referent(&arg.ty);
            let class = quote!(#ty).to_string().replace(' ', "");
            quote!(#call.arg_cppgc::<#ty>(#index, #class)?)
        }
        SlowArg::Held { receiver } => {
            let ty = held_class(&arg.ty);
            if receiver {
                quote!(#call.receiver_held::<#ty>()?)
            } else {
                let class = quote!(#ty).to_string().replace(' ', "");
                quote!(#call.arg_held::<#ty>(#index, #class)?)
            }
        }
        SlowArg::WebIdl if arg.webidl.default.is_none() && arg.webidl.options.is_empty() => {
            let ty = &arg.ty;
            let webidl = quote_spanned!(ty.span()=> ::runtime_core::webidl::WebIdl<#ty>);
            quote!(#call.arg_from_v8::<#webidl>(#index)?.0)
        }
        SlowArg::WebIdl => webidl_with_args(arg, index.clone()),
        SlowArg::StateRef => return quote!(let #ident = #call.state()?;),
        SlowArg::StateMut => return quote!(let mut #ident = #call.state_mut()?;),
        SlowArg::StateRc => return quote!(let #ident = #call.state_rc();),
        SlowArg::Scope | SlowArg::Isolate => return quote!(),
    };
    if arg.optional {
        quote! {
            #buffer_decl
            let #ident = if #call.is_nullish(#index) {
                ::std::option::Option::None
            } else {
                ::std::option::Option::Some(#convert)
            };
        }
    } else {
        quote! {
            #buffer_decl
            let #ident = #convert;
        }
    }
}

/// Sets the return value: `result` is the function's value, out of any `Result`.
fn set_return(op: &Op) -> TokenStream {
    let call = internal_ident("call");
    let result = internal_ident("result");
    let value = internal_ident("value");
    match op.ret.kind.slow() {
        SlowRet::Undefined => quote!(::std::result::Result::Ok(())),
        SlowRet::Set(marker) => {
            let marker = marker_type(marker);
            let set = |value: &syn::Ident| quote!(#marker::ret(#call, #value));
            if op.ret.optional {
                let set_some = set(&value);
                quote! {
                    match #result {
                        ::std::option::Option::Some(#value) => #set_some,
                        ::std::option::Option::None => #call.ret_null(),
                    }
                }
            } else {
                set(&result)
            }
        }
    }
}

/// `#[webidl(default = .., options(..))] T`: `undefined` is the default (a string literal
/// made a `T` through `From`, as `String` from `""`), else the conversion with those options.
fn webidl_with_args(arg: &Arg, index: Option<Literal>) -> TokenStream {
    let call = internal_ident("call");
    let options = internal_ident("options");
    let ty = &arg.ty;
    let default = match &arg.webidl.default {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        })) => quote_spanned!(text.span()=> ::std::option::Option::Some(|| -> #ty {
            ::std::convert::From::from(#text)
        })),
        Some(value) => {
            quote_spanned!(value.span()=> ::std::option::Option::Some(|| -> #ty { #value }))
        }
        None => quote!(::std::option::Option::None),
    };
    let set = arg
        .webidl
        .options
        .iter()
        .map(|(name, value)| quote_spanned!(name.span()=> #options.#name = #value;));
    let set_options = if arg.webidl.options.is_empty() {
        quote!(|_| {})
    } else {
        quote!(|#options| { #(#set)* })
    };
    quote! {
        #call.arg_webidl::<#ty>(#index, #default, #set_options)?
    }
}

/// The slow path of an async op: the call converts the arguments, starts the future (the
/// sync part of a `fn -> impl Future` runs here) and returns its value, the wrappers' marker
/// (pending) or its status (see `AsyncCall`).
fn async_slow_fn(op: &Op, async_op: &AsyncOp, call_block: TokenStream) -> TokenStream {
    let call = internal_ident("call");
    let future = internal_ident("future");
    let error = internal_ident("error");
    let start = async_op.fallible_start.then(|| {
        quote! {
            let #future = match #future {
                ::std::result::Result::Ok(#future) => #future,
                ::std::result::Result::Err(#error) => {
                    return ::std::result::Result::Err(
                        #call.throw_op_error(::runtime_core::OpError::from(#error)),
                    );
                }
            };
        }
    });
    let (start_fn, access) = match op.async_call() {
        Some(AsyncCall::Status) => (quote!(start_async_status), op.slow_access()),
        Some(AsyncCall::Value) | None => (quote!(start_async), V8Access::Scope),
    };
    let generics = async_start::generics(op);
    let mode = async_start::mode(async_op);
    let settlement = async_start::settlement(op);
    body_fns(
        op,
        quote! {
            let #future = #call_block;
            #start
            #call.#start_fn::#generics(#mode, #future, #settlement)
        },
        access,
    )
}

/// `slow_call_body` (the op's call, its arguments read and its return set) and `slow_fn`
/// (the `FunctionCallback` around it).
pub fn slow_fn(op: &Op) -> TokenStream {
    let call = internal_ident("call");
    let result = internal_ident("result");
    let error = internal_ident("error");
    let bindings: Vec<TokenStream> = op.args.iter().map(|arg| bind_arg(op, arg)).collect();
    let function = function_path(op);
    let takes_scope = op
        .args
        .iter()
        .any(|arg| matches!(arg.kind.slow(), SlowArg::Scope | SlowArg::Isolate));
    let invoke = if op.ret.fallible && takes_scope && op.async_op.is_none() {
        // The op can run JavaScript and return `Err` after it threw: the exception wins.
        let scope = internal_ident("scope");
        let args = call_args(op, Some(&scope));
        quote!(#call.call_keeping_exceptions(|#scope| #function(#(#args),*))?)
    } else {
        let args = call_args(op, None);
        quote!(#function(#(#args),*))
    };
    // Arguments are read inside a block that ends with the call, so string buffers (and any
    // V8 memory they borrow) are gone before the return value is made on the V8 heap.
    let call_block = if bindings.iter().all(TokenStream::is_empty) {
        invoke.clone()
    } else {
        quote! {
            {
                #(#bindings)*
                #invoke
            }
        }
    };
    if let Some(async_op) = &op.async_op {
        return async_slow_fn(op, async_op, call_block);
    }
    let returns_nothing = op.ret.kind.slow() == SlowRet::Undefined;
    let unwrap_result = op.ret.fallible.then(|| {
        let ok = if returns_nothing {
            quote!(::std::result::Result::Ok(()) => {})
        } else {
            quote!(::std::result::Result::Ok(#result) => #result,)
        };
        let rebind = (!returns_nothing).then(|| quote!(let #result =));
        quote! {
            #rebind match #result {
                #ok
                ::std::result::Result::Err(#error) => {
                    return ::std::result::Result::Err(
                        #call.throw_op_error(::runtime_core::OpError::from(#error)),
                    );
                }
            };
        }
    });
    let set = set_return(op);
    let check_termination = op
        .can_request_termination()
        .then(|| quote!(#call.check_termination();));
    let body = match (returns_nothing && !op.ret.fallible, &check_termination) {
        // The return value may borrow the arguments' buffers: made while they live.
        _ if op.ret.borrows => quote! {
            #(#bindings)*
            let #result = #invoke;
            #unwrap_result
            #check_termination
            #set
        },
        (true, None) => quote! {
            #call_block;
            #set
        },
        (true, Some(check)) => quote! {
            #call_block;
            #check
            #set
        },
        (false, _) => quote! {
            let #result = #call_block;
            #unwrap_result
            #check_termination
            #set
        },
    };
    body_fns(op, body, op.slow_access())
}

/// `slow_fn`, the `FunctionCallback`, around `body`, run with `access` to V8. An op with a
/// metrics observer is called through runtime_core's one metered callback, which calls
/// `slow_fn`: the body is compiled once.
fn body_fns(op: &Op, body: TokenStream, access: V8Access) -> TokenStream {
    let call = internal_ident("call");
    // `required(n)`: checked on the slow path only (V8 takes a fast call only with every
    // argument the C signature has).
    let required = op.required.map(|n| quote!(#call.require_args(#n)?;));
    let validate = op
        .validate
        .as_ref()
        .map(|check| quote!(#call.validate(#check)?;));
    let info = internal_ident("info");
    // Only ops whose kinds need the isolate or a handle scope get one: most of a bare call's
    // cost.
    let entry = match access {
        V8Access::Nothing => quote!(slow_call),
        V8Access::Isolate => quote!(slow_call_isolate),
        V8Access::Scope => quote!(slow_call_scoped),
    };
    let info_ty = quote!(*const ::runtime_core::v8::FunctionCallbackInfo);
    // The body is a safe function of its own, not a closure inside the `unsafe` block: what
    // it holds of the user's (default expressions in attributes) gets no unsafe context.
    quote! {
        #[inline(always)]
        fn slow_call_body(
            #call: &mut ::runtime_core::__op::SlowCall<'_, '_>,
        ) -> ::std::result::Result<(), ::runtime_core::__op::Thrown> {
            #required
            #validate
            #body
        }

        unsafe extern "C" fn slow_fn(#info: #info_ty) {
            // SAFETY: V8 calls this with the `FunctionCallbackInfo` of a call to the function
            // `Runtime` registered with this op's context as its data.
            unsafe { ::runtime_core::__op::#entry(#info, Self::slow_call_body) };
        }
    }
}

/// `T` of `&T` (a class instance argument; classification checked it is a reference).
pub(super) fn referent(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => &reference.elem,
        other => other,
    }
}

/// `T` of `Held<T>`.
fn held_class(ty: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(path) = ty {
        if let Some(syn::PathArguments::AngleBracketed(args)) =
            path.path.segments.last().map(|last| &last.arguments)
        {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                return inner;
            }
        }
    }
    ty
}
