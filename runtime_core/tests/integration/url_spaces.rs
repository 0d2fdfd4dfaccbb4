//! A tenant's own URLs: the file-system loader serves its root as a URL space the host
//! chooses, so modules, `import.meta.url`, stacks and errors never show where the files are;
//! and a `.map` file beside a module is read through the same confinement.

use std::path::Path;
use std::rc::Rc;

use crate::common::{init_test_flags, run_main as run, tenant_dir};
use runtime_core::modules::FsModuleLoader;
use runtime_core::{Runtime, RuntimeOptions};

fn runtime(loader: FsModuleLoader) -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    })
}

const MAIN: &str = "import { fail } from './lib/fail.js';
globalThis.url = import.meta.url;
globalThis.resolved = import.meta.resolve('./lib/fail.js');
globalThis.run = () => { try { fail(); } catch (e) { return String(e.stack); } };";
const FAIL: &str = "export function fail() {\n  throw new Error('boom');\n}\n";

fn assert_no_host_path(text: &str, dir: &Path) {
    let host = dir.to_string_lossy();
    assert!(
        !text.contains(host.as_ref()),
        "a host path reached the tenant: {text}"
    );
}

#[test]
fn a_tenant_sees_its_url_space_never_the_host_path() {
    for space in ["tenant-a:/", "file:///"] {
        let dir = tenant_dir("space", &[("main.js", MAIN), ("lib/fail.js", FAIL)]);
        let loader = FsModuleLoader::new(&dir).unwrap().url_space(space).unwrap();
        assert_eq!(loader.root_url(), space);
        let mut rt = runtime(loader);
        let main = format!("{space}main.js");
        let out = run(
            &mut rt,
            &main,
            "globalThis.out = [url, resolved, run()].join('|')",
        )
        .unwrap();
        let parts: Vec<&str> = out.splitn(3, '|').collect();
        assert_eq!(parts[0], main);
        assert_eq!(parts[1], format!("{space}lib/fail.js"));
        assert!(
            parts[2].contains(&format!("at fail ({space}lib/fail.js:2:9)")),
            "{out}"
        );
        assert_no_host_path(&out, &dir);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn a_url_outside_the_space_is_refused_without_a_host_path() {
    let dir = tenant_dir(
        "outside",
        &[
            ("app/main.js", "globalThis.main = 1;"),
            ("secret.js", "globalThis.leak = 1;"),
        ],
    );
    let loader = FsModuleLoader::new(dir.join("app"))
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap();
    let mut rt = runtime(loader);
    let leaked = dir.join("secret.js");
    let leaked = url::Url::from_file_path(&leaked).unwrap();
    for specifier in [
        leaked.as_str().to_owned(),
        "tenant-b:/main.js".to_owned(),
        "tenant-a:/../secret.js".to_owned(),
        "tenant-a:/%2e%2e/secret.js".to_owned(),
        "tenant-a:/main.js?x".to_owned(),
    ] {
        let script = format!(
            "import({specifier:?}).then(() => globalThis.out = 'loaded', (e) => globalThis.out = String(e))"
        );
        let out = run(&mut rt, "tenant-a:/main.js", &script).unwrap();
        assert!(out != "loaded", "{specifier}: {out}");
        // The error quotes what the tenant wrote, and no more of the host.
        assert_no_host_path(&out.replace(&specifier, "<specifier>"), &dir);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_url_space_is_refused() {
    let dir = tenant_dir("bad-space", &[("main.js", "")]);
    for base in ["tenant-a:", "tenant-a:/x", "not a url", "tenant-a:/?q"] {
        let refused = FsModuleLoader::new(&dir).unwrap().url_space(base);
        assert!(refused.is_err(), "{base}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn map_to_typescript(lines: u32) -> String {
    String::from_utf8(super::stack_traces::map_to_typescript(lines)).unwrap()
}

#[test]
fn a_map_file_beside_a_module_points_its_stack_at_the_original() {
    let generated = "globalThis.run = () => {\n  try { fail(); } catch (e) { return String(e.stack); }\n};\nfunction fail() {\n  throw new Error('from TypeScript');\n}\n//# sourceMappingURL=main.js.map\n";
    let map = map_to_typescript(7);
    let dir = tenant_dir(
        "map-file",
        &[("dist/main.js", generated), ("dist/main.js.map", &map)],
    );
    let loader = FsModuleLoader::new(&dir)
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap();
    let mut rt = runtime(loader);
    let out = run(&mut rt, "tenant-a:/dist/main.js", "globalThis.out = run()").unwrap();
    // Generated line 5 (`throw`) is original line 49 + 1.
    assert!(
        out.contains("at fail (tenant-a:/src/main.ts:50:5)"),
        "the map beside the module was not read: {out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_map_file_outside_the_root_is_not_read() {
    let generated = "globalThis.run = () => {\n  try { fail(); } catch (e) { return String(e.stack); }\n};\nfunction fail() {\n  throw new Error('x');\n}\n//# sourceMappingURL=../outside.js.map\n";
    let map = map_to_typescript(7);
    let dir = tenant_dir(
        "map-outside",
        &[("app/main.js", generated), ("outside.js.map", &map)],
    );
    let mut rt = runtime(FsModuleLoader::new(dir.join("app")).unwrap());
    let main = url::Url::from_file_path(dir.join("app/main.js")).unwrap();
    let out = run(&mut rt, main.as_str(), "globalThis.out = run()").unwrap();
    assert!(out.contains("main.js:5:9"), "{out}");
    assert!(!out.contains("main.ts"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A refused `import()` names where it was called: the module is loaded after the call
/// returned, with no JavaScript on the stack, and its error had no frames (before: only
/// `TypeError: ... not found`, no line of the importer).
#[test]
fn a_refused_import_has_the_importers_frames() {
    const MAIN: &str = "async function load(name) {\n  return import(`./${name}.js`);\n}\n\
                        globalThis.out = 'main ran';\n\
                        export const pending = load('missing').catch((e) => {\n  \
                          globalThis.out = e.stack;\n});\n";
    let dir = tenant_dir("refused-import", &[("main.js", MAIN)]);
    let loader = FsModuleLoader::new(&dir)
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap();
    let mut rt = runtime(loader);
    let out = run(&mut rt, "tenant-a:/main.js", "").unwrap();
    assert!(out.contains("missing.js"), "{out}");
    assert!(out.contains("\n    at load (tenant-a:/main.js:2:"), "{out}");
    assert_no_host_path(&out, &dir);
    std::fs::remove_dir_all(&dir).ok();
}
