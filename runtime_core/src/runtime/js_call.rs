//! Calling into JavaScript from Rust: functions by handle, arguments through [`ToV8`] and
//! results through [`FromV8`], every failure a [`JsError`] (a throw with its stack, a
//! termination, a conversion's error), never an `Option` that lost the exception.

use crate::event_loop::calls::CallInFlight;
use crate::{FromV8, JsError, OpError, Runtime, ToV8};

/// The arguments of a call: `()`, or a tuple of up to 8 [`ToV8`] values.
pub trait JsArgs {
    /// The converted values (an array: no allocation per call).
    type Values<'s>: AsRef<[v8::Local<'s, v8::Value>]>;

    /// Converts each argument in order.
    fn to_values<'s>(self, scope: &mut v8::PinScope<'s, '_>) -> Result<Self::Values<'s>, OpError>;
}

macro_rules! js_args {
    ($len:literal: $($name:ident)*) => {
        impl<$($name: ToV8),*> JsArgs for ($($name,)*) {
            type Values<'s> = [v8::Local<'s, v8::Value>; $len];

            #[allow(non_snake_case, unused_variables)]
            fn to_values<'s>(
                self,
                scope: &mut v8::PinScope<'s, '_>,
            ) -> Result<Self::Values<'s>, OpError> {
                let ($($name,)*) = self;
                Ok([$($name.to_v8(scope)?),*])
            }
        }
    };
}

js_args!(0:);
js_args!(1: A);
js_args!(2: A B);
js_args!(3: A B C);
js_args!(4: A B C D);
js_args!(5: A B C D E);
js_args!(6: A B C D E F);
js_args!(7: A B C D E F G);
js_args!(8: A B C D E F G H);

impl Runtime {
    /// The function `globalThis[name]`; a `TypeError` if it is not one.
    pub fn global_function(&mut self, name: &str) -> Result<v8::Global<v8::Function>, JsError> {
        self.try_with_scope(|scope| {
            let key = v8::String::new(scope, name)?;
            let global = scope.get_current_context().global(scope);
            let value = global.get(scope, key.into())?;
            Some(v8::Local::<v8::Function>::try_from(value).map(|f| v8::Global::new(scope, f)))
        })?
        .map_err(|_| JsError::host("TypeError", &format!("globalThis.{name} is not a function")))
    }

    /// Calls `function` with `args` (`this` undefined) and converts its result to `R` (any
    /// [`FromV8`] type: a derived struct, `String`, `v8::Global<v8::Value>` for the value
    /// itself). A throw is a [`JsError`] with its message and stack; a termination is
    /// [`JsErrorKind::Terminated`](crate::JsErrorKind::Terminated). A promise is returned as
    /// it is: [`Runtime::call_and_await`] awaits it.
    pub fn call<R: for<'s> FromV8<'s>>(
        &mut self,
        function: &impl Callee,
        args: impl JsArgs,
    ) -> Result<R, JsError> {
        let called = self.try_with_scope(|scope| {
            let value = call_in(scope, function, args)?;
            Some(value.and_then(|value| {
                R::from_v8(scope, value).map_err(|error| JsError::conversion("the result", &error))
            }))
        });
        self.inner
            .event_loop
            .calls
            .may_have_settled(&self.inner.event_loop);
        called?
    }

    /// Calls `function`, then drives the event loop until the promise it returned settles (a
    /// value that is no promise is taken at once), and converts the value to `R`. A rejection
    /// is a [`JsError`] (its stack kept), as is a promise that nothing can settle any more.
    pub async fn call_and_await<R: for<'s> FromV8<'s>>(
        &mut self,
        function: &impl Callee,
        args: impl JsArgs,
    ) -> Result<R, JsError> {
        // One scope when the function's promise is settled by the time the call returns (its
        // microtasks run as the call ends): the value is converted there.
        let called = self.try_with_scope(|scope| {
            let value = match call_in(scope, function, args)? {
                Ok(value) => value,
                Err(error) => return Some(Err(error)),
            };
            let settled = match v8::Local::<v8::Promise>::try_from(value) {
                Ok(promise) => match promise.state() {
                    v8::PromiseState::Fulfilled => Some(promise.result(scope)),
                    v8::PromiseState::Rejected | v8::PromiseState::Pending => None,
                },
                Err(_) => Some(value),
            };
            Some(Ok(match settled {
                Some(value) => Ok(R::from_v8(scope, value)
                    .map_err(|error| JsError::conversion("the result", &error))),
                None => Err(v8::Global::new(scope, value)),
            }))
        })??;
        let pending = match called {
            Ok(converted) => return converted,
            Err(pending) => pending,
        };
        let value = self.resolve(pending).await?;
        self.try_with_scope(|scope| {
            let value = v8::Local::new(scope, &value);
            Some(
                R::from_v8(scope, value).map_err(|error| JsError::conversion("the result", &error)),
            )
        })?
    }
}

