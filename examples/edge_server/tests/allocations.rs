//! What the JavaScript path allocates per request beyond the floor: each server runs on a
//! thread of its own with the counting allocator on for that whole thread (HTTP and JavaScript
//! share it), and the count over two runs of different lengths, divided by the difference in
//! requests, is the steady cost per request (startup and warm-up cancel out).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use edge_server::{Config, Mode};

#[global_allocator]
static ALLOCATOR: alloc_counter::CountingAllocator = alloc_counter::CountingAllocator;

/// Allocations on the server's thread over a run answering `requests` hello requests on one
/// keep-alive connection.
fn allocations(mode: Mode, requests: usize) -> u64 {
    let config = Config {
        handler: Some(format!("{}/handler.js", env!("CARGO_MANIFEST_DIR")).into()),
        max_seconds: 1,
        request_timeout: Duration::from_secs(5),
        ..Config::default()
    };
    let (sender, receiver) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        alloc_counter::count(|| {
            edge_server::serve(config, mode, |address| sender.send(address).unwrap()).unwrap()
        })
        .1
    });
    let address = receiver.recv().unwrap();
    let mut stream = TcpStream::connect(address).unwrap();
    let request = "GET /hello HTTP/1.1\r\nhost: localhost\r\naccept: */*\r\nuser-agent: edge-anchor/1\r\nx-request-id: 0f8c2b1e-6d3a-4c5b-9e7f-a1b2c3d4e5f6\r\n\r\n";
    let mut buffer = [0; 4096];
    for _ in 0..requests {
        stream.write_all(request.as_bytes()).unwrap();
        // One response: its head and 42-byte body arrive together on loopback.
        let mut received = 0;
        while received == 0 || !buffer[..received].ends_with(b"5f6") {
            received += stream.read(&mut buffer[received..]).unwrap();
        }
    }
    drop(stream);
    server.join().unwrap()
}

fn per_request(mode: Mode) -> f64 {
    let short = allocations(mode, 200);
    let long = allocations(mode, 1200);
    (long as f64 - short as f64) / 1000.0
}

#[test]
fn the_javascript_path_allocates_a_handful_per_request_beyond_the_floor() {
    let floor = per_request(Mode::Floor);
    let js = per_request(Mode::Js);
    println!("allocations per request: floor {floor:.2}, JavaScript {js:.2}");
    assert!(floor < 20.0, "floor {floor}");
    // Beyond the floor's: the hand-off's slot the call comes back by, and the `Bytes` owner around
    // the detached body (the floor's body is one `Vec`, counted on both). V8's own
    // allocations (the body's backing store) go through C++'s allocator, not counted here.
    assert!(
        js - floor < 2.5,
        "the JavaScript path adds {} per request",
        js - floor
    );
}
