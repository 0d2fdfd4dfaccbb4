//! Calling into JavaScript from Rust: functions by handle, arguments through [`ToV8`] and
//! results through [`FromV8`], every failure a [`JsError`] (a throw with its stack, a
//! termination, a conversion's error), never an `Option` that lost the exception.

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

/// The error of an argument or result that did not convert.
fn conversion_error(what: &str, error: &OpError) -> JsError {
    JsError::exception(&error.class(), &format!("{what}: {}", error.message()))
}

impl Runtime {
    /// The function `globalThis[name]`; a `TypeError` if it is not one.
    pub fn global_function(&mut self, name: &str) -> Result<v8::Global<v8::Function>, JsError> {
        self.try_with_scope(|scope| {
            let key = v8::String::new(scope, name)?;
            let global = scope.get_current_context().global(scope);
            let value = global.get(scope, key.into())?;
            Some(v8::Local::<v8::Function>::try_from(value).map(|f| v8::Global::new(scope, f)))
        })?
        .map_err(|_| {
            JsError::exception("TypeError", &format!("globalThis.{name} is not a function"))
        })
    }

    /// Calls `function` with `args` (`this` undefined) and converts its result to `R` (any
    /// [`FromV8`] type: a derived struct, `String`, `v8::Global<v8::Value>` for the value
    /// itself). A throw is a [`JsError`] with its message and stack; a termination is
    /// [`JsErrorKind::Terminated`](crate::JsErrorKind::Terminated). A promise is returned as
    /// it is: [`Runtime::call_and_await`] awaits it.
    pub fn call<R: for<'s> FromV8<'s>>(
        &mut self,
        function: &v8::Global<v8::Function>,
        args: impl JsArgs,
    ) -> Result<R, JsError> {
        self.try_with_scope(|scope| {
            let value = call_in(scope, function, args)?;
            Some(value.and_then(|value| {
                R::from_v8(scope, value).map_err(|error| conversion_error("the result", &error))
            }))
        })?
    }

    /// Calls `function`, then drives the event loop until the promise it returned settles (a
    /// value that is no promise is taken at once), and converts the value to `R`. A rejection
    /// is a [`JsError`] (its stack kept), as is a promise that nothing can settle any more.
    pub async fn call_and_await<R: for<'s> FromV8<'s>>(
        &mut self,
        function: &v8::Global<v8::Function>,
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
                    .map_err(|error| conversion_error("the result", &error))),
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
            Some(R::from_v8(scope, value).map_err(|error| conversion_error("the result", &error)))
        })?
    }
}

/// Converts the arguments and calls; `None` if the call threw (the caller's `TryCatch` has
/// it), `Some(Err)` if an argument did not convert.
fn call_in<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    function: &v8::Global<v8::Function>,
    args: impl JsArgs,
) -> Option<Result<v8::Local<'s, v8::Value>, JsError>> {
    let args = match args.to_values(scope) {
        Ok(args) => args,
        Err(error) => return Some(Err(conversion_error("an argument", &error))),
    };
    let function = v8::Local::new(scope, function);
    let receiver = v8::undefined(scope).into();
    // A termination requested while the function ran is spent when the call returns, and
    // makes it `Terminated` (see `try_with_scope`).
    function.call(scope, receiver, args.as_ref()).map(Ok)
}
