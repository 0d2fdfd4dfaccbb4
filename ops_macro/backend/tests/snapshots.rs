//! One insta snapshot per op found in `testdata/ops/*.rs`: the expansion through the library
//! API, formatted with prettyplease. Names and contents depend only on the files, never on the
//! checkout path, the OS or hash order (files are sorted; nothing iterates a HashMap).

use std::path::{Path, PathBuf};

fn testdata_ops_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ops")
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
        let ops = ops_macro_backend::expand_file(&source).expect("testdata parses as Rust");
        for op in ops {
            let name = op.name;
            let expanded = op
                .expansion
                .unwrap_or_else(|errors| panic!("{stem}::{name} does not expand: {errors:?}"));
            insta::with_settings!({
                snapshot_path => "snapshots",
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("testdata/ops/{stem}.rs: {name}"),
            }, {
                insta::assert_snapshot!(format!("{stem}__{name}"), expanded);
            });
            count += 1;
        }
    }
    assert!(count >= 10, "only {count} ops found under testdata/ops");
}
