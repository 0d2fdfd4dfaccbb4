use runtime_core::op;

#[op]
fn op_sleep(duration: std::time::Duration) {
    let _ = duration;
}

fn main() {}
