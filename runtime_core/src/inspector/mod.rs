//! The V8 inspector, for debuggers that speak the Chrome DevTools Protocol (Chrome DevTools,
//! VS Code): a runtime's [`Inspector`] (from [`Runtime::inspector`](crate::Runtime::inspector))
//! is a handle any thread may hold; each [`InspectorSession`] it connects sends protocol
//! messages to the runtime and receives its responses and events.
//!
//! The runtime handles the messages on its own thread: on every turn of its event loop (a
//! message wakes a loop that waits), in [`Runtime::dispatch_inspector_messages`], in
//! [`Runtime::wait_for_debugger`], and while its JavaScript is paused at a breakpoint, when
//! the thread waits for nothing but messages (or a termination) until a session resumes.
//! Nothing is made until the first call of `Runtime::inspector`: a runtime never inspected
//! pays nothing for it.
//!
//! [`Runtime::dispatch_inspector_messages`]: crate::Runtime::dispatch_inspector_messages
//! [`Runtime::wait_for_debugger`]: crate::Runtime::wait_for_debugger

mod runtime_side;
#[cfg(feature = "inspector-server")]
mod server;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
use std::time::Duration;

pub(crate) use runtime_side::InspectorState;
#[cfg(feature = "inspector-server")]
pub use server::InspectorServer;

/// A runtime's inspector, to connect sessions from any thread (cheap to clone).
#[derive(Clone)]
pub struct Inspector {
    inbox: Arc<Inbox>,
}

/// One debugger's connection to a runtime: messages in, responses and events out. Dropping it
/// disconnects (a runtime paused for it resumes).
pub struct InspectorSession {
    id: u32,
    inbox: Arc<Inbox>,
    outgoing: mpsc::Receiver<String>,
}

/// What the runtime's thread has to do, from every session.
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
    arrived: Condvar,
    next_id: AtomicU32,
    /// No runtime reads it (a snapshot builder's): sessions are disconnected at once.
    closed: bool,
}

#[derive(Default)]
struct InboxState {
    queue: VecDeque<(u32, Incoming)>,
    /// The event loop's waker, while it waits.
    waker: Option<Waker>,
}

pub(crate) enum Incoming {
    Connect(mpsc::Sender<String>),
    Message(String),
    Disconnect,
}

impl Inspector {
    pub(crate) fn new(inbox: Arc<Inbox>) -> Self {
        Self { inbox }
    }

    /// Connects a new session. The runtime makes it on its thread when it next handles
    /// messages; messages sent before then wait in order.
    pub fn connect(&self) -> InspectorSession {
        let id = self.inbox.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, outgoing) = mpsc::channel();
        // An inbox no runtime reads drops the sender: the session is disconnected at once.
        self.inbox.push(id, Incoming::Connect(sender));
        InspectorSession {
            id,
            inbox: self.inbox.clone(),
            outgoing,
        }
    }
}

impl InspectorSession {
    /// Sends a protocol message (a JSON request: `{"id":1,"method":"Debugger.enable"}`).
    pub fn send(&self, message: impl Into<String>) {
        self.inbox.push(self.id, Incoming::Message(message.into()));
    }

    /// The next response or event, waiting for it; `None` once the runtime is gone.
    pub fn recv(&self) -> Option<String> {
        self.outgoing.recv().ok()
    }

    /// The next response or event, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<String, mpsc::RecvTimeoutError> {
        self.outgoing.recv_timeout(timeout)
    }

    /// The next response or event, if one is there.
    pub fn try_recv(&self) -> Result<String, mpsc::TryRecvError> {
        self.outgoing.try_recv()
    }
}

impl Drop for InspectorSession {
    fn drop(&mut self) {
        self.inbox.push(self.id, Incoming::Disconnect);
    }
}

impl Inbox {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(InboxState::default()),
            arrived: Condvar::new(),
            next_id: AtomicU32::new(1),
            closed: false,
        })
    }

    /// An inbox no runtime reads.
    pub(crate) fn closed() -> Arc<Self> {
        Arc::new(Self {
            closed: true,
            ..Arc::into_inner(Self::new()).expect("just made")
        })
    }

    fn push(&self, id: u32, incoming: Incoming) {
        if self.closed {
            return;
        }
        let waker = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.queue.push_back((id, incoming));
            state.waker.take()
        };
        self.arrived.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The first thing queued, if any; `waker` is kept to wake when more comes.
    pub(crate) fn pop(&self, waker: Option<&Waker>) -> Option<(u32, Incoming)> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(waker) = waker {
            if !state
                .waker
                .as_ref()
                .is_some_and(|kept| kept.will_wake(waker))
            {
                state.waker = Some(waker.clone());
            }
        }
        state.queue.pop_front()
    }

    /// Waits until something is queued, at most `timeout`.
    pub(crate) fn wait(&self, timeout: Duration) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.queue.is_empty() {
            drop(
                self.arrived
                    .wait_timeout(state, timeout)
                    .unwrap_or_else(|e| e.into_inner()),
            );
        }
    }
}
