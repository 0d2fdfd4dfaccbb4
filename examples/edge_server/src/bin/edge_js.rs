//! The edge workload's server with the JavaScript handler:
//! `edge-js --handler FILE --port P --max-seconds N`.

fn main() {
    let config = edge_server::parse_args(std::env::args().skip(1)).unwrap_or_else(|message| {
        eprintln!("edge-js: {message}");
        std::process::exit(2);
    });
    let served = edge_server::serve(config, edge_server::Mode::Js, |address| {
        println!("listening on {address}");
    });
    if let Err(error) = served {
        eprintln!("edge-js: {error}");
        std::process::exit(1);
    }
}
