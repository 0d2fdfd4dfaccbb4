//! Running scripts: an embedder's, and runtime_core's own from a code cache kept for the
//! process. A script's exception or termination is its `JsError`.

use super::termination::check_interrupts;
use crate::JsError;

pub(crate) fn run_script<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &str,
    source: &str,
) -> Result<v8::Local<'s, v8::Value>, JsError> {
    run_script_cached(scope, name, source, None, false)
}

/// What marks the code of `ext:` modules and of extensions' classic scripts (their
/// host-defined options): an `import()` there may reach private `ext:` modules. A script of
/// the embedder's, a tenant's module or code they `eval` carry none.
const EXTENSION_MARKER: i32 = 0x6f70_7778;

/// The host-defined options of extension code.
pub(crate) fn extension_options<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Data> {
    let options = v8::PrimitiveArray::new(scope, 1);
    let marker = v8::Integer::new(scope, EXTENSION_MARKER);
    options.set(scope, 0, marker.into());
    options.into()
}

/// Whether `options` (of the code calling `import()`) are extension code's.
pub(crate) fn is_extension_code(
    scope: &mut v8::PinScope<'_, '_>,
    options: v8::Local<'_, v8::Data>,
) -> bool {
    let Ok(options) = v8::Local::<v8::FixedArray>::try_from(options) else {
        return false;
    };
    options.length() == 1
        && options
            .get(scope, 0)
            .and_then(|item| v8::Local::<v8::Value>::try_from(item).ok())
            .and_then(|item| item.int32_value(scope))
            == Some(EXTENSION_MARKER)
}

/// Runs an extension's classic script: its `import()` may reach private `ext:` modules.
pub(crate) fn run_extension_script<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &str,
    source: &str,
) -> Result<v8::Local<'s, v8::Value>, JsError> {
    run_script_cached(scope, name, source, None, true)
}

/// Runs one of runtime_core's own scripts (the async wrappers, console, timers), compiled
/// from the code cache the process's first runtime made of it: every new isolate would parse
/// and compile it again.
pub(crate) fn run_builtin_script<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &str,
    source: &'static str,
) -> Result<v8::Local<'s, v8::Value>, JsError> {
    /// By the source's address: each cache made once, kept for the process.
    static CACHES: std::sync::Mutex<Vec<(usize, &'static [u8])>> =
        std::sync::Mutex::new(Vec::new());
    // V8 makes no code cache in a snapshot creator (the snapshot keeps the code).
    if scope.get_slot::<CreatingSnapshot>().is_some() {
        return run_script(scope, name, source);
    }
    let key = source.as_ptr() as usize;
    let caches = || {
        CACHES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let cached = caches()
        .iter()
        .find(|(at, _)| *at == key)
        .map(|(_, bytes)| *bytes);
    let mut made = None;
    let result = run_script_cached(scope, name, source, Some((cached, &mut made)), true);
    if let Some(bytes) = made {
        let mut caches = caches();
        if !caches.iter().any(|(at, _)| *at == key) {
            caches.push((key, Box::leak(bytes)));
        }
    }
    result
}

/// Marks a snapshot creator's isolate.
pub(crate) struct CreatingSnapshot;

/// A code cache to compile from (`None`: none yet), and where to put the one made then.
type CodeCache<'a> = (Option<&'static [u8]>, &'a mut Option<Box<[u8]>>);

fn run_script_cached<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &str,
    source: &str,
    cache: Option<CodeCache<'_>>,
    is_extension: bool,
) -> Result<v8::Local<'s, v8::Value>, JsError> {
    super::source_maps::SourceMaps::add_inline(scope, name, source);
    v8::tc_scope!(let try_catch, scope);
    let options = is_extension.then(|| extension_options(try_catch));
    let source = v8::String::new(try_catch, source)
        .ok_or_else(|| JsError::host("RangeError", "script source is too long for a V8 string"))?;
    let resource_name = v8::String::new(try_catch, name).expect("script name fits in a V8 string");
    let origin = v8::ScriptOrigin::new(
        try_catch,
        resource_name.into(),
        0,
        0,
        false,
        0,
        None,
        false,
        false,
        false,
        options,
    );
    let script = match &cache {
        None => v8::Script::compile(try_catch, source, Some(&origin)),
        Some((cached, _)) => {
            let (mut source, options) = match cached {
                Some(bytes) => (
                    v8::script_compiler::Source::new_with_cached_data(
                        source,
                        Some(&origin),
                        v8::script_compiler::CachedData::new(bytes),
                    ),
                    v8::script_compiler::CompileOptions::ConsumeCodeCache,
                ),
                None => (
                    v8::script_compiler::Source::new(source, Some(&origin)),
                    v8::script_compiler::CompileOptions::NoCompileOptions,
                ),
            };
            v8::script_compiler::compile(
                try_catch,
                &mut source,
                options,
                v8::script_compiler::NoCacheReason::NoReason,
            )
        }
    };
    let result = script.and_then(|script| {
        let result = script.run(try_catch);
        // Made after the run, the cache holds the functions it compiled too.
        if let Some((None, made)) = cache {
            *made = script
                .get_unbound_script(try_catch)
                .create_code_cache()
                .map(|data| data.to_vec().into_boxed_slice());
        }
        result
    });
    let result = result.filter(|_| check_interrupts(try_catch));
    match result {
        Some(value) => Ok(value),
        None if try_catch.has_terminated() => Err(JsError::terminated_in(try_catch)),
        None => Err(match try_catch.exception() {
            Some(exception) => JsError::from_exception(try_catch, exception),
            None => JsError::terminated_in(try_catch),
        }),
    }
}
