// What safe code must not reach: an `unsafe fn` called from an attribute's expression (the
// generated code gives what the user wrote no unsafe context), and a type of its own made a
// typed-array element (`Element` is sealed: the buffer paths read any bit pattern as one).
use runtime_core::{op, v8};

unsafe fn dangerous() -> u32 {
    7
}

#[op]
fn op_default_calls_unsafe(#[webidl(default = dangerous())] count: u32) -> u32 {
    count
}

#[derive(Clone, Copy, Default)]
struct Flag(bool);

impl runtime_core::Element for Flag {
    const EXPECTED: &'static str = "a flag";

    fn is_array(value: &v8::Value) -> bool {
        value.is_uint8_array()
    }

    fn store_from_vec(values: Vec<Self>) -> v8::UniqueRef<v8::BackingStore> {
        let bytes: Vec<u8> = values.into_iter().map(|flag| flag.0 as u8).collect();
        v8::ArrayBuffer::new_backing_store_from_bytes(bytes)
    }

    fn new_array<'s>(
        _scope: &v8::PinScope<'s, '_>,
        _buffer: v8::Local<'_, v8::ArrayBuffer>,
        _byte_offset: usize,
        _len: usize,
    ) -> Option<v8::Local<'s, v8::Value>> {
        None
    }
}

fn main() {}
