use runtime_core::{op, v8};

#[op(fast)]
fn op_number(scope: &mut v8::PinScope, x: u32) -> f64 {
    v8::Number::new(scope, f64::from(x)).value()
}

// An eager async op's value is returned from its call, which a fast call cannot do.
#[op(fast)]
async fn op_eager_value(x: u32) -> u32 {
    x
}

#[op(fast)]
fn op_void() {}

// An async op's fast call speaks its own protocol: it cannot borrow another op's.
#[op(fast(op_void))]
async fn op_async_borrowing() {}

#[derive(runtime_core::FromV8)]
pub struct Label(String);

// An async op's calls speak one protocol on both paths, fixed at expansion; whether a
// `FromV8` argument has a fast path is known only from its type.
#[op(fast)]
async fn op_async_label(label: Label) {
    let _ = label;
}

fn main() {}
