//! The JavaScript side of async ops, as deno_core does it (`setUpAsyncStub`): each async op is
//! installed behind a wrapper that turns its raw result into a promise. An op that finishes
//! during its call returns its value (or throws its error), and the wrapper makes a settled
//! promise of it in JavaScript: no promise made through the V8 API, no handle kept. An op still
//! running returns the promise the event loop will settle, which `Promise.resolve` returns as
//! is. Every error of an async op, argument conversion included, rejects its promise: an async
//! op never throws. (deno also makes the pending promise in JavaScript, keyed by an id in a
//! ring, and settles it by calling back into JavaScript; tried here, that measured slower per
//! loop round trip than settling through the V8 API in the runs made, though within this
//! machine's run-to-run noise: the simpler way stays until a steadier measurement says
//! otherwise.)

/// Evaluates to the wrapping function.
pub(crate) const ASYNC_OPS_JS: &str = r#"(function () {
  "use strict";
  const PromiseCtor = Promise;
  const promiseResolve = (value) => PromiseCtor.resolve(value);
  const promiseReject = (error) => PromiseCtor.reject(error);

  return function wrap(op) {
    let wrapper;
    switch (op.length) {
      case 0:
        wrapper = function () {
          try { return promiseResolve(op()); } catch (error) { return promiseReject(error); }
        };
        break;
      case 1:
        wrapper = function (a) {
          try { return promiseResolve(op(a)); } catch (error) { return promiseReject(error); }
        };
        break;
      case 2:
        wrapper = function (a, b) {
          try { return promiseResolve(op(a, b)); } catch (error) { return promiseReject(error); }
        };
        break;
      case 3:
        wrapper = function (a, b, c) {
          try { return promiseResolve(op(a, b, c)); } catch (error) { return promiseReject(error); }
        };
        break;
      default:
        wrapper = function (...args) {
          try { return promiseResolve(op(...args)); } catch (error) { return promiseReject(error); }
        };
        Object.defineProperty(wrapper, "length", { value: op.length });
    }
    Object.defineProperty(wrapper, "name", { value: op.name });
    return wrapper;
  };
})()"#;

/// Runs [`ASYNC_OPS_JS`] in the context: the wrapping function.
pub(crate) fn install<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Function> {
    crate::runtime::run_script(scope, "<async ops>", ASYNC_OPS_JS)
        .ok()
        .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
        .expect("the async machinery evaluates to a function")
}
