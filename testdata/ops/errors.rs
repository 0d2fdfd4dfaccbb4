// Ops that fail: `Result` returns (`Err` throws, with the class, message and properties the
// error type gives) and panics, on both paths. Read by the expansion snapshots and `include!`d
// by runtime_core's error tests.

#[op]
fn op_checked_div(a: i32, b: i32) -> Result<i32, OpError> {
    if b == 0 {
        return Err(OpError::range_error("division by zero"));
    }
    Ok(a.wrapping_div(b))
}

/// An embedder-defined error class with properties.
#[derive(Debug)]
pub struct NotFound {
    pub path: String,
}

impl JsErrorClass for NotFound {
    fn class(&self) -> Cow<'static, str> {
        Cow::Borrowed("NotFound")
    }

    fn message(&self) -> Cow<'_, str> {
        Cow::Owned(format!("no such file: {}", self.path))
    }

    fn properties(&self, add: &mut dyn FnMut(&str, ErrorProperty<'_>)) {
        add("code", ErrorProperty::String(Cow::Borrowed("ENOENT")));
        add("errno", ErrorProperty::Number(-2.0));
    }
}

#[op]
fn op_lookup(#[string] path: &str) -> Result<u32, NotFound> {
    match path {
        "/etc/hostname" => Ok(1),
        _ => Err(NotFound { path: path.to_owned() }),
    }
}

#[op]
fn op_io_failure(fail: bool) -> Result<(), std::io::Error> {
    if fail {
        return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "not allowed"));
    }
    Ok(())
}

/// Panics on the fast path too: caught there and thrown, as on the slow path.
#[op]
fn op_panic_fast(x: u32) -> u32 {
    if x > 0 {
        panic!("op_panic_fast was given {x}");
    }
    x
}
