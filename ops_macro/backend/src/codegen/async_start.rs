//! What both paths of an async op hand `runtime_core` to start it: the kind and value type,
//! the mode, and how the future's output settles the promise.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{internal_ident, marker_type};
use crate::ir::{AsyncOp, Marker, Op, RetKind};

/// `<Marker, Value, _, _>` of `start_async*`: `()` settles as `undefined` only, so its value
/// type is named (the closure never makes one).
pub(super) fn generics(op: &Op) -> TokenStream {
    let marker = marker_type(op.ret.kind.marker().unwrap_or(Marker::Unit));
    let value_type = if op.ret.kind == RetKind::Unit {
        quote!(())
    } else {
        quote!(_)
    };
    quote!(<#marker, #value_type, _, _>)
}

/// `::runtime_core::__op::AsyncMode::<mode>`.
pub(super) fn mode(async_op: &AsyncOp) -> TokenStream {
    let mode = format_ident!("{}", async_op.mode.variant());
    quote!(::runtime_core::__op::AsyncMode::#mode)
}

/// How an async op's output settles its promise: `Result`, `Option` and `()` unwrapped.
pub(super) fn settlement(op: &Op) -> TokenStream {
    let settlement = quote!(::runtime_core::__op::Settlement);
    let output = internal_ident("output");
    let value = internal_ident("value");
    let base = if op.ret.kind == RetKind::Unit {
        quote!({
            let () = #value;
            #settlement::Undefined
        })
    } else {
        quote!(#settlement::Value(#value))
    };
    let present = if op.ret.optional {
        quote! {
            match #value {
                ::std::option::Option::Some(#value) => #base,
                ::std::option::Option::None => #settlement::Null,
            }
        }
    } else {
        base
    };
    let error = internal_ident("error");
    if op.ret.fallible {
        quote! {
            |#output| match #output {
                ::std::result::Result::Ok(#value) => #present,
                ::std::result::Result::Err(#error) => {
                    #settlement::Error(::runtime_core::OpError::from(#error))
                }
            }
        }
    } else {
        quote!(|#value| #present)
    }
}
