//! Serving a standard fetch handler: a module whose default export has `fetch(request, env,
//! ctx)`, as workerd, `deno serve` and `Bun.serve` take it. [`bind`] gives the function a host
//! calls per request with [`Arguments`] (its `serve::Server` serves it); each call answers an
//! [`Answer`]. The request is made from the host's parts with no check repeated (names
//! lowercase, values byte strings, as an HTTP server has them) and no `AbortSignal` until the
//! handler asks; the response is read from what its body was made of, with no stream and no
//! promise turn for a body of a string, bytes or a Blob. What the handler answered is its own:
//! a host checks the status and each header as HTTP before it sends them.
//!
//! ```
//! use runtime_core::modules::{ModuleSource, StaticModuleLoader};
//! use runtime_core::{Runtime, RuntimeOptions};
//! use runtime_web::fetch_handler;
//!
//! let handler = "export default { fetch: (request) => new Response('hi ' + request.url) };";
//! let loader = StaticModuleLoader::new([("file:///h.js".to_owned(), ModuleSource::js(handler))]);
//! let mut runtime = Runtime::new(RuntimeOptions {
//!     extensions: runtime_web::extensions(runtime_web::Groups::FETCH),
//!     module_loader: Some(std::rc::Rc::new(loader)),
//!     ..Default::default()
//! });
//! let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let module = tokio.block_on(runtime.load_main_module("file:///h.js")).unwrap();
//! tokio.block_on(runtime.mod_evaluate(module)).unwrap();
//! let serve = fetch_handler::bind(&mut runtime, module).unwrap();
//! let arguments = fetch_handler::arguments("GET", "https://example.com/", Vec::new(), None);
//! let call = runtime.start_call::<fetch_handler::Answer>(&serve, arguments);
//! let (status, _headers, body) = tokio.block_on(runtime.run_until(call)).unwrap().unwrap();
//! assert_eq!((status, body.as_deref()), (200, Some(&b"hi https://example.com/"[..])));
//! ```

use bytes::Bytes;
use runtime_core::modules::ModuleId;
use runtime_core::{v8, ByteString, JsError, Runtime};

use crate::fetch::BindFetchHandler;

/// A request's parts: method, absolute URL, headers (name, value, name, value...), body
/// (`None`: no body).
pub type Arguments = (String, String, Vec<ByteString>, Option<Bytes>);

/// What a call answers: status (0 for `Response.error()`), headers (name, value, ...), body
/// (`None`: no body).
pub type Answer = (u16, Vec<ByteString>, Option<Bytes>);

/// A request's [`Arguments`].
pub fn arguments(
    method: &str,
    url: impl Into<String>,
    headers: Vec<ByteString>,
    body: Option<Bytes>,
) -> Arguments {
    (method.to_owned(), url.into(), headers, body)
}

/// The function to call per request for the fetch handler of `module` (loaded and
/// evaluated), in a runtime with [`crate::Groups::FETCH`]. A `TypeError` when its default
/// export has no `fetch`.
pub fn bind(runtime: &mut Runtime, module: ModuleId) -> Result<v8::Global<v8::Function>, JsError> {
    let bind = runtime
        .op_state()
        .borrow()
        .try_borrow::<BindFetchHandler>()
        .and_then(|kept| kept.0.borrow().clone())
        .ok_or_else(|| {
            JsError::host(
                "TypeError",
                "the runtime has no Request and Response: give it runtime_web's Groups::FETCH",
            )
        })?;
    let namespace = runtime.get_module_namespace(module)?;
    runtime.call::<v8::Global<v8::Function>>(&bind, (namespace,))
}
