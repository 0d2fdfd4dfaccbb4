use runtime_core::op;

#[op]
fn op_str_without_attribute(s: &str) -> u32 {
    s.len() as u32
}

#[op]
fn op_onebyte_on_str(#[string(onebyte)] s: &str) -> u32 {
    s.len() as u32
}

#[op]
fn op_string_on_number(#[string] n: u32) -> u32 {
    n
}

#[op(fast)]
fn op_fast_string_return(x: u32) -> String {
    x.to_string()
}

fn main() {}
