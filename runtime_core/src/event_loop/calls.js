// Calls in flight (`calls.rs`): evaluates to a function that takes `settled(id)` and gives
// `track(promise, id)`, which adds one reaction to the call's promise that tells the runtime
// which call settled. `then` is captured now: a script that replaces it later changes nothing.
(function (settled) {
  "use strict";
  const ReflectApply = Reflect.apply;
  const then = Promise.prototype.then;
  return function track(promise, id) {
    const done = () => settled(id);
    ReflectApply(then, promise, [done, done]);
  };
});
