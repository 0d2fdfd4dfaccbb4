//! The edge workload's server with the Rust floor: `edge-floor --port P --max-seconds N`.

fn main() {
    edge_server::main("edge-floor", edge_server::Mode::Floor);
}
