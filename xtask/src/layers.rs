//! The layers of a crate's modules, checked: which top-level module names which (from the
//! paths into the crate its sources hold, read with `syn` in `layer_paths.rs`), and that
//! every arrow points down the declared order.
//! `cargo xtask docs` draws the result into CONTRIBUTING.md; a test fails on an arrow pointing
//! back up, a module in no layer, or a stale drawing. The crate root (`lib.rs`) is the top:
//! its re-exports are resolved to the modules that define them, and what it defines itself
//! (the backend's `expand_op`, `parse_op`) is not a module of any layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::layer_paths;

/// A crate's declared layers, top first: a module may name modules of lower layers only.
pub struct Layering {
    /// The crate, as violations name it.
    pub name: &'static str,
    /// The crate's `src/`, from the workspace root.
    pub src: &'static str,
    /// Top first; the modules of one layer name none of each other.
    pub layers: &'static [&'static [&'static str]],
    /// The module that `#[op]` expansions call, if the crate declares ops of its own: a file
    /// that does names it.
    pub op_glue: Option<&'static str>,
    /// The crate's own name, where it names itself by it (`extern crate self as ..`): its
    /// paths are read as `crate::` ones.
    pub self_name: Option<&'static str>,
}

/// `runtime_core`: the runtime on top, the glue generated code calls under the modules whose
/// ops it expands in, the conversions and errors at the bottom.
pub const RUNTIME_CORE: Layering = Layering {
    name: "runtime_core",
    src: "runtime_core/src",
    layers: &[
        &["serve"],
        &["runtime", "fuzzing"],
        &["globals", "inspector"],
        &["extension", "__op"],
        &["typescript"],
        &["class", "modules"],
        &["ops"],
        &["event_loop"],
        &["serde", "webidl", "inspect"],
        &["structured"],
        &["convert"],
        &["isolate"],
        &["values"],
        &["errors"],
        &["v8_raw"],
    ],
    op_glue: Some("__op"),
    self_name: Some("runtime_core::"),
};

/// The macro's backend: parse (`internals`) → IR (`ir`, which names nothing) → emit
/// (`typegen`, `codegen`, and the derives' emitters), with the tools on top.
pub const BACKEND: Layering = Layering {
    name: "ops_macro_backend",
    src: "ops_macro/backend/src",
    layers: &[
        &["declarations"],
        &["expand_file", "docs", "examples"],
        &["derive"],
        &["codegen"],
        &["typegen"],
        &["internals"],
        &["ir"],
    ],
    op_glue: None,
    self_name: None,
};

/// Who names whom: module → named module → the items named (for the drawing's reader).
pub type Edges = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The top-level module a source file belongs to (`None` for the crate root).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(file) => Some(file.to_owned()),
        None => Some(first.to_owned()),
    }
}

/// The module path of a source file from the crate root: `["runtime", "create"]` for
/// `runtime/create.rs`, `["runtime"]` for `runtime/mod.rs`, nothing for `lib.rs`.
pub fn module_path(relative: &Path) -> Vec<String> {
    let mut path: Vec<String> = relative
        .with_extension("")
        .components()
        .filter_map(|component| component.as_os_str().to_str().map(str::to_owned))
        .collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
        path.pop();
    }
    path
}

/// The edges between `layering`'s top-level modules, read from its sources. A file that
/// declares ops (`#[op]`) names `__op`: its expansion calls the glue.
pub fn edges(root: &Path, layering: &Layering) -> Edges {
    let src = root.join(layering.src);
    let files = rust_files(&src);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|file| module_of(file.strip_prefix(&src).expect("under src")))
        .collect();
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let exports = layer_paths::root_exports(&lib, &modules)
        .unwrap_or_else(|error| panic!("{}/lib.rs: {error}", layering.src));
    let self_name = layering.self_name.map(|name| name.trim_end_matches("::"));
    let mut edges = Edges::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let Some(module) = module_of(relative) else {
            continue;
        };
        let source = std::fs::read_to_string(file).expect("a source file");
        let names = layer_paths::read_file(&source, &module_path(relative), self_name)
            .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let mut name = |target: &str, item: &str| {
            if target != module {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target.to_owned())
                    .or_default()
                    .insert(item.to_owned());
            }
        };
        for (first, second) in names.paths {
            if modules.contains(&first) {
                name(&first, second.as_deref().unwrap_or(""));
            } else if let Some(target) = exports.get(&first) {
                name(target, &first);
            }
        }
        if let (Some(glue), true) = (layering.op_glue, names.declares_ops) {
            name(glue, "#[op]");
        }
        edges.entry(module).or_default();
    }
    edges
}