impl Runtime {
    /// Calls `function` and returns at once, its JavaScript run up to its first `await`: a
    /// [`CallInFlight`] future of its result (converted to `R` through [`FromV8`], as
    /// [`Runtime::call_and_await`] does) that borrows nothing. A host starts many calls this
    /// way, one per request, and learns when each settles, in any order, while one place
    /// drives the event loop ([`Runtime::poll_event_loop`], [`Runtime::run_until`]).
    ///
    /// Every call's future ends: with its value, its throw or rejection (stack kept), a
    /// termination (any termination fails every call in flight: V8 drops the microtasks
    /// their continuations wait in), or an error when its promise can no longer settle (the
    /// loop went idle, [`Runtime::cancel_pending_work`], the runtime dropped).
    ///
    /// ```
    /// use runtime_core::{Runtime, RuntimeOptions};
    ///
    /// let mut runtime = Runtime::new(RuntimeOptions::default());
    /// runtime
    ///     .execute_script("h.js", "globalThis.h = (ms) => new Promise((r) => setTimeout(() => r(ms), ms))")
    ///     .unwrap();
    /// let h = runtime.global_function("h").unwrap();
    /// let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let slow = runtime.start_call::<u32>(&h, (30,));
    /// let fast = runtime.start_call::<u32>(&h, (1,));
    /// // The second settles first; both settle while the loop runs.
    /// assert_eq!(tokio.block_on(runtime.run_until(fast)).unwrap(), Ok(1));
    /// assert!(!slow.is_settled());
    /// assert_eq!(tokio.block_on(runtime.run_until(slow)).unwrap(), Ok(30));
    /// ```
    pub fn start_call<R: for<'s> FromV8<'s> + 'static>(
        &mut self,
        function: &impl Callee,
        args: impl JsArgs,
    ) -> CallInFlight<R> {
        self.start_call_on_behalf(None, function, args)
    }

    /// As [`Runtime::start_call`], on behalf of `owner` (the host's id of the call): the
    /// timers the call sets, in its first part or after an `await`, and those their callbacks
    /// set, are its work, which [`Runtime::cancel_work_of`] cancels when the host gives up on
    /// the call (it timed out; its client went away). `serve::Server` starts every call so.
    pub fn start_call_as<R: for<'s> FromV8<'s> + 'static>(
        &mut self,
        owner: std::num::NonZeroU64,
        function: &impl Callee,
        args: impl JsArgs,
    ) -> CallInFlight<R> {
        self.start_call_on_behalf(Some(owner), function, args)
    }

    /// Cancels the work of the call started on behalf of `owner`
    /// ([`Runtime::start_call_as`]): its timers, forgotten in JavaScript too. Its ops run to
    /// their end (an op's future is the host's code, which the runtime cannot stop halfway
    /// safely) and their results go to promises nothing waits on. The call is remembered as
    /// abandoned ([`crate::AbandonedCalls`]), for extensions that would start work for its
    /// answer. Returns how many timers.
    pub fn cancel_work_of(&mut self, owner: std::num::NonZeroU64) -> usize {
        {
            use crate::event_loop::work_owner::AbandonedCalls;
            let mut state = self.state.borrow_mut();
            if !state.has::<AbandonedCalls>() {
                state.put(AbandonedCalls::default());
            }
            state.borrow_mut::<AbandonedCalls>().add(owner);
        }
        let Some(timers) = self
            .state
            .borrow()
            .try_borrow::<std::rc::Rc<crate::event_loop::timer_heap::Timers>>()
            .cloned()
        else {
            return 0;
        };
        self.with_scope(|scope| timers.cancel_owned(scope, owner))
    }

    fn start_call_on_behalf<R: for<'s> FromV8<'s> + 'static>(
        &mut self,
        owner: Option<std::num::NonZeroU64>,
        function: &impl Callee,
        args: impl JsArgs,
    ) -> CallInFlight<R> {
        use crate::event_loop::work_owner;
        let event_loop = self.inner.event_loop.clone();
        let mut call = None;
        let called = self.try_with_scope(|scope| {
            if let Some(owner) = owner {
                work_owner::enter(scope, owner);
            }
            let called = call_in(scope, function, args);
            if owner.is_some() {
                work_owner::leave(scope);
            }
            let value = match called? {
                // A termination V8 had not acted on when the function returned (its interrupt
                // reads the stack first: `TerminationHandle`) is the call's outcome, never its
                // value, which would settle the call before the request is spent.
                // (The flag alone: V8 is not terminating, or the call would have failed.)
                Ok(_) if event_loop.termination_requested() => {
                    return Some(Err(JsError::terminated_in(scope)))
                }
                Ok(value) => value,
                Err(error) => return Some(Err(error)),
            };
            call = Some(event_loop.calls.start::<R>(scope, Ok(value), &event_loop));
            Some(Ok(()))
        });
        match (call, called.and_then(|called| called)) {
            // Failed (or terminated) after its call returned: the call is in flight and
            // failed with the rest (see `with_scope_spent`).
            (Some(call), _) => call,
            (None, outcome) => {
                let error = outcome
                    .err()
                    .unwrap_or_else(|| JsError::host("Error", "the call returned nothing"));
                self.with_scope(|scope| event_loop.calls.start::<R>(scope, Err(error), &event_loop))
            }
        }
    }

    /// Drives the event loop until `future` is ready: typically a [`CallInFlight`], or what a
    /// host awaits beside its runtime's calls (a request, a shutdown signal). The loop going
    /// idle does not end it (a call in flight then fails, which readies it); an error of the
    /// loop (a promise rejected with no handler, a termination) is the `Err`.
    pub async fn run_until<F: std::future::Future>(
        &mut self,
        future: F,
    ) -> Result<F::Output, JsError> {
        let mut future = std::pin::pin!(future);
        std::future::poll_fn(move |cx| {
            if let std::task::Poll::Ready(output) = future.as_mut().poll(cx) {
                return std::task::Poll::Ready(Ok(output));
            }
            match self.poll_event_loop(cx) {
                std::task::Poll::Ready(Err(error)) => std::task::Poll::Ready(Err(error)),
                // A turn may have readied it.
                _ => future.as_mut().poll(cx).map(Ok),
            }
        })
        .await
    }
}

