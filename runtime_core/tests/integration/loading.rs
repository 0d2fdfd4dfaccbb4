//! Loading as a boundary: what a tenant's modules can reach through each loader, `ext:`
//! modules' privacy, import attributes, loaders that panic, deep graphs, and what a failed
//! module says. Each test names the fault of issue 37 it guards against.

use crate::common;

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;

use common::{init_test_flags, tokio};
use runtime_core::modules::{
    FsModuleLoader, LoadRequest, ModuleLoadError, ModuleLoadFuture, ModuleLoader, ModuleSource,
    ResolutionKind, StaticModuleLoader,
};
use runtime_core::{op, Extension, ExtensionSource, Runtime, RuntimeOptions};

fn runtime(loader: impl ModuleLoader + 'static) -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    })
}

fn static_loader(modules: &[(&str, ModuleSource)]) -> StaticModuleLoader {
    StaticModuleLoader::new(
        modules
            .iter()
            .map(|(url, source)| (url.to_string(), source.clone())),
    )
}

/// `modules` and the data modules the attribute tests import: `data.json`, `style.css` and
/// `blob.bin` under `file:///app/`.
fn with_data_modules(
    modules: [(&'static str, ModuleSource); 2],
) -> Vec<(&'static str, ModuleSource)> {
    let mut all = modules.to_vec();
    all.extend([
        (
            "file:///app/data.json",
            ModuleSource::json(r#"{"a": [1, 2]}"#),
        ),
        (
            "file:///app/style.css",
            ModuleSource::text("body { color: red }"),
        ),
        (
            "file:///app/blob.bin",
            ModuleSource::bytes(vec![0u8, 159, 255]),
        ),
    ]);
    all
}

/// Loads and evaluates `url` as the main module, then reads `globalThis.out`.
fn run_main(rt: &mut Runtime, url: &str) -> Result<String, runtime_core::JsError> {
    let tokio = tokio();
    let id = tokio.block_on(rt.load_main_module(url))?;
    tokio.block_on(rt.mod_evaluate(id))?;
    tokio.block_on(rt.run_event_loop())?;
    rt.execute_script_to_string("<out>", "String(globalThis.out)")
}

/// The lines of outcome `promise` (an expression) fulfils with, once the event loop ran.
fn outcomes_of(rt: &mut Runtime, promise: &str) -> Vec<String> {
    rt.execute_script(
        "<outcomes>",
        &format!(
            "globalThis.out = undefined;
             ({promise}).then((all) => {{ globalThis.out = all.join('\\n'); }});"
        ),
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    rt.execute_script_to_string("<out>", "String(globalThis.out)")
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Each specifier's `import()` outcome from a classic script: `loaded`, or the error's class
/// and message.
fn import_each(rt: &mut Runtime, specifiers: &[&str], options: &str) -> Vec<String> {
    let list = serde_json::to_string(specifiers).unwrap();
    outcomes_of(
        rt,
        &format!(
            "Promise.all({list}.map((s) => import(s, {options}).then(
               () => 'loaded', (e) => e.name + ': ' + e.message)))"
        ),
    )
}

// ---- 1. the file system loader is confined to its root --------------------------------------

/// A tenant directory `root/tenant` beside the host's secrets, with links, a FIFO and a file
/// over the size limit.
struct Tenant {
    base: PathBuf,
    root: PathBuf,
}

impl Tenant {
    fn new(name: &str) -> Self {
        let base = common::scratch_dir(name);
        let root = base.join("tenant");
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::write(base.join("secret.json"), r#"{"secret": "hunter2"}"#).unwrap();
        std::fs::write(
            base.join("secret.js"),
            "globalThis.ranSecret = true; hunter2;",
        )
        .unwrap();
        std::fs::write(root.join("main.js"), IMPORTER_JS).unwrap();
        std::fs::write(root.join("lib/ok.js"), "export const ok = 1;").unwrap();
        std::fs::write(root.join("big.js"), "x".repeat(2048)).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("secret.json"), root.join("link.json")).unwrap();
            std::os::unix::fs::symlink(root.join("lib/ok.js"), root.join("inside.js")).unwrap();
            std::os::unix::fs::symlink("/dev/zero", root.join("zero.js")).unwrap();
            let fifo = std::ffi::CString::new(root.join("fifo.js").to_str().unwrap()).unwrap();
            // SAFETY: a valid path; mkfifo creates a FIFO and touches nothing else.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        }
        Self { base, root }
    }

    fn url(&self, path: &str) -> String {
        url::Url::from_file_path(self.root.join(path))
            .unwrap()
            .to_string()
    }
}

impl Drop for Tenant {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn loader_for(tenant: &Tenant) -> FsModuleLoader {
    FsModuleLoader::new(&tenant.root)
        .unwrap()
        .max_module_size(1024)
}

/// A tenant's directory and a runtime confined to it whose `main.js` has run.
fn started_tenant(name: &str) -> (Tenant, Runtime) {
    let tenant = Tenant::new(name);
    let mut rt = runtime(loader_for(&tenant));
    assert_eq!(
        run_main(&mut rt, &tenant.url("main.js")).unwrap(),
        "main ran"
    );
    (tenant, rt)
}

fn assert_refused(outcome: &str, why: &str) {
    assert!(
        outcome.starts_with("TypeError: ") && outcome.contains(why),
        "expected a refusal ({why}), got {outcome}"
    );
    assert!(
        !outcome.contains("hunter2"),
        "the error leaks a secret: {outcome}"
    );
}

#[test]
fn the_file_system_loader_reaches_nothing_outside_its_root() {
    // Issue 37, 1: every one of these loaded a file outside the tenant's directory.
    let (tenant, mut rt) = started_tenant("confined");
    let secret = tenant.base.join("secret.json");
    let secret_url = url::Url::from_file_path(&secret).unwrap().to_string();
    let localhost = secret_url.replacen("file://", "file://localhost", 1);
    let absolute = secret.to_str().unwrap().to_owned();
    let escapes = [
        "../secret.json",
        absolute.as_str(),
        secret_url.as_str(),
        localhost.as_str(),
        "./link.json",
        "./..%2Fsecret.json",
        "./%2e%2e/secret.json",
        "./..\\secret.json",
    ];
    let outcomes = import_from(&mut rt, &escapes, "{ with: { type: 'json' } }");
    assert_eq!(outcomes.len(), escapes.len());
    for outcome in &outcomes {
        assert_refused(outcome, "outside the loader's root");
    }
    // A script outside never runs; a system file's text never reaches an error.
    let outcomes = import_from(&mut rt, &["../secret.js", "file:///etc/hostname"], "{}");
    for outcome in &outcomes {
        assert_refused(outcome, "outside the loader's root");
    }
    assert_eq!(
        rt.execute_script_to_string("r.js", "typeof ranSecret")
            .unwrap(),
        "undefined"
    );
}

#[test]
#[cfg(unix)]
fn the_file_system_loader_reads_regular_files_only_and_within_its_size_limit() {
    // Issue 37, 1: `/dev/zero` was read without bound, a FIFO blocked the thread for good.
    let (_tenant, mut rt) = started_tenant("files");
    let outcomes = import_from(
        &mut rt,
        &[
            "./zero.js",
            "./fifo.js",
            "./lib",
            "./big.js",
            "./inside.js",
            "./missing.js",
        ],
        "{}",
    );
    assert_refused(&outcomes[0], "outside the loader's root"); // a link out of the root
    assert_refused(&outcomes[1], "not a regular file");
    assert_refused(&outcomes[2], "not a regular file");
    assert_refused(&outcomes[3], "larger than the loader's limit of 1024 bytes");
    assert_eq!(
        outcomes[4], "loaded",
        "a link that stays inside the root is followed"
    );
    assert_refused(&outcomes[5], "no such file");
    // A device named directly is no file under the root either.
    let outcomes = import_from(&mut rt, &["/dev/zero"], "{}");
    assert_refused(&outcomes[0], "outside the loader's root");
    // What exists outside the root is not told apart from what does not.
    let outcomes = import_from(&mut rt, &["/etc/passwd", "/etc/opwire-no-such-file"], "{}");
    assert_eq!(
        outcomes[0].replace("passwd", "X"),
        outcomes[1].replace("opwire-no-such-file", "X")
    );
    // One URL per file: no query, no fragment.
    let outcomes = import_from(&mut rt, &["./lib/ok.js?1", "./lib/ok.js#a"], "{}");
    for outcome in &outcomes {
        assert_refused(outcome, "a file: URL with a query or fragment");
    }
}

#[test]
fn the_file_system_loader_refuses_other_schemes() {
    let (_tenant, mut rt) = started_tenant("schemes");
    let outcomes = import_from(
        &mut rt,
        &["data:text/javascript,1", "https://x.test/a.js"],
        "{}",
    );
    for outcome in &outcomes {
        assert_refused(outcome, "not a file: URL");
    }
}

/// A main module whose `importFrom(specifiers, options)` imports each relative to itself.
const IMPORTER_JS: &str = "
globalThis.importFrom = (list, options) => Promise.all(list.map((s) =>
  import(s, options).then(() => 'loaded', (e) => e.name + ': ' + e.message)));
globalThis.out = 'main ran';
";

/// `import()` of each specifier from the main module (see [`IMPORTER_JS`]).
fn import_from(rt: &mut Runtime, specifiers: &[&str], options: &str) -> Vec<String> {
    let list = serde_json::to_string(specifiers).unwrap();
    outcomes_of(rt, &format!("importFrom({list}, {options})"))
}

// ---- 1. no loader, no loading ----------------------------------------------------------------

#[test]
fn a_runtime_without_a_loader_loads_nothing() {
    // Issue 37, 1: the default loader was the file system, unconfined.
    init_test_flags();
    let mut rt = Runtime::new(RuntimeOptions::default());
    let path = std::env::temp_dir().join(format!("opwire-noloader-{}.js", std::process::id()));
    std::fs::write(&path, "globalThis.ran = true;").unwrap();
    let url = url::Url::from_file_path(&path).unwrap().to_string();
    let err = tokio().block_on(rt.load_main_module(&url)).unwrap_err();
    assert!(
        err.message.contains("RuntimeOptions::module_loader"),
        "{err}"
    );
    let outcomes = import_each(&mut rt, &[&url], "{}");
    assert!(outcomes[0].contains("loads no modules"), "{outcomes:?}");
    assert_eq!(
        rt.execute_script_to_string("o.js", "typeof ran").unwrap(),
        "undefined"
    );
    std::fs::remove_file(&path).ok();
}

// ---- 2. `ext:` modules are private; internal ops are nowhere ---------------------------------

#[op]
fn op_secret() -> u32 {
    7
}

static GLUE: [ExtensionSource; 3] = [
    ExtensionSource::new(
        "ext:glue/api.js",
        "import { op_secret } from 'ext:core/ops';
         import { helper } from 'ext:glue/private.js';
         export const value = () => op_secret() + helper;",
    ),
    ExtensionSource::new("ext:glue/private.js", "export const helper = 1;"),
    ExtensionSource::new(
        "ext:glue/exports.js",
        "import * as all from 'ext:core/ops'; export const names = Object.keys(all);",
    ),
];

/// A runtime with a tenant main module, the glue extension (its API public), ops hidden.
fn glue_runtime(main: &str) -> Runtime {
    init_test_flags();
    Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("glue")
            .ops(&[op_secret::DECL])
            .esm(&GLUE)
            .esm_public(&["ext:glue/api.js", "ext:glue/exports.js"])],
        module_loader: Some(Rc::new(static_loader(&[(
            "file:///tenant/main.js",
            ModuleSource::js(main.to_owned()),
        )]))),
        expose_ops: false,
        ..Default::default()
    })
}

