//! Import circles at every depth: the layer check orders a crate's top-level modules, and this
//! finds modules anywhere below them that name each other round a circle (`modules/map.rs` →
//! `modules/graph.rs` → `modules/map.rs`). Every file is a node; a path it names is resolved
//! to the file that defines the item, through the `use` items of the modules on the way (a
//! parent's `pub use child::Item` leads to the child), so a re-export is a way through, not a
//! stop. A child may name what its parent's own file defines (the module it is part of); every
//! other arrow counts. The crate root is the top and no node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::layer_paths;

/// A module's path from the crate root: `["modules", "map"]`.
type ModulePath = Vec<String>;

/// Every crate checked: the layered ones, and those without layers of their own.
#[cfg(test)]
const CRATES: [(&str, Option<&str>); 4] = [
    (
        crate::layers::RUNTIME_CORE.src,
        crate::layers::RUNTIME_CORE.self_name,
    ),
    (crate::layers::BACKEND.src, crate::layers::BACKEND.self_name),
    ("runtime_web/src", None),
    ("xtask/src", None),
];

/// The circles in the crate at `src` (from the workspace root), each as its files and the
/// arrows between them.
pub fn circles(root: &Path, src: &str, self_name: Option<&str>) -> Vec<String> {
    let src_path = root.join(src);
    let sources: Vec<(PathBuf, String)> = crate::layers::rust_files(&src_path)
        .into_iter()
        .map(|file| {
            let source = std::fs::read_to_string(&file).expect("a source file");
            let relative = file
                .strip_prefix(&src_path)
                .expect("under src")
                .to_path_buf();
            (relative, source)
        })
        .collect();
    let self_name = self_name.map(|name| name.trim_end_matches("::"));
    circles_of(&sources, self_name).unwrap_or_else(|error| panic!("{src}: {error}"))
}

/// The circles among `sources` (paths relative to the crate's `src/`).
pub fn circles_of(
    sources: &[(PathBuf, String)],
    self_name: Option<&str>,
) -> Result<Vec<String>, String> {
    let modules: BTreeMap<ModulePath, &Path> = sources
        .iter()
        .map(|(relative, _)| (crate::layers::module_path(relative), relative.as_path()))
        .collect();
    let mut uses = BTreeMap::new();
    let mut named = BTreeMap::new();
    for (relative, source) in sources {
        let module = crate::layers::module_path(relative);
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|other| other.len() == module.len() + 1 && other.starts_with(&module))
            .map(|child| child.last().expect("a child").clone())
            .collect();
        let file = syn::parse_file(source).map_err(|error| format!("{relative:?}: {error}"))?;
        uses.insert(
            module.clone(),
            use_items(&file, &module, self_name, &children),
        );
        let names = layer_paths::read_file_with_children(source, &module, self_name, &children)
            .map_err(|error| format!("{relative:?}: {error}"))?;
        named.insert(module, names.full);
    }
    let resolver = Resolver {
        modules: &modules,
        uses: &uses,
    };
    let mut edges: BTreeMap<ModulePath, BTreeMap<ModulePath, BTreeSet<String>>> = BTreeMap::new();
    for (module, paths) in &named {
        if module.is_empty() {
            continue;
        }
        for path in paths {
            let (target, item) = resolver.resolve(path);
            // A child naming what its parent's own file defines names the module it is part
            // of (Rust's privacy lends a parent's items to its children), not a sibling.
            if !target.is_empty() && !module.starts_with(&target) {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_default()
                    .insert(item);
            }
        }
    }
    let mut found = Vec::new();
    for component in strongly_connected(&edges) {
        let mut arrows = Vec::new();
        for from in &component {
            for (to, items) in &edges[from] {
                if component.contains(to) {
                    let items: Vec<&str> = items.iter().map(String::as_str).collect();
                    arrows.push(format!(
                        "  {} -> {} ({})",
                        modules[from].display(),
                        modules[to].display(),
                        items.join(" ")
                    ));
                }
            }
        }
        found.push(format!("an import circle:\n{}", arrows.join("\n")));
    }
    Ok(found)
}

