//! The edge workload's server with the Rust floor: `edge-floor --port P --max-seconds N`.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    edge_server::main("edge-floor", edge_server::Mode::Floor);
}
