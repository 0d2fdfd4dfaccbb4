//! The declarations file from sources (what `cargo xtask dts` and a user's `build.rs` write),
//! laid out as `runtime_core::typescript_declarations` lays out the same declarations from a
//! runtime's ops: the same members (this module's emitters), in the same order, each named type
//! declared once. A test in `runtime_core` holds the two byte for byte equal.

use std::collections::HashMap;

use crate::expand_file::{derives, op_classes, op_functions};
use crate::typegen::{Form, NamedType, Position};

/// The repository's sources `cargo xtask dts` declares by default: every `.rs` file of these
/// directories, then these files (relative to the workspace root).
pub const DTS_SOURCES: (&[&str], &[&str]) = (
    &["testdata/ops", "runtime_core/examples"],
    &["benches/src/ops.rs", "benches/src/async_benches.rs"],
);

/// The TypeScript declarations of the ops of `source` (see [`crate::typegen`]), as a `.d.ts`
/// declaring `ops_object_name`: what `cargo xtask dts` writes. Ops that do not expand are left
/// out, with their errors.
pub fn declarations_of_file(
    source: &str,
    ops_object_name: &str,
) -> syn::Result<(String, Vec<String>)> {
    declarations_of_sources(&[("", source)], ops_object_name)
}

/// The declarations of the ops and classes of several sources (one crate's files, each with
/// the label its errors get) as one file: ops in source order, then classes, the types they
/// name declared once before them.
fn declarations_of_sources(
    sources: &[(&str, &str)],
    ops_object_name: &str,
) -> syn::Result<(String, Vec<String>)> {
    let mut derived = HashMap::new();
    let mut ops = Vec::new();
    let mut classes = Vec::new();
    let mut errors = Vec::new();
    for &(label, source) in sources {
        let error = |error: &syn::Error| match label {
            "" => error.to_string(),
            label => format!("{label}: {error}"),
        };
        derived_types(source, &mut derived)?;
        for (args, item_fn) in op_functions(source)? {
            match crate::parse_op(args, &item_fn) {
                Ok(op) => ops.push((
                    crate::typegen::declaration(&op),
                    crate::typegen::types_named(&op),
                )),
                Err(found) => errors.extend(found.iter().map(error)),
            }
        }
        for (args, item_impl) in op_classes(source)? {
            match crate::parse_class(args, item_impl) {
                Ok(class) => classes.push(Declared {
                    name: class.name.clone(),
                    typescript: crate::typegen::class_declaration(&class),
                    names: crate::typegen::types_named_by_class(&class),
                }),
                Err(found) => errors.extend(found.iter().map(error)),
            }
        }
    }
    let ops: Vec<Declared> = ops
        .into_iter()
        .map(|(typescript, names)| Declared {
            name: String::new(),
            typescript,
            names,
        })
        .collect();
    Ok((layout(ops_object_name, &ops, &classes, &derived), errors))
}

/// A member of the namespace: its declaration and the types it names.
struct Declared {
    name: String,
    typescript: String,
    names: Vec<NamedType>,
}

/// A derived type's declaration in each direction it derives, with the types each names.
#[derive(Default)]
struct Derived {
    input: Option<(String, Vec<NamedType>)>,
    output: Option<(String, Vec<NamedType>)>,
}

/// The file, as `runtime_core::typescript_declarations` lays it out: named types (depth
/// first, each once; as passed where passed and returned both; `unknown` where no derive in
/// the sources declares it), ops, classes, then the classes named but not declared.
fn layout(
    ops_object_name: &str,
    ops: &[Declared],
    classes: &[Declared],
    derived: &HashMap<String, Derived>,
) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut found: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
    let mut stack: Vec<NamedType> = Vec::new();
    for member in ops.iter().chain(classes) {
        stack.extend(member.names.iter().rev().cloned());
        while let Some(named) = stack.pop() {
            let entry = found.entry(named.name.clone()).or_insert_with(|| {
                order.push(named.name.clone());
                (None, None)
            });
            let Form::Value(position) = named.form else {
                continue;
            };
            let slot = match position {
                Position::Input => &mut entry.0,
                Position::Output => &mut entry.1,
            };
            if slot.is_some() {
                continue;
            }
            let (declaration, names) = derived
                .get(&named.name)
                .and_then(|derived| match position {
                    Position::Input => derived.input.clone(),
                    Position::Output => derived.output.clone(),
                })
                .unwrap_or_default();
            *slot = Some(declaration);
            stack.extend(names.into_iter().rev());
        }
    }
    let mut out = format!(
        "// Generated by opwire from the ops' Rust signatures.\n\ndeclare namespace {ops_object_name} {{\n"
    );
    let mut push = |text: &str| {
        for line in text.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    };
    let mut stubs = Vec::new();
    for name in &order {
        match &found[name] {
            (Some(declaration), _) | (None, Some(declaration)) if declaration.is_empty() => {
                push(&format!("type {name} = unknown;"))
            }
            (Some(declaration), _) | (None, Some(declaration)) => push(declaration),
            (None, None) if !classes.iter().any(|class| &class.name == name) => {
                stubs.push(format!("class {name} {{\n  private constructor();\n}}"))
            }
            (None, None) => {}
        }
    }
    ops.iter().for_each(|op| push(&op.typescript));
    classes.iter().for_each(|class| push(&class.typescript));
    stubs.iter().for_each(|stub| push(stub));
    out.push_str("}\n");
    out
}

