//! The timer globals every runtime installs: `setTimeout`, `setInterval`, their `clear`s,
//! `queueMicrotask`, `unrefTimer`/`refTimer` (`timers.js`), over three internal ops on the
//! event loop's [`Timers`] (a source of the loop: due timers fire from it).

use std::rc::Rc;

use crate::event_loop::timer_heap::Timers;
use crate::GlobalScript;
use crate::{op, Extension, OpState};

/// Slow: it reads whose behalf the script runs on (a fast call can make no handle).
#[op]
fn op_timer_start(
    scope: &mut v8::PinScope<'_, '_>,
    state: &OpState,
    delay: f64,
    repeat: bool,
) -> u32 {
    let owner = crate::event_loop::work_owner::current(scope);
    state.borrow::<Rc<Timers>>().start(delay, repeat, owner)
}

#[op(fast)]
fn op_timer_cancel(state: &OpState, id: u32) {
    state.borrow::<Rc<Timers>>().cancel(id);
}

#[op(fast)]
fn op_timer_ref(state: &OpState, id: u32, refed: bool) {
    state.borrow::<Rc<Timers>>().set_ref(id, refed);
}

/// The install script returns `fire(id)`, which the timers call for each timer due.
fn keep_fire<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    fire: v8::Local<'s, v8::Value>,
    state: &OpState,
) {
    if let Ok(fire) = v8::Local::<v8::Function>::try_from(fire) {
        state
            .borrow::<Rc<Timers>>()
            .set_fire(v8::Global::new(scope, fire));
    }
}

/// The extension behind the timer globals, over timers of its own (woken to the microsecond
/// if `precise`).
pub(crate) fn extension(precise: bool) -> Extension {
    let timers = Rc::new(Timers::new(precise));
    Extension::new("timers")
        .internal_ops(&[
            op_timer_start::DECL,
            op_timer_cancel::DECL,
            op_timer_ref::DECL,
        ])
        .global(
            GlobalScript::new("<timers>", include_str!("timers.js"))
                .keep(keep_fire)
                .typescript(include_str!("timers.d.ts")),
        )
        .loop_source(timers.clone())
        .state(move |state| {
            state.put(timers);
        })
}
