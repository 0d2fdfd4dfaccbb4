//! No two files of one compilation unit share a name (`mod.rs`, `lib.rs` and `main.rs`
//! aside): a library's `src/`, one integration-test binary's folder, one example's folder. A
//! name then says which file it is wherever it appears (a stack trace, a search, a review).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The names more than one file of the unit rooted at `dir` has, with those files.
pub fn shared_names(dir: &Path) -> Vec<String> {
    let mut by_name: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in crate::layers::rust_files(dir) {
        let name = file
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default()
            .to_owned();
        if !matches!(name.as_str(), "mod.rs" | "lib.rs" | "main.rs") {
            by_name.entry(name).or_default().push(file);
        }
    }
    by_name
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            format!("{name}: {}", files.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unit of the workspace: each package's `src/`, and each folder under its `tests/`
    /// and `examples/` (a test binary or an example of several files).
    fn units(root: &Path) -> Vec<PathBuf> {
        let mut units = Vec::new();
        let packages = [
            "runtime_core",
            "runtime_web",
            "ops_macro",
            "ops_macro/backend",
            "xtask",
            "benches",
            "alloc_counter",
            "examples/edge_server",
        ];
        for package in packages {
            let package = root.join(package);
            units.push(package.join("src"));
            for folder in ["tests", "examples"] {
                let Ok(entries) = std::fs::read_dir(package.join(folder)) else {
                    continue;
                };
                units.extend(
                    entries
                        .map(|entry| entry.expect("a folder entry").path())
                        .filter(|path| path.is_dir()),
                );
            }
        }
        units.retain(|unit| unit.is_dir());
        units
    }

    #[test]
    fn no_two_files_of_a_unit_share_a_name() {
        let root = crate::workspace_root();
        let units = units(&root);
        assert!(units.len() > 8, "{units:?}");
        let shared: Vec<String> = units.iter().flat_map(|unit| shared_names(unit)).collect();
        assert!(shared.is_empty(), "{}", shared.join("\n"));
    }

    #[test]
    fn a_shared_name_is_found() {
        let dir = std::env::temp_dir().join(format!("opwire-names-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::create_dir_all(dir.join("b")).unwrap();
        for file in ["a/kinds.rs", "b/kinds.rs", "a/mod.rs", "b/mod.rs"] {
            std::fs::write(dir.join(file), "").unwrap();
        }
        let shared = shared_names(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(shared.len(), 1, "{shared:?}");
        assert!(shared[0].starts_with("kinds.rs: "), "{shared:?}");
    }
}
