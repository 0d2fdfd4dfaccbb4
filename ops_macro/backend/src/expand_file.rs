//! The expansion of every `#[op]` function in a Rust source file, formatted as the snapshots
//! show it: what `cargo xtask expand` prints and what the snapshot test records.

use quote::ToTokens;

/// One op of a file: its name and its formatted expansion (or the errors it gives).
pub struct ExpandedOp {
    /// The function's name.
    pub name: String,
    /// The prettyplease-formatted expansion, or the compile errors, one per line.
    pub expansion: Result<String, Vec<String>>,
}

/// Every `#[op]` function at the top level of `source`, expanded in file order, then every
/// `#[op] impl` (named `class_<Type>`) and `#[derive(FromV8)]`/`#[derive(ToV8)]`/
/// `#[derive(WebIDL)]` (named `FromV8_<Type>`, `ToV8_<Type>`, `WebIDL_<Type>`).
pub fn expand_file(source: &str) -> syn::Result<Vec<ExpandedOp>> {
    let ops = op_functions(source)?;
    let mut expanded: Vec<ExpandedOp> = ops
        .into_iter()
        .map(|(args, item_fn)| {
            let name = item_fn.sig.ident.to_string();
            let expansion = crate::expand_op(args, item_fn.to_token_stream())
                .map(pretty)
                .map_err(|errors| errors.iter().map(ToString::to_string).collect());
            ExpandedOp { name, expansion }
        })
        .collect();
    for (args, item_impl) in op_classes(source)? {
        let name = match &*item_impl.self_ty {
            syn::Type::Path(path) => path.path.segments.last().map(|last| last.ident.to_string()),
            _ => None,
        }
        .unwrap_or_default();
        let expansion = crate::expand_op(args, item_impl.to_token_stream())
            .map(pretty)
            .map_err(|errors| errors.iter().map(ToString::to_string).collect());
        expanded.push(ExpandedOp {
            name: format!("class_{name}"),
            expansion,
        });
    }
    for item in syn::parse_file(source)?.items {
        let (ident, attrs) = match &item {
            syn::Item::Struct(item) => (&item.ident, &item.attrs),
            syn::Item::Enum(item) => (&item.ident, &item.attrs),
            _ => continue,
        };
        for (derive, expand) in [
            ("FromV8", crate::derive::from_v8 as fn(_) -> _),
            ("ToV8", crate::derive::to_v8),
            ("WebIDL", crate::derive::webidl),
        ] {
            if derives(attrs, derive) {
                let tokens = expand(item.to_token_stream());
                let text = tokens.to_string();
                let expansion = if text.contains("compile_error") {
                    Err(vec![text])
                } else {
                    Ok(pretty(tokens))
                };
                expanded.push(ExpandedOp {
                    name: format!("{derive}_{ident}"),
                    expansion,
                });
            }
        }
    }
    Ok(expanded)
}

/// Whether `attrs` hold `#[derive(.., name, ..)]`.
pub(crate) fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                // `FromV8` or `runtime_core::FromV8`.
                found |= meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == name);
                Ok(())
            });
            found
        })
}

/// The `#[op] impl` blocks at the top level of `source`, each with its attribute's arguments
/// and without the attribute.
pub(crate) fn op_classes(
    source: &str,
) -> syn::Result<Vec<(proc_macro2::TokenStream, syn::ItemImpl)>> {
    let mut classes = Vec::new();
    for item in syn::parse_file(source)?.items {
        let syn::Item::Impl(mut item_impl) = item else {
            continue;
        };
        let Some(position) = item_impl
            .attrs
            .iter()
            .position(|attr| attr.path().is_ident("op"))
        else {
            continue;
        };
        let args = match item_impl.attrs.remove(position).meta {
            syn::Meta::List(list) => list.tokens,
            _ => proc_macro2::TokenStream::new(),
        };
        classes.push((args, item_impl));
    }
    Ok(classes)
}

/// The `#[op]` functions at the top level of `source`, each with its attribute's arguments
/// and without the attribute.
pub(crate) fn op_functions(
    source: &str,
) -> syn::Result<Vec<(proc_macro2::TokenStream, syn::ItemFn)>> {
    let file = syn::parse_file(source)?;
    let mut ops = Vec::new();
    for item in file.items {
        let syn::Item::Fn(mut item_fn) = item else {
            continue;
        };
        let Some(position) = item_fn
            .attrs
            .iter()
            .position(|attr| attr.path().is_ident("op"))
        else {
            continue;
        };
        let op_attr = item_fn.attrs.remove(position);
        let args = match op_attr.meta {
            syn::Meta::Path(_) => proc_macro2::TokenStream::new(),
            syn::Meta::List(list) => list.tokens,
            syn::Meta::NameValue(_) => {
                return Err(syn::Error::new_spanned(
                    op_attr,
                    "`#[op = ...]` is not an op attribute: write `#[op]` or `#[op(...)]`",
                ))
            }
        };
        ops.push((args, item_fn));
    }
    Ok(ops)
}

/// Formats generated items as rustfmt would lay them out (prettyplease).
pub fn pretty(tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("an expansion parses as items");
    prettyplease::unparse(&file)
}
