//! Code generation: pure functions of the IR. Generated code names everything by absolute
//! path and calls helpers in `runtime_core::__op` for the actual conversions.
//!
//! Every `unsafe` block the emitters write has its `SAFETY:` reason next to it here, in the
//! emitter; comments are not tokens, so the expansion (and its snapshot) cannot carry them.
//!
//! For `fn op_x`, the output is the function itself plus
//!
//! ```text
//! struct op_x {}            // type namespace only: `op_x(..)` still calls the function
//! impl op_x {
//!     const DECL: OpDecl;   // what an Extension registers
//!     fn slow_fn(..);       // the FunctionCallback
//!     const FAST_FN_INFO;   // the CFunctionInfos       (when the op can be fast)
//!     fn fast_fn;           // the Fast API function    (when the op can be fast)
//!     fn fast_fn_counted;   // the same, counting calls (when the op can be fast)
//! }
//! ```

mod async_start;
pub mod class_decl;
mod decl;
mod fast;
mod slow;

pub use decl::{decl, ts_types};
pub use fast::{fast_fn, fast_fn_info};
pub use slow::slow_fn;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{BufferSource, Marker, Op};

/// The whole expansion of one op.
pub fn generate(op: &Op) -> TokenStream {
    let item_fn = &op.item;
    let ident = &op.ident;
    let vis = &op.vis;
    let doc = format!(
        " The op declaration of [`{ident}()`]: register `{ident}::DECL` in an `Extension`."
    );
    let decl = decl(op);
    let slow = slow_fn(op);
    let fast = op.has_fast_path().then(|| {
        let info = fast_fn_info(op);
        let function = fast_fn(op);
        quote! { #info #function }
    });
    // A generic op's struct carries the type parameters (one declaration per instantiation);
    // lifetimes stay on the function.
    let struct_generics = struct_generics(&op.generics);
    let (impl_generics, type_generics, where_clause) = struct_generics.split_for_impl();
    let type_params: Vec<&syn::Ident> = struct_generics
        .type_params()
        .map(|param| &param.ident)
        .collect();
    let body = if type_params.is_empty() {
        quote!({})
    } else {
        quote!({ _types: ::std::marker::PhantomData<fn() -> (#(#type_params,)*)> })
    };
    quote! {
        #item_fn

        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis struct #ident #impl_generics #where_clause #body

        impl #impl_generics #ident #type_generics #where_clause {
            #decl
            #slow
            #fast
        }
    }
}

/// The `FromV8` type an argument is read as: its own, or `Serde<T>` for `#[serde]`; spanned at
/// the type, so that a type lacking the trait is reported there.
fn from_v8_type(arg: &crate::ir::Arg, serde: bool) -> TokenStream {
    let ty = &arg.ty;
    let span = syn::spanned::Spanned::span(ty);
    if serde {
        quote::quote_spanned!(span=> ::runtime_core::serde::Serde<#ty>)
    } else {
        quote::quote_spanned!(span=> #ty)
    }
}

/// The function's generics without its lifetimes (and their where-clause predicates).
fn struct_generics(generics: &syn::Generics) -> syn::Generics {
    let mut generics = generics.clone();
    generics.params = generics
        .params
        .into_iter()
        .filter(|param| !matches!(param, syn::GenericParam::Lifetime(_)))
        .collect();
    if let Some(where_clause) = &mut generics.where_clause {
        where_clause.predicates = where_clause
            .predicates
            .clone()
            .into_iter()
            .filter(|predicate| !matches!(predicate, syn::WherePredicate::Lifetime(_)))
            .collect();
    }
    generics
}

/// The user's function, with its type and const parameters given (`op_x::<T>`), to call.
pub(crate) fn function_path(op: &Op) -> TokenStream {
    let ident = &op.ident;
    let args: Vec<TokenStream> = op
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(param) => {
                let ident = &param.ident;
                Some(quote!(#ident))
            }
            syn::GenericParam::Const(param) => {
                let ident = &param.ident;
                Some(quote!(#ident))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    if args.is_empty() {
        quote!(#ident)
    } else {
        quote!(#ident::<#(#args),*>)
    }
}

/// A name the generated code binds for itself; `mixed_site` hygiene keeps it apart from the
/// user's argument names.
pub(crate) fn internal_ident(name: &str) -> syn::Ident {
    format_ident!("{}", name, span = Span::mixed_site())
}

/// The `StringBuffer` a string argument is read into: named after the argument, hygienic.
pub(crate) fn buffer_ident(arg: &syn::Ident) -> syn::Ident {
    format_ident!("{}_buffer", arg, span = Span::mixed_site())
}

/// The `BufferStorage` a shared buffer borrow may be copied into: likewise.
pub(crate) fn storage_ident(arg: &syn::Ident) -> syn::Ident {
    format_ident!("{}_storage", arg, span = Span::mixed_site())
}

/// A name from the IR (a primitive type, a helper method) as an identifier.
pub(crate) fn plain_ident(name: &str) -> syn::Ident {
    format_ident!("{}", name)
}

/// The arguments to call the user's function with, in order; the scope and the isolate are
/// `scope` when given (a scope the call is made in), else taken from the `SlowCall`.
pub(crate) fn call_args<'a>(
    op: &'a Op,
    scope: Option<&'a syn::Ident>,
) -> impl Iterator<Item = TokenStream> + 'a {
    use crate::ir::Passed;
    op.args.iter().map(move |arg| {
        let ident = &arg.ident;
        let call = internal_ident("call");
        match (arg.kind.passed(), scope) {
            (Passed::StateRef, _) => quote!(&#ident),
            (Passed::StateMut, _) => quote!(&mut #ident),
            (Passed::Scope | Passed::Isolate, Some(scope)) => quote!(#scope),
            (Passed::Scope, None) => quote!(#call.scope()),
            (Passed::Isolate, None) => quote!(#call.isolate()),
            (Passed::HandleRef, _) if arg.optional => quote!(#ident.as_deref()),
            (Passed::HandleRef, _) => quote!(&*#ident),
            (Passed::Value, _) => quote!(#ident),
        }
    })
}

/// `v8::<name>` as a path through `runtime_core`.
pub(crate) fn v8_type(name: &str) -> TokenStream {
    let name = format_ident!("{}", name);
    quote!(::runtime_core::v8::#name)
}

/// `runtime_core::__op::kind::<marker>`.
pub(crate) fn marker_type(marker: Marker) -> TokenStream {
    let name = format_ident!("{}", marker.name());
    quote!(::runtime_core::__op::kind::#name)
}

/// `runtime_core::__op::BufferSource::<variant>`.
pub(crate) fn buffer_source(source: BufferSource) -> TokenStream {
    let variant = format_ident!("{}", source.variant());
    quote!(::runtime_core::__op::BufferSource::#variant)
}
