//! The inspector on the runtime's thread: V8's inspector and its client (the pause loop), the
//! sessions, and the handling of what the [`Inbox`] brings.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Waker};
use std::time::Duration;

use v8::inspector::{
    Channel, ChannelImpl, StringBuffer, StringView, V8Inspector, V8InspectorClient,
    V8InspectorClientImpl, V8InspectorClientTrustLevel, V8InspectorSession,
};

use super::{Inbox, Incoming};
use crate::event_loop::LoopSource;
use crate::{JsError, TerminationHandle};

/// The one context group of a runtime (its one context).
const CONTEXT_GROUP: i32 = 1;
/// How often a thread that waits for messages (paused, or waiting for a debugger) looks at
/// whether its runtime is being terminated.
const TERMINATION_CHECK: Duration = Duration::from_millis(20);

/// A runtime's inspector: made by the first `Runtime::inspector`, polled by the event loop,
/// shut down by the runtime before its isolate goes.
pub(crate) struct InspectorState {
    shared: Rc<Shared>,
    v8: RefCell<Option<Rc<V8Inspector>>>,
}

struct Shared {
    inbox: Arc<Inbox>,
    inspector: RefCell<Weak<V8Inspector>>,
    sessions: RefCell<Vec<(u32, Rc<V8InspectorSession>)>>,
    paused: Cell<bool>,
    /// How many pause loops are running (JavaScript is on the stack in each), whether or not
    /// a resume has already cleared `paused`.
    in_pause: Cell<u32>,
    waiting_for_debugger: Cell<bool>,
    termination: TerminationHandle,
    /// The isolate, to run the tasks a message posts to its thread (a heap snapshot is taken
    /// in one).
    isolate: v8::UnsafeRawIsolatePtr,
    /// The runtime's context: where a message that names none evaluates.
    context: RefCell<Option<v8::Global<v8::Context>>>,
}

