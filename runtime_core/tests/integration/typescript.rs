//! The declarations a runtime gives its tenants, type-checked by the real `tsc`: globals that
//! merge with TypeScript's DOM library (`TS2403` on `console` before), no `ops` namespace when
//! `expose_ops: false` hid it (declared before), and `declare module` blocks for an
//! extension's public `ext:` modules (none before).

use crate::common;

use super::embedding::{runtime_with, Request, Response};
use runtime_core::{FromV8, ToV8};

use runtime_core::{op, Extension, ExtensionSource, Runtime, RuntimeOptions};

/// Doubles `x`.
#[op(fast)]
fn op_double(x: u32) -> u32 {
    x * 2
}

const GREET_JS: &str = "import { op_double } from 'ext:core/ops';\n\
                        export function quadruple(x) { return op_double(op_double(x)); }";
const GREET_DTS: &str = "/** Multiplies by four. */\nexport function quadruple(x: number): number;";

const MODULES: &[ExtensionSource] = &[
    ExtensionSource::new("ext:greet/mod.js", GREET_JS),
    ExtensionSource::new("ext:greet/private.js", "export const secret = 1;"),
];
const DECLARATIONS: &[ExtensionSource] = &[
    ExtensionSource::new("ext:greet/mod.js", GREET_DTS),
    ExtensionSource::new("ext:greet/private.js", "export const secret: number;"),
];

fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("greet")
            .ops(&[op_double::DECL])
            .esm(MODULES)
            .esm_public(&["ext:greet/mod.js"])
            .esm_typescript(DECLARATIONS)],
        expose_ops: false,
        ..Default::default()
    })
}

const HANDLER: &str = "\
import { quadruple } from 'ext:greet/mod.js';\n\
export function handle(n: number): string {\n\
  const id = setTimeout(() => console.log('late', n), 10);\n\
  clearTimeout(id);\n\
  console.error('handling', n);\n\
  return String(quadruple(n));\n\
}\n";

#[test]
fn a_tenants_handler_type_checks_against_what_the_runtime_gives_it() {
    let runtime = runtime();
    let dts = runtime.typescript_declarations();
    assert!(!dts.contains("declare namespace ops"), "{dts}");
    assert!(dts.contains("declare module \"ext:greet/mod.js\""), "{dts}");
    assert!(!dts.contains("ext:greet/private.js"), "{dts}");
    let Some(tsc) = common::tsc() else { return };
    for lib in ["es2022", "es2022,dom"] {
        common::type_check_with(&tsc, "handler", &dts, HANDLER, lib)
            .unwrap_or_else(|report| panic!("lib {lib}: {report}\n--- runtime.d.ts\n{dts}"));
    }
    // What the runtime does not give is an error: the hidden ops, a private module, a wrong
    // argument.
    for wrong in [
        "ops.op_double(1);\nexport {};\n",
        "import { secret } from 'ext:greet/private.js';\nexport const s = secret;\n",
        "import { quadruple } from 'ext:greet/mod.js';\nquadruple('four');\n",
    ] {
        assert!(
            common::type_check_with(&tsc, "wrong", &dts, wrong, "es2022").is_err(),
            "{wrong}"
        );
    }
}

/// Tests run in parallel in one process: two type checks that chose one name wrote into one
/// directory, and one checked the other's files (before: both calls gave the same path, and
/// `a_tenants_handler_type_checks_against_what_the_runtime_gives_it` failed in CI, checking
/// another test's `handler`).
#[test]
fn two_scratch_directories_of_one_name_are_two() {
    let (a, b) = (common::scratch_dir("same"), common::scratch_dir("same"));
    assert_ne!(a, b);
    assert!(a.is_dir() && b.is_dir());
    std::fs::remove_dir_all(a).ok();
    std::fs::remove_dir_all(b).ok();
}

mod fixture {
    // The testdata's own imports.
    use runtime_core::{op, v8, FromV8, OpError, ToV8, Trace};

    include!("../../../testdata/ops/typescript.rs");

    pub fn extension() -> runtime_core::Extension {
        runtime_core::Extension::new("fixture")
            .ops(&[
                op_list::DECL,
                op_meta_echo::DECL,
                op_page::DECL,
                op_opaque::DECL,
                op_loose::DECL,
                op_lock::DECL,
            ])
            .classes(&[Cursor::CLASS])
    }
}

