//! The edge workload's server with the JavaScript handler:
//! `edge-js --handler FILE --port P --max-seconds N`.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    edge_server::main("edge-js", edge_server::Mode::Js);
}
