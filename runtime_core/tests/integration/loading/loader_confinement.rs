//! The loaders' confinement: the file system loader reaches nothing outside its root, no
//! loader loads nothing, and `ext:` modules are private while internal ops are nowhere.

use super::*;

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
