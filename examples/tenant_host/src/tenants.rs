//! Tenants from directories: each directory with a `handler.js` is a tenant named for it. Its
//! module is loaded once, into a startup snapshot (under a deadline and the memory budget: its
//! top level may spin, wait or hoard), and every runtime of the tenant (one per worker, and
//! each replacement) is made from that heap.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use runtime_core::modules::FsModuleLoader;
use runtime_core::serve::MakeRuntime;
use runtime_core::{JsError, Runtime, RuntimeOptions, SnapshotBuilder};

/// The module a tenant's directory holds; its default export answers requests.
pub const ENTRY: &str = "handler.js";

/// A tenant, ready to be served: its directory and its snapshot.
#[derive(Clone, Debug)]
pub struct Tenant {
    /// Its name: its directory's, and the first segment of its requests' paths.
    pub name: String,
    dir: PathBuf,
    snapshot: Arc<[u8]>,
    memory_limit: usize,
}

impl Tenant {
    /// The tenant in `dir`: its handler loaded, evaluated and saved under `deadline` and
    /// `memory_limit`.
    pub fn load(dir: &Path, deadline: Duration, memory_limit: usize) -> Result<Self, String> {
        let name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .ok_or_else(|| format!("{}: no name", dir.display()))?;
        let failed = |error: JsError| format!("tenant {name}: {error}");
        let mut builder =
            SnapshotBuilder::new(options(&name, dir, None, memory_limit)?).map_err(failed)?;
        let stop = builder
            .termination_handle()
            .terminate_at(Instant::now() + deadline);
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        let loaded = tokio.block_on(async {
            let module = builder.load_main_module(&entry(&name)).await?;
            builder.mod_evaluate(module).await?;
            builder.module_function(module, "default").map(drop)
        });
        drop(stop);
        loaded.map_err(failed)?;
        let snapshot = builder.build().map_err(failed)?;
        Ok(Self {
            name,
            dir: dir.to_path_buf(),
            snapshot: snapshot.into(),
            memory_limit,
        })
    }

    /// What a `serve::Server` makes this tenant's runtimes with.
    pub fn make_runtime(&self) -> MakeRuntime {
        let tenant = self.clone();
        Box::new(move || {
            let snapshot = Some(tenant.snapshot.to_vec());
            let options = options(&tenant.name, &tenant.dir, snapshot, tenant.memory_limit)
                .map_err(|error| JsError::host("Error", &error))?;
            let mut runtime = Runtime::try_new(options)?;
            let module = runtime.loaded_module(&entry(&tenant.name))?;
            let handle = runtime.module_function(module, "default")?;
            Ok((runtime, handle))
        })
    }
}

/// The tenants under `root`, by name; a tenant that fails to load is an error naming it.
pub fn load_all(
    root: &Path,
    deadline: Duration,
    memory_limit: usize,
) -> Result<Vec<Tenant>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|error| format!("{}: {error}", root.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join(ENTRY).is_file())
        .collect();
    dirs.sort();
    dirs.iter()
        .map(|dir| Tenant::load(dir, deadline, memory_limit))
        .collect()
}

/// The tenant's handler, in its own URL space (`<name>:/`): no host path reaches it.
fn entry(name: &str) -> String {
    format!("{}{ENTRY}", url_space(name))
}

fn url_space(name: &str) -> String {
    // A URL scheme is letters, digits, `+`, `-`, `.`: a directory name may be more.
    let scheme: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("tenant-{scheme}:/")
}

fn options(
    name: &str,
    dir: &Path,
    snapshot: Option<Vec<u8>>,
    memory_limit: usize,
) -> Result<RuntimeOptions, String> {
    let loader = FsModuleLoader::new(dir)
        .and_then(|loader| loader.url_space(&url_space(name)))
        .map_err(|error| format!("tenant {name}: {error}"))?;
    let tenant = name.to_owned();
    Ok(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        memory_limit: Some(memory_limit),
        // The host's log, each line named for its tenant.
        console: Some(Rc::new(move |level, line| {
            eprintln!("[{tenant}] {level:?}: {line}");
        })),
        startup_snapshot: snapshot.map(Into::into),
        // A tenant's `setTimeout` fires at its deadline, not on tokio's next millisecond tick
        // after it (each tenant thread's tokio runtime has its reactor).
        precise_timers: true,
        ..Default::default()
    })
}
