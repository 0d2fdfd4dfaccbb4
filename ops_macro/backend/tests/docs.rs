//! The supported-types tables (`runtime_core/src/kinds.md`, which the README links and the
//! crate docs include) and the every-kind test ops are the kind table's: this fails when they
//! are stale (`cargo xtask docs` rewrites them).

use std::path::Path;

use ops_macro_backend::docs::kinds_markdown;
use ops_macro_backend::examples::every_kind_source;

#[test]
fn generated_docs_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let kinds = std::fs::read_to_string(root.join("runtime_core/src/kinds.md")).unwrap();
    assert!(
        kinds == kinds_markdown(),
        "runtime_core/src/kinds.md is stale: run `cargo xtask docs`"
    );
    let every_kind = std::fs::read_to_string(root.join("testdata/every_kind.rs")).unwrap();
    assert!(
        every_kind == every_kind_source(),
        "testdata/every_kind.rs is stale: run `cargo xtask docs`"
    );
}
