//! What a runtime holds of its isolate and must end in order: the inspector, the context
//! handle, the event loop's and the modules' handles, then the isolate, with the class
//! instances told the heap is gone. A [`Runtime`](super::Runtime) ends it as a runtime
//! (`Drop`); an owner that ends the isolate its own way (a snapshot builder makes its blob of
//! it) takes it apart with [`IsolateState::into_parts`] instead.

use std::mem::ManuallyDrop;
use std::rc::Rc;

use super::EnteredIsolate;
use crate::event_loop::EventLoop;
use crate::inspector::InspectorState;
use crate::modules::map::ModuleMap;

/// Field order is drop order after `Drop` ran: the instances' bookkeeping outlives the isolate
/// (their finalizers count down as it goes).
pub(crate) struct IsolateState {
    /// Once asked for: shut down before the isolate goes.
    pub(super) inspector: Option<Rc<InspectorState>>,
    /// Dropped with the isolate (a snapshot may hold no handle).
    pub(super) context: ManuallyDrop<v8::Global<v8::Context>>,
    /// Pending async ops: dropped while the isolate and the op contexts live.
    pub(crate) event_loop: Rc<EventLoop>,
    /// Its modules: dropped while the isolate lives.
    pub(crate) modules: Rc<ModuleMap>,
    pub(super) isolate: ManuallyDrop<v8::OwnedIsolate>,
    /// Its class instances.
    pub(super) instances: Box<crate::class::instance::Instances>,
}

/// An [`IsolateState`] taken apart, its teardown left to the taker.
pub(super) struct IsolateParts {
    pub(super) inspector: Option<Rc<InspectorState>>,
    pub(super) context: v8::Global<v8::Context>,
    pub(super) event_loop: Rc<EventLoop>,
    pub(super) modules: Rc<ModuleMap>,
    pub(super) isolate: v8::OwnedIsolate,
    pub(super) instances: Box<crate::class::instance::Instances>,
}

impl IsolateState {
    /// Takes the state apart without its `Drop`.
    pub(super) fn into_parts(self) -> IsolateParts {
        let mut state = ManuallyDrop::new(self);
        // SAFETY: each field is read once, out of a value whose `Drop` never runs
        // (`ManuallyDrop`), so each is owned exactly once, by the parts.
        unsafe {
            IsolateParts {
                inspector: std::ptr::read(&state.inspector),
                context: ManuallyDrop::take(&mut state.context),
                event_loop: std::ptr::read(&state.event_loop),
                modules: std::ptr::read(&state.modules),
                isolate: ManuallyDrop::take(&mut state.isolate),
                instances: std::ptr::read(&state.instances),
            }
        }
    }

    /// Disconnects every session and drops V8's inspector, before the isolate goes.
    pub(super) fn shut_down_inspector(&mut self) {
        shut_down_inspector(&mut self.inspector, &mut self.isolate);
    }
}

/// As [`IsolateState::shut_down_inspector`], on the parts.
pub(super) fn shut_down_inspector(
    inspector: &mut Option<Rc<InspectorState>>,
    isolate: &mut v8::OwnedIsolate,
) {
    if let Some(inspector) = inspector.take() {
        let _entered = EnteredIsolate::new(isolate);
        inspector.shut_down();
    }
}

impl Drop for IsolateState {
    fn drop(&mut self) {
        self.shut_down_inspector();
        // SAFETY: the runtime's isolate, alive on its thread. `OwnedIsolate`'s own `Drop`
        // requires it to be the current one and exits it: the entry taken back pairs with that.
        let current = unsafe { crate::isolate::entry::take_back(&self.isolate) };
        // Pending ops go first: their futures' `Drop` may use the op state, and their promise
        // handles belong to the isolate.
        self.event_loop.clear();
        self.event_loop.forget_sources();
        self.modules.clear();
        // SAFETY: dropped once, here, as the isolate.
        unsafe { ManuallyDrop::drop(&mut self.context) };
        if !current {
            // Left entered under another isolate still entered: V8 cannot exit it before that
            // one, so it is leaked rather than disposed under it (see `crate::isolate::entry`).
            log::warn!(
                "opwire: a Runtime was dropped while an isolate entered after its last call is \
                 still entered; its isolate is leaked"
            );
            return;
        }
        // No `Held` reads the heap once it is gone.
        self.instances.heap_gone();
        self.event_loop.close_tasks(&self.isolate);
        // SAFETY: dropped once, here; the other fields' handles drop after it, which V8 allows
        // (a `Global` of a disposed isolate does nothing), and the op contexts (the runtime's,
        // dropped after this) outlive it.
        unsafe { ManuallyDrop::drop(&mut self.isolate) };
    }
}
