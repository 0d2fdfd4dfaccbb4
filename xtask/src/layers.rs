//! The layers of a crate's modules, checked: which top-level module names which (from the
//! `crate::` paths in its sources), and that every arrow points down the declared order.
//! `cargo xtask docs` draws the result into CONTRIBUTING.md; a test fails on an arrow pointing
//! back up, a module in no layer, or a stale drawing. The crate root (`lib.rs`) is the top:
//! its re-exports are resolved to the modules that define them, and what it defines itself
//! (the backend's `expand_op`, `parse_op`) is not a module of any layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
        &["runtime", "fuzzing"],
        &["globals"],
        &["extension", "__op"],
        &["class", "modules"],
        &["ops"],
        &["event_loop"],
        &["serde", "webidl"],
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

/// What each name the crate root re-exports (`pub use module::...::{A, B};`) is defined in.
fn root_exports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("pub use ") {
        rest = &rest[at + "pub use ".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        let statement = &rest[..end];
        let module = identifiers(statement).next().unwrap_or_default();
        // Only the crate's own modules: a name also exported by another crate (a derive
        // macro named as its trait) is the trait's.
        if modules.contains(module) {
            for name in identifiers(statement).skip(1) {
                exports.insert(name.to_owned(), module.to_owned());
            }
        }
        rest = &rest[end..];
    }
    exports
}

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
}

/// The code of a source file: its comments (docs included), the contents of its string and
/// char literals, and its trailing tests (a `#[cfg(test)]` at column 0 before `mod`) left out.
/// Line breaks stay.
fn code(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let tests = lines
        .windows(2)
        .position(|pair| pair[0] == "#[cfg(test)]" && pair[1].starts_with("mod "));
    let source = lines[..tests.unwrap_or(lines.len())].join("\n");
    let mut code = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|&next| next != '\n') {
                    chars.next();
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut depth = 0;
                let mut last = c;
                for next in chars.by_ref() {
                    match (last, next) {
                        ('/', '*') => depth += 1,
                        ('*', '/') => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    // `*/` and `/*` must not share a character.
                    last = if matches!((last, next), ('/', '*') | ('*', '/')) {
                        ' '
                    } else {
                        next
                    };
                }
            }
            '"' => {
                code.push('"');
                while let Some(next) = chars.next() {
                    match next {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => code.push('\n'),
                        _ => {}
                    }
                }
                code.push('"');
            }
            // A char literal (`'"'`, `'\''`), not a lifetime (`'a`): its contents go too.
            '\'' => {
                let mut ahead = chars.clone();
                let literal = match ahead.next() {
                    Some('\\') => true,
                    Some(_) => ahead.next() == Some('\''),
                    None => false,
                };
                if literal {
                    let mut escaped = false;
                    for next in chars.by_ref() {
                        match next {
                            '\'' if !escaped => break,
                            '\\' if !escaped => escaped = true,
                            _ => escaped = false,
                        }
                    }
                    code.push_str("' '");
                } else {
                    code.push(c);
                }
            }
            _ => code.push(c),
        }
    }
    code
}

/// The items of a `{..}` group at its top level (nested groups stay inside their item), and
/// what follows the group.
fn group_items(group: &str) -> (Vec<&str>, &str) {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..at]);
                return (items, &group[at + 1..]);
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    (items, "")
}

/// The names `code` reaches through `prefix` (`crate::`, or the crate's own name): the first
/// segment of each path and the one after it, and each item of a `prefix{..}` group.
fn crate_paths(code: &str, prefix: &str) -> Vec<(String, Option<String>)> {
    let mut named = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let (items, after) = group_items(group);
            for item in items {
                let mut segments = item.split("::").map(str::trim);
                if let Some(first) = segments.next().filter(|first| !first.is_empty()) {
                    let second = segments
                        .next()
                        .filter(|s| !s.starts_with('{'))
                        .and_then(|s| identifiers(s).next());
                    named.push((first.to_owned(), second.map(str::to_owned)));
                }
            }
            rest = after;
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let mut segments = rest[..end].split("::").filter(|s| !s.is_empty());
        if let Some(first) = segments.next() {
            named.push((first.to_owned(), segments.next().map(str::to_owned)));
        }
    }
    named
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
    let exports = root_exports(&code(&lib), &modules);
    let mut edges = Edges::new();
    for file in &files {
        let Some(module) = module_of(file.strip_prefix(&src).expect("under src")) else {
            continue;
        };
        let code = code(&std::fs::read_to_string(file).expect("a source file"));
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
        let paths = [Some("crate::"), layering.self_name]
            .into_iter()
            .flatten()
            .flat_map(|prefix| crate_paths(&code, prefix));
        for (first, second) in paths {
            if modules.contains(&first) {
                name(&first, second.as_deref().unwrap_or(""));
            } else if let Some(target) = exports.get(&first) {
                name(target, &first);
            }
        }
        if let Some(glue) = layering.op_glue {
            if code.contains("#[op]") || code.contains("#[op(") {
                name(glue, "#[op]");
            }
        }
        edges.entry(module).or_default();
    }
    edges
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
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

    #[test]
    fn paths_are_read_from_code_only() {
        let source = "use crate::{ops::{OpCtx, OpDecl}, errors::throw, JsError};\n\
                      // crate::runtime in a comment /* crate::class */\n\
                      let url = \"https://x \\\" crate::modules\"; let q = '\"'; crate::values::v8();\n\
                      $crate::no(); /* crate::isolate */ fn f<'a>(x: &'a u8) { crate::event_loop::run() }\n\
                      #[cfg(test)]\nmod tests { use crate::runtime; }";
        assert_eq!(
            crate_paths(&code(source), "crate::"),
            [
                ("ops".to_owned(), None),
                ("errors".to_owned(), Some("throw".to_owned())),
                ("JsError".to_owned(), None),
                ("values".to_owned(), Some("v8".to_owned())),
                ("event_loop".to_owned(), Some("run".to_owned())),
            ]
        );
    }
}
