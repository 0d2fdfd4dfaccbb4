// Ops that reach the runtime's OpState, and one that takes the scope (slow path only).
// Read by the expansion snapshots and `include!`d by runtime_core's tests.

/// The state these ops share; an extension's state initialiser puts it.
pub struct Tally(pub u32);

#[op]
fn op_tally_add(state: &mut OpState, by: u32) -> u32 {
    let tally = state.borrow_mut::<Tally>();
    tally.0 = tally.0.wrapping_add(by);
    tally.0
}

#[op(fast)]
fn op_tally_get(state: &OpState) -> u32 {
    state.borrow::<Tally>().0
}

#[op]
fn op_tally_reset(state: Rc<RefCell<OpState>>) {
    state.borrow_mut().borrow_mut::<Tally>().0 = 0;
}

/// Takes the scope, so it has no fast path: a fast call must not allocate on the V8 heap.
#[op]
fn op_scope_number_plus_one(scope: &mut v8::PinScope, x: i32) -> f64 {
    let number = v8::Number::new(scope, f64::from(x));
    number.value() + 1.0
}

/// Panics are caught at the op boundary on the slow path; fast-path panics are the
/// errors issue's work, so this op stays slow.
#[op(nofast)]
fn op_panic(x: u32) -> u32 {
    if x > 0 {
        panic!("op_panic was given {x}");
    }
    x
}
