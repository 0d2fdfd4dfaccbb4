//! `tenant-host <tenants-dir> [--port P] [--workers N] [--seconds S]`: serves the tenants
//! under the directory (this example's own `tenants/` by default) on 127.0.0.1, `/<tenant>/...`
//! to each, and stops by itself after `S` seconds (60 by default).

use std::path::PathBuf;
use std::time::Duration;

use tenant_host::{Config, Host};

fn main() {
    let mut config = Config::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tenants"));
    config.port = 8080;
    let mut seconds = 60;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => config.port = number(&mut args, &arg),
            "--workers" => config.workers = number(&mut args, &arg),
            "--seconds" => seconds = number(&mut args, &arg),
            dir => config.tenants = PathBuf::from(dir),
        }
    }
    let host = match Host::start(&config) {
        Ok(host) => host,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    println!(
        "serving {} on http://{}/<tenant>/",
        config.tenants.display(),
        host.addr()
    );
    std::thread::sleep(Duration::from_secs(seconds));
    host.stop();
}

fn number<T: std::str::FromStr>(args: &mut impl Iterator<Item = String>, name: &str) -> T {
    args.next()
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("{name} wants a number"))
}
