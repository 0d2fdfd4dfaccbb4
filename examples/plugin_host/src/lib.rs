//! A host for other people's plugins, on `runtime_core`: each tenant is an ES module in a
//! directory of its own, served by a [`Server`] of its own (one runtime), which
//!
//! - loads only what is under that directory, seen as `plugin:/` (`FsModuleLoader::new(dir)`
//!   with `url_space`: no host path reaches the tenant or its errors),
//! - sees the host's API (`ext:host/api.js`) and not the raw ops (`expose_ops: false`),
//! - holds at most [`MEMORY_LIMIT`] of memory, heap and buffers together (`memory_limit`),
//! - and gets [`DEADLINE`] per call (`call_timeout`: a call that waits is answered and its
//!   timers cancelled) and per entry into JavaScript (`entry_limit`: a call that spins is
//!   terminated, and the runtime replaced), and to load.
//!
//! A tenant's module is loaded once, into a startup snapshot: the server makes its runtime,
//! and each replacement, from that heap, with nothing to load or run again.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use runtime_core::modules::FsModuleLoader;
use runtime_core::serve::{MakeRuntime, ServeError, ServeOptions, Server};
use runtime_core::{
    op, Extension, ExtensionSource, JsError, JsErrorKind, Runtime, RuntimeOptions, SnapshotBuilder,
};

/// Each tenant's memory budget: its heap and its buffers, together.
pub const MEMORY_LIMIT: usize = 64 << 20;

/// How long a call may take, and one entry into JavaScript (a spin).
pub const DEADLINE: Duration = Duration::from_millis(250);

/// The module a tenant's directory holds, exporting `handle(event)`.
pub const ENTRY: &str = "plugin.js";

/// The URL space a tenant's directory is served as.
const URL_SPACE: &str = "plugin:/";

/// What the host gives tenants: `log(line)`, over an op they cannot reach themselves.
static HOST_API: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:host/api.js",
    r#"import { op_host_log } from "ext:core/ops";
export function log(line) {
  op_host_log(String(line));
}
"#,
)];

/// The lines a tenant logged: the host's, shared with each runtime made for the tenant (in
/// its op state).
#[derive(Clone, Default)]
struct Log(Rc<RefCell<Vec<String>>>);

#[op]
fn op_host_log(state: &runtime_core::OpState, #[string] line: String) {
    state.borrow::<Log>().0.borrow_mut().push(line);
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The tenant answered.
    Answered(String),
    /// It threw (or its module did not load): the error's class and message.
    Failed(String),
    /// It ran past its deadline: it spun and was terminated, or it waited and was answered.
    StoppedAtDeadline,
    /// It held more than its memory budget, and was terminated.
    StoppedOutOfMemory,
}

/// A tenant: its server, if its module loaded.
pub struct Tenant {
    name: String,
    server: Result<Server, String>,
    log: Log,
}

impl Tenant {
    /// The tenant in `dir`: its module loaded and evaluated into a snapshot (under the
    /// deadline and the memory budget; an error is kept, and reported by each call), and its
    /// server started. Must run inside a tokio `LocalSet`: the server's loop is a local task.
    pub async fn load(dir: &Path) -> std::io::Result<Self> {
        let name = dir
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        let log = Log::default();
        let server = match snapshot(dir, &log).await? {
            Ok(snapshot) => serve(dir.to_path_buf(), snapshot, log.clone()),
            Err(error) => Err(describe(&error)),
        };
        if let Ok(server) = &server {
            let driven = server.clone();
            tokio::task::spawn_local(async move { driven.run().await });
        }
        Ok(Self { name, server, log })
    }

    /// The tenant's name (its directory's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Calls `handle({ name, attack })`.
    pub async fn call(&self, name: &str, attack: bool) -> Outcome {
        let server = match &self.server {
            Ok(server) => server,
            Err(error) => return Outcome::Failed(error.clone()),
        };
        let event = Event {
            name: name.to_owned(),
            attack,
        };
        match server.call::<String>((event,)).await {
            Ok(answer) => Outcome::Answered(answer),
            Err(ServeError::TimedOut) => Outcome::StoppedAtDeadline,
            Err(ServeError::Terminated { error, .. }) if error.kind == JsErrorKind::OutOfMemory => {
                Outcome::StoppedOutOfMemory
            }
            Err(ServeError::Terminated { .. }) => Outcome::StoppedAtDeadline,
            Err(ServeError::Failed(error) | ServeError::NoRuntime(error)) => {
                Outcome::Failed(describe(&error))
            }
            Err(ServeError::Overloaded) => Outcome::Failed("overloaded".to_owned()),
        }
    }

