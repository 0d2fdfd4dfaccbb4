//! The `#[op]` expander as a library, in three stages (as serde_derive and
//! napi-derive-backend do):
//!
//! 1. **parse** ([`internals::ast`], [`internals::attr`]): what the user wrote, with every
//!    error collected in one [`internals::Ctxt`] instead of stopping at the first, lowered to
//!    the IR ([`internals::lower`]);
//! 2. **IR** ([`ir`]): the op as data: one [`ir::ArgKind`] per argument and one
//!    [`ir::RetKind`] for the return, each with its conversion strategy; [`internals::check`]
//!    validates the combination (fast eligibility, conflicting borrows). `ir` names nothing
//!    of the other stages;
//! 3. **codegen** ([`codegen`]) and **typegen** ([`typegen`]): pure functions of the IR that
//!    emit the slow path, the fast path and the `OpDecl`, and the TypeScript declarations.
//!
//! Classes (`#[op] impl`) and the derives go through the same stages:
//! [`internals::impl_block`] → [`ir::Class`] → [`codegen::class_decl`];
//! [`internals::derive_input`] → [`ir::container`] and [`internals::webidl_input`] →
//! [`ir::webidl_definition`], then the emitters in [`derive`](mod@derive). [`expand`] runs
//! them; tests call it (or the stages) directly.

#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod codegen;
mod declarations;
pub mod derive;
pub mod docs;
pub mod examples;
mod expand_file;
pub mod internals;
pub mod ir;
pub mod typegen;

pub use declarations::{
    declaration_file_name, declarations_of_crate, declarations_of_file, DTS_SOURCES,
};
pub use expand_file::{expand_file, pretty, ExpandedOp};

use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[op(<attr>)] <item>`. On error, returns the compile errors (each pointing at the
/// offending argument or attribute) followed by the function itself, so that the errors are
/// the only ones the user sees.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand_op(attr, item.clone()) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let errors = errors.iter().map(syn::Error::to_compile_error);
            // The item itself stays, without this macro's attributes, so that code using it
            // gives no errors of its own.
            let item = match syn::parse2::<syn::ItemFn>(item.clone()) {
                Ok(mut item_fn) => {
                    internals::ast::strip_op_attributes(&mut item_fn);
                    quote!(#item_fn)
                }
                Err(_) => match syn::parse2::<syn::ItemImpl>(item) {
                    Ok(mut item_impl) => {
                        internals::impl_block::strip_member_attributes(&mut item_impl);
                        quote!(#item_impl)
                    }
                    Err(_) => TokenStream::new(),
                },
            };
            quote! { #(#errors)* #item }
        }
    }
}

/// `#[op2]`, written by deno habit: an error pointing at `#[op]`, with the op expanded as
/// `#[op]` would, so that nothing else errs.
pub fn expand_op2(attr: TokenStream, item: TokenStream) -> TokenStream {
    let hint = syn::Error::new(
        proc_macro2::Span::call_site(),
        "opwire's attribute is `#[op]` (deno's `#[op2]`, with the same options: \
         `#[op(fast)]`, `#[op(async)]`, ...): write `#[op]`",
    )
    .to_compile_error();
    let expanded = expand(attr, item);
    quote! { #hint #expanded }
}

/// Expands `#[op(<attr>)] <item>`, or returns every error found.
pub fn expand_op(attr: TokenStream, item: TokenStream) -> Result<TokenStream, Vec<syn::Error>> {
    let item_fn: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        // `#[op] impl Foo { .. }`: a class.
        Err(_) => match syn::parse2::<syn::ItemImpl>(item.clone()) {
            Ok(item_impl) => {
                return Ok(codegen::class_decl::generate_class(&parse_class(
                    attr, item_impl,
                )?))
            }
            Err(_) => {
                return Err(vec![syn::Error::new_spanned(
                    item,
                    "`#[op]` goes on a function (an op) or an `impl` block (a class)",
                )])
            }
        },
    };
    let op = parse_op(attr, &item_fn)?;
    Ok(codegen::generate(&op))
}

/// Stages 1 and 2 for `#[op] impl`: parses and checks a class (its members' ops too) into its
/// IR.
pub fn parse_class(attr: TokenStream, item: syn::ItemImpl) -> Result<ir::Class, Vec<syn::Error>> {
    internals::impl_block::lower_class(attr, item)
}

