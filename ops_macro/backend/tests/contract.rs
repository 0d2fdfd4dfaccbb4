//! The macro and `runtime_core` name the same kind markers: the backend's `Marker` (what
//! generated code names, `::runtime_core::__op::kind::X`) and the one list `runtime_core`
//! defines them from (`markers!` in `runtime_core/src/__op/kinds.rs`).

use std::path::Path;

use ops_macro_backend::ir::Marker;

/// The identifiers listed in `markers! { ... }`, in order (doc lines skipped).
fn runtime_markers(source: &str) -> Vec<String> {
    let start = source
        .find("\nmarkers! {\n")
        .expect("kinds.rs invokes `markers!`");
    let body = &source[start + "\nmarkers! {\n".len()..];
    let body = &body[..body.find("\n}").expect("the list ends")];
    body.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("///") && !line.is_empty())
        .map(|line| line.trim_end_matches(',').to_owned())
        .collect()
}

#[test]
fn the_macro_and_the_runtime_name_the_same_markers() {
    let kinds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime_core/src/__op/kinds.rs");
    let source = std::fs::read_to_string(kinds).unwrap();
    let runtime = runtime_markers(&source);
    let backend: Vec<&str> = Marker::ALL.iter().map(|marker| marker.name()).collect();
    assert_eq!(
        runtime, backend,
        "runtime_core's `markers!` and the backend's `Marker::ALL` must list the same markers"
    );
}
