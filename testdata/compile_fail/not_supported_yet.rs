// Shapes opwire does not support yet: each error says what to write instead.
use runtime_core::op;

struct Request {
    url: String,
}

#[op]
async fn op_fetch() {}

#[op]
fn op_request_url(request: Request) -> u32 {
    request.url.len() as u32
}

#[op]
fn op_request_serde(#[serde] request: Request) -> u32 {
    request.url.len() as u32
}

#[op]
fn op_make_request() -> Request {
    Request { url: String::new() }
}

fn main() {}
