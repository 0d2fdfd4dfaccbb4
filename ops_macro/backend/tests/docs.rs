//! The supported-types tables in the README and the `runtime_core` docs, and the every-kind
//! test ops, are the kind table's: this fails when they are stale (`cargo xtask docs` rewrites
//! them).

use std::path::Path;

use ops_macro_backend::docs::{kinds_markdown, replace_generated};

#[test]
fn generated_docs_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let generated = kinds_markdown();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let expected = replace_generated(&readme, &generated).expect("README has the markers");
    assert!(
        readme == expected,
        "README.md is stale: run `cargo xtask docs`"
    );
    let kinds = std::fs::read_to_string(root.join("runtime_core/src/kinds.md")).unwrap();
    assert!(
        kinds == generated,
        "runtime_core/src/kinds.md is stale: run `cargo xtask docs`"
    );
}