#[test]
fn user_code_reaches_only_the_public_ext_modules() {
    // Issue 37, 2: `import * as o from 'ext:core/ops'` gave a tenant every op although
    // `expose_ops` was false.
    let mut rt = glue_runtime(&format!(
        "{IMPORTER_JS}\nimport {{ value }} from 'ext:glue/api.js'; globalThis.got = value();"
    ));
    assert_eq!(
        run_main(&mut rt, "file:///tenant/main.js").unwrap(),
        "main ran"
    );
    assert_eq!(rt.execute_script_to_string("g.js", "got").unwrap(), "8");
    let outcomes = import_from(
        &mut rt,
        &["ext:core/ops", "ext:glue/private.js", "ext:glue/api.js"],
        "{}",
    );
    assert!(
        outcomes[0].contains("ext:core/ops is private"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[1].contains("ext:glue/private.js is private"),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[2], "loaded");
    // From a classic script of the host's too.
    let outcomes = import_each(&mut rt, &["ext:core/ops"], "{}");
    assert!(outcomes[0].contains("is private"), "{outcomes:?}");
    // Statically.
    let mut rt =
        glue_runtime("import { op_secret } from 'ext:core/ops'; globalThis.out = op_secret();");
    let err = run_main(&mut rt, "file:///tenant/main.js").unwrap_err();
    assert!(err.message.contains("ext:core/ops is private"), "{err}");
}

/// A loader that resolves any bare specifier to `ext:core/ops`.
struct Smuggler;

impl ModuleLoader for Smuggler {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _: ResolutionKind,
    ) -> Result<String, ModuleLoadError> {
        match specifier {
            "ops" => Ok("ext:core/ops".to_owned()),
            _ => runtime_core::modules::resolve_import(specifier, referrer),
        }
    }

    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let source = match request.url.as_str() {
            "file:///main.js" => Ok(ModuleSource::js(
                "import * as o from 'ops'; globalThis.out = Object.keys(o).length;",
            )),
            url => Err(ModuleLoadError(format!("no {url}"))),
        };
        Box::pin(std::future::ready(source))
    }
}

