//! Tools from the npm registry (deno, Bun, workerd), installed once into a folder under
//! `target/`: a marker file named for the packages says they are there at those versions.

use std::path::Path;
use std::process::Command;

/// Installs `packages` (`name@version`) under `prefix`, unless they were already.
pub(crate) fn install(prefix: &Path, packages: &[&str]) -> Result<(), String> {
    let marker = prefix.join(format!(
        ".installed-{}",
        packages.join("+").replace('/', "_")
    ));
    if marker.exists() {
        return Ok(());
    }
    eprintln!(
        "xtask: installing {} into {}",
        packages.join(", "),
        prefix.display()
    );
    let status = Command::new("npm")
        .args([
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(prefix)
        .args(packages)
        .status();
    if !matches!(status, Ok(status) if status.success()) {
        return Err(format!(
            "npm could not install {} (the npm registry is needed)",
            packages.join(", ")
        ));
    }
    std::fs::write(&marker, "").map_err(|error| format!("{}: {error}", marker.display()))
}
