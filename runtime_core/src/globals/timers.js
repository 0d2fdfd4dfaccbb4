// The timers of the HTML spec over three internal ops (scripts see only the globals).
// Evaluates to a function that installs them and returns `fire(id)`, which the event loop
// calls for each timer due, in deadline order. What it uses of the language is captured
// here, before any script runs: a script that patches `Map.prototype` or the array iterator
// changes nothing of it, and `fire(0)` (cancel them all, from Rust) runs no script's code.
(function (internalOps) {
  "use strict";
  const { op_timer_start, op_timer_cancel, op_timer_ref } = internalOps;
  const { apply } = Reflect;
  const { create } = Object;
  const toNumber = Number;
  const then = Promise.prototype.then;
  const resolved = Promise.resolve();
  // By id, in an object of no prototype that no script can reach.
  let timers = create(null);

  function start(callback, delay, args, repeat) {
    if (typeof callback !== "function") {
      throw new TypeError("the timer's callback must be a function");
    }
    delay = toNumber(delay);
    if (!(delay >= 0)) delay = 0; // negative and NaN: at once, as the spec says
    const id = op_timer_start(delay, repeat);
    timers[id] = { callback, args, repeat };
    return id;
  }

  function clear(id) {
    if (typeof id === "number" && timers[id] !== undefined) {
      delete timers[id];
      op_timer_cancel(id);
    }
  }

  const define = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  define("setTimeout", function setTimeout(callback, delay = 0, ...args) {
    return start(callback, delay, args, false);
  });
  define("setInterval", function setInterval(callback, delay = 0, ...args) {
    return start(callback, delay, args, true);
  });
  define("clearTimeout", function clearTimeout(id) {
    clear(id);
  });
  define("clearInterval", function clearInterval(id) {
    clear(id);
  });
  define("queueMicrotask", function queueMicrotask(callback) {
    if (typeof callback !== "function") {
      throw new TypeError("queueMicrotask's callback must be a function");
    }
    apply(then, resolved, [() => callback()]);
  });
  // Deno's `Deno.unrefTimer` / `Deno.refTimer`: an unref'd timer does not keep the event loop
  // alive (it still fires if the loop runs for other reasons). Like `clearTimeout`, anything
  // but a number names no timer (a string or a boxed number would name one as a key, and a
  // proxy's trap would run converting it).
  define("unrefTimer", function unrefTimer(id) {
    if (typeof id === "number" && timers[id] !== undefined) op_timer_ref(id, false);
  });
  define("refTimer", function refTimer(id) {
    if (typeof id === "number" && timers[id] !== undefined) op_timer_ref(id, true);
  });

  // `fire(0)`: every timer was cancelled from Rust (`Runtime::cancel_pending_work`);
  // `fire(-id)`: that one was (`Runtime::cancel_work_of`).
  return function fire(id) {
    if (id === 0) {
      timers = create(null);
      return;
    }
    if (id < 0) {
      delete timers[-id];
      return;
    }
    const timer = timers[id];
    if (timer === undefined) return;
    if (!timer.repeat) delete timers[id];
    apply(timer.callback, undefined, timer.args);
  };
})