/// One generator: what a runtime declares for its ops equals what `cargo xtask dts` writes for
/// their source, derived types named and declared once (before: the runtime typed them
/// `unknown`, `op_list(query: unknown): unknown`), and a tenant's code type-checks against it.
#[test]
fn the_runtime_declares_what_cargo_xtask_dts_declares() {
    let source = include_str!("../../../testdata/ops/typescript.rs");
    let (from_source, errors) = ops_macro_backend::declarations_of_file(source, "ops").unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let from_runtime = fixture::extension().typescript_declarations("ops");
    assert_eq!(from_runtime, from_source);
    let runtime = Runtime::new(RuntimeOptions {
        extensions: vec![fixture::extension()],
        ..Default::default()
    });
    let dts = runtime.typescript_declarations();
    assert!(dts.ends_with(&from_runtime), "{dts}");
    for expected in [
        "function op_list(query: Query): Entry[];",
        "interface Query { prefix: string; limit?: number | null | undefined; kind: Kind; }",
        "interface Entry { key: string; size: number; kind: Kind; meta: Meta | null; }",
        // A derived type's doc comment, as an op's, is its JSDoc.
        "  /**\n   * One entry of a listing.\n   */\n  interface Entry {",
        // Passed and returned: the looser form JavaScript may pass.
        "interface Meta { owner: string; children: Meta[]; }",
        "function op_page(): unknown;",
        "type Opaque = unknown;",
        "function op_loose(loose: unknown): number;",
        "first(): Entry | null;",
        "class Lock {\n    private constructor();\n  }",
    ] {
        assert!(
            dts.contains(expected),
            "{expected}\n--- runtime.d.ts\n{dts}"
        );
    }
    assert_eq!(dts.matches("type Kind =").count(), 1, "{dts}");
    let Some(tsc) = common::tsc() else { return };
    let usage = "\
const entries: ops.Entry[] = ops.op_list({ prefix: 'a/', kind: 'file' });\n\
const meta: ops.Meta = ops.op_meta_echo({ owner: 'me', children: [] });\n\
const cursor = new ops.Cursor({ prefix: '', limit: 1, kind: 'dir' });\n\
const first: ops.Entry | null = cursor.first();\n\
const lock: ops.Lock = ops.op_lock();\n\
export const all = [entries, meta, first, lock];\n";
    common::type_check(&tsc, "fixture", &dts, usage)
        .unwrap_or_else(|report| panic!("{report}\n--- runtime.d.ts\n{dts}"));
    for wrong in [
        "ops.op_list({ prefix: 1, kind: 'file' });\nexport {};\n",
        "ops.op_list({ prefix: '', kind: 'link' });\nexport {};\n",
        "const size: string = ops.op_list({ prefix: '', kind: 'dir' })[0].size;\nexport {};\n",
        "new ops.Lock();\nexport {};\n",
    ] {
        assert!(
            common::type_check(&tsc, "fixture-wrong", &dts, wrong).is_err(),
            "tsc accepted: {wrong}"
        );
    }
}

/// Without the compiler, the TypeScript checks have nothing to check with: that is an error
/// that says why, never a silent pass.
#[test]
fn a_compiler_that_cannot_be_installed_is_an_error() {
    let prefix = std::env::temp_dir().join(format!("opwire-no-tsc-{}", std::process::id()));
    let error = common::install_tsc(&prefix, "opwire-no-such-npm").unwrap_err();
    assert!(
        error.contains("npm could not install typescript"),
        "{error}"
    );
    assert!(!prefix.join("node_modules/.bin/tsc").exists());
}

/// A handler typed with the host's derived types and the runtime's globals type-checks with
/// `tsc --strict`; a misuse of either does not.
#[test]
fn a_typed_handler_checks_against_derived_types_and_globals() {
    let Some(tsc) = common::tsc() else { return };
    let rt = runtime_with(&[]);
    let dts = format!(
        "{}\n{}\n{}\n",
        rt.typescript_declarations(),
        <Request as ToV8>::TYPESCRIPT,
        <Response as FromV8>::TYPESCRIPT,
    );
    let handler = "export async function handle(req: Request): Promise<Response> {
  await new Promise<void>((resolve) => setTimeout(resolve, 1));
  const id = setInterval((n: number) => console.log(n), 10, 1);
  clearInterval(id);
  unrefTimer(setTimeout(() => {}, 5));
  queueMicrotask(() => console.error(req.method));
  return { status: ops.op_double(100), body: req.path };
}
";
    if let Err(report) = common::type_check(&tsc, "handler", &dts, handler) {
        panic!("tsc failed:\n{report}\n--- ops.d.ts\n{dts}");
    }
    for wrong in [
        "export function f(req: Request): Response { return { status: '200', body: req.path }; }",
        "export function f(req: Request): Response { return { status: 200, body: req.query }; }",
        "setTimeout((n: number) => {}, 1, 'not a number');",
    ] {
        assert!(
            common::type_check(&tsc, "handler-bad", &dts, wrong).is_err(),
            "tsc accepted: {wrong}"
        );
    }
}

/// Every declaration file `cargo xtask dts` writes for the repository's own sources passes
/// `tsc --noEmit --strict`.
#[test]
fn every_declaration_file_of_the_repository_type_checks() {
    let Some(tsc) = common::tsc() else { return };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (dirs, files) = ops_macro_backend::DTS_SOURCES;
    let mut sources: Vec<std::path::PathBuf> = files.iter().map(|file| root.join(file)).collect();
    for dir in dirs {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                sources.push(path);
            }
        }
    }
    assert!(sources.len() > 10, "{sources:?}");
    // One `tsc` run: each file's ops in a namespace of their own.
    let mut all = String::new();
    for (index, source) in sources.iter().enumerate() {
        let text = std::fs::read_to_string(source).unwrap();
        let (dts, errors) =
            ops_macro_backend::declarations_of_file(&text, &format!("ops{index}")).unwrap();
        assert!(errors.is_empty(), "{}: {errors:?}", source.display());
        all.push_str(&format!("// {}\n{dts}\n", source.display()));
    }
    if let Err(report) = common::type_check(&tsc, "dts-all", &all, "export {};\n") {
        panic!("tsc failed:\n{report}\n--- d.ts\n{all}");
    }
}
