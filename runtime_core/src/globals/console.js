// `globalThis.console` over `print(line, toStderr)` and `inspect(value)`, internal ops
// (scripts see only `console`). Evaluates to a function that installs it.
(function (internalOps) {
  "use strict";
  const print = internalOps.op_console_print;
  const inspect = internalOps.op_console_inspect;

  // Strings as they are, anything else as `util.inspect` prints it (`Runtime::inspect`).
  function line(args) {
    return args.map((arg) => (typeof arg === "string" ? arg : inspect(arg))).join(" ");
  }

  // V8's own console reports each call to an inspector session (`Runtime.consoleAPICalled`)
  // and does nothing else: a runtime never inspected pays one builtin call.
  const v8Console = globalThis.console;
  const method = (name, toStderr) => {
    const report = v8Console[name];
    return (...args) => {
      report(...args);
      print(line(args), toStderr);
    };
  };

  // As the web platform defines it: writable, configurable, not enumerable.
  Object.defineProperty(globalThis, "console", {
    value: {
      log: method("log", false),
      info: method("info", false),
      debug: method("debug", false),
      warn: method("warn", true),
      error: method("error", true),
    },
    writable: true,
    configurable: true,
  });
});