#[test]
fn a_loader_cannot_resolve_user_code_into_a_private_module() {
    let mut rt = runtime(Smuggler);
    let err = run_main(&mut rt, "file:///main.js").unwrap_err();
    assert!(err.message.contains("ext:core/ops is private"), "{err}");
}

#[test]
fn internal_ops_are_on_no_object_in_no_module_and_in_no_declaration() {
    // Issue 37, 2: the timers' and the console's ops were exported by `ext:core/ops`.
    let mut rt = glue_runtime(&format!("{IMPORTER_JS}\nimport {{ names }} from 'ext:glue/exports.js'; globalThis.names = names.join();"));
    assert_eq!(
        run_main(&mut rt, "file:///tenant/main.js").unwrap(),
        "main ran"
    );
    assert_eq!(
        rt.execute_script_to_string("n.js", "names").unwrap(),
        "op_secret"
    );
    let mut rt = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("glue").ops(&[op_secret::DECL])],
        ..Default::default()
    });
    let seen = rt
        .execute_script_to_string(
            "s.js",
            "['op_timer_start', 'op_timer_cancel', 'op_timer_ref', 'op_console_print']
               .map((name) => (name in ops) + ' ' + typeof ops[name]).join()",
        )
        .unwrap();
    assert_eq!(seen, ["false undefined"; 4].join(","));
    assert_eq!(
        rt.execute_script_to_string("k.js", "Object.keys({ ...ops }).join()")
            .unwrap(),
        ""
    );
    assert_eq!(
        rt.execute_script_to_string(
            "k.js",
            "for (const k in ops) ops[k]; Object.keys(ops).join()"
        )
        .unwrap(),
        "op_secret"
    );
    let dts = rt.typescript_declarations();
    assert!(
        !dts.contains("op_timer") && !dts.contains("op_console"),
        "{dts}"
    );
    // The globals they serve still work.
    assert_eq!(
        rt.execute_script_to_string(
            "t.js",
            "typeof setTimeout(() => {}, 0) + typeof console.log"
        )
        .unwrap(),
        "numberfunction"
    );
}

