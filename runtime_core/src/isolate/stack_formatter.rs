//! The isolate's stack formatter (V8's prepare-stack-trace callback): V8 calls it when an
//! error's `stack` is first read, with the error's call sites. It reads each site into a
//! [`JsStackFrame`], maps it through the file's source map, keeps the frames on the error
//! (under a private symbol: no script can read or forge them) for
//! [`JsError`](crate::JsError), and returns the stack text V8 would have made, with mapped
//! positions. A script's own `Error.prepareStackTrace`, which V8 ignores once an embedder sets
//! this callback, is called as V8 would have.

use super::properties::data_property;
use super::source_maps::SourceMaps;
use crate::errors::frames::{format_stack, JsStackFrame};

/// The private key of an error's frames: [`FIELDS`] values per frame (function, file, line,
/// column, flags).
const FRAMES_KEY: &str = "opwire.stackFrames";
const FIELDS: u32 = 5;
/// How many frames a stack keeps and prints (a script sets `Error.stackTraceLimit`): the rest
/// are counted in a last line.
const MAX_FRAMES: u32 = 256;
/// How many UTF-16 units of a frame's function or file name are kept (a script names its
/// functions and files): the rest is cut, with `…`.
const MAX_NAME_LENGTH: usize = 1024;
const ASYNC: u32 = 1;
const CONSTRUCTOR: u32 = 2;

