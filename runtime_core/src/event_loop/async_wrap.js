(function (claim, left) {
  "use strict";
  // Captured now: user code replacing them later changes no op's promise.
  const ReflectApply = Reflect.apply;
  const ObjectDefineProperty = Object.defineProperty;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const OwnPromise = Promise;
  const keepNothing = () => {};
  const claimed = () => {
    // Only the event loop can settle it: the executor keeps no resolving function.
    const promise = new OwnPromise(keepNothing);
    claim(promise);
    return promise;
  };
  const fromStatus = (status) => status === 0 ? promiseResolve(undefined) : claimed();
  const fromValue = (value) => value === left ? claimed() : promiseResolve(value);

  // Wrappers are methods (`w` of a literal): like the ops they wrap, not constructors.
  return function wrap(op, status, method) {
    const settle = status ? fromStatus : fromValue;
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
})