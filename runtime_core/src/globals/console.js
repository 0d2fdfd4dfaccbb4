// `globalThis.console` over `print(line, toStderr)`, an internal op (scripts see only
// `console`). Evaluates to a function that installs it.
(function (internalOps) {
  "use strict";
  const print = internalOps.op_console_print;

  function inspect(value, depth, nested) {
    switch (typeof value) {
      case "string": return nested ? "'" + value.replace(/'/g, "\\'") + "'" : value;
      case "number": return Object.is(value, -0) ? "-0" : String(value);
      case "bigint": return value + "n";
      case "undefined": return "undefined";
      case "boolean": return String(value);
      case "symbol": return value.toString();
      case "function": return value.name ? "[Function: " + value.name + "]" : "[Function (anonymous)]";
    }
    if (value === null) return "null";
    if (value instanceof Error) return value.stack || String(value);
    if (value instanceof Map) {
      if (depth > 2) return "[Map]";
      const entries = [...value].map(([k, v]) => inspect(k, depth + 1, true) + " => " + inspect(v, depth + 1, true));
      return "Map(" + value.size + ") " + (entries.length ? "{ " + entries.join(", ") + " }" : "{}");
    }
    if (value instanceof Set) {
      if (depth > 2) return "[Set]";
      const items = [...value].map((item) => inspect(item, depth + 1, true));
      return "Set(" + value.size + ") " + (items.length ? "{ " + items.join(", ") + " }" : "{}");
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const name = value.constructor ? value.constructor.name : "TypedArray";
      const shown = Array.from(value.subarray(0, 100), (item) => inspect(item, depth + 1, true));
      if (value.length > 100) shown.push("... " + (value.length - 100) + " more items");
      return name + "(" + value.length + ") " + (shown.length ? "[ " + shown.join(", ") + " ]" : "[]");
    }
    if (value instanceof ArrayBuffer) return "ArrayBuffer { byteLength: " + value.byteLength + " }";
    if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (Array.isArray(value)) {
      if (depth > 2) return "[Array]";
      if (value.length === 0) return "[]";
      return "[ " + value.map((item) => inspect(item, depth + 1, true)).join(", ") + " ]";
    }
    if (depth > 2) return "[Object]";
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    const name = Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null
      ? "" : (value.constructor && value.constructor.name ? value.constructor.name + " " : "");
    const body = keys.map((key) => {
      const shown = /^[A-Za-z_$][\w$]*$/.test(key) ? key : "'" + key + "'";
      return shown + ": " + inspect(value[key], depth + 1, true);
    });
    return name + "{ " + body.join(", ") + " }";
  }

  function line(args) {
    return args.map((arg) => inspect(arg, 0, false)).join(" ");
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
