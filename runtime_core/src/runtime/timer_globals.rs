//! The timer globals every runtime installs: `setTimeout`, `setInterval`, their `clear`s,
//! `queueMicrotask`, `unrefTimer`/`refTimer` (`timer_globals.js`), over three ops on the
//! event loop's [`Timers`].

use std::rc::Rc;

use crate::event_loop::timers::Timers;
use crate::{op, Extension, OpState};

/// The JavaScript of the timer globals.
pub(crate) const TIMERS_JS: &str = include_str!("timer_globals.js");

#[op(fast)]
fn op_timer_start(state: &OpState, delay: f64, repeat: bool) -> u32 {
    state.borrow::<Rc<Timers>>().start(delay, repeat)
}

#[op(fast)]
fn op_timer_cancel(state: &OpState, id: u32) {
    state.borrow::<Rc<Timers>>().cancel(id);
}

#[op(fast)]
fn op_timer_ref(state: &OpState, id: u32, refed: bool) {
    state.borrow::<Rc<Timers>>().set_ref(id, refed);
}

/// The extension behind the timer globals, over `timers`.
pub(crate) fn extension(timers: Rc<Timers>) -> Extension {
    Extension::new("timers")
        .internal_ops(&[
            op_timer_start::DECL,
            op_timer_cancel::DECL,
            op_timer_ref::DECL,
        ])
        .state(move |state| {
            state.put(timers);
        })
}
