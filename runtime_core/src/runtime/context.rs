//! A runtime's context: installed anew (the ops object with its classes, the async
//! wrappers, each extension's global, `ext:core/ops`), or restored from a snapshot's data,
//! with the handles Rust keeps of it.

use std::cell::RefCell;

use super::blob::Meta;
use crate::event_loop::EventLoop;
use crate::isolate::scripts::run_builtin_script;
use crate::modules::map::ModuleMap;
use crate::ops::ops_object::{internal_ops_object, new_ops_object, OpTable};
use crate::{Extension, JsError, OpState};

/// What installing or restoring a context fills in.
pub(super) struct Parts<'a> {
    pub(super) ops: &'a OpTable,
    pub(super) event_loop: &'a EventLoop,
    pub(super) modules: &'a ModuleMap,
    pub(super) classes: &'a [&'static crate::ClassDecl],
    pub(super) extensions: &'a [Extension],
    pub(super) state: &'a RefCell<OpState>,
}

/// What a runtime keeps of its context.
pub(super) struct Made {
    pub(super) context: v8::Global<v8::Context>,
    /// A function that does nothing: calling it makes V8 check for interrupts.
    pub(super) interrupt_check: v8::Global<v8::Function>,
    /// What the globals that keep something were given, in extension order (a snapshot
    /// carries them).
    pub(super) installed: Vec<v8::Global<v8::Value>>,
}

/// A new context: the ops object (its classes, and its ops made on first read), the async
/// wrappers, each extension's global, `ext:core/ops` (made on first import).
pub(super) fn install(
    scope: &mut v8::PinScope<'_, '_, ()>,
    parts: &Parts<'_>,
    ops_object_name: &str,
) -> Result<Made, JsError> {
    let context = v8::Context::new(scope, Default::default());
    let scope = &mut v8::ContextScope::new(scope, context);
    let wrap = crate::event_loop::async_wrap::AsyncWrap::install(scope, parts.event_loop);
    parts.event_loop.calls.install(scope, parts.event_loop);
    let ops_object = new_ops_object(scope, parts.ops);
    let key = v8::String::new(scope, ops_object_name).expect("ops object name fits in a V8 string");
    context
        .global(scope)
        .set(scope, key.into(), ops_object.into())
        .expect("defining the ops object on a fresh global cannot throw");
    let mut installed = Vec::new();
    // What the install scripts share, and no other code reaches (see `GlobalScript`).
    let internals =
        v8::Object::with_prototype_and_properties(scope, v8::null(scope).into(), &[], &[]);
    for extension in parts.extensions {
        let Some(global) = extension.global_install() else {
            continue;
        };
        let internal_ops = internal_ops_object(scope, parts.ops, extension.internal_op_decls());
        let install = run_builtin_script(scope, global.name, global.script)?;
        let Ok(install) = v8::Local::<v8::Function>::try_from(install) else {
            return Err(JsError::host(
                "TypeError",
                &format!(
                    "{}: the install script does not evaluate to a function",
                    global.name
                ),
            ));
        };
        let receiver = v8::undefined(scope).into();
        // A host's script may throw (a mistake in it): an error of the runtime's creation.
        v8::tc_scope!(let try_catch, scope);
        let installed_value = install.call(
            try_catch,
            receiver,
            &[internal_ops.into(), internals.into()],
        );
        let value = match (installed_value, try_catch.exception()) {
            (Some(value), None) => value,
            (_, Some(exception)) => return Err(JsError::from_exception(try_catch, exception)),
            (None, None) => return Err(JsError::terminated_in(try_catch)),
        };
        let scope = &mut **try_catch;
        if let Some(keep) = global.keep {
            keep(scope, value, &parts.state.borrow());
            installed.push(v8::Global::new(scope, value));
        }
    }
    for &class in parts.classes {
        crate::class::install(
            scope,
            ops_object,
            class,
            &parts.ops.ctxs,
            &parts.ops.index,
            wrap,
        );
    }
    let noop = run_builtin_script(
        scope,
        crate::isolate::termination::INTERRUPT_CHECK_SCRIPT,
        "(function () {})",
    )
    .ok()
    .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
    .expect("a function expression evaluates to a function");
    parts
        .modules
        .set_ops_module(v8::Global::new(scope, ops_object), ops_exports(parts));
    Ok(Made {
        context: v8::Global::new(scope, context),
        interrupt_check: v8::Global::new(scope, noop),
        installed,
    })
}

