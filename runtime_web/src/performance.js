// `performance` (High Resolution Time): `now()`, `timeOrigin`, `toJSON()` over
// `performance.rs`.
(function (internalOps, internals) {
  "use strict";
  const { op_web_now, op_web_time_origin } = internalOps;
  const { configureInterface, defineGlobal, defineGlobalAttribute } = internals;
  const TypeErrorCtor = TypeError;
  const ILLEGAL = Symbol("illegal constructor");

  // The spec's `Performance` is an `EventTarget`, where the events group is installed.
  const Base = internals.EventTarget !== undefined ? internals.EventTarget : Object;

  class Performance extends Base {
    constructor(key = undefined) {
      if (key !== ILLEGAL) throw new TypeErrorCtor("Illegal constructor");
      super();
    }

    now() {
      if (!(this instanceof Performance)) throw new TypeErrorCtor("Illegal invocation");
      return op_web_now();
    }

    get timeOrigin() {
      if (!(this instanceof Performance)) throw new TypeErrorCtor("Illegal invocation");
      return op_web_time_origin();
    }

    toJSON() {
      if (!(this instanceof Performance)) throw new TypeErrorCtor("Illegal invocation");
      return { timeOrigin: op_web_time_origin() };
    }
  }

  configureInterface(Performance);
  defineGlobal("Performance", Performance);
  defineGlobalAttribute("performance", new Performance(ILLEGAL), true);
  // Events' time stamps, on the same clock.
  internals.highResTimeNow = op_web_now;
})