/// Stages 1 and 2: parses and checks an op into its IR.
pub fn parse_op(attr: TokenStream, item_fn: &syn::ItemFn) -> Result<ir::Op, Vec<syn::Error>> {
    let cx = internals::Ctxt::new();
    let op = internals::lower::parse_op_in(&cx, attr, item_fn);
    cx.check()?;
    Ok(op.expect("an op without errors was built"))
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::ir::{
        ArgKind, BigIntType, CType, FastArg, FastConvert, Marker, NumberType, RetKind,
    };

    fn op(attr: TokenStream, item: TokenStream) -> ir::Op {
        let item_fn: syn::ItemFn = syn::parse2(item).unwrap();
        parse_op(attr, &item_fn).unwrap_or_else(|errors| panic!("{errors:?}"))
    }

    #[test]
    fn every_problem_is_reported_in_one_pass() {
        let item: syn::ItemFn = syn::parse2(quote! {
            fn op_bad(a: String, b: i64, #[bigint] c: u8) -> &'static mut u32 { todo!() }
        })
        .unwrap();
        let errors = parse_op(quote!(fast, wat), &item).err().unwrap();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 5, "{messages:#?}");
        assert!(messages[0].starts_with("unknown op option"));
        assert!(messages[1].starts_with("`String` needs `#[string]`"));
        assert!(messages[2].starts_with("`i64` needs `#[number]`"));
        assert!(messages[3].starts_with("`#[bigint]` applies to `i64`, `u64`"));
        assert!(messages[4].starts_with("unsupported return type `&'static mut u32`"));
    }

    #[test]
    fn argument_kinds_and_their_strategies() {
        let op = op(
            quote!(),
            quote! {
                fn op_kinds(a: u8, #[bigint] b: u64, state: &OpState, c: f32) -> i16 { 0 }
            },
        );
        let kinds: Vec<ArgKind> = op.args.iter().map(|arg| arg.kind).collect();
        assert_eq!(
            kinds,
            [
                ArgKind::Number(NumberType::U8),
                ArgKind::BigInt(BigIntType::U64),
                ArgKind::OpStateRef,
                ArgKind::Number(NumberType::F32)
            ]
        );
        assert_eq!(op.ret.kind, RetKind::Number(NumberType::I16));
        assert_eq!(
            op.args[0].kind.fast(),
            FastArg::Param {
                ctype: CType::Uint32,
                convert: FastConvert::Trait(Marker::Number)
            }
        );
        let js_args: Vec<(usize, String)> = op
            .js_args()
            .map(|(index, arg)| (index, arg.ident.to_string()))
            .collect();
        assert_eq!(js_args, [(0, "a".into()), (1, "b".into()), (2, "c".into())]);
        assert!(op.uses_bigint());
        assert!(op.has_fast_path());
    }

    fn every_arg_kind() -> Vec<ArgKind> {
        ArgKind::examples()
    }

    #[test]
    fn examples_have_every_variant() {
        let mut args = vec![false; ArgKind::VARIANTS];
        for kind in ArgKind::examples() {
            args[kind.variant_index()] = true;
        }
        assert!(
            args.iter().all(|&seen| seen),
            "argument kinds missing: {args:?}"
        );
        let mut rets = vec![false; RetKind::VARIANTS];
        for kind in RetKind::examples() {
            rets[kind.variant_index()] = true;
        }
        assert!(
            rets.iter().all(|&seen| seen),
            "return kinds missing: {rets:?}"
        );
    }

    #[test]
    fn the_kind_table_is_consistent() {
        use crate::ir::V8Access;
        for kind in every_arg_kind() {
            let traits = kind.traits();
            // Reading a string needs at least the isolate; so does running JavaScript.
            if traits.reads_string || traits.can_run_js {
                assert!(traits.slow_access >= V8Access::Isolate, "{kind:?}");
            }
            // What JavaScript does not pass cannot be a string or a buffer.
            if !traits.js_visible {
                assert!(
                    !traits.reads_string && traits.borrows_buffer.is_none(),
                    "{kind:?}"
                );
            }
            // A fast path is refused where JavaScript could run, but for one V8 takes only
            // for a sequential one-byte string (which runs none).
            if traits.can_run_js {
                assert!(
                    matches!(
                        kind.fast(),
                        FastArg::Unsupported(_)
                            | FastArg::Param {
                                ctype: crate::ir::CType::SeqOneByteString,
                                ..
                            }
                    ),
                    "{kind:?}"
                );
            }
            assert_eq!(kind.is_js_visible(), traits.js_visible);
        }
    }

    #[test]
    fn emitters_follow_the_strategy() {
        let op = op(
            quote!(),
            quote!(
                fn op_x(scope: &mut v8::PinScope, #[bigint] y: i64) {}
            ),
        );
        assert!(!op.has_fast_path(), "the scope blocks the fast path");
        let slow = codegen::slow_fn(&op).to_string();
        assert!(
            slow.contains(":: runtime_core :: __op :: kind :: BigInt :: arg (call , 0)"),
            "{slow}"
        );
        assert!(slow.contains("op_x (call . scope () , y)"), "{slow}");
        let whole = codegen::generate(&op).to_string();
        assert!(
            !whole.contains("fast_fn <"),
            "no fast function without a fast path: {whole}"
        );
        assert!(
            whole.contains("let fast_fn = :: std :: option :: Option :: None ;"),
            "{whole}"
        );

        let op = op_bigint();
        let info = codegen::fast_fn_info(&op).to_string();
        assert!(info.contains("Int64Representation :: BigInt"), "{info}");
    }

    fn op_bigint() -> ir::Op {
        op(
            quote!(fast),
            quote!(
                #[bigint]
                fn op_y(#[bigint] y: i64) -> i64 {
                    y
                }
            ),
        )
    }

    #[test]
    fn expand_keeps_the_function_and_strips_markers() {
        let tokens = expand(
            quote!(),
            quote!(
                #[bigint]
                fn op_y(#[bigint] y: i64) -> i64 {
                    y
                }
            ),
        )
        .to_string();
        assert!(
            tokens.starts_with("fn op_y (y : i64) -> i64 { y }"),
            "{tokens}"
        );
        // On error the function is still emitted (without the markers), after the errors.
        let tokens = expand(
            quote!(),
            quote!(
                fn op_z(#[bigint] y: f64) {}
            ),
        )
        .to_string();
        assert!(tokens.contains("compile_error"), "{tokens}");
        assert!(tokens.ends_with("fn op_z (y : f64) { }"), "{tokens}");
    }
}
