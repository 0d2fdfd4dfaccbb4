//! The runnable programs in `runtime_core/examples/`, run: each checks what it prints.

#[path = "../../examples/async_ops.rs"]
mod async_ops;
#[path = "../../examples/buffers.rs"]
mod buffers;
#[path = "../../examples/edge_host.rs"]
mod edge_host;
#[path = "../../examples/errors.rs"]
mod errors;
#[path = "../../examples/hello.rs"]
mod hello;
#[path = "../../examples/state.rs"]
mod state;

#[test]
fn hello() {
    hello::main();
}

#[test]
fn state() {
    state::main();
}

#[test]
fn errors() {
    errors::main();
}

#[test]
fn buffers() {
    buffers::main();
}

#[test]
fn async_ops() {
    async_ops::main();
}

#[test]
fn edge_host() {
    edge_host::main();
}
