//! The JavaScript side of async ops, as deno_core does it (`setUpAsyncStub`): each async op is
//! installed behind a wrapper that turns its raw result into a promise, following the protocol
//! of [`crate::AsyncCall`]. An op that finishes during its call returns its value (or throws
//! its error), and the wrapper makes a settled promise of it in JavaScript: no promise made
//! through the V8 API, no handle kept. An op still running returns the promise the event loop
//! will settle, which `Promise.resolve` returns as is; or, with a fast path (whose call can
//! return only a number), the status `1`, and the wrapper claims that promise through one more
//! (slow) call. Every error of an async op, argument conversion and the receiver check
//! included, rejects its promise: an async op never throws. (deno makes the pending promise
//! in JavaScript, keyed by an id in a ring, and settles it by calling back into JavaScript;
//! tried here, that measured slower per loop round trip than settling through the V8 API in
//! the runs made, though within this machine's run-to-run noise: the simpler way stays until
//! a steadier measurement says otherwise.)

/// Evaluates to a function that takes `claim` and gives the wrapping function
/// `wrap(op, status, method)`: `status` for [`crate::AsyncCall::Status`] ops, `method` for
/// class methods (the receiver passed on).
pub(crate) const ASYNC_OPS_JS: &str = r#"(function (claim) {
  "use strict";
  // Captured now: user code replacing them later changes no op's promise.
  const ReflectApply = Reflect.apply;
  const ObjectDefineProperty = Object.defineProperty;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const fromStatus = (status) => status === 0 ? promiseResolve(undefined) : claim();

  // Wrappers are methods (`w` of a literal): like the ops they wrap, not constructors.
  return function wrap(op, status, method) {
    const settle = status ? fromStatus : promiseResolve;
    let wrapper;
    if (method) {
      wrapper = ({ w(...args) {
        try { return settle(ReflectApply(op, this, args)); } catch (error) { return promiseReject(error); }
      } }).w;
    } else switch (op.length) {
      case 0:
        wrapper = ({ w() {
          try { return settle(op()); } catch (error) { return promiseReject(error); }
        } }).w;
        break;
      case 1:
        wrapper = ({ w(a) {
          try { return settle(op(a)); } catch (error) { return promiseReject(error); }
        } }).w;
        break;
      case 2:
        wrapper = ({ w(a, b) {
          try { return settle(op(a, b)); } catch (error) { return promiseReject(error); }
        } }).w;
        break;
      case 3:
        wrapper = ({ w(a, b, c) {
          try { return settle(op(a, b, c)); } catch (error) { return promiseReject(error); }
        } }).w;
        break;
      default:
        wrapper = ({ w(...args) {
          try { return settle(ReflectApply(op, undefined, args)); } catch (error) { return promiseReject(error); }
        } }).w;
    }
    ObjectDefineProperty(wrapper, "length", { value: op.length });
    ObjectDefineProperty(wrapper, "name", { value: op.name });
    return wrapper;
  };
})"#;

/// The wrapping of async ops in one context.
#[derive(Clone, Copy)]
pub(crate) struct AsyncWrap<'s>(v8::Local<'s, v8::Function>);

impl<'s> AsyncWrap<'s> {
    /// Runs [`ASYNC_OPS_JS`] in the context, with a `claim` function for `event_loop`.
    pub(crate) fn install(
        scope: &mut v8::PinScope<'s, '_>,
        event_loop: &crate::event_loop::EventLoop,
    ) -> Self {
        let factory = crate::runtime::run_script(scope, "<async ops>", ASYNC_OPS_JS)
            .ok()
            .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
            .expect("the async machinery evaluates to a function");
        // The event loop outlives the isolate (op contexts hold it).
        let data = v8::External::new(scope, event_loop as *const _ as *mut std::ffi::c_void);
        let claim = v8::Function::builder(crate::event_loop::claim_callback)
            .data(data.into())
            .build(scope)
            .expect("making a function cannot fail");
        let receiver = v8::undefined(scope).into();
        let wrap = factory
            .call(scope, receiver, &[claim.into()])
            .and_then(|value| v8::Local::<v8::Function>::try_from(value).ok())
            .expect("the async machinery gives the wrapping function");
        AsyncWrap(wrap)
    }

    /// `function`'s wrapper, for an op speaking `call`; `method` passes the receiver on.
    pub(crate) fn wrap(
        self,
        scope: &mut v8::PinScope<'s, '_>,
        function: v8::Local<'s, v8::Function>,
        call: crate::AsyncCall,
        method: bool,
    ) -> v8::Local<'s, v8::Value> {
        let receiver = v8::undefined(scope).into();
        let status = v8::Boolean::new(scope, call == crate::AsyncCall::Status).into();
        let method = v8::Boolean::new(scope, method).into();
        self.0
            .call(scope, receiver, &[function.into(), status, method])
            .expect("wrapping a function cannot throw")
    }
}
