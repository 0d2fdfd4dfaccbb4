//! The slow path: a `FunctionCallback` converting each argument through a `SlowCall` helper.

use proc_macro2::TokenStream;
use quote::quote;

use super::{call_args, internal_ident, primitive};
use crate::ir::{Op, SlowArg, SlowRet};

/// `unsafe extern "C" fn slow_fn(info: *const FunctionCallbackInfo) { ... }`
pub fn slow_fn(op: &Op) -> TokenStream {
    let call = internal_ident("call");
    let info = internal_ident("info");
    let result = internal_ident("result");
    let mut js_index = 0i32;
    let bindings = op.args.iter().map(|arg| {
        let ident = &arg.ident;
        match arg.kind.slow() {
            SlowArg::Convert { helper } => {
                let helper = primitive(helper);
                let index = proc_macro2::Literal::i32_unsuffixed(js_index);
                js_index += 1;
                quote!(let #ident = #call.#helper(#index)?;)
            }
            SlowArg::StateRef => quote!(let #ident = #call.state()?;),
            SlowArg::StateMut => quote!(let mut #ident = #call.state_mut()?;),
            SlowArg::StateRc => quote!(let #ident = #call.state_rc();),
            // Passed at the call itself: it borrows `call` mutably.
            SlowArg::Scope => quote!(),
        }
    });
    let bindings: Vec<TokenStream> = bindings.collect();
    let function = &op.ident;
    let args = call_args(op);
    let invoke = quote!(#function(#(#args),*));
    let finish = match op.ret.kind.slow() {
        SlowRet::Undefined => quote!(#invoke;),
        SlowRet::Set { helper, widen_to } => {
            let helper = primitive(helper);
            let value = match widen_to {
                Some(wide) => {
                    let wide = primitive(wide);
                    quote!(#result as #wide)
                }
                None => quote!(#result),
            };
            quote! {
                let #result = #invoke;
                #call.#helper(#value);
            }
        }
    };
    quote! {
        unsafe extern "C" fn slow_fn(#info: *const ::runtime_core::v8::FunctionCallbackInfo) {
            // SAFETY: V8 calls this with the `FunctionCallbackInfo` of a call to the function
            // `Runtime` registered with this op's context as its data.
            unsafe {
                ::runtime_core::__op::slow_call(#info, |#call| {
                    #(#bindings)*
                    #finish
                    ::std::result::Result::Ok(())
                })
            }
        }
    }
}
