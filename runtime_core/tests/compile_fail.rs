//! Every compile-fail case under `testdata/compile_fail/`, each with its expected `.stderr`:
//! bad signatures are compile errors pointing at the offending argument or attribute.

#[test]
fn bad_op_signatures_fail_to_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/compile_fail/*.rs"
    ));
}
