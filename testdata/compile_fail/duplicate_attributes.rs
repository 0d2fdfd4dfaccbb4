use runtime_core::op;

#[op]
#[op]
fn op_twice(x: u32) -> u32 {
    x
}

#[op(nofast, nofast)]
fn op_nofast_twice(x: u32) -> u32 {
    x
}

#[op(fast, nofast)]
fn op_fast_and_nofast(x: u32) -> u32 {
    x
}

#[op]
#[bigint]
fn op_bigint_twice(#[bigint] #[bigint] x: i64) -> i64 {
    x
}

fn main() {}
