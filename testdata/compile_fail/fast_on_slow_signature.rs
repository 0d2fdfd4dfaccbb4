use runtime_core::{op, v8};

#[op(fast)]
fn op_number(scope: &mut v8::PinScope, x: u32) -> f64 {
    v8::Number::new(scope, f64::from(x)).value()
}

fn main() {}
