//! Errors: an op's `Err` becomes a JavaScript exception of its class, with its properties;
//! a script's uncaught exception comes back to Rust as a `JsError`.
//!
//!     cargo run -p runtime_core --example errors

use std::borrow::Cow;

use runtime_core::{op, ErrorProperty, Extension, JsErrorClass, Runtime, RuntimeOptions};

#[derive(Debug)]
struct NotFound(String);

impl JsErrorClass for NotFound {
    fn class(&self) -> Cow<'static, str> {
        Cow::Borrowed("NotFound")
    }
    fn message(&self) -> Cow<'_, str> {
        Cow::Owned(format!("no such file: {}", self.0))
    }
    fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        add("code", ErrorProperty::String(Cow::Borrowed("ENOENT")));
    }
}

/// Opens `path` (nothing exists).
#[op]
fn op_open(#[string] path: String) -> Result<u32, NotFound> {
    Err(NotFound(path))
}

pub fn main() {
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("files").ops(&[op_open::DECL])],
        ..Default::default()
    });
    let caught = runtime
        .execute_script_to_string(
            "catch.js",
            "try { ops.op_open('/missing') } catch (e) { `${e.name} ${e.code}: ${e.message}` }",
        )
        .expect("the script catches");
    assert_eq!(caught, "NotFound ENOENT: no such file: /missing");
    let uncaught = runtime
        .execute_script("throw.js", "ops.op_open('/gone')")
        .expect_err("nothing catches it");
    assert_eq!(uncaught.class_name, "NotFound");
    println!("{uncaught}");
}
