//! What a source file names of its own crate, read with `syn`: every path that starts at the
//! crate (`crate::`, or the crate's own name where it names itself so) or climbs out of the
//! file's module (`super::`, resolved against where the file sits, nested modules included),
//! in code, `use` trees and macro bodies alike; and whether it declares ops (`#[op]`). Items
//! under `#[cfg(test)]`, comments and string contents name nothing.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

/// A path into the crate: its top-level module (or a name the root re-exports) and the segment
/// after it, if any.
pub type Named = (String, Option<String>);

/// What one file names.
#[derive(Default, Debug, PartialEq)]
pub struct FileNames {
    /// In the order met.
    pub paths: Vec<Named>,
    /// The same paths whole, from the crate root, with the paths into the file's own child
    /// modules (`map::ModuleMap` in `modules/mod.rs`) besides: what the circle check resolves.
    pub full: Vec<Vec<String>>,
    /// Whether it declares ops: its expansion calls the crate's glue.
    pub declares_ops: bool,
}

/// Reads `source`, the file of module `module` (its path from the crate root: `["runtime",
/// "create"]` for `runtime/create.rs`); `self_name` is the crate's own name where it names
/// itself (`runtime_core`). `Err` with syn's message if the file does not parse.
pub fn read_file(
    source: &str,
    module: &[String],
    self_name: Option<&str>,
) -> Result<FileNames, String> {
    read_file_with_children(source, module, self_name, &BTreeSet::new())
}

/// [`read_file`], also reading paths that start at one of `children`, the file's own child
/// modules (into [`FileNames::full`] only: they never leave the file's top-level module).
pub fn read_file_with_children(
    source: &str,
    module: &[String],
    self_name: Option<&str>,
    children: &BTreeSet<String>,
) -> Result<FileNames, String> {
    let file = syn::parse_file(source).map_err(|error| error.to_string())?;
    let mut reader = Reader {
        module: module.to_vec(),
        depth: 0,
        children,
        self_name,
        names: FileNames::default(),
    };
    reader.visit_file(&file);
    Ok(reader.names)
}

/// What each name the crate root re-exports (`pub use module::...::{A, B as C};`) is defined
/// in: only the crate's own `modules` (a name also exported by another crate, a derive macro
/// named as its trait, is the trait's).
pub fn root_exports(
    lib: &str,
    modules: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>, String> {
    let file = syn::parse_file(lib).map_err(|error| error.to_string())?;
    let mut exports = BTreeMap::new();
    for item in &file.items {
        let syn::Item::Use(item) = item else { continue };
        if !matches!(item.vis, syn::Visibility::Public(_)) {
            continue;
        }
        for (path, exported) in use_paths(&item.tree, Vec::new()) {
            if let (Some(module), Some(exported)) = (path.first(), exported) {
                if modules.contains(module) {
                    exports.insert(exported, module.clone());
                }
            }
        }
    }
    Ok(exports)
}

/// Each path of a `use` tree, with the name it brings in (`None` for a glob).
pub fn use_paths(tree: &syn::UseTree, prefix: Vec<String>) -> Vec<(Vec<String>, Option<String>)> {
    let with = |ident: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(ident.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(path) => use_paths(&path.tree, with(&path.ident)),
        syn::UseTree::Name(name) => vec![(with(&name.ident), Some(name.ident.to_string()))],
        syn::UseTree::Rename(rename) => {
            vec![(with(&rename.ident), Some(rename.rename.to_string()))]
        }
        syn::UseTree::Glob(_) => vec![(prefix, None)],
        syn::UseTree::Group(group) => group
            .items
            .iter()
            .flat_map(|tree| use_paths(tree, prefix.clone()))
            .collect(),
    }
}

/// `path`, named in `module`, from the crate root, if it leads into the crate: through
/// `crate::` (or the crate's own name), `super::`/`self::`, or one of `children`, the module's
/// own child modules; and whether it went through a child (it then stays in the module's own
/// tree).
pub fn absolute(
    path: &[String],
    module: &[String],
    self_name: Option<&str>,
    children: &BTreeSet<String>,
) -> Option<(Vec<String>, bool)> {
    let first = path.first()?;
    if first == "crate" || Some(first.as_str()) == self_name {
        return Some((path[1..].to_vec(), false));
    }
    if first == "super" || first == "self" {
        let ups = path.iter().take_while(|s| *s == "super").count();
        let kept = module.len().checked_sub(ups)?;
        let rest = path[ups..].iter().skip_while(|s| *s == "self").cloned();
        return Some((module[..kept].iter().cloned().chain(rest).collect(), false));
    }
    children
        .contains(first)
        .then(|| (module.iter().chain(path).cloned().collect(), true))
}

struct Reader<'a> {
    /// The module being read, from the crate root (inline `mod`s pushed while inside).
    module: Vec<String>,
    /// How many inline `mod`s deep the reader is (child paths are read at the file's level).
    depth: usize,
    children: &'a BTreeSet<String>,
    self_name: Option<&'a str>,
    names: FileNames,
}