impl InspectorState {
    /// V8's inspector for the isolate of `scope`, with the runtime's context.
    pub(crate) fn new(
        scope: &mut v8::PinScope<'_, '_>,
        termination: TerminationHandle,
    ) -> Rc<Self> {
        let shared = Rc::new(Shared {
            inbox: Inbox::new(),
            inspector: RefCell::new(Weak::new()),
            sessions: RefCell::new(Vec::new()),
            paused: Cell::new(false),
            in_pause: Cell::new(0),
            waiting_for_debugger: Cell::new(false),
            termination,
            // SAFETY: only read back on the isolate's thread while V8 inspects it, and the
            // runtime shuts its inspector down before the isolate goes.
            isolate: unsafe { scope.as_raw_isolate_ptr() },
            context: RefCell::new(None),
        });
        let client = V8InspectorClient::new(Box::new(Client(shared.clone())));
        let v8 = Rc::new(V8Inspector::create(scope, client));
        let context = scope.get_current_context();
        *shared.context.borrow_mut() = Some(v8::Global::new(scope, context));
        v8.context_created(
            context,
            CONTEXT_GROUP,
            StringView::from(&b"opwire"[..]),
            StringView::from(&br#"{"isDefault":true}"#[..]),
        );
        *shared.inspector.borrow_mut() = Rc::downgrade(&v8);
        Rc::new(Self {
            shared,
            v8: RefCell::new(Some(v8)),
        })
    }

    pub(crate) fn inbox(&self) -> Arc<Inbox> {
        self.shared.inbox.clone()
    }

    /// Handles every message queued; how many.
    pub(crate) fn dispatch(&self) -> usize {
        let mut handled = 0;
        while self.shared.handle_one(None) {
            handled += 1;
        }
        handled
    }

    /// Blocks until a session sends `Runtime.runIfWaitingForDebugger` (handling every message
    /// meanwhile), or the runtime is terminated; then, if `break_on_start`, schedules a pause
    /// on the next statement in every session.
    pub(crate) fn wait_for_debugger(&self, break_on_start: bool) {
        let shared = &self.shared;
        shared.waiting_for_debugger.set(true);
        while shared.waiting_for_debugger.get() && !shared.termination.is_requested() {
            if !shared.handle_one(None) {
                shared.inbox.wait(TERMINATION_CHECK);
            }
        }
        shared.waiting_for_debugger.set(false);
        if break_on_start {
            let sessions: Vec<_> = shared
                .sessions
                .borrow()
                .iter()
                .map(|(_, s)| s.clone())
                .collect();
            for session in sessions {
                session.schedule_pause_on_next_statement(
                    StringView::from(&b"debugCommand"[..]),
                    StringView::empty(),
                );
            }
        }
    }

    /// Disconnects every session, then drops V8's inspector: while the isolate is entered,
    /// before it goes. The inbox is closed: a session that connects later, or whose
    /// connection was still queued, reads `None`.
    pub(crate) fn shut_down(&self) {
        self.shared.inbox.close();
        let sessions = std::mem::take(&mut *self.shared.sessions.borrow_mut());
        drop(sessions);
        drop(self.v8.borrow_mut().take());
        drop(self.shared.context.borrow_mut().take());
    }
}

impl Shared {
    /// Handles the first thing queued, if any (`waker`: the event loop's, to wake it when more
    /// comes). No borrow is held while V8 handles a message: it may pause and come back here.
    fn handle_one(&self, waker: Option<&Waker>) -> bool {
        let Some((id, incoming)) = self.inbox.pop(waker) else {
            return false;
        };
        match incoming {
            Incoming::Connect(outbox) => {
                if let Some(inspector) = self.inspector.borrow().upgrade() {
                    let outgoing = Outgoing {
                        outbox: RefCell::new(Some(outbox)),
                        id,
                        inbox: self.inbox.clone(),
                    };
                    let channel = Channel::new(Box::new(outgoing));
                    let session = inspector.connect(
                        CONTEXT_GROUP,
                        channel,
                        StringView::empty(),
                        V8InspectorClientTrustLevel::FullyTrusted,
                    );
                    self.sessions.borrow_mut().push((id, Rc::new(session)));
                }
            }
            Incoming::Message(message) => {
                let session = self
                    .sessions
                    .borrow()
                    .iter()
                    .find(|(session_id, _)| *session_id == id)
                    .map(|(_, session)| session.clone());
                if let Some(session) = session {
                    if message.is_ascii() {
                        session.dispatch_protocol_message(StringView::from(message.as_bytes()));
                    } else {
                        // V8 reads an 8-bit view as Latin-1.
                        let wide: Vec<u16> = message.encode_utf16().collect();
                        session.dispatch_protocol_message(StringView::from(&wide[..]));
                    }
                    self.run_posted_tasks();
                }
            }
            Incoming::Disconnect => {
                let session = {
                    let mut sessions = self.sessions.borrow_mut();
                    let index = sessions
                        .iter()
                        .position(|(session_id, _)| *session_id == id);
                    index.map(|index| sessions.remove(index))
                };
                drop(session);
                if self.sessions.borrow().is_empty() {
                    // Nobody is left to resume a pause or to say "run".
                    self.paused.set(false);
                    self.waiting_for_debugger.set(false);
                }
            }
        }
        true
    }
}

impl Shared {
    /// Runs the tasks V8 posted to the isolate's thread (a heap snapshot's, say).
    fn run_posted_tasks(&self) {
        // SAFETY: on the isolate's thread, which is in V8 or in the runtime's scope whenever
        // a message is handled; the isolate lives until the inspector is shut down.
        let isolate = unsafe { v8::Isolate::ref_from_raw_isolate_ptr(&self.isolate) };
        let tasks = isolate
            .get_slot::<Arc<crate::isolate::tasks::IsolateTasks>>()
            .cloned();
        if let Some(tasks) = tasks {
            // Those queued now; while paused, JavaScript is on the stack, and only those that
            // may run nested do (a FinalizationRegistry callback waits for the loop). A task
            // that posts another leaves it to the loop's next turn.
            let stopped = || self.termination.is_requested() || isolate.is_execution_terminating();
            tasks.run(usize::MAX, self.in_pause.get() > 0, &stopped);
        }
    }
}

/// V8's inspector client: the pause loop.
struct Client(Rc<Shared>);

impl V8InspectorClientImpl for Client {
    fn run_message_loop_on_pause(&self, _context_group_id: i32) {
        let shared = &self.0;
        shared.paused.set(true);
        shared.in_pause.set(shared.in_pause.get() + 1);
        while shared.paused.get() && !shared.termination.is_requested() {
            if !shared.handle_one(None) {
                shared.inbox.wait(TERMINATION_CHECK);
            }
        }
        shared.in_pause.set(shared.in_pause.get() - 1);
        shared.paused.set(false);
    }