/// Converts the arguments and calls; `None` if the call threw (the caller's `TryCatch` has
/// it), `Some(Err)` if an argument did not convert.
fn call_in<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    callee: &impl Callee,
    args: impl JsArgs,
) -> Option<Result<v8::Local<'s, v8::Value>, JsError>> {
    let args = match args.to_values(scope) {
        Ok(args) => args,
        Err(error) => return Some(Err(JsError::conversion("an argument", &error))),
    };
    let function = v8::Local::new(scope, callee.function());
    let receiver = match callee.receiver() {
        Some(receiver) => v8::Local::new(scope, receiver),
        None => v8::undefined(scope).into(),
    };
    // A termination requested while the function ran is spent when the call returns, and
    // makes it `Terminated` (see `try_with_scope`).
    function.call(scope, receiver, args.as_ref()).map(Ok)
}

/// What [`Runtime::call`], [`Runtime::call_and_await`] and [`Runtime::start_call`] call: a
/// function (`this` undefined), or a [`Method`] (its receiver as `this`).
pub trait Callee {
    /// The function called.
    fn function(&self) -> &v8::Global<v8::Function>;
    /// Its `this`; `None`: `undefined`.
    fn receiver(&self) -> Option<&v8::Global<v8::Value>>;
}

impl Callee for v8::Global<v8::Function> {
    fn function(&self) -> &v8::Global<v8::Function> {
        self
    }

    fn receiver(&self) -> Option<&v8::Global<v8::Value>> {
        None
    }
}