// ---- 3. import attributes ---------------------------------------------------------------------

/// A loader over `modules` that counts its loads.
struct Counting {
    inner: StaticModuleLoader,
    loads: Rc<Cell<usize>>,
    custom: &'static [&'static str],
}

impl ModuleLoader for Counting {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        self.loads.set(self.loads.get() + 1);
        self.inner.load(request)
    }

    fn custom_types(&self) -> &[&str] {
        self.custom
    }
}

fn attributes_runtime(custom: &'static [&'static str]) -> (Runtime, Rc<Cell<usize>>) {
    let loads = Rc::new(Cell::new(0));
    let inner = static_loader(&with_data_modules([
        ("file:///app/main.js", ModuleSource::js(IMPORTER_JS)),
        (
            "file:///app/code.js",
            ModuleSource::js("globalThis.codeRan = true; export default 1;"),
        ),
    ]));
    let mut rt = runtime(Counting {
        inner,
        loads: loads.clone(),
        custom,
    });
    assert_eq!(
        run_main(&mut rt, "file:///app/main.js").unwrap(),
        "main ran"
    );
    (rt, loads)
}

#[test]
fn a_json_import_never_runs_code_and_json_needs_the_attribute() {
    // Issue 37, 3: `with { type: 'json' }` ran `code.js`; JSON loaded without the attribute.
    let (mut rt, _) = attributes_runtime(&[]);
    let outcomes = import_from(&mut rt, &["./code.js"], "{ with: { type: 'json' } }");
    assert!(outcomes[0].starts_with("TypeError: file:///app/code.js is a JavaScript module, imported with { type: \"json\" }"), "{outcomes:?}");
    assert_eq!(
        rt.execute_script_to_string("c.js", "typeof codeRan")
            .unwrap(),
        "undefined"
    );
    let outcomes = import_from(&mut rt, &["./data.json"], "{}");
    assert!(
        outcomes[0].contains("is a JSON module: import it with { type: \"json\" }"),
        "{outcomes:?}"
    );
    let outcomes = import_from(&mut rt, &["./data.json"], "{ with: { type: 'json' } }");
    assert_eq!(outcomes, ["loaded"]);
}