thread_local! {
    /// Set while the runtime formats a stack for itself (`inspect`): a script's
    /// `Error.prepareStackTrace` is not called then.
    static SCRIPTS_OWN_SUSPENDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read` with a script's `Error.prepareStackTrace` left out of any stack it formats
/// (isolates are used on one thread at a time: the flag is the thread's).
pub(crate) fn without_scripts_own<T>(read: impl FnOnce() -> T) -> T {
    /// Puts the flag back however `read` ends.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCRIPTS_OWN_SUSPENDED.set(self.0);
        }
    }
    let _restore = Restore(SCRIPTS_OWN_SUSPENDED.replace(true));
    read()
}

pub(crate) fn prepare_stack_trace<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Value>,
    sites: v8::Local<'s, v8::Array>,
) -> v8::Local<'s, v8::Value> {
    // V8 takes no "nothing" back from this callback: a site read that throws (at the edge of
    // the stack, say) is caught here, and the frames read so far make the stack.
    v8::tc_scope!(let scope, scope);
    if !SCRIPTS_OWN_SUSPENDED.get() {
        if let Some(prepared) = scripts_own(scope, error, sites) {
            return prepared;
        }
    }
    let kept = sites.length().min(MAX_FRAMES);
    let mut frames = Vec::with_capacity(kept as usize);
    for index in 0..kept {
        let Some(site) = sites
            .get_index(scope, index)
            .and_then(|site| v8::Local::<v8::Object>::try_from(site).ok())
        else {
            continue;
        };
        frames.push(read_site(scope, site));
    }
    SourceMaps::apply(scope, &mut frames);
    if let Ok(error) = v8::Local::<v8::Object>::try_from(error) {
        keep_frames(scope, error, &frames);
    }
    let mut stack = format_stack(&header(scope, error), &frames);
    let more = sites.length() - kept;
    if more > 0 {
        let plural = if more == 1 { "" } else { "s" };
        stack.push_str(&format!("\n    ... {more} more frame{plural}"));
    }
    v8::String::new(scope, &stack).map_or_else(|| v8::undefined(scope).into(), Into::into)
}

/// Gives `error` (made with no JavaScript on the stack) the stack `frames`: its `stack` text
/// and the frames [`kept_frames`] reads.
pub(crate) fn give_stack<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Object>,
    frames: &[JsStackFrame],
) {
    keep_frames(scope, error, frames);
    let stack = format_stack(&header(scope, error.into()), frames);
    let (Some(key), Some(stack)) = (
        v8::String::new(scope, "stack"),
        v8::String::new(scope, &stack),
    ) else {
        return;
    };
    let _ = error.set(scope, key.into(), stack.into());
}

/// The frames [`prepare_stack_trace`] kept on `error`, if its stack was formatted.
pub(crate) fn kept_frames(
    scope: &mut v8::PinScope<'_, '_>,
    error: v8::Local<'_, v8::Object>,
) -> Vec<JsStackFrame> {
    let key = frames_key(scope);
    let Some(kept) = error
        .get_private(scope, key)
        .and_then(|kept| v8::Local::<v8::Array>::try_from(kept).ok())
    else {
        return Vec::new();
    };
    // The array is the runtime's own, out of every script's reach: its elements are the
    // strings, numbers and `undefined`s `keep_frames` put there.
    let mut values = (0..kept.length()).map(|index| kept.get_index(scope, index));
    let mut frames = Vec::with_capacity((kept.length() / FIELDS) as usize);
    let values: Vec<_> = values.by_ref().collect();
    for frame in values.chunks_exact(FIELDS as usize) {
        let text = |value: &Option<v8::Local<'_, v8::Value>>, scope: &mut v8::PinScope<'_, '_>| {
            value
                .filter(|value| value.is_string())
                .map(|value| value.to_rust_string_lossy(scope))
        };
        let number = |value: &Option<v8::Local<'_, v8::Value>>,
                      scope: &mut v8::PinScope<'_, '_>| {
            value
                .filter(|value| value.is_number())
                .and_then(|value| value.uint32_value(scope))
        };
        let flags = number(&frame[4], scope).unwrap_or(0);
        frames.push(JsStackFrame {
            function_name: text(&frame[0], scope),
            file_name: text(&frame[1], scope),
            line_number: number(&frame[2], scope),
            column_number: number(&frame[3], scope),
            is_async: flags & ASYNC != 0,
            is_constructor: flags & CONSTRUCTOR != 0,
        });
    }
    frames
}

fn frames_key<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Private> {
    let name = v8::String::new(scope, FRAMES_KEY).expect("a short string");
    v8::Private::for_api(scope, Some(name))
}

fn keep_frames(
    scope: &mut v8::PinScope<'_, '_>,
    error: v8::Local<'_, v8::Object>,
    frames: &[JsStackFrame],
) {
    let mut values: Vec<v8::Local<'_, v8::Value>> =
        Vec::with_capacity(frames.len() * FIELDS as usize);
    for frame in frames {
        let text = |text: &Option<String>| -> v8::Local<'_, v8::Value> {
            match text
                .as_deref()
                .and_then(|text| v8::String::new(scope, text))
            {
                Some(text) => text.into(),
                None => v8::undefined(scope).into(),
            }
        };
        values.push(text(&frame.function_name));
        values.push(text(&frame.file_name));
        for number in [frame.line_number, frame.column_number] {
            values.push(match number {
                Some(number) => v8::Integer::new_from_unsigned(scope, number).into(),
                None => v8::undefined(scope).into(),
            });
        }
        let flags =
            u32::from(frame.is_async) * ASYNC + u32::from(frame.is_constructor) * CONSTRUCTOR;
        values.push(v8::Integer::new_from_unsigned(scope, flags).into());
    }
    let array = v8::Array::new_with_elements(scope, &values);
    let key = frames_key(scope);
    error.set_private(scope, key, array.into());
}

/// Calls the site's method `name` (a V8 builtin) without arguments.
fn call_site<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    site: v8::Local<'s, v8::Object>,
    name: &str,
) -> Option<v8::Local<'s, v8::Value>> {
    let key = v8::String::new(scope, name)?;
    let method = site.get(scope, key.into())?;
    let method = v8::Local::<v8::Function>::try_from(method).ok()?;
    method.call(scope, site.into(), &[])
}

fn site_text<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    site: v8::Local<'s, v8::Object>,
    name: &str,
) -> Option<String> {
    let text = v8::Local::<v8::String>::try_from(call_site(scope, site, name)?).ok()?;
    if text.length() == 0 {
        return None;
    }
    match super::properties::string_head(scope, text, MAX_NAME_LENGTH) {
        (whole, 0) => Some(whole),
        (head, _) => Some(head + "…"),
    }
}

fn site_flag<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    site: v8::Local<'s, v8::Object>,
    name: &str,
) -> bool {
    call_site(scope, site, name).is_some_and(|value| value.is_true())
}

fn read_site<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    site: v8::Local<'s, v8::Object>,
) -> JsStackFrame {
    let number = |scope: &mut v8::PinScope<'s, '_>, name: &str| {
        call_site(scope, site, name)
            .filter(|value| value.is_number())
            .and_then(|value| value.uint32_value(scope))
            .filter(|number| *number > 0)
    };
    let is_constructor = site_flag(scope, site, "isConstructor");
    let function = site_text(scope, site, "getFunctionName");
    let function_name = if is_constructor || site_flag(scope, site, "isToplevel") {
        function
    } else {
        method_call(
            function,
            site_text(scope, site, "getTypeName"),
            site_text(scope, site, "getMethodName"),
        )
    };
    JsStackFrame {
        function_name,
        file_name: site_text(scope, site, "getScriptNameOrSourceURL"),
        line_number: number(scope, "getLineNumber"),
        column_number: number(scope, "getColumnNumber"),
        is_async: site_flag(scope, site, "isAsync"),
        is_constructor,
    }
}

/// A method call's name as V8 prints it: `Type.function [as method]`.
fn method_call(
    function: Option<String>,
    type_name: Option<String>,
    method: Option<String>,
) -> Option<String> {
    let Some(function) = function else {
        let type_name = type_name?;
        return Some(format!(
            "{type_name}.{}",
            method.as_deref().unwrap_or("<anonymous>")
        ));
    };
    let mut name = String::new();
    if let Some(type_name) = &type_name {
        if !function.starts_with(&format!("{type_name}.")) {
            name.push_str(type_name);
            name.push('.');
        }
    }
    name.push_str(&function);
    if let Some(method) = method {
        if function != method && !function.ends_with(&format!(".{method}")) {
            name.push_str(&format!(" [as {method}]"));
        }
    }
    Some(name)
}

/// The stack's first line, `Name: message` as V8's `Error.prototype.toString` makes it, read
/// from data properties only (V8's own formatter would run a `name` or `message` getter).
fn header<'s>(scope: &mut v8::PinScope<'s, '_>, error: v8::Local<'s, v8::Value>) -> String {
    let Ok(object) = v8::Local::<v8::Object>::try_from(error) else {
        return error
            .to_detail_string(scope)
            .map(|text| text.to_rust_string_lossy(scope))
            .unwrap_or_default();
    };
    let mut read = |name: &str| {
        data_property(scope, object, name)
            .filter(|value| !value.is_undefined())
            .and_then(|value| value.to_detail_string(scope))
            .map(|text| text.to_rust_string_lossy(scope))
    };
    let name = read("name").unwrap_or_else(|| "Error".to_owned());
    let message = read("message").unwrap_or_default();
    match (name.is_empty(), message.is_empty()) {
        (true, _) => message,
        (false, true) => name,
        (false, false) => format!("{name}: {message}"),
    }
}

/// A script's `Error.prepareStackTrace(error, sites)`, if it set one (a data property of the
/// current context's `Error`); `None` if it did not or it threw.
fn scripts_own<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Value>,
    sites: v8::Local<'s, v8::Array>,
) -> Option<v8::Local<'s, v8::Value>> {
    let context = scope.get_current_context();
    let global = context.global(scope);
    let constructor = data_property(scope, global, "Error")?;
    let constructor = v8::Local::<v8::Object>::try_from(constructor).ok()?;
    let prepare = data_property(scope, constructor, "prepareStackTrace")?;
    let prepare = v8::Local::<v8::Function>::try_from(prepare).ok()?;
    v8::tc_scope!(let try_catch, scope);
    let prepared = prepare.call(try_catch, constructor.into(), &[error, sites.into()]);
    prepared.filter(|_| !try_catch.has_caught())
}

#[cfg(test)]
mod tests {
    use super::method_call;

    #[test]
    fn method_calls_are_named_as_v8_names_them() {
        let name = |f: Option<&str>, t: Option<&str>, m: Option<&str>| {
            method_call(f.map(Into::into), t.map(Into::into), m.map(Into::into))
        };
        assert_eq!(name(Some("f"), None, None).as_deref(), Some("f"));
        assert_eq!(
            name(Some("onEvent"), Some("Object"), Some("onEvent")).as_deref(),
            Some("Object.onEvent")
        );
        assert_eq!(
            name(Some("Plugin.run"), Some("Plugin"), Some("go")).as_deref(),
            Some("Plugin.run [as go]")
        );
        assert_eq!(
            name(None, Some("Object"), None).as_deref(),
            Some("Object.<anonymous>")
        );
        assert_eq!(name(None, None, None), None);
    }
}