/// What `ext:core/ops` exports: every public op, and every class.
fn ops_exports<'a>(parts: &'a Parts<'_>) -> impl Iterator<Item = &'static str> + 'a {
    parts
        .ops
        .public_ops()
        .map(|op_ctx| op_ctx.decl.name)
        .chain(parts.classes.iter().map(|class| class.name))
}

/// The context of a snapshot, and the handles Rust keeps of it, from its data.
pub(super) fn restore_context(
    scope: &mut v8::PinScope<'_, '_, ()>,
    parts: &Parts<'_>,
    meta: &Meta,
) -> Result<Made, JsError> {
    let corrupt = || JsError::host("Error", "startup snapshot: its data is missing");
    let context = v8::Context::new(scope, Default::default());
    let scope = &mut v8::ContextScope::new(scope, context);
    let mut templates = crate::class::templates::ClassTemplates::default();
    for (class, &index) in parts.classes.iter().zip(&meta.class_templates) {
        let template = scope
            .get_isolate_data_from_snapshot_once::<v8::FunctionTemplate>(index)
            .map_err(|_| corrupt())?;
        templates
            .0
            .insert((class.type_id)(), v8::Global::new(scope, template));
    }
    scope.set_slot(templates);
    let ops_object = scope
        .get_context_data_from_snapshot_once::<v8::Object>(meta.ops_object)
        .map_err(|_| corrupt())?;
    let noop = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.interrupt_check)
        .map_err(|_| corrupt())?;
    let left = scope
        .get_context_data_from_snapshot_once::<v8::Object>(meta.left_marker)
        .map_err(|_| corrupt())?;
    let wrap = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.async_wrap)
        .map_err(|_| corrupt())?;
    let track = scope
        .get_context_data_from_snapshot_once::<v8::Function>(meta.call_track)
        .map_err(|_| corrupt())?;
    if !parts.ops.restore_made(&meta.made_ops) {
        return Err(corrupt());
    }
    parts
        .event_loop
        .claims
        .set_left_marker(v8::Global::new(scope, left));
    parts
        .event_loop
        .claims
        .set_wrap(v8::Global::new(scope, wrap));
    parts
        .event_loop
        .calls
        .set_track(v8::Global::new(scope, track));
    parts
        .modules
        .set_ops_module(v8::Global::new(scope, ops_object), ops_exports(parts));
    for record in &meta.modules {
        let module = scope
            .get_context_data_from_snapshot_once::<v8::Module>(record.module)
            .map_err(|_| corrupt())?;
        parts.modules.restore_record(scope, record, module);
    }
    // What each global that keeps something was given, in the same order as it was kept.
    let keepers: Vec<_> = parts
        .extensions
        .iter()
        .filter_map(|extension| extension.global_install()?.keep)
        .collect();
    if keepers.len() != meta.installed.len() {
        return Err(corrupt());
    }
    let mut installed = Vec::with_capacity(keepers.len());
    for (keep, &index) in keepers.into_iter().zip(&meta.installed) {
        let value = scope
            .get_context_data_from_snapshot_once::<v8::Value>(index)
            .map_err(|_| corrupt())?;
        keep(scope, value, &parts.state.borrow());
        installed.push(v8::Global::new(scope, value));
    }
    Ok(Made {
        context: v8::Global::new(scope, context),
        interrupt_check: v8::Global::new(scope, noop),
        installed,
    })
}
