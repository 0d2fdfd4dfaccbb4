//! Import attributes: `json`, `text` and `bytes` imports, unknown types refused before any
//! load, and a loader's own types.

use super::*;

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
