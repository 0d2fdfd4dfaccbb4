//! A host for other people's plugins, on `runtime_core`: each tenant is an ES module in a
//! directory of its own, run in a runtime of its own that
//!
//! - loads only what is under that directory (`FsModuleLoader::new(dir)`),
//! - sees the host's API (`ext:host/api.js`) and not the raw ops (`expose_ops: false`),
//! - holds at most [`MEMORY_LIMIT`] of memory, heap and buffers together (`memory_limit`),
//! - and gets [`DEADLINE`] per call, and to load (`TerminationHandle::terminate_at`), waiting
//!   or not.
//!
//! A call that fails or is stopped is reported; what it left pending is cancelled
//! (`Runtime::cancel_pending_work`), and the tenant serves the next call.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use runtime_core::modules::FsModuleLoader;
use runtime_core::{
    op, v8, Extension, ExtensionSource, JsError, JsErrorKind, Runtime, RuntimeOptions,
};

/// Each tenant's memory budget: its heap and its buffers, together.
pub const MEMORY_LIMIT: usize = 64 << 20;

/// How long a call may run, spinning or waiting.
pub const DEADLINE: Duration = Duration::from_millis(250);

/// The module a tenant's directory holds, exporting `handle(event)`.
pub const ENTRY: &str = "plugin.js";

/// What the host gives tenants: `log(line)`, over an op they cannot reach themselves.
static HOST_API: [ExtensionSource; 1] = [ExtensionSource::new(
    "ext:host/api.js",
    r#"import { op_host_log } from "ext:core/ops";
export function log(line) {
  op_host_log(String(line));
}
"#,
)];

/// The lines tenants logged, in the op state.
#[derive(Default)]
struct Log(Vec<String>);

#[op]
fn op_host_log(state: &mut runtime_core::OpState, #[string] line: String) {
    state.borrow_mut::<Log>().0.push(line);
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The tenant answered.
    Answered(String),
    /// It threw (or its module did not load): the error's class and message.
    Failed(String),
    /// It ran past its deadline, and was terminated.
    StoppedAtDeadline,
    /// It held more than its memory budget, and was terminated.
    StoppedOutOfMemory,
}

/// A tenant: its runtime, and its handler if its module loaded.
pub struct Tenant {
    name: String,
    runtime: Runtime,
    handler: Result<v8::Global<v8::Function>, String>,
}

impl Tenant {
    /// The tenant in `dir`, its module loaded and evaluated (an error is kept, and reported by
    /// each call).
    pub async fn load(dir: &Path) -> std::io::Result<Self> {
        let loader = FsModuleLoader::new(dir)?;
        let entry = format!("{}{ENTRY}", loader.root_url());
        let mut runtime = Runtime::new(RuntimeOptions {
            extensions: vec![Extension::new("host")
                .ops(&[op_host_log::DECL])
                .esm(&HOST_API)
                .esm_public(&["ext:host/api.js"])
                .state(|state| {
                    state.put(Log::default());
                })],
            module_loader: Some(Rc::new(loader)),
            expose_ops: false,
            memory_limit: Some(MEMORY_LIMIT),
            console: None,
            ..Default::default()
        });
        // Loading runs the module's top level: under the same deadline as a call.
        let deadline = runtime
            .termination_handle()
            .terminate_at(Instant::now() + DEADLINE);
        let handler = load_handler(&mut runtime, &entry)
            .await
            .map_err(|error| describe(&error));
        drop(deadline);
        let name = dir
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        Ok(Self {
            name,
            runtime,
            handler,
        })
    }

    /// The tenant's name (its directory's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Calls `handle({ name, attack })` under the tenant's deadline.
    pub async fn call(&mut self, name: &str, attack: bool) -> Outcome {
        let handler = match &self.handler {
            Ok(handler) => handler.clone(),
            Err(error) => return Outcome::Failed(error.clone()),
        };
        let event = Event {
            name: name.to_owned(),
            attack,
        };
        let deadline = self
            .runtime
            .termination_handle()
            .terminate_at(Instant::now() + DEADLINE);
        let answered = self
            .runtime
            .call_and_await::<String>(&handler, (event,))
            .await;
        drop(deadline);
        let outcome = match answered {
            Ok(answer) => Outcome::Answered(answer),
            Err(error) if error.kind == JsErrorKind::OutOfMemory => Outcome::StoppedOutOfMemory,
            Err(error) if error.is_terminated() => Outcome::StoppedAtDeadline,
            Err(error) => Outcome::Failed(describe(&error)),
        };
        if !matches!(outcome, Outcome::Answered(_)) {
            // Whatever the call left (a timer an hour away, an op) never runs on.
            self.runtime.cancel_pending_work();
        }
        outcome
    }

    /// What the tenant logged so far, taken.
    pub fn take_log(&mut self) -> Vec<String> {
        let state = self.runtime.op_state();
        let mut state = state.borrow_mut();
        std::mem::take(&mut state.borrow_mut::<Log>().0)
    }
}

/// The event a handler is called with.
#[derive(runtime_core::ToV8)]
struct Event {
    name: String,
    attack: bool,
}

async fn load_handler(
    runtime: &mut Runtime,
    entry: &str,
) -> Result<v8::Global<v8::Function>, JsError> {
    let module = runtime.load_main_module(entry).await?;
    runtime.mod_evaluate(module).await?;
    runtime.module_function(module, "handle")
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
pub async fn demonstrate(tenants: &mut [Tenant]) -> Vec<Round> {
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
