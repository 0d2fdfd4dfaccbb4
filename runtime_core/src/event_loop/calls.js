// Calls in flight (`calls.rs`): evaluates to a function that takes `settled(id)` and gives
// `track(promise, id)`, which adds one reaction to the call's promise that tells the runtime
// which call settled. Run when the context is made, before any script: `then` and
// `Reflect.apply` are the context's own, and a script that replaces them changes nothing.
(function (settled) {
  "use strict";
  const ReflectApply = Reflect.apply;
  const then = Promise.prototype.then;
  return function track(promise, id) {
    const done = () => settled(id);
    ReflectApply(then, promise, [done, done]);
  };
});
