//! `Request`, `Response` and `fetch()` (`fetch.js`, its way out in `transport.rs`): JavaScript
//! over the headers, streams, blob and URL groups' internals; a body read from what it was
//! made of, with no stream unless a script asks for one. The script's value, the function that binds a
//! module's fetch handler, is kept for [`crate::fetch_handler`].

use runtime_core::{v8, Extension, GlobalScript, OpState};

use crate::fetch_handler::{self, BindFetchHandler};

fn keep_bind<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bind: v8::Local<'s, v8::Value>,
    state: &OpState,
) {
    if let Ok(bind) = v8::Local::<v8::Function>::try_from(bind) {
        *state.borrow::<BindFetchHandler>().0.borrow_mut() = Some(v8::Global::new(scope, bind));
    }
}

/// `Request`, `Response`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_fetch")
        .internal_ops(&[
            crate::transport::op_web_fetch::DECL,
            crate::transport::op_web_fetch_abort::DECL,
            fetch_handler::op_web_is_promise::DECL,
            fetch_handler::op_web_fulfilled_value::DECL,
            fetch_handler::op_web_incoming_read::DECL,
            fetch_handler::op_web_incoming_read_all::DECL,
            fetch_handler::op_web_incoming_cancel::DECL,
            fetch_handler::op_web_answer_abandoned::DECL,
            fetch_handler::op_web_sink_new::DECL,
            fetch_handler::op_web_sink_write::DECL,
            fetch_handler::op_web_sink_ready::DECL,
            fetch_handler::op_web_sink_close::DECL,
        ])
        .global(
            GlobalScript::new("ext:web/fetch.js", include_str!("fetch.js"))
                .keep(keep_bind)
                .typescript(include_str!("fetch.d.ts")),
        )
        .state(|state| {
            state.put(BindFetchHandler::default());
            state.put(crate::transport::Abortable::default());
        })
}
