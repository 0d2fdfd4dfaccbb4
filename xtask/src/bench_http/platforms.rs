//! The platforms a user would pick instead, serving version 3's standard handler beside opwire
//! (`bench-http --platforms`): deno (`Deno.serve`), Bun (`Bun.serve`) and workerd (an
//! ES-module worker), each installed from the npm registry into `target/platforms` at the
//! version WORKLOAD.md names, started pinned to the servers' CPUs under `timeout` (each stops
//! by itself), its CPU read from its own process.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::server::Started;
use std::time::{Duration, Instant};

/// The packages, pinned.
const PACKAGES: [&str; 3] = [
    "@deno/linux-x64-glibc@2.9.6",
    "@oven/bun-linux-x64@1.4.4",
    "@cloudflare/workerd-linux-64@1.20261117.1",
];

/// `deno serve` in one process: the handler's default export behind `Deno.serve`.
const DENO_SERVE: &str = r#"const { default: handler } = await import(Deno.args[0]);
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.args[1]),
  onListen() {},
}, (request) => handler.fetch(request));
"#;

/// `Bun.serve` of the handler's default export.
const BUN_SERVE: &str = r#"const { default: handler } = await import(process.argv[2]);
Bun.serve({ hostname: "127.0.0.1", port: Number(process.argv[3]), fetch: handler.fetch, development: false });
"#;

/// workerd's configuration: one ES-module worker on one socket (its address given on the
/// command line).
const WORKERD_CONFIG: &str = r#"using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .handler)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const handler :Workerd.Worker = (
  modules = [(name = "fetch_handler.js", esModule = embed "fetch_handler.js")],
  compatibilityDate = "2024-09-01",
);
"#;

/// The three binaries and the directory of their start-up files.
pub(super) struct Platforms {
    deno: PathBuf,
    bun: PathBuf,
    workerd: PathBuf,
    dir: PathBuf,
}

impl Platforms {
    /// Installs the platforms (once) and writes their start-up files beside a copy of
    /// `handler` in `out/platforms`.
    pub(super) fn install(target: &Path, out: &Path, handler: &Path) -> Self {
        let prefix = target.join("platforms");
        crate::npm::install(&prefix, &PACKAGES).unwrap_or_else(|why| panic!("{why}"));
        let modules = prefix.join("node_modules");
        let dir = out.join("platforms");
        std::fs::create_dir_all(&dir).expect("the platforms' directory");
        std::fs::copy(handler, dir.join("fetch_handler.js")).expect("the handler copied");
        std::fs::write(dir.join("deno_serve.js"), DENO_SERVE).expect("deno_serve.js");
        std::fs::write(dir.join("bun_serve.js"), BUN_SERVE).expect("bun_serve.js");
        std::fs::write(dir.join("workerd.capnp"), WORKERD_CONFIG).expect("workerd.capnp");
        Self {
            deno: modules.join("@deno/linux-x64-glibc/deno"),
            bun: modules.join("@oven/bun-linux-x64/bin/bun"),
            workerd: modules.join("@cloudflare/workerd-linux-64/bin/workerd"),
            dir,
        }
    }

    /// Starts `platform` ("deno", "bun", "workerd") on CPUs `0..workers` for at most
    /// `seconds`: the `timeout` process, the server's own pid and its address.
    pub(super) fn start(&self, platform: &str, workers: usize, seconds: u64) -> Started {
        let port = free_port();
        let handler = self.dir.join("fetch_handler.js");
        let mut command = Command::new("taskset");
        command.args(["-c", &format!("0-{}", workers - 1)]).args([
            "timeout",
            "-s",
            "KILL",
            &seconds.to_string(),
        ]);
        match platform {
            "deno" => command
                .arg(&self.deno)
                .args(["run", "--allow-net", "--allow-read"])
                .arg(self.dir.join("deno_serve.js"))
                .arg(format!("file://{}", handler.display()))
                .arg(port.to_string()),
            "bun" => command
                .arg(&self.bun)
                .arg(self.dir.join("bun_serve.js"))
                .arg(&handler)
                .arg(port.to_string()),
            _ => command
                .arg(&self.workerd)
                .arg("serve")
                .arg(self.dir.join("workerd.capnp"))
                .arg(format!("--socket-addr=http=127.0.0.1:{port}")),
        };
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the platform starts (are taskset and timeout installed?)");
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while TcpStream::connect(address).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{platform} did not listen on {address}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Started {
            pid: server_pid(child.id()),
            child,
            address,
        }
    }
}

/// A port free now on loopback.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// The server under `timeout` (its child): its CPU is what is read.
fn server_pid(timeout: u32) -> u32 {
    std::fs::read_to_string(format!("/proc/{timeout}/task/{timeout}/children"))
        .ok()
        .and_then(|children| children.split_whitespace().next()?.parse().ok())
        .unwrap_or(timeout)
}