/// A function with the object it was read from, called with that object as `this`: what
/// `object.name(...)` does in JavaScript. Made by [`Runtime::method`] or
/// [`Runtime::module_method`].
#[derive(Clone, Debug)]
pub struct Method {
    /// The object the function was read from.
    pub receiver: v8::Global<v8::Value>,
    /// The function.
    pub function: v8::Global<v8::Function>,
}

impl Callee for Method {
    fn function(&self) -> &v8::Global<v8::Function> {
        &self.function
    }

    fn receiver(&self) -> Option<&v8::Global<v8::Value>> {
        Some(&self.receiver)
    }
}

impl Runtime {
    /// The method `name` of `receiver` (`receiver[name]`, which must be a function), to call
    /// with `receiver` as `this`. Reading the property may run the object's getter (or a
    /// proxy's trap): its throw or termination is the `Err`.
    pub fn method(
        &mut self,
        receiver: &v8::Global<v8::Value>,
        name: &str,
    ) -> Result<Method, JsError> {
        self.try_with_scope(|scope| {
            let object = v8::Local::new(scope, receiver);
            Some(read_method(scope, object, name, name))
        })?
    }

    /// The function a loaded (and evaluated) module exports at `path`: an export's name
    /// (`"handle"`), or a dotted path into it (`"default.onEvent"`, `"api.v1.get"`), with the
    /// object it was read from as its `this` (the module's namespace for a top-level export).
    /// A `TypeError` names the path when a step is no object or the end no function.
    ///
    /// ```
    /// use std::rc::Rc;
    /// use runtime_core::modules::{ModuleSource, StaticModuleLoader};
    /// use runtime_core::{Runtime, RuntimeOptions};
    ///
    /// let mut runtime = Runtime::new(RuntimeOptions {
    ///     module_loader: Some(Rc::new(StaticModuleLoader::new([(
    ///         "file:///plugin.js".to_owned(),
    ///         ModuleSource::js("export default { seen: 0, onEvent(n) { return this.seen += n; } };"),
    ///     )]))),
    ///     ..Default::default()
    /// });
    /// let tokio = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let id = tokio.block_on(runtime.load_main_module("file:///plugin.js")).unwrap();
    /// tokio.block_on(runtime.mod_evaluate(id)).unwrap();
    /// let on_event = runtime.module_method(id, "default.onEvent").unwrap();
    /// assert_eq!(runtime.call::<u32>(&on_event, (2,)).unwrap(), 2);
    /// assert_eq!(runtime.call::<u32>(&on_event, (3,)).unwrap(), 5);
    /// ```
    pub fn module_method(
        &mut self,
        id: crate::modules::ModuleId,
        path: &str,
    ) -> Result<Method, JsError> {
        let namespace = self.get_module_namespace(id)?;
        self.try_with_scope(|scope| {
            let mut object: v8::Local<v8::Value> = v8::Local::new(scope, &namespace).into();
            let mut steps = path.split('.').peekable();
            while let Some(step) = steps.next() {
                if steps.peek().is_none() {
                    return Some(read_method(scope, object, step, path));
                }
                let Ok(holder) = v8::Local::<v8::Object>::try_from(object) else {
                    return Some(Err(not_an_object(path, step)));
                };
                let key = v8::String::new(scope, step)?;
                object = holder.get(scope, key.into())?;
            }
            Some(Err(JsError::host(
                "TypeError",
                "a module method's path is empty",
            )))
        })?
    }
}

/// `object[name]` as a [`Method`] of `object`; `path` names it in errors.
fn read_method<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Value>,
    name: &str,
    path: &str,
) -> Result<Method, JsError> {
    let Ok(holder) = v8::Local::<v8::Object>::try_from(object) else {
        return Err(not_an_object(path, name));
    };
    let function = v8::String::new(scope, name)
        .and_then(|key| holder.get(scope, key.into()))
        .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok());
    match function {
        Some(function) => Ok(Method {
            receiver: v8::Global::new(scope, object),
            function: v8::Global::new(scope, function),
        }),
        // A getter that threw leaves its exception for the caller's `TryCatch`, which reports
        // it instead.
        None => Err(JsError::host(
            "TypeError",
            &format!("{path} is not a function"),
        )),
    }
}

fn not_an_object(path: &str, step: &str) -> JsError {
    JsError::host(
        "TypeError",
        &format!("{path}: what holds {step} is not an object"),
    )
}
