// Number and boolean ops: every scalar argument and return kind, fast where V8 allows.
// Read by the expansion snapshots and `include!`d by runtime_core's agreement tests.

#[op]
fn op_void() {}

#[op(nofast)]
fn op_void_nofast() {}

#[op]
fn op_bool(x: bool) -> bool {
    x
}

#[op]
fn op_i8(x: i8) -> i8 {
    x
}

#[op]
fn op_i16(x: i16) -> i16 {
    x
}

#[op]
fn op_i32(x: i32) -> i32 {
    x
}

#[op]
fn op_u8(x: u8) -> u8 {
    x
}

#[op]
fn op_u16(x: u16) -> u16 {
    x
}

#[op(fast)]
fn op_u32(x: u32) -> u32 {
    x
}

#[op]
fn op_f32(x: f32) -> f32 {
    x
}

#[op]
fn op_f64(x: f64) -> f64 {
    x
}

#[op]
#[bigint]
fn op_bigint_i64(#[bigint] x: i64) -> i64 {
    x
}

#[op]
#[bigint]
fn op_bigint_u64(#[bigint] x: u64) -> u64 {
    x
}

#[op]
fn op_add_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// Several kinds in one call: each argument keeps its own conversion and position.
#[op(fast)]
fn op_mixed(flag: bool, small: i8, medium: u16, single: f32, double: f64) -> f64 {
    let sign = if flag { 1.0 } else { -1.0 };
    sign * (f64::from(small) + f64::from(medium) + f64::from(single) + double)
}

#[op(nofast)]
fn op_u32_nofast(x: u32) -> u32 {
    x
}

#[op(no_side_effects)]
fn op_square_f64(x: f64) -> f64 {
    x * x
}
