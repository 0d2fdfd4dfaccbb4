//! A small edge-function host: the three things a host does (load a module, call its export,
//! run the loop), with an extension whose ES module wraps its ops into the API handlers use.
//!
//!     cargo run -p runtime_core --example edge_host

use std::rc::Rc;
use std::time::Duration;

use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{op, Extension, ExtensionSource, FromV8, Runtime, RuntimeOptions, ToV8};

/// What the host hands each call of the handler.
#[derive(ToV8)]
pub struct Request {
    method: String,
    path: String,
}

/// What the handler returns.
#[derive(FromV8, Debug, PartialEq)]
pub struct Response {
    status: u16,
    body: String,
}

/// A key-value store behind an async op (the sleep stands for the network).
#[op]
async fn op_kv_get(#[string] key: String) -> Option<String> {
    tokio::time::sleep(Duration::from_millis(1)).await;
    (key == "greeting").then(|| "hello".to_owned())
}

/// The extension's glue: the API handlers import, over the raw op (hidden from them).
static EDGE_ESM: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:edge/mod.js",
    r#"import { op_kv_get } from "ext:core/ops";
export async function kv(key) {
  return (await op_kv_get(key)) ?? "";
}
export function json(status, value) {
  return { status, body: JSON.stringify(value) };
}
"#,
)];

/// The tenant's handler, as a host would load it from its store.
const HANDLER_JS: &str = r#"import { kv, json } from "ext:edge/mod.js";

export async function handle(req) {
  if (req.path === "/boom") {
    throw new Error("the handler failed");
  }
  const greeting = await kv("greeting");
  await new Promise((resolve) => setTimeout(resolve, 1));
  return json(200, { greeting, method: req.method, path: req.path });
}
"#;

pub fn main() {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let loader = StaticModuleLoader::new([(
        "file:///tenant/handler.js".to_owned(),
        ModuleSource::js(HANDLER_JS),
    )]);
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("edge")
            .ops(&[op_kv_get::DECL])
            .esm(&EDGE_ESM)
            // The glue is the tenant's API; the raw ops stay behind it.
            .esm_public(&["ext:edge/mod.js"])],
        module_loader: Some(Rc::new(loader)),
        expose_ops: false,
        ..Default::default()
    });

    // 1. Load the module and evaluate it.
    let handler = tokio
        .block_on(runtime.load_main_module("file:///tenant/handler.js"))
        .expect("the handler loads");
    tokio
        .block_on(runtime.mod_evaluate(handler))
        .expect("the handler evaluates");
    // 2. Call its export, once per request; 3. the loop runs until each response is ready.
    let handle = runtime
        .module_function(handler, "handle")
        .expect("the handler exports handle");
    let request = Request {
        method: "GET".into(),
        path: "/hi".into(),
    };
    let response: Response = tokio
        .block_on(runtime.call_and_await(&handle, (request,)))
        .expect("the handler answers");
    println!("{} {}", response.status, response.body);
    assert_eq!(
        response,
        Response {
            status: 200,
            body: r#"{"greeting":"hello","method":"GET","path":"/hi"}"#.into()
        }
    );

    // A handler that throws: the error comes back with the handler's line.
    let request = Request {
        method: "GET".into(),
        path: "/boom".into(),
    };
    let error = tokio
        .block_on(runtime.call_and_await::<Response>(&handle, (request,)))
        .expect_err("the handler throws");
    let stack = error.stack.clone().unwrap_or_default();
    println!("500 {error}");
    assert!(stack.contains("file:///tenant/handler.js:5"), "{stack}");
}