#[test]
fn an_unknown_type_or_attribute_fails_before_anything_loads() {
    // Issue 37, 3: `type: 'css'` loaded the module as JavaScript.
    let (mut rt, loads) = attributes_runtime(&[]);
    let before = loads.get();
    let outcomes = import_from(&mut rt, &["./code.js"], "{ with: { type: 'css' } }");
    assert!(
        outcomes[0].starts_with("TypeError: the module type \"css\" is not supported"),
        "{outcomes:?}"
    );
    let outcomes = import_from(&mut rt, &["./code.js"], "{ with: { kind: 'x' } }");
    assert!(
        outcomes[0].starts_with("SyntaxError: the import attribute \"kind\""),
        "{outcomes:?}"
    );
    assert_eq!(loads.get(), before, "nothing was loaded");
    assert_eq!(
        rt.execute_script_to_string("c.js", "typeof codeRan")
            .unwrap(),
        "undefined"
    );
}

#[test]
fn text_and_bytes_imports_and_one_url_as_two_types() {
    // Issue 37, 3: the map kept one module per URL; text and bytes could not be built.
    let loader = static_loader(&with_data_modules([
        (
            "file:///app/main.js",
            ModuleSource::js(
                "import code from './code.js';
                 import source from './code.js' with { type: 'text' };
                 import bytes from './blob.bin' with { type: 'bytes' };
                 import css from './style.css' with { type: 'text' };
                 const dynamic = await import('./code.js', { with: { type: 'bytes' } });
                 const json = await import('./data.json', { with: { type: 'json' } });
                 globalThis.out = [code, typeof source, source.length, bytes instanceof Uint8Array,
                   [...bytes].join(' '), css, dynamic.default instanceof Uint8Array,
                   dynamic.default.length, json.default.a.join('+')].join('|');",
            ),
        ),
        (
            "file:///app/code.js",
            ModuleSource::js("export default 41 + 1;"),
        ),
    ]));
    let mut rt = runtime(loader);
    assert_eq!(
        run_main(&mut rt, "file:///app/main.js").unwrap(),
        "42|string|22|true|0 159 255|body { color: red }|true|22|1+2"
    );
}

