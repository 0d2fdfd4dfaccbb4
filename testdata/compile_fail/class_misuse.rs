// `#[op] impl` misuse: each error is at the receiver, the impl or the argument.
use std::cell::Cell;

use runtime_core::op;

struct Counter {
    count: Cell<u32>,
}

#[op]
impl Counter {
    #[constructor]
    fn new() -> Counter {
        Counter { count: Cell::new(0) }
    }

    /// Instances are shared with JavaScript.
    fn bump(&mut self) {
        self.count.set(self.count.get() + 1);
    }

    /// An instance cannot move out of JavaScript.
    fn take(self) -> u32 {
        self.count.get()
    }

    /// A method's arguments follow the rules of op arguments.
    fn add(&self, amount: String) {
        let _ = amount;
    }

    /// An async method holds its receiver, but not a borrowed argument.
    async fn later(&self, #[string] label: &str) -> u32 {
        label.len() as u32
    }
}

struct Wrapper<T>(T);

#[op]
impl<T> Wrapper<T> {
    fn get(&self) -> u32 {
        0
    }
}

trait Named {
    fn name(&self) -> u32;
}

#[op]
impl Named for Counter {
    fn name(&self) -> u32 {
        0
    }
}

fn main() {}
