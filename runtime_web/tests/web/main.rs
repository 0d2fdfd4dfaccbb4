//! runtime_web's behaviour, as the specs define it, in real runtimes: one test binary, a
//! module per group, then the hostile inputs and the TypeScript declarations.

// runtime_core's test set-up: the TypeScript compiler's install and checks.
#[path = "../../../runtime_core/tests/common/mod.rs"]
mod common;

mod abort_spec;
mod base64_spec;
mod blob_spec;
mod clone_spec;
mod compression_spec;
mod crypto_spec;
mod encoding_spec;
mod events_spec;
mod fetch_spec;
mod globals;
mod headers_spec;
mod hostile;
mod http_client;
mod performance_spec;
mod serving;
mod snapshot;
mod streams_spec;
mod typescript;
mod url_spec;

use runtime_core::{Runtime, RuntimeOptions};

/// A runtime with every group.
pub fn web() -> Runtime {
    Runtime::new(RuntimeOptions {
        extensions: runtime_web::extensions(runtime_web::Groups::ALL),
        ..Default::default()
    })
}

/// What `script` evaluates to, as `JSON.stringify` writes it, or `throws <name>: <message>`
/// (a `DOMException`'s name is its `name`).
pub fn eval(runtime: &mut Runtime, script: &str) -> String {
    let wrapped = format!(
        "(() => {{ try {{ const value = (() => {{ {script} }})(); return JSON.stringify(value) ?? String(value); }} \
         catch (error) {{ return `throws ${{error && error.name}}: ${{error && error.message}}`; }} }})()"
    );
    runtime
        .execute_script_to_string("<test>", &wrapped)
        .unwrap()
}

/// As [`eval`], for a script whose value is a promise: what it settles to, the event loop
/// run to the end.
pub fn settle(runtime: &mut Runtime, script: &str) -> String {
    let wrapped = format!(
        "globalThis.__out = undefined; (async () => {{ {script} }})().then((value) => {{ \
         globalThis.__out = JSON.stringify(value) ?? String(value); }}, (error) => {{ \
         globalThis.__out = `rejects ${{error && error.name}}: ${{error && error.message}}`; }});"
    );
    runtime.execute_script("<test>", &wrapped).unwrap();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(runtime.run_event_loop())
        .unwrap();
    runtime
        .execute_script_to_string("<out>", "globalThis.__out")
        .unwrap()
}