impl Reader<'_> {
    /// Records `segments` if they lead into the crate from outside the current top-level
    /// module's own tree, or anywhere through `crate::`.
    fn path(&mut self, segments: &[String]) {
        let no_children = BTreeSet::new();
        let children = if self.depth == 0 {
            self.children
        } else {
            &no_children
        };
        let Some((absolute, via_child)) =
            absolute(segments, &self.module, self.self_name, children)
        else {
            return;
        };
        if via_child {
            if segments.len() > 1 {
                self.names.full.push(absolute);
            }
            return;
        }
        if let Some(top) = absolute.first() {
            self.names
                .paths
                .push((top.clone(), absolute.get(1).cloned()));
            self.names.full.push(absolute);
        }
    }

    /// The paths in a macro's tokens (`crate::x::y`, `super::x`); `$crate` is the macro's
    /// own crate at its call site, not a path of this file.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < tokens.len() {
            match &tokens[at] {
                proc_macro2::TokenTree::Group(group) => self.tokens(group.stream()),
                proc_macro2::TokenTree::Ident(ident) => {
                    let after_dollar = at > 0
                        && matches!(&tokens[at - 1], proc_macro2::TokenTree::Punct(p) if p.as_char() == '$');
                    let mut segments = vec![ident.to_string()];
                    let mut next = at + 1;
                    while let (
                        Some(proc_macro2::TokenTree::Punct(a)),
                        Some(proc_macro2::TokenTree::Punct(b)),
                        Some(proc_macro2::TokenTree::Ident(segment)),
                    ) = (tokens.get(next), tokens.get(next + 1), tokens.get(next + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(segment.to_string());
                        next += 3;
                    }
                    if !after_dollar && segments.len() > 1 {
                        self.path(&segments);
                    }
                    at = next;
                    continue;
                }
                proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => {}
            }
            at += 1;
        }
    }
}

/// Whether an item is compiled for tests only.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string() == "test")
    })
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Const(item) => &item.attrs,
            syn::Item::Static(item) => &item.attrs,
            syn::Item::Struct(item) => &item.attrs,
            syn::Item::Enum(item) => &item.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !test_only(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        self.depth += 1;
        syn::visit::visit_item_mod(self, item);
        self.depth -= 1;
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for (path, _) in use_paths(&item.tree, Vec::new()) {
            self.path(&path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            self.path(&segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if attr.path().is_ident("op") {
            self.names.declares_ops = true;
        }
        syn::visit::visit_attribute(self, attr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str, module: &[&str]) -> FileNames {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        read_file(source, &module, Some("runtime_core")).unwrap()
    }

    #[test]
    fn paths_are_read_from_code_only() {
        let source = r#"
            use crate::{ops::{OpCtx, OpDecl}, errors::throw, JsError};
            // crate::runtime in a comment /* crate::class */
            fn f<'a>(x: &'a u8) {
                let url = "https://x \" crate::modules"; let q = '"';
                crate::values::v8();
                runtime_core::isolate::enter();
                my_macro!($crate::no, crate::event_loop::run);
            }
            #[cfg(test)]
            mod tests { use crate::runtime; }
        "#;
        let named = |top: &str, next: Option<&str>| (top.to_owned(), next.map(str::to_owned));
        let names = read(source, &["class"]);
        assert_eq!(
            names.paths,
            [
                named("ops", Some("OpCtx")),
                named("ops", Some("OpDecl")),
                named("errors", Some("throw")),
                named("JsError", None),
                named("values", Some("v8")),
                named("isolate", Some("enter")),
                named("event_loop", Some("run")),
            ]
        );
        assert!(!names.declares_ops);
    }

    #[test]
    fn paths_into_child_modules_are_read_whole() {
        let source = "use map::ModuleMap; fn f() { super::graph::Graph::new(); other::x(); }
                      mod inline { fn g() { map::y(); } }";
        let children = BTreeSet::from(["map".to_owned()]);
        let module = ["modules".to_owned()];
        let names = read_file_with_children(source, &module, None, &children).unwrap();
        let whole = |path: &[&str]| path.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            names.full,
            [
                whole(&["modules", "map", "ModuleMap"]),
                whole(&["graph", "Graph", "new"])
            ]
        );
    }

    #[test]
    fn super_paths_resolve_from_nested_modules() {
        let source = "use super::super::ops::OpCtx; use super::context::Parts;
                      mod inner { fn f() { super::super::super::errors::throw(); } }
                      #[op] fn op_x() {}";
        let names = read(source, &["runtime", "create"]);
        assert_eq!(
            names.paths,
            [
                ("ops".to_owned(), Some("OpCtx".to_owned())),
                ("runtime".to_owned(), Some("context".to_owned())),
                ("errors".to_owned(), Some("throw".to_owned())),
            ]
        );
        assert!(names.declares_ops);
    }

    #[test]
    fn the_roots_reexports_name_their_modules() {
        let modules = BTreeSet::from(["class".to_owned(), "globals".to_owned()]);
        let lib = "pub use class::{ClassDecl, Held as Kept}; pub use globals::console; \
                   use class::Private; pub use v8;";
        let exports = root_exports(lib, &modules).unwrap();
        assert_eq!(
            exports.into_iter().collect::<Vec<_>>(),
            [
                ("ClassDecl".to_owned(), "class".to_owned()),
                ("Kept".to_owned(), "class".to_owned()),
                ("console".to_owned(), "globals".to_owned()),
            ]
        );
    }
}