    fn quit_message_loop_on_pause(&self) {
        self.0.paused.set(false);
    }

    fn run_if_waiting_for_debugger(&self, _context_group_id: i32) {
        self.0.waiting_for_debugger.set(false);
    }

    /// The runtime's context, for a message that names none (`Runtime.evaluate`).
    fn ensure_default_context_in_group(
        &self,
        _context_group_id: i32,
    ) -> Option<v8::Local<'_, v8::Context>> {
        let context = self.0.context.borrow().clone()?;
        // SAFETY: V8 calls this on the isolate's thread, inside its own handle scope; the
        // isolate lives until the inspector is shut down.
        let mut isolate = unsafe { v8::Isolate::from_raw_isolate_ptr(self.0.isolate) };
        v8::callback_scope!(unsafe scope, &mut isolate);
        let context = v8::Local::new(scope, context);
        // SAFETY: a callback scope opens no handle scope: the handle is made in V8's, which
        // outlives this call.
        Some(unsafe { context.extend_lifetime_unchecked() })
    }

    /// A script's URL is its name (rusty_v8's default leaves every URL empty: no breakpoint
    /// by URL would resolve).
    fn resource_name_to_url(
        &self,
        resource_name: &StringView,
    ) -> Option<v8::UniquePtr<StringBuffer>> {
        Some(StringBuffer::create(*resource_name))
    }
}

/// A session's responses and events, to its [`InspectorSession`](super::InspectorSession).
struct Outgoing {
    /// `None` once the session was disconnected for reading too little.
    outbox: RefCell<Option<super::Outbox>>,
    id: u32,
    inbox: Arc<Inbox>,
}

impl ChannelImpl for Outgoing {
    fn send_response(&self, _call_id: i32, message: v8::UniquePtr<StringBuffer>) {
        self.send(message);
    }

    fn send_notification(&self, message: v8::UniquePtr<StringBuffer>) {
        self.send(message);
    }

    fn flush_protocol_notifications(&self) {}
}

impl Outgoing {
    fn send(&self, message: v8::UniquePtr<StringBuffer>) {
        let Some(message) = message.as_ref() else {
            return;
        };
        let mut outbox = self.outbox.borrow_mut();
        let Some(open) = outbox.as_ref() else {
            return;
        };
        let message = message.string().to_string();
        let queued = open.queued.fetch_add(message.len(), Ordering::Relaxed) + message.len();
        if queued > super::MAX_QUEUED_OUT {
            // The debugger reads too little: its receiver reads what was queued, then `None`,
            // and the runtime drops the session when it next handles messages (not here:
            // V8 is sending through it).
            drop(outbox.take());
            self.inbox.push_disconnect(self.id);
            return;
        }
        // A session dropped on the other side: nobody reads it any more.
        let _ = open.sender.send(message);
    }
}

/// The event loop handles what the sessions sent on every turn; a message wakes it.
impl LoopSource for InspectorState {
    fn poll_source(
        &self,
        _scope: &mut v8::PinScope<'_, '_>,
        cx: &mut Context<'_>,
    ) -> Result<bool, JsError> {
        let mut handled = false;
        while self.shared.handle_one(Some(cx.waker())) {
            handled = true;
        }
        Ok(handled)
    }

    /// A debugger attached does not keep the loop alive.
    fn keeps_alive(&self) -> bool {
        false
    }
}
