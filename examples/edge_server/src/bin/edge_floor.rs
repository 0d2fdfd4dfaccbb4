//! The edge workload's server with the Rust floor: `edge-floor --port P --max-seconds N`.

fn main() {
    let config = edge_server::parse_args(std::env::args().skip(1)).unwrap_or_else(|message| {
        eprintln!("edge-floor: {message}");
        std::process::exit(2);
    });
    let served = edge_server::serve(config, edge_server::Mode::Floor, |address| {
        println!("listening on {address}");
    });
    if let Err(error) = served {
        eprintln!("edge-floor: {error}");
        std::process::exit(1);
    }
}
