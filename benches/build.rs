//! Generates the startup benches' ops (`$OUT_DIR/startup_ops.rs`): 1,000 with the
//! `startup_ops` feature (`cargo xtask bench-ops --startup` turns it on), none without, so
//! that the other suites do not compile them.

include!("gen_ops.rs");

fn main() {
    let count = if std::env::var_os("CARGO_FEATURE_STARTUP_OPS").is_some() {
        1000
    } else {
        0
    };
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("startup_ops.rs"), generate_ops(count)).expect("write startup_ops.rs");
    println!("cargo::rerun-if-changed=gen_ops.rs");
    println!("cargo::rerun-if-changed=build.rs");
}
