//! The slow path: a `FunctionCallback` converting each argument through a `SlowCall` helper.

use proc_macro2::TokenStream;
use quote::quote;

use super::{buffer_ident, call_args, internal_ident, primitive};
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
            SlowArg::Buffered { in_place, copied } => {
                let helper = primitive(if op.borrows_strings_in_place() {
                    in_place
                } else {
                    copied
                });
                let index = proc_macro2::Literal::i32_unsuffixed(js_index);
                js_index += 1;
                let buffer = buffer_ident(ident);
                quote! {
                    let mut #buffer = ::runtime_core::__op::StringBuffer::new();
                    let #ident = #call.#helper(#index, &mut #buffer)?;
                }
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
    // Arguments are read inside a block that ends with the call, so string buffers (and any
    // V8 memory they borrow) are gone before the return value is made on the V8 heap.
    let (result_binding, finish) = match op.ret.kind.slow() {
        SlowRet::Undefined => (quote!(), quote!(::std::result::Result::Ok(()))),
        SlowRet::Set { helper, widen_to } => {
            let helper = primitive(helper);
            let value = match widen_to {
                Some(wide) => {
                    let wide = primitive(wide);
                    quote!(#result as #wide)
                }
                None => quote!(#result),
            };
            (quote!(let #result =), quote!(#call.#helper(#value)))
        }
    };
    let body = if bindings.iter().all(TokenStream::is_empty) {
        quote! {
            #result_binding #invoke;
            #finish
        }
    } else {
        quote! {
            #result_binding {
                #(#bindings)*
                #invoke
            };
            #finish
        }
    };
    quote! {
        unsafe extern "C" fn slow_fn(#info: *const ::runtime_core::v8::FunctionCallbackInfo) {
            // SAFETY: V8 calls this with the `FunctionCallbackInfo` of a call to the function
            // `Runtime` registered with this op's context as its data.
            unsafe {
                ::runtime_core::__op::slow_call(#info, |#call| {
                    #body
                })
            }
        }
    }
}
