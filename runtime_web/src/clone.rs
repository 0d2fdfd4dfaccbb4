//! `structuredClone` (`clone.js`) on V8's own serializer: what V8 cannot clone (a function, a
//! proxy, a host object, a shared buffer) is a `DataCloneError`; V8's stack checks make a
//! structure too deep to clone a `RangeError`, not a crash.

#![deny(unsafe_code)]

use runtime_core::v8;
use runtime_core::v8::{ValueDeserializerHelper, ValueSerializerHelper};
use runtime_core::{op, Extension, GlobalScript, OpState, TerminationHandle};

/// Throws the `DataCloneError` V8 asks for.
struct Serializing<'a> {
    /// The script's `dataCloneError(message)`, which makes the `DOMException`.
    make_error: v8::Local<'a, v8::Function>,
}

impl v8::ValueSerializerImpl for Serializing<'_> {
    fn throw_data_clone_error<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        message: v8::Local<'s, v8::String>,
    ) {
        let receiver = v8::undefined(scope).into();
        let error = self.make_error.call(scope, receiver, &[message.into()]);
        // Terminating: an exception thrown now would replace the termination, which a
        // script's `catch` could then swallow.
        if scope.is_execution_terminating() {
            return;
        }
        let error = error.unwrap_or_else(|| v8::Exception::type_error(scope, message));
        scope.throw_exception(error);
    }
}

/// Reads what [`Serializing`] wrote (the defaults: V8's own kinds only).
struct Deserializing;

impl v8::ValueDeserializerImpl for Deserializing {}

/// A clone of `value`, the ArrayBuffers of `transfer` (checked by the script: distinct, not
/// detached) moved into the clone and detached; `make_error(message)` makes the
/// `DataCloneError`s. `None` with an exception thrown when V8 could not clone it.
#[op]
fn op_web_structured_clone<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &OpState,
    value: v8::Local<'s, v8::Value>,
    transfer: v8::Local<'s, v8::Array>,
    make_error: v8::Local<'s, v8::Function>,
) -> Option<v8::Local<'s, v8::Value>> {
    let clone = structured_clone(scope, value, transfer, make_error);
    // V8's deserializer can spend a termination that lands while it reads (the script would
    // then run on past its deadline): while the runtime's request stands, it is made again.
    let termination = state.borrow::<TerminationHandle>();
    if termination.is_requested() && !scope.is_execution_terminating() {
        termination.terminate();
        return None;
    }
    clone
}

fn structured_clone<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    value: v8::Local<'s, v8::Value>,
    transfer: v8::Local<'s, v8::Array>,
    make_error: v8::Local<'s, v8::Function>,
) -> Option<v8::Local<'s, v8::Value>> {
    let context = scope.get_current_context();
    let mut buffers = Vec::with_capacity(transfer.length() as usize);
    for index in 0..transfer.length() {
        let buffer = transfer.get_index(scope, index)?;
        let Ok(buffer) = v8::Local::<v8::ArrayBuffer>::try_from(buffer) else {
            return throw_clone_error(scope, make_error, "only ArrayBuffers can be transferred");
        };
        if !buffer.is_detachable() {
            return throw_clone_error(
                scope,
                make_error,
                "an ArrayBuffer that cannot be detached was transferred",
            );
        }
        buffers.push(buffer);
    }
    let serializer = v8::ValueSerializer::new(scope, Box::new(Serializing { make_error }));
    for (id, buffer) in buffers.iter().enumerate() {
        serializer.transfer_array_buffer(id as u32, *buffer);
    }
    serializer.write_header();
    serializer.write_value(context, value)?;
    let bytes = serializer.release();
    drop(serializer);
    let mut stores = Vec::with_capacity(buffers.len());
    for buffer in &buffers {
        stores.push(buffer.get_backing_store());
        buffer.detach(None)?;
    }
    let deserializer = v8::ValueDeserializer::new(scope, Box::new(Deserializing), &bytes);
    for (id, store) in stores.iter().enumerate() {
        let moved = v8::ArrayBuffer::with_backing_store(scope, store);
        deserializer.transfer_array_buffer(id as u32, moved);
    }
    deserializer.read_header(context)?;
    deserializer.read_value(context)
}

fn throw_clone_error<'s, T>(
    scope: &mut v8::PinScope<'s, '_>,
    make_error: v8::Local<'s, v8::Function>,
    message: &str,
) -> Option<T> {
    let message = v8::String::new(scope, message)?;
    v8::ValueSerializerImpl::throw_data_clone_error(&Serializing { make_error }, scope, message);
    None
}

/// `structuredClone`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_clone")
        .internal_ops(&[op_web_structured_clone::DECL])
        .global(
            GlobalScript::new("ext:web/clone.js", include_str!("clone.js"))
                .typescript(include_str!("clone.d.ts")),
        )
}
