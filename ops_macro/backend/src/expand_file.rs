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

/// Every `#[op]` function at the top level of `source`, expanded in file order.
pub fn expand_file(source: &str) -> syn::Result<Vec<ExpandedOp>> {
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
        let name = item_fn.sig.ident.to_string();
        let expansion = crate::expand_op(args, item_fn.to_token_stream())
            .map(pretty)
            .map_err(|errors| errors.iter().map(ToString::to_string).collect());
        ops.push(ExpandedOp { name, expansion });
    }
    Ok(ops)
}

/// Formats generated items as rustfmt would lay them out (prettyplease).
pub fn pretty(tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("an expansion parses as items");
    prettyplease::unparse(&file)
}
