//! One insta snapshot per op found in `testdata/ops/*.rs`: the expansion through the library
//! API, formatted with prettyplease. Names and contents depend only on the files, never on the
//! checkout path, the OS or hash order (files are sorted; nothing iterates a HashMap).

use std::path::{Path, PathBuf};

use quote::ToTokens;

fn testdata_ops_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ops")
}

/// Every `#[op]` function of one file: `(name, attribute arguments, function without #[op])`.
fn ops_in(source: &str) -> Vec<(String, proc_macro2::TokenStream, syn::ItemFn)> {
    let file = syn::parse_file(source).expect("testdata parses as Rust");
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
            syn::Meta::NameValue(_) => panic!("#[op = ...] is not an op attribute"),
        };
        ops.push((item_fn.sig.ident.to_string(), args, item_fn));
    }
    ops
}

fn pretty(tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    prettyplease::unparse(&file)
}

#[test]
fn expansions_match_snapshots() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(testdata_ops_dir())
        .expect("testdata/ops exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no op cases found");
    let mut count = 0;
    for path in files {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        for (name, args, item_fn) in ops_in(&source) {
            let expanded = ops_macro_backend::expand_op(args, item_fn.to_token_stream())
                .unwrap_or_else(|errors| panic!("{stem}::{name} does not expand: {errors:?}"));
            insta::with_settings!({
                snapshot_path => "snapshots",
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("testdata/ops/{stem}.rs: {name}"),
            }, {
                insta::assert_snapshot!(format!("{stem}__{name}"), pretty(expanded));
            });
            count += 1;
        }
    }
    assert!(count >= 10, "only {count} ops found under testdata/ops");
}
