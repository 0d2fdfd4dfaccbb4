//! Parsed attributes and function to the IR: each parameter and the return classified, the
//! async mode and `required(n)` checked against the signature.

use syn::spanned::Spanned;

use super::ast::{strip_op_attributes, OpFn, Param};
use super::attr::OpAttrs;
use super::classify::{classify_arg, classify_ret, future_output};
use super::Ctxt;
use crate::ir::{Arg, AsyncMode, AsyncOp, Op};

/// Builds the IR, recording every unsupported type in `cx`.
pub fn lower_op(
    cx: &Ctxt,
    attrs: OpAttrs,
    op_fn: Option<OpFn>,
    item_fn: &syn::ItemFn,
) -> Option<Op> {
    let op_fn = op_fn?;
    let args: Vec<Arg> = op_fn
        .params
        .iter()
        .filter_map(|param: &Param| match classify_arg(param) {
            Ok(arg) => Some(arg),
            Err(err) => {
                cx.syn_error(err);
                None
            }
        })
        .collect();
    let span = op_fn.ret.as_ref().map_or(op_fn.ident.span(), Spanned::span);
    // `fn -> impl Future<Output = T>` (or `Result` of one): an async op returning `T`.
    let future = op_fn.ret.as_ref().and_then(future_output);
    let async_op = match (op_fn.asyncness, future, attrs.async_mode) {
        (Some(span), _, mode) => Some(AsyncOp {
            mode: mode.map_or(AsyncMode::Eager, |(_, mode)| mode),
            is_async_fn: true,
            fallible_start: false,
            span,
        }),
        (None, Some((fallible_start, _)), mode) => Some(AsyncOp {
            mode: mode.map_or(AsyncMode::Eager, |(_, mode)| mode),
            is_async_fn: false,
            fallible_start,
            span,
        }),
        (None, None, Some((mode_span, _))) => {
            cx.error_at(
                mode_span,
                "`async(...)` applies to async ops: `async fn`, or a `fn` returning `impl Future`",
            );
            None
        }
        (None, None, None) => None,
    };
    let ret_ty = match future {
        Some((_, output)) => Some(output),
        None => op_fn.ret.as_ref(),
    };
    let ret = match classify_ret(ret_ty, &op_fn.ret_markers, span) {
        Ok(ret) => Some(ret),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    };
    let arity = args.iter().filter(|arg| arg.kind.is_js_visible()).count();
    let required = match attrs.required {
        Some((span, n)) if n as usize > arity => {
            cx.error_at(
                span,
                format!("`required({n})`, but the op takes {arity} JavaScript arguments"),
            );
            None
        }
        Some((_, n)) => Some(n),
        None => None,
    };
    (args.len() == op_fn.params.len()).then_some(())?;
    let mut next_js_index = 0;
    let args = args
        .into_iter()
        .map(|arg| Arg {
            js_index: arg.kind.is_js_visible().then(|| {
                next_js_index += 1;
                next_js_index - 1
            }),
            ..arg
        })
        .collect();
    Some(Op {
        ident: op_fn.ident,
        vis: op_fn.vis,
        args,
        ret: ret?,
        fast_mode: attrs.fast,
        fast_alternative: attrs.fast_alternative,
        no_side_effects: attrs.no_side_effects,
        stack_trace: attrs.stack_trace,
        generics: op_fn.generics,
        async_op,
        required,
        validate: attrs.validate,
        docs: op_fn.docs,
        js_name: None,
        item: {
            let mut item = item_fn.clone();
            strip_op_attributes(&mut item);
            item
        },
    })
}

/// Parses, lowers and checks one op, recording its errors in `cx` (a class's members share
/// the class's).
pub fn parse_op_in(cx: &Ctxt, attr: proc_macro2::TokenStream, item_fn: &syn::ItemFn) -> Option<Op> {
    let op_attrs = OpAttrs::from_tokens(cx, attr);
    let op_fn = OpFn::from_item(cx, item_fn);
    let op = lower_op(cx, op_attrs, op_fn, item_fn);
    if let Some(op) = &op {
        super::check::check(cx, op);
    }
    op
}
