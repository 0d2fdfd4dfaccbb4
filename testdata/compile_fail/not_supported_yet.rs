// Shapes opwire does not support yet: each error says what to write instead.
use runtime_core::op;

struct Request {
    url: String,
}

#[op]
fn op_request_url(request: Request) -> u32 {
    request.url.len() as u32
}

#[op]
fn op_make_request() -> Request {
    Request { url: String::new() }
}

struct Counter;

impl Counter {
    fn new_op_like() -> u32 {
        0
    }
}

#[op]
fn op_counter(counter: Option<Box<Self>>) -> u32 {
    let _ = counter;
    Counter::new_op_like()
}

fn main() {}
