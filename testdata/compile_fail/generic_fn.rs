use runtime_core::op;

#[op]
fn op_identity<T: Copy>(x: T) -> T {
    x
}

fn main() {}
