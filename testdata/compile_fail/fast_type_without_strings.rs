use runtime_core::{op, FromV8};

#[derive(FromV8)]
pub struct Point {
    x: f64,
}

// `#[op(fast)]` promises a fast path; a `FromV8` argument has one only if its type reads
// strings (`FromV8::READS_ONE_BYTE`), which the op's declaration checks as it is evaluated.
#[op(fast)]
fn op_point(point: Point) -> f64 {
    point.x
}

const _: runtime_core::OpDecl = op_point::DECL;

fn main() {}
