//! The methods of [`Runtime`] that load and evaluate ES modules (see `crate::modules`).

use crate::modules::loader::cwd_url;
use crate::modules::{ModuleId, ModuleType, ResolutionKind};
use crate::{JsError, Runtime};

impl Runtime {
    /// Loads the module graph of `specifier` (relative to the working directory, or a URL) as
    /// the main module (`import.meta.main` is `true`) and links it; [`Runtime::mod_evaluate`]
    /// runs it.
    pub async fn load_main_module(&mut self, specifier: &str) -> Result<ModuleId, JsError> {
        let id = self
            .load_module(specifier, ResolutionKind::MainModule)
            .await?;
        self.inner.modules.set_main(id);
        Ok(id)
    }

    /// The module `specifier` names, if this runtime has it already (its startup snapshot's,
    /// or one loaded before), without loading or running anything: how a host that makes
    /// runtimes from a snapshot on demand (a `serve::MakeRuntime`) finds its handler's module,
    /// with no future to await. A `TypeError` when the runtime does not have it.
    pub fn loaded_module(&mut self, specifier: &str) -> Result<ModuleId, JsError> {
        let modules = self.inner.modules.clone();
        let url = modules
            .resolve(specifier, &cwd_url(), ResolutionKind::MainModule)
            .map_err(|error| JsError::host("TypeError", &format!("Module not found: {error}")))?;
        modules.id(&url, &ModuleType::JavaScript).ok_or_else(|| {
            JsError::host(
                "TypeError",
                &format!("{url} is not loaded in this runtime, nor in its snapshot"),
            )
        })
    }

    /// Loads and links a module graph that is not the main one.
    pub async fn load_side_module(&mut self, specifier: &str) -> Result<ModuleId, JsError> {
        self.load_module(specifier, ResolutionKind::Import).await
    }

    async fn load_module(
        &mut self,
        specifier: &str,
        kind: ResolutionKind,
    ) -> Result<ModuleId, JsError> {
        let modules = self.inner.modules.clone();
        let url = modules
            .resolve(specifier, &cwd_url(), kind)
            .map_err(|error| JsError::host("TypeError", &format!("Module not found: {error}")))?;
        let mut load =
            crate::modules::graph::GraphLoad::new(&modules, &url, ModuleType::JavaScript, kind);
        let id = self
            .poll_until(|scope, cx| load.poll(&modules, scope, cx))
            .await?;
        self.try_with_scope(|scope| Some(modules.instantiate(scope, id)))??;
        Ok(id)
    }

    /// Evaluates a loaded module, driving the event loop until its evaluation settles (its
    /// top-level `await`s); a throw during evaluation is the `Err`, with its stack.
    pub async fn mod_evaluate(&mut self, id: ModuleId) -> Result<(), JsError> {
        let modules = self.inner.modules.clone();
        let evaluated = self.try_with_scope(|scope| {
            Some(
                modules
                    .evaluate(scope, id)
                    .map(|promise| v8::Global::new(scope, promise)),
            )
        })??;
        self.resolve(evaluated).await.map(drop)
    }

    /// The namespace object of a loaded module (its exports, live).
    pub fn get_module_namespace(
        &mut self,
        id: ModuleId,
    ) -> Result<v8::Global<v8::Object>, JsError> {
        let modules = self.inner.modules.clone();
        self.try_with_scope(|scope| {
            let namespace = match modules.module(scope, id) {
                Ok(module) => module.get_module_namespace(),
                Err(error) => return Some(Err(error)),
            };
            let namespace = v8::Local::<v8::Object>::try_from(namespace).ok()?;
            Some(Ok(v8::Global::new(scope, namespace)))
        })?
    }

    /// The function a loaded (and evaluated) module exports as `name`; a `TypeError` if that
    /// export is no function.
    pub fn module_function(
        &mut self,
        id: ModuleId,
        name: &str,
    ) -> Result<v8::Global<v8::Function>, JsError> {
        let namespace = self.get_module_namespace(id)?;
        self.try_with_scope(|scope| {
            let namespace = v8::Local::new(scope, &namespace);
            let key = v8::String::new(scope, name)?;
            let value = namespace.get(scope, key.into())?;
            Some(v8::Local::<v8::Function>::try_from(value).map(|f| v8::Global::new(scope, f)))
        })?
        .map_err(|_| {
            JsError::host(
                "TypeError",
                &format!("the module's export {name} is not a function"),
            )
        })
    }
}
