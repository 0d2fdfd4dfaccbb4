//! Promises rejected with no handler (yet), kept in rejection order. A handler added later
//! (V8's `PromiseHandlerAddedAfterReject`) finds its promise's entry through the promise's
//! identity hash, so each event costs O(1) however many rejections wait: a script that
//! rejects 10^6 promises and then handles them all stays linear.

use std::collections::{HashMap, VecDeque};
use std::num::NonZeroI32;

struct Rejection {
    hash: NonZeroI32,
    promise: v8::Global<v8::Promise>,
    value: v8::Global<v8::Value>,
}

#[derive(Default)]
pub(super) struct UnhandledRejections {
    /// In rejection order; `None` where a handler came later. Never starts with `None`.
    entries: VecDeque<Option<Rejection>>,
    /// The position (counted since the runtime started) of `entries[0]`.
    first: u64,
    /// The positions of the entries whose promise has this identity hash.
    by_hash: HashMap<NonZeroI32, Vec<u64>>,
}

impl UnhandledRejections {
    pub(super) fn push(
        &mut self,
        promise: v8::Local<'_, v8::Promise>,
        promise_global: v8::Global<v8::Promise>,
        value: v8::Global<v8::Value>,
    ) {
        let hash = promise.get_identity_hash();
        let position = self.first + self.entries.len() as u64;
        self.entries.push_back(Some(Rejection {
            hash,
            promise: promise_global,
            value,
        }));
        self.by_hash.entry(hash).or_default().push(position);
    }

    /// Forgets `promise`'s rejection, if it waits here.
    pub(super) fn remove(&mut self, promise: v8::Local<'_, v8::Promise>) {
        let hash = promise.get_identity_hash();
        let Some(positions) = self.by_hash.get_mut(&hash) else {
            return;
        };
        let entries = &mut self.entries;
        let first = self.first;
        let found = positions.iter().position(|&position| {
            entries[(position - first) as usize]
                .as_ref()
                .is_some_and(|rejection| rejection.promise == promise)
        });
        let Some(found) = found else {
            return;
        };
        let position = positions.swap_remove(found);
        if positions.is_empty() {
            self.by_hash.remove(&hash);
        }
        entries[(position - first) as usize] = None;
        self.trim_front();
    }

    /// The first rejection still unhandled, taken out.
    pub(super) fn take_first(&mut self) -> Option<v8::Global<v8::Value>> {
        let rejection = self.entries.pop_front()??;
        let position = self.first;
        self.first += 1;
        if let Some(positions) = self.by_hash.get_mut(&rejection.hash) {
            positions.retain(|&kept| kept != position);
            if positions.is_empty() {
                self.by_hash.remove(&rejection.hash);
            }
        }
        self.trim_front();
        Some(rejection.value)
    }

    pub(super) fn clear(&mut self) {
        self.first += self.entries.len() as u64;
        self.entries.clear();
        self.by_hash.clear();
    }

    /// Drops the handled entries at the front, so that the first entry is a rejection.
    fn trim_front(&mut self) {
        while let Some(None) = self.entries.front() {
            self.entries.pop_front();
            self.first += 1;
        }
    }
}

/// V8's report of promises rejected without a handler, and of handlers added later.
pub(crate) extern "C" fn promise_reject_callback(message: v8::PromiseRejectMessage) {
    // SAFETY: V8 calls this with a live message, inside the isolate.
    v8::callback_scope!(unsafe scope, &message);
    v8::scope!(let scope, scope);
    let Some(event_loop) = scope.get_slot::<std::rc::Rc<super::EventLoop>>().cloned() else {
        return;
    };
    let promise = message.get_promise();
    match message.get_event() {
        v8::PromiseRejectEvent::PromiseRejectWithNoHandler => {
            let value = message
                .get_value()
                .unwrap_or_else(|| v8::undefined(scope).into());
            let promise_global = v8::Global::new(scope, promise);
            let value = v8::Global::new(scope, value);
            event_loop
                .unhandled
                .borrow_mut()
                .push(promise, promise_global, value);
        }
        v8::PromiseRejectEvent::PromiseHandlerAddedAfterReject => {
            event_loop.forget_unhandled(promise);
        }
        _ => {}
    }
}