#[test]
fn a_loader_serves_its_own_types() {
    let inner = static_loader(&[
        (
            "file:///app/main.js",
            ModuleSource::js(
                "import css from './style.css' with { type: 'css' }; globalThis.out = css;",
            ),
        ),
        (
            "file:///app/style.css",
            ModuleSource::text("body { color: red }"),
        ),
    ]);
    let mut rt = runtime(Counting {
        inner,
        loads: Rc::default(),
        custom: &["css"],
    });
    assert_eq!(
        run_main(&mut rt, "file:///app/main.js").unwrap(),
        "body { color: red }"
    );
}

// ---- 4. a loader that panics fails the import, never the host --------------------------------

/// Panics in the method its name says, for the URL or specifier `boom`.
struct Panicking;

impl ModuleLoader for Panicking {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _: ResolutionKind,
    ) -> Result<String, ModuleLoadError> {
        if specifier.contains("resolve-boom") {
            panic!("boom: resolve-boom");
        }
        runtime_core::modules::resolve_import(specifier, referrer)
    }

    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let url = request.url.clone();
        if url.ends_with("load-boom.js") {
            panic!("boom: load-boom");
        }
        Box::pin(async move {
            match url.as_str() {
                "file:///app/main.js" => Ok(ModuleSource::js(IMPORTER_JS)),
                "file:///app/static.js" => Ok(ModuleSource::js("import './load-boom.js';")),
                "file:///app/ok.js" => Ok(ModuleSource::js("export default 'ok';")),
                _ => panic!("boom: future-boom"),
            }
        })
    }
}

