// Every problem of one op is reported in one build, each at its own argument.
use runtime_core::op;

#[op]
fn op_many_problems(a: u32, b: i64, c: usize, d: &str, #[bigint] e: f64) -> u64 {
    let _ = (a, b, c, d, e);
    0
}

fn main() {}