    /// What the tenant logged so far, taken.
    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut self.log.0.borrow_mut())
    }

    /// Ends the tenant's server loop.
    pub fn close(&self) {
        if let Ok(server) = &self.server {
            server.close();
        }
    }
}

/// The runtime options of a tenant's runtimes: its snapshot's builder's (`None`) and theirs.
fn options(dir: &Path, snapshot: Option<Vec<u8>>, log: &Log) -> std::io::Result<RuntimeOptions> {
    let loader = FsModuleLoader::new(dir)?.url_space(URL_SPACE)?;
    let log = log.clone();
    Ok(RuntimeOptions {
        extensions: vec![Extension::new("host")
            .ops(&[op_host_log::DECL])
            .esm(&HOST_API)
            .esm_public(&["ext:host/api.js"])
            .state(move |state| {
                state.put(log);
            })],
        module_loader: Some(Rc::new(loader)),
        expose_ops: false,
        memory_limit: Some(MEMORY_LIMIT),
        console: None,
        startup_snapshot: snapshot.map(Into::into),
        ..Default::default()
    })
}

/// The tenant's module loaded and evaluated, under the deadline (its top level may spin or
/// wait) and the memory budget, and its heap saved.
async fn snapshot(dir: &Path, log: &Log) -> std::io::Result<Result<Vec<u8>, JsError>> {
    let entry = format!("{URL_SPACE}{ENTRY}");
    let mut builder = match SnapshotBuilder::new(options(dir, None, log)?) {
        Ok(builder) => builder,
        Err(error) => return Ok(Err(error)),
    };
    let deadline = builder
        .termination_handle()
        .terminate_at(Instant::now() + DEADLINE);
    let loaded = async {
        let module = builder.load_main_module(&entry).await?;
        builder.mod_evaluate(module).await?;
        builder.module_function(module, "handle").map(drop)
    }
    .await;
    drop(deadline);
    Ok(loaded.and_then(|()| builder.build()))
}

/// A server of runtimes made from `snapshot`.
fn serve(dir: PathBuf, snapshot: Vec<u8>, log: Log) -> Result<Server, String> {
    let entry = format!("{URL_SPACE}{ENTRY}");
    let make: MakeRuntime = Box::new(move || {
        let options = options(&dir, Some(snapshot.clone()), &log)
            .map_err(|error| JsError::host("Error", &error.to_string()))?;
        let mut runtime = Runtime::try_new(options)?;
        let module = runtime.loaded_module(&entry)?;
        let handle = runtime.module_function(module, "handle")?;
        Ok((runtime, handle))
    });
    let options = ServeOptions {
        max_in_flight: 64,
        call_timeout: DEADLINE,
        entry_limit: DEADLINE,
    };
    Server::new(make, options).map_err(|error| describe(&error))
}

/// The event a handler is called with.
#[derive(runtime_core::ToV8)]
struct Event {
    name: String,
    attack: bool,
}

fn describe(error: &JsError) -> String {
    match error.class_name.as_str() {
        "" => error.message.clone(),
        class => format!("{class}: {}", error.message),
    }
}

/// The tenants' directories under `root`, by name.
pub fn tenant_dirs(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join(ENTRY).is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// The tenants shipped with this example.
pub fn shipped_tenants() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tenants")
}

/// One attack, and what came after it.
#[derive(Debug)]
pub struct Round {
    /// The attacking tenant.
    pub tenant: String,
    /// How its attack ended.
    pub attack: Outcome,
    /// The well-behaved tenant's answer right after.
    pub greeter_after: Outcome,
    /// The attacker's answer to a plain event after.
    pub served_after: Outcome,
}

/// The demonstration: each tenant but `greeter` is attacked by its own code; after each
/// attack the well-behaved `greeter` answers, and the attacker serves a plain event again.
pub async fn demonstrate(tenants: &[Tenant]) -> Vec<Round> {
    let greeter = tenants
        .iter()
        .position(|tenant| tenant.name == "greeter")
        .expect("the greeter tenant");
    let mut rounds = Vec::new();
    for index in (0..tenants.len()).filter(|&index| index != greeter) {
        let attack = tenants[index].call("mallory", true).await;
        let greeter_after = tenants[greeter].call("alice", false).await;
        let served_after = tenants[index].call("bob", false).await;
        rounds.push(Round {
            tenant: tenants[index].name.clone(),
            attack,
            greeter_after,
            served_after,
        });
    }
    rounds
}