#[test]
fn a_panicking_loader_fails_the_import_only() {
    // Issue 37, 4: `load()` or `resolve()` panicking under `import()`, or `resolve()` under
    // `import.meta.resolve`, aborted the process.
    common::quiet_expected_panics("boom: ");
    let mut rt = runtime(Panicking);
    assert_eq!(
        run_main(&mut rt, "file:///app/main.js").unwrap(),
        "main ran"
    );
    let outcomes = import_from(
        &mut rt,
        &[
            "./load-boom.js",
            "./resolve-boom.js",
            "./future-boom.js",
            "./static.js",
            "./ok.js",
        ],
        "{}",
    );
    assert!(
        outcomes[0].contains("the module loader's load panicked: boom: load-boom"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[1].contains("the module loader's resolve panicked: boom: resolve-boom"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[2].contains("the module loader's load future panicked: boom: future-boom"),
        "{outcomes:?}"
    );
    assert!(outcomes[3].contains("load panicked"), "{outcomes:?}");
    assert_eq!(outcomes[4], "loaded");
    let module = tokio()
        .block_on(rt.load_side_module("file:///app/ok.js"))
        .unwrap();
    let namespace = rt.get_module_namespace(module).unwrap();
    drop(namespace);
    // `import.meta.resolve` from a module.
    let inner = static_loader(&[(
        "file:///app/meta.js",
        ModuleSource::js(
            "try { import.meta.resolve('./resolve-boom.js'); } catch (e) { globalThis.out = e.name + ': ' + e.message; }",
        ),
    )]);
    struct MetaPanics(StaticModuleLoader);
    impl ModuleLoader for MetaPanics {
        fn resolve(
            &self,
            specifier: &str,
            referrer: &str,
            kind: ResolutionKind,
        ) -> Result<String, ModuleLoadError> {
            Panicking.resolve(specifier, referrer, kind)
        }
        fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
            self.0.load(request)
        }
    }
    let mut rt = runtime(MetaPanics(inner));
    let out = run_main(&mut rt, "file:///app/meta.js").unwrap();
    assert!(
        out.starts_with("TypeError: the module loader's resolve panicked"),
        "{out}"
    );
}

// ---- 5. graphs of any depth -------------------------------------------------------------------

#[test]
fn a_deep_graph_loads_twice_on_a_small_stack() {
    // Issue 37, 5: loading a chain of 10^4 modules a second time overflowed a 2 MiB stack (the
    // walk over compiled modules recursed). V8 links so deep a chain no better (its own stack
    // limit: a `RangeError`), so both loads fail alike; a chain V8 links loads twice.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let tokio = tokio();
            for (depth, links) in [(10_000, false), (500, true)] {
                let modules = (0..depth).map(|index| {
                    let code = if index + 1 < depth {
                        format!("import './m{}.js'; export const n = {index};", index + 1)
                    } else {
                        "export const n = 'last';".to_owned()
                    };
                    (format!("file:///deep/m{index}.js"), ModuleSource::js(code))
                });
                let mut rt = runtime(StaticModuleLoader::new(modules));
                let first = tokio.block_on(rt.load_side_module("file:///deep/m0.js"));
                let again = tokio.block_on(rt.load_side_module("file:///deep/m0.js"));
                match (first, again) {
                    (Ok(first), Ok(again)) if links => assert_eq!(first, again),
                    (Err(first), Err(again)) if !links => {
                        assert_eq!(first.message, "Maximum call stack size exceeded");
                        assert_eq!(first, again);
                    }
                    other => panic!("depth {depth}: {other:?}"),
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

// ---- 6. every module error names its module ---------------------------------------------------

#[test]
fn module_errors_name_the_module_and_position() {
    // Issue 37, 6: an invalid JSON module said `at undefined:1:2`, a module nested too deeply
    // to parse `at undefined:0:0`.
    let deep = format!(
        "export default {}0{};",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let loader = static_loader(&[
        (
            "file:///app/bad.json",
            ModuleSource::json("{\n  \"a\": ,\n}"),
        ),
        ("file:///app/deep.js", ModuleSource::js(deep)),
        (
            "file:///app/main.js",
            ModuleSource::js("import data from './bad.json' with { type: 'json' };"),
        ),
    ]);
    let mut rt = runtime(loader);
    let tokio = tokio();
    let err = tokio
        .block_on(rt.load_main_module("file:///app/main.js"))
        .unwrap_err();
    let stack = err.stack.clone().unwrap_or_default();
    assert_eq!(err.class_name, "SyntaxError", "{err}");
    assert!(stack.contains("at file:///app/bad.json:2:"), "{stack}");
    assert!(!stack.contains("undefined"), "{stack}");
    let err = tokio
        .block_on(rt.load_side_module("file:///app/deep.js"))
        .unwrap_err();
    let stack = err.stack.clone().unwrap_or_default();
    assert_eq!(err.class_name, "RangeError", "{err}");
    assert!(stack.contains("file:///app/deep.js"), "{stack}");
    assert!(!stack.contains("undefined"), "{stack}");
}

// ---- 7. an unknown module id is an error -----------------------------------------------------

#[test]
fn a_module_id_of_another_runtime_is_an_error() {
    // Issue 37, 7: an id no load returned panicked (index out of bounds).
    let loader = static_loader(&[(
        "file:///app/a.js",
        ModuleSource::js("export const f = () => 1;"),
    )]);
    let mut other = runtime(loader.clone());
    let tokio = tokio();
    let foreign = tokio
        .block_on(other.load_side_module("file:///app/a.js"))
        .unwrap();
    let mut rt = runtime(loader);
    let err = rt.get_module_namespace(foreign).unwrap_err();
    assert!(
        err.message.contains("is no module of this runtime"),
        "{err}"
    );
    assert!(rt.module_function(foreign, "f").is_err());
    assert!(tokio.block_on(rt.mod_evaluate(foreign)).is_err());
    // Its own ids work.
    let own = tokio
        .block_on(rt.load_side_module("file:///app/a.js"))
        .unwrap();
    tokio.block_on(rt.mod_evaluate(own)).unwrap();
    assert!(rt.module_function(own, "f").is_ok());
}
