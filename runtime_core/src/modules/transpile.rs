//! TypeScript modules made JavaScript (the `typescript` feature), for
//! [`FsModuleLoader::typescript`](super::FsModuleLoader::typescript): oxc parses the module,
//! transforms it (types erased; enums, namespaces and parameter properties lowered, as `tsc`
//! emits them) and prints it with a source map whose source is the module's own URL, so a
//! stack points at the `.ts` line. oxc was chosen over swc's fast strip by speed, by what it
//! accepts (swc's strip-only mode refuses enums, namespaces and parameter properties, its
//! transform mode is slower) and by the map it keeps (BENCHMARKS.md).

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::SourceType;
use oxc_transformer::{TransformOptions, Transformer};

/// The largest TypeScript module transpiled. oxc's parser, transformer and printer recurse
/// once per nesting level with no limit of their own, and a stack overflow ends the process:
/// a module this size cannot nest deeper than [`STACK`] holds (measured in a release build,
/// each of the deepest constructs at this size fits a quarter of it: BENCHMARKS.md). A larger
/// module is compiled ahead (`tsc`, a bundler) and loaded as JavaScript with its `.map`.
pub(super) const MAX_SIZE: usize = 128 << 10;

/// The stack of the thread a module is transpiled on: reserved, and touched only as deep as
/// the module nests.
const STACK: usize = 512 << 20;

/// Whether a module URL's file is TypeScript the loader transpiles: `.ts`, `.mts`, `.tsx`.
pub(super) fn is_typescript(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext == "ts" || ext == "mts" || ext == "tsx")
}

/// `source`, the module at `url` (`.tsx` when `jsx`), as JavaScript, and its source map's
/// JSON; or what is wrong with it. On a thread of its own, with [`STACK`].
pub(super) fn transpile(url: &str, source: &str, jsx: bool) -> Result<(String, Vec<u8>), String> {
    if source.len() > MAX_SIZE {
        return Err(format!(
            "TypeScript larger than {MAX_SIZE} bytes is not transpiled here: compile it ahead \
             and load the JavaScript"
        ));
    }
    let (url, source) = (url.to_owned(), source.to_owned());
    std::thread::Builder::new()
        .name("opwire-typescript".to_owned())
        .stack_size(STACK)
        .spawn(move || transpile_here(&url, &source, jsx))
        .map_err(|error| format!("no thread to transpile on: {error}"))?
        .join()
        .map_err(|_| "the TypeScript compiler failed on it".to_owned())?
}

fn transpile_here(url: &str, source: &str, jsx: bool) -> Result<(String, Vec<u8>), String> {
    let allocator = Allocator::default();
    let source_type = if jsx {
        SourceType::tsx()
    } else {
        SourceType::ts()
    }
    .with_module(true);
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(error) = parsed.diagnostics.first() {
        return Err(format!("not valid TypeScript: {error}"));
    }
    let mut program = parsed.program;
    // Enums are lowered from the member values the semantic pass computes.
    let scoping = SemanticBuilder::new()
        .with_enum_eval(true)
        .with_excess_capacity(2.0)
        .build(&program)
        .semantic
        .into_scoping();
    let path = Path::new(url);
    let transformed = Transformer::new(&allocator, path, &TransformOptions::default())
        .build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.first() {
        return Err(format!("cannot be made JavaScript: {error}"));
    }
    let printed = Codegen::new()
        .with_options(CodegenOptions {
            source_map_path: Some(path.to_path_buf()),
            ..CodegenOptions::default()
        })
        .build(&program);
    let map = printed
        .map
        .map(|map| map.to_json_string().into_bytes())
        .unwrap_or_default();
    Ok((printed.code, map))
}