/// What a module's own `use` items bring in: name → the whole path it stands for (globs under
/// `"*"`, the last one met).
fn use_items(
    file: &syn::File,
    module: &[String],
    self_name: Option<&str>,
    children: &BTreeSet<String>,
) -> BTreeMap<String, ModulePath> {
    let mut items = BTreeMap::new();
    for item in &file.items {
        let syn::Item::Use(item) = item else { continue };
        for (path, name) in layer_paths::use_paths(&item.tree, Vec::new()) {
            let Some((whole, _)) = layer_paths::absolute(&path, module, self_name, children) else {
                continue;
            };
            items.insert(name.unwrap_or_else(|| "*".to_owned()), whole);
        }
    }
    items
}

struct Resolver<'a> {
    modules: &'a BTreeMap<ModulePath, &'a Path>,
    uses: &'a BTreeMap<ModulePath, BTreeMap<String, ModulePath>>,
}

impl Resolver<'_> {
    /// The file that defines what `path` names, and the item's name.
    fn resolve(&self, path: &[String]) -> (ModulePath, String) {
        let mut path = path.to_vec();
        // A bound: `use` items that lead round in a circle of their own stop somewhere.
        for _ in 0..16 {
            let depth = (0..=path.len())
                .rev()
                .find(|depth| self.modules.contains_key(&path[..*depth]))
                .unwrap_or(0);
            let module = path[..depth].to_vec();
            let Some(name) = path.get(depth) else {
                return (module, String::new());
            };
            let through = self
                .uses
                .get(&module)
                .and_then(|uses| match uses.get(name) {
                    Some(whole) => {
                        let mut next = whole.clone();
                        next.extend(path[depth + 1..].iter().cloned());
                        Some(next)
                    }
                    None => uses.get("*").map(|glob| {
                        let mut next = glob.clone();
                        next.extend(path[depth..].iter().cloned());
                        next
                    }),
                });
            match through {
                Some(next) if next != path => path = next,
                _ => return (module, name.clone()),
            }
        }
        (Vec::new(), String::new())
    }
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn strongly_connected(
    edges: &BTreeMap<ModulePath, BTreeMap<ModulePath, BTreeSet<String>>>,
) -> Vec<BTreeSet<ModulePath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModulePath, BTreeMap<ModulePath, BTreeSet<String>>>,
        index: BTreeMap<&'a ModulePath, usize>,
        low: BTreeMap<&'a ModulePath, usize>,
        stack: Vec<&'a ModulePath>,
        on_stack: BTreeSet<&'a ModulePath>,
        found: Vec<BTreeSet<ModulePath>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a ModulePath) {
        let at = state.index.len();
        state.index.insert(node, at);
        state.low.insert(node, at);
        state.stack.push(node);
        state.on_stack.insert(node);
        let targets = state.edges.get(node).into_iter().flat_map(|t| t.keys());
        for target in targets {
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = BTreeSet::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.insert(member.clone());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
        list.iter()
            .map(|(path, source)| (PathBuf::from(path), source.to_string()))
            .collect()
    }

    #[test]
    fn a_circle_between_siblings_is_found_through_a_reexport() {
        let sources = files(&[
            ("lib.rs", "mod modules;"),
            (
                "modules/mod.rs",
                "mod map; mod graph; pub use map::ModuleMap;",
            ),
            (
                "modules/map.rs",
                "pub struct ModuleMap(super::graph::Graph);",
            ),
            (
                "modules/graph.rs",
                "pub struct Graph; fn f(_: &super::ModuleMap) {}",
            ),
        ]);
        let found = circles_of(&sources, None).unwrap();
        assert_eq!(
            found,
            [
                "an import circle:\n  modules/graph.rs -> modules/map.rs (ModuleMap)\n  \
              modules/map.rs -> modules/graph.rs (Graph)"
            ]
        );
    }

    #[test]
    fn arrows_one_way_are_no_circle() {
        let sources = files(&[
            ("lib.rs", "mod modules;"),
            (
                "modules/mod.rs",
                "mod map; mod graph; pub use map::ModuleMap;",
            ),
            (
                "modules/map.rs",
                "pub struct ModuleMap(super::graph::Graph);",
            ),
            ("modules/graph.rs", "pub struct Graph;"),
        ]);
        assert!(circles_of(&sources, None).unwrap().is_empty());
    }

    #[test]
    fn no_crate_has_an_import_circle() {
        let root = crate::workspace_root();
        let found: Vec<String> = CRATES
            .iter()
            .flat_map(|(src, self_name)| {
                let found = circles(&root, src, *self_name);
                found
                    .into_iter()
                    .map(move |circle| format!("{src}: {circle}"))
            })
            .collect();
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
