// `globalThis.console` over `print(line, level)` and `inspect(value)`, internal ops
// (scripts see only `console`). Evaluates to a function that installs it.
(function (internalOps) {
  "use strict";
  const print = internalOps.op_console_print;
  const inspect = internalOps.op_console_inspect;
  const apply = Reflect.apply;

  // Strings as they are, anything else as `util.inspect` prints it (`Runtime::inspect`). No
  // method of an intrinsic is looked up when it runs (a script may have replaced
  // `Array.prototype.map` or an iterator): a loop over the arguments, joined by `+`.
  function line(args) {
    let text = "";
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (i > 0) text += " ";
      text += typeof arg === "string" ? arg : inspect(arg);
    }
    return text;
  }

  // V8's own console reports each call to an inspector session (`Runtime.consoleAPICalled`)
  // and does nothing else: a runtime never inspected pays one builtin call.
  const v8Console = globalThis.console;
  // `level`: the index of Rust's `ConsoleLevel`.
  const method = (name, level) => {
    const report = v8Console[name];
    return (...args) => {
      apply(report, v8Console, args);
      print(line(args), level);
    };
  };

  // As the web platform defines it: writable, configurable, not enumerable.
  Object.defineProperty(globalThis, "console", {
    value: {
      log: method("log", 0),
      info: method("info", 1),
      debug: method("debug", 2),
      warn: method("warn", 3),
      error: method("error", 4),
    },
    writable: true,
    configurable: true,
  });
});
