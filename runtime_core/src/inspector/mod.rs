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
//! What a debugger and a runtime queue for each other is bounded: messages to the runtime
//! at [`MAX_QUEUED_IN`] bytes in all (more is refused: [`InspectorSession::send`] says so),
//! and a session's responses and events at [`MAX_QUEUED_OUT`] bytes not yet received (past
//! it the session is disconnected: a debugger that reads nothing does not make the host hold
//! everything a tenant logs). Once the runtime is gone, every session reads `None`.
//!
//! [`Runtime::dispatch_inspector_messages`]: crate::Runtime::dispatch_inspector_messages
//! [`Runtime::wait_for_debugger`]: crate::Runtime::wait_for_debugger

mod runtime_side;
#[cfg(feature = "inspector-server")]
mod server;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
use std::time::Duration;

pub(crate) use runtime_side::InspectorState;
#[cfg(feature = "inspector-server")]
pub use server::{InspectorServer, HEAD_TIMEOUT, MAX_CONNECTIONS, MAX_MESSAGE};

/// A runtime's inspector, to connect sessions from any thread (cheap to clone).
#[derive(Clone)]
pub struct Inspector {
    inbox: Arc<Inbox>,
}

/// The most bytes of messages queued for a runtime, from all its sessions.
pub const MAX_QUEUED_IN: usize = 16 << 20;
/// The most bytes of a session's responses and events queued and not received.
pub const MAX_QUEUED_OUT: usize = 32 << 20;

/// One debugger's connection to a runtime: messages in, responses and events out. Dropping it
/// disconnects (a runtime paused for it resumes).
pub struct InspectorSession {
    id: u32,
    inbox: Arc<Inbox>,
    outgoing: mpsc::Receiver<String>,
    /// Bytes of `outgoing` not received yet.
    queued: Arc<AtomicUsize>,
}

/// Where the runtime's side sends a session's responses and events.
pub(crate) struct Outbox {
    pub(crate) sender: mpsc::Sender<String>,
    pub(crate) queued: Arc<AtomicUsize>,
}

/// What the runtime's thread has to do, from every session.
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
    arrived: Condvar,
    next_id: AtomicU32,
    /// No runtime reads it (a snapshot builder's, or its runtime is gone): sessions are
    /// disconnected at once.
    closed: AtomicBool,
}

#[derive(Default)]
struct InboxState {
    queue: VecDeque<(u32, Incoming)>,
    /// Bytes of the messages queued.
    bytes: usize,
    /// The event loop's waker, while it waits.
    waker: Option<Waker>,
}

pub(crate) enum Incoming {
    Connect(Outbox),
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
        let queued = Arc::new(AtomicUsize::new(0));
        // An inbox no runtime reads drops the sender: the session is disconnected at once.
        self.inbox.push(
            id,
            Incoming::Connect(Outbox {
                sender,
                queued: queued.clone(),
            }),
        );
        InspectorSession {
            id,
            inbox: self.inbox.clone(),
            outgoing,
            queued,
        }
    }
}

impl InspectorSession {
    /// Sends a protocol message (a JSON request: `{"id":1,"method":"Debugger.enable"}`).
    /// `false` if it was not queued: the runtime is gone, or has [`MAX_QUEUED_IN`] bytes
    /// queued that it has not taken.
    pub fn send(&self, message: impl Into<String>) -> bool {
        self.inbox.push(self.id, Incoming::Message(message.into()))
    }

    /// The next response or event, waiting for it; `None` once the runtime is gone (or
    /// disconnected the session).
    pub fn recv(&self) -> Option<String> {
        self.outgoing.recv().ok().map(|message| self.taken(message))
    }

    /// The next response or event, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<String, mpsc::RecvTimeoutError> {
        self.outgoing
            .recv_timeout(timeout)
            .map(|message| self.taken(message))
    }

    /// The next response or event, if one is there.
    pub fn try_recv(&self) -> Result<String, mpsc::TryRecvError> {
        self.outgoing.try_recv().map(|message| self.taken(message))
    }

    fn taken(&self, message: String) -> String {
        self.queued.fetch_sub(message.len(), Ordering::Relaxed);
        message
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
            closed: AtomicBool::new(false),
        })
    }

    /// An inbox no runtime reads.
    pub(crate) fn closed() -> Arc<Self> {
        let inbox = Self::new();
        inbox.close();
        inbox
    }

    /// No runtime reads it from now on: what is queued is dropped (a session waiting for
    /// its connection reads `None`), and so is whatever comes.
    pub(crate) fn close(&self) {
        let queue = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            self.closed.store(true, Ordering::Release);
            state.bytes = 0;
            std::mem::take(&mut state.queue)
        };
        drop(queue);
        self.arrived.notify_all();
    }

    /// Queues `incoming`; `false` if it was dropped (closed, or a message past
    /// [`MAX_QUEUED_IN`]).
    fn push(&self, id: u32, incoming: Incoming) -> bool {
        let waker = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if self.closed.load(Ordering::Acquire) {
                return false;
            }
            if let Incoming::Message(message) = &incoming {
                if state.bytes + message.len() > MAX_QUEUED_IN {
                    return false;
                }
                state.bytes += message.len();
            }
            state.queue.push_back((id, incoming));
            state.waker.take()
        };
        self.arrived.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
        true
    }

    /// Queues the end of session `id` (the runtime's side ends it).
    pub(crate) fn push_disconnect(&self, id: u32) {
        self.push(id, Incoming::Disconnect);
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
        let popped = state.queue.pop_front();
        if let Some((_, Incoming::Message(message))) = &popped {
            state.bytes -= message.len();
        }
        popped
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
