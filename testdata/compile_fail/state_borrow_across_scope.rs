use runtime_core::{op, v8, OpState};

#[op]
fn op_state_and_scope(scope: &mut v8::PinScope, state: &mut OpState) {
    let _ = (scope, state);
}

fn main() {}
