//! The host over its shipped tenants, through HTTP on loopback: each tenant answers in its
//! own URL space; a spin is stopped and named (which request, which line) and the tenant
//! serves again; a wait past the call timeout is 504; an unknown tenant 404.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use tenant_host::{Config, Host};

/// The status and body of `GET path`, on a connection of its own.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn tenants_are_served_apart_and_a_spin_is_stopped_and_named() {
    let tenants = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tenants");
    let mut config = Config::new(tenants.clone());
    config.serve.call_timeout = Duration::from_millis(300);
    config.serve.entry_limit = Duration::from_millis(100);
    let host = Host::start(&config).unwrap();
    let addr = host.addr();

    let (status, body) = get(addr, "/hello/bob");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, "Hello, bob! (tenant-hello:/handler.js)");

    let (status, body) = get(addr, "/spinner/spin");
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("ran too long"), "{body}");
    assert!(
        body.contains("at handle (tenant-spinner:/handler.js:3:"),
        "{body}"
    );
    assert!(
        !body.contains(&*tenants.to_string_lossy()),
        "a host path: {body}"
    );
    // Its runtime made again from its snapshot, on either worker.
    for _ in 0..2 {
        assert_eq!(get(addr, "/spinner/"), (200, "spinner serves".to_owned()));
    }

    let (status, body) = get(addr, "/counter/wait");
    assert_eq!(status, 504, "{body}");
    let (status, count) = get(addr, "/counter");
    assert_eq!(status, 200);
    assert!(count.parse::<u32>().is_ok(), "{count}");

    assert_eq!(get(addr, "/nobody/").0, 404);
    host.stop();
}