pub fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a source folder")
        .map(|entry| entry.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The layer of `module` (0 on top), if it has one.
fn layer_of(layering: &Layering, module: &str) -> Option<usize> {
    layering
        .layers
        .iter()
        .position(|layer| layer.contains(&module))
}

/// What breaks the layering: arrows to the same layer or one above, and modules in no layer.
pub fn violations(layering: &Layering, edges: &Edges) -> Vec<String> {
    let mut found = Vec::new();
    for (module, targets) in edges {
        let Some(from) = layer_of(layering, module) else {
            found.push(format!("{module} is in no layer of {}", layering.name));
            continue;
        };
        for (target, items) in targets {
            match layer_of(layering, target) {
                Some(to) if to > from => {}
                _ => found.push(format!(
                    "{module} -> {target} ({}) points up or across",
                    items.iter().cloned().collect::<Vec<_>>().join(" ")
                )),
            }
        }
    }
    found
}

/// The drawing: one line per module, top layer first, each with the modules it names.
pub fn drawing(layering: &Layering, edges: &Edges) -> String {
    let width = layering
        .layers
        .iter()
        .flat_map(|layer| layer.iter())
        .map(|module| module.len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for layer in layering.layers {
        let line: Vec<String> = layer
            .iter()
            .map(|module| {
                let targets = edges.get(*module).map(|targets| {
                    let mut names: Vec<&str> = targets.keys().map(String::as_str).collect();
                    names.sort_by_key(|target| layer_of(layering, target));
                    names.join(" ")
                });
                match targets.filter(|names| !names.is_empty()) {
                    Some(names) => format!("{module:<width$} -> {names}"),
                    None => format!("{module:<width$}    (names no other module)"),
                }
            })
            .collect();
        text.push_str(&line.join("\n"));
        text.push('\n');
    }
    text
}

/// `readme` with `layering`'s drawing replaced by `drawing`, if it has its markers.
pub fn replace_drawing(readme: &str, layering: &Layering, drawing: &str) -> Option<String> {
    let begin = format!(
        "<!-- layers of {}: generated by `cargo xtask docs` -->\n```text\n",
        layering.name
    );
    let end_marker = "```\n<!-- end of layers -->";
    let start = readme.find(&begin)? + begin.len();
    let end = start + readme[start..].find(end_marker)?;
    Some(format!("{}{drawing}{}", &readme[..start], &readme[end..]))
}

/// Every crate whose layers are checked and drawn.
pub const ALL: [&Layering; 2] = [&RUNTIME_CORE, &BACKEND];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_point_down() {
        let root = crate::workspace_root();
        for layering in ALL {
            let edges = edges(&root, layering);
            assert!(edges.len() > 4, "{} has its modules read", layering.name);
            let found = violations(layering, &edges);
            assert!(found.is_empty(), "{}", found.join("\n"));
        }
    }

    #[test]
    fn contributing_draws_the_layers() {
        let root = crate::workspace_root();
        let guide = std::fs::read_to_string(root.join("CONTRIBUTING.md")).expect("CONTRIBUTING.md");
        for layering in ALL {
            let drawn = drawing(layering, &edges(&root, layering));
            let fresh = replace_drawing(&guide, layering, &drawn)
                .expect("CONTRIBUTING.md has the layers markers");
            assert!(
                fresh == guide,
                "CONTRIBUTING.md's drawing of {} is stale: run `cargo xtask docs`",
                layering.name
            );
        }
    }

    #[test]
    fn an_arrow_up_is_found() {
        let edges: Edges = [(
            "values".to_owned(),
            [("__op".to_owned(), BTreeSet::from(["Element".to_owned()]))].into(),
        )]
        .into();
        let found = violations(&RUNTIME_CORE, &edges);
        assert_eq!(found, ["values -> __op (Element) points up or across"]);
    }
}
