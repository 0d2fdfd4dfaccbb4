use runtime_core::op;

struct Counter(u32);

impl Counter {
    #[op]
    fn op_get(&self) -> u32 {
        self.0
    }
}

fn main() {}
