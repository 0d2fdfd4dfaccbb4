// What a deno user writes on day one, each answered with what to write instead.
use runtime_core::{op, op2, v8, FromV8, JsBuffer};

#[op]
fn op_with_handle_scope(scope: &mut v8::HandleScope) -> u32 {
    let _ = scope;
    1
}

#[op]
fn op_string_error() -> Result<u32, String> {
    Ok(1)
}

#[op2(fast)]
fn op_spelled_as_deno(a: u32) -> u32 {
    a
}

#[derive(FromV8)]
struct Upload {
    body: JsBuffer,
}


pub struct Shape;

#[op]
impl Shape {
    #[constructor]
    fn new() -> Shape {
        Shape
    }

    #[varargs]
    fn many(&self, first: Option<u32>) -> u32 {
        first.unwrap_or(0)
    }

    // deno's fast path skips the check; opwire refuses the pair.
    #[fast]
    #[validate(check)]
    fn checked(&self, x: u32) -> u32 {
        x
    }
}

fn main() {}
