//! The declarations a runtime with the web platform gives tenants: they type-check alone and
//! merge with TypeScript's `lib.dom` and `lib.webworker` (the real compiler, from npm).

use crate::web;

/// Uses every API the crate declares.
const USAGE: &str = include_str!("usage.ts");

#[test]
fn declarations_check_alone_and_beside_dom_and_webworker() {
    let Some(tsc) = tsc() else { return };
    let declarations = web().typescript_declarations();
    for lib in ["es2022", "es2022,dom", "es2022,webworker"] {
        if let Err(report) = type_check(&tsc, lib, &declarations, USAGE) {
            panic!("tsc --lib {lib} failed:\n{report}");
        }
    }
    // A misuse does not check.
    let wrong = format!("{USAGE}\nconst n: number = new URL('a:b').href;\n");
    assert!(type_check(&tsc, "es2022", &declarations, &wrong).is_err());
}

/// Set to `1` to skip the TypeScript checks where npm cannot reach the registry (CI never
/// sets it).
const SKIP: &str = "OPWIRE_SKIP_TSC";

/// The real TypeScript compiler, installed from the npm registry into `target/typescript`
/// (the version runtime_core's tests use).
fn tsc() -> Option<std::path::PathBuf> {
    if std::env::var(SKIP).as_deref() == Ok("1") {
        return None;
    }
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/typescript");
    let tsc = target.join("node_modules/.bin/tsc");
    if !tsc.exists() {
        let installed = std::process::Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&target)
            .arg("typescript@5.9.3")
            .status();
        assert!(
            matches!(installed, Ok(status) if status.success()) && tsc.exists(),
            "this test needs the TypeScript compiler from the npm registry (set {SKIP}=1 to skip it)"
        );
    }
    Some(tsc)
}

fn type_check(
    tsc: &std::path::Path,
    lib: &str,
    declarations: &str,
    usage: &str,
) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!(
        "opwire-web-tsc-{}-{}",
        lib.replace(',', "-"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("web.d.ts"), declarations).unwrap();
    std::fs::write(dir.join("usage.ts"), usage).unwrap();
    let output = std::process::Command::new(tsc)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--lib", lib,
        ])
        .arg(dir.join("web.d.ts"))
        .arg(dir.join("usage.ts"))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}
