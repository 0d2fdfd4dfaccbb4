//! A class for the method benches (`#[op] impl`): each member beside the free ops it is
//! measured against (`op_void`, `op_void_nofast`, `op_u32`; free ops given the instance,
//! which unwrap it as a receiver is; a factory for construction).

use std::cell::Cell;

use runtime_core::{op, Extension};

/// The instance the method benches call.
pub struct BenchObject {
    value: Cell<u32>,
}

#[op]
impl BenchObject {
    #[constructor]
    fn new() -> BenchObject {
        BenchObject {
            value: Cell::new(1),
        }
    }

    #[fast]
    fn method_void(&self) {}

    #[nofast]
    fn method_void_nofast(&self) {}

    #[fast]
    #[getter]
    fn value(&self) -> u32 {
        self.value.get()
    }
}

/// A free op given the instance: the same unwrap a method's receiver costs.
#[op(fast)]
pub fn op_object_void(#[cppgc] _object: &BenchObject) {}

/// A free op reading the instance: what `getter_u32` compares with.
#[op(fast)]
pub fn op_object_u32(#[cppgc] object: &BenchObject) -> u32 {
    object.value.get()
}

/// The same on the slow path.
#[op(nofast)]
pub fn op_object_void_nofast(#[cppgc] _object: &BenchObject) {}

/// What `construct` is measured against: a free op making an instance.
#[op]
#[cppgc]
pub fn op_make_object() -> BenchObject {
    BenchObject {
        value: Cell::new(1),
    }
}

/// The op a class bench calls (its path is that op's).
pub fn member_op(bench: &str) -> Option<&'static str> {
    Some(match bench {
        "method_void" => "BenchObject.prototype.method_void",
        "method_void_nofast" => "BenchObject.prototype.method_void_nofast",
        "getter_u32" => "get BenchObject.prototype.value",
        "construct" => "new BenchObject",
        _ => return None,
    })
}

/// The class and its factory.
pub fn extension() -> Extension {
    Extension::new("bench_classes")
        .ops(&[
            op_make_object::DECL,
            op_object_void::DECL,
            op_object_void_nofast::DECL,
            op_object_u32::DECL,
        ])
        .classes(&[BenchObject::CLASS])
}
