//! The methods of [`Runtime`] for debuggers: see [`crate::inspector`].

use std::rc::Rc;

use super::Runtime;
use crate::inspector::{Inbox, Inspector, InspectorState};

impl Runtime {
    /// This runtime's inspector, made on the first call (V8's inspector, with the runtime's
    /// context): connect sessions with [`Inspector::connect`], from any thread. A
    /// [`SnapshotBuilder`](crate::SnapshotBuilder) has none (what V8's inspector puts in the
    /// heap cannot be serialized): its sessions are disconnected at once (`recv` is `None`).
    pub fn inspector(&mut self) -> Inspector {
        match self.inspector_state() {
            Some(inspector) => Inspector::new(inspector.inbox()),
            None => Inspector::new(Inbox::closed()),
        }
    }

    /// Handles the inspector messages queued (the event loop does on each turn; a host whose
    /// loop is idle calls this); how many. `0` for a runtime never inspected.
    pub fn dispatch_inspector_messages(&mut self) -> usize {
        let Some(inspector) = self.inner.inspector.clone() else {
            return 0;
        };
        self.with_scope(|_| inspector.dispatch())
    }

    /// Blocks this thread until a debugger sends `Runtime.runIfWaitingForDebugger` (handling
    /// every protocol message meanwhile; a termination ends the wait too). With
    /// `break_on_start`, the next statement the runtime runs pauses: `--inspect-brk`.
    pub fn wait_for_debugger(&mut self, break_on_start: bool) {
        if let Some(inspector) = self.inspector_state() {
            self.with_scope(|_| inspector.wait_for_debugger(break_on_start));
        }
    }

    fn inspector_state(&mut self) -> Option<Rc<InspectorState>> {
        if let Some(inspector) = &self.inner.inspector {
            return Some(inspector.clone());
        }
        // A snapshot builder's isolate (see `crate::SnapshotBuilder`).
        if self
            .inner
            .isolate
            .get_slot::<crate::isolate::scripts::CreatingSnapshot>()
            .is_some()
        {
            return None;
        }
        let termination = self.termination.clone();
        let inspector = self.with_scope(|scope| InspectorState::new(scope, termination));
        self.inner.event_loop.add_source(inspector.clone());
        self.inner.inspector = Some(inspector.clone());
        Some(inspector)
    }
}

impl Runtime {
    /// `value` as Node's `util.inspect` prints it, with its defaults (see
    /// [`crate::inspect`]): what `console.log` prints for a value that is not a string. No
    /// code of the value's runs: a getter prints as `[Getter]`, a proxy as its target.
    pub fn inspect(&mut self, value: &v8::Global<v8::Value>) -> String {
        self.with_scope(|scope| {
            let value = v8::Local::new(scope, value);
            crate::inspect::inspect(scope, value, &crate::inspect::InspectOptions::default())
        })
    }
}