/// Adds the `#[derive(FromV8)]`/`#[derive(ToV8)]` types at the top level of `source`, each
/// with its declaration in each direction it derives, as the derive writes it.
fn derived_types(source: &str, derived: &mut HashMap<String, Derived>) -> syn::Result<()> {
    use crate::internals::derive_input::parse;
    use crate::ir::container::Direction;
    for item in syn::parse_file(source)?.items {
        let (attrs, tokens) = match &item {
            syn::Item::Struct(item) => (&item.attrs, quote::ToTokens::to_token_stream(item)),
            syn::Item::Enum(item) => (&item.attrs, quote::ToTokens::to_token_stream(item)),
            _ => continue,
        };
        let input = syn::parse2::<syn::DeriveInput>(tokens)?;
        for (trait_name, direction, position) in [
            ("FromV8", Direction::From, Position::Input),
            ("ToV8", Direction::To, Position::Output),
        ] {
            if !derives(attrs, trait_name) {
                continue;
            }
            let cx = crate::internals::Ctxt::new();
            let container = parse(&cx, &input, direction);
            if cx.check().is_err() {
                continue; // the derive reports it where it expands
            }
            let Some(container) = container else { continue };
            let names = crate::typegen::types::types_named_by(&container, position)
                .into_iter()
                .map(|name| NamedType {
                    name,
                    form: Form::Value(position),
                })
                .collect();
            let declaration = crate::typegen::types::declaration(&container, position);
            let entry = derived.entry(input.ident.to_string()).or_default();
            match position {
                Position::Input => entry.input = Some((declaration, names)),
                Position::Output => entry.output = Some((declaration, names)),
            }
        }
    }
    Ok(())
}

/// The declarations of every op, class and derived type in a crate's `src/` as one file: what
/// a user's crate (a `build.rs`, or `cargo xtask dts --crate DIR`) writes for its tenants'
/// `tsc`. Returns the file's name (`<package>.d.ts`), its text, and the ops that did not
/// parse.
pub fn declarations_of_crate(
    manifest_dir: &std::path::Path,
    ops_object_name: &str,
) -> Result<(String, String, Vec<String>), String> {
    let package = package_name(manifest_dir).ok_or_else(|| {
        format!(
            "{}: no [package] name in Cargo.toml",
            manifest_dir.display()
        )
    })?;
    let mut files = Vec::new();
    let mut dirs = vec![manifest_dir.join("src")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut sources = Vec::new();
    for file in &files {
        let source =
            std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        syn::parse_file(&source).map_err(|e| format!("{} does not parse: {e}", file.display()))?;
        sources.push((file.display().to_string(), source));
    }
    let sources: Vec<(&str, &str)> = sources
        .iter()
        .map(|(label, source)| (label.as_str(), source.as_str()))
        .collect();
    let (text, errors) = declarations_of_sources(&sources, ops_object_name)
        .map_err(|e| format!("a source does not parse: {e}"))?; // each parsed above
    Ok((format!("{package}.d.ts"), text, errors))
}

/// A sensible name for the declarations of one source file: its package and its path in the
/// package (`myplugin.d.ts` for `src/lib.rs` or `src/main.rs`, `myplugin-ops-kv.d.ts` for
/// `src/ops/kv.rs`); `None` outside a package.
pub fn declaration_file_name(file: &std::path::Path) -> Option<String> {
    let mut dir = file.parent()?;
    loop {
        if let Some(package) = package_name(dir) {
            let within = file.strip_prefix(dir).ok()?.with_extension("");
            let within = within.strip_prefix("src").unwrap_or(&within);
            let within = within.to_string_lossy().replace(['/', '\\'], "-");
            return Some(match within.as_str() {
                "lib" | "main" => format!("{package}.d.ts"),
                _ => format!("{package}-{within}.d.ts"),
            });
        }
        dir = dir.parent()?;
    }
}

/// The `[package]` name of `dir/Cargo.toml`, if it has one.
fn package_name(dir: &std::path::Path) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("name").map(str::trim_start) {
                if let Some(value) = value.strip_prefix('=') {
                    return Some(value.trim().trim_matches('"').to_owned());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crates_declarations_are_one_file_named_after_its_package() {
        // Outside any checkout, as a user's crate is (`cargo xtask dts` named its file after
        // the absolute path: `-tmp-...-src-main.d.ts`).
        let dir = std::env::temp_dir().join(format!("opwire-dts-crate-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/ops")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"myplugin\"\nversion = \"0.1.0\"\n\n[dependencies]\nname = 1\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("src/main.rs"),
            "#[derive(ToV8)]\npub struct Entry { pub key: String, pub size: u32 }\n\
             #[op]\nfn op_entry(#[string] key: String) -> Entry { todo!() }\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("src/ops/kv.rs"),
            "#[op]\nfn op_kv(x: u32) -> u32 { x }\n",
        )
        .unwrap();
        let (name, text, errors) = declarations_of_crate(&dir, "ops").unwrap();
        assert_eq!(name, "myplugin.d.ts");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            text.contains("interface Entry { key: string; size: number; }"),
            "{text}"
        );
        assert!(
            text.contains("function op_entry(key: string): Entry;"),
            "{text}"
        );
        assert!(
            text.contains("function op_kv(x: number): number;"),
            "{text}"
        );
        assert_eq!(
            declaration_file_name(&dir.join("src/main.rs")).as_deref(),
            Some("myplugin.d.ts")
        );
        assert_eq!(
            declaration_file_name(&dir.join("src/ops/kv.rs")).as_deref(),
            Some("myplugin-ops-kv.d.ts")
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
