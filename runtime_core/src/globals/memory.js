// Wrappers of the functions that take memory V8 gets from the system itself, not through the
// runtime's ArrayBuffer allocator: resizable and growable buffers (made, grown, transferred)
// and WebAssembly memories (made, grown). Each asks the runtime's memory budget
// (`fits(bytes)`) before anything is taken, and throws the `RangeError` the language gives for
// memory it cannot have. Arguments are read and converted once, here, and passed on as
// primitives (a `valueOf` cannot tell the check one thing and V8 another), and the intrinsics
// are captured before any script runs. A memory a WebAssembly module declares, or grows from
// its own code, is not seen here: the runtime's check after each collection bounds it.
(function (internalOps) {
  "use strict";
  const fits = internalOps.op_memory_fits;
  const { apply, construct, defineProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;
  const toNumber = Number;
  const RangeErrorCtor = RangeError;
  const isObject = (value) =>
    value !== null && (typeof value === "object" || typeof value === "function");

  function check(bytes) {
    if (bytes > 0 && !fits(bytes)) {
      throw new RangeErrorCtor(
        "Array buffer allocation failed: " + bytes + " more bytes pass the runtime's memory limit",
      );
    }
  }
  function getter(object, name) {
    const descriptor = getOwnPropertyDescriptor(object, name);
    return descriptor && descriptor.get;
  }
  function define(object, name, value) {
    defineProperty(object, name, { value, writable: true, configurable: true });
  }

  // `prototype[name](...)` replaced by a method of the same name that gives `prepare` the
  // receiver and arguments, and calls the original with what it returns (after its check).
  function wrapMethod(prototype, name, prepare) {
    const original = prototype[name];
    if (typeof original !== "function") return;
    define(prototype, name, {
      [name](...args) {
        return apply(original, this, prepare(this, args));
      },
    }[name]);
  }
  // `holder[name]`, a constructor, replaced by one of the same name, prototype and statics that
  // gives `prepare` its arguments and constructs the original with what it returns.
  function wrapConstructor(holder, name, prepare) {
    const Original = holder[name];
    if (typeof Original !== "function") return;
    // A function expression: a method would be no constructor.
    const checked = function (...args) {
      if (new.target === undefined) return apply(Original, this, args);
      const target = new.target === checked ? Original : new.target;
      return construct(Original, prepare(args), target);
    };
    defineProperty(checked, "name", { value: name });
    // The statics (`ArrayBuffer.isView`, `[Symbol.species]`) copied, not inherited: with
    // `Original` as its prototype, `Object.getPrototypeOf(checked)` would hand it out.
    const statics = ownKeys(Original);
    for (let i = 0; i < statics.length; i++) {
      const key = statics[i];
      if (key === "prototype" || key === "name" || key === "length") continue;
      defineProperty(checked, key, getOwnPropertyDescriptor(Original, key));
    }
    defineProperty(checked, "prototype", { value: Original.prototype });
    defineProperty(checked, "length", { value: Original.length });
    define(Original.prototype, "constructor", checked);
    define(holder, name, checked);
  }

  // `(length)`: growth to `length` from what `currentLength` reads, at `scale` bytes a unit.
  const growTo = (currentLength, scale) => (receiver, args) => {
    const wanted = toNumber(args[0]);
    const current = currentLength ? apply(currentLength, receiver, []) : 0;
    check(wanted * scale - current);
    return [wanted];
  };
  // `(length, { maxByteLength })`: a resizable buffer commits `length` at once.
  const resizable = (args) => {
    const wanted = toNumber(args[0]);
    const options = args[1];
    if (!isObject(options)) return [wanted];
    const maxByteLength = options.maxByteLength;
    if (maxByteLength === undefined) return [wanted];
    check(wanted);
    return [wanted, { maxByteLength: toNumber(maxByteLength) }];
  };

  const bufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const bufferResizable = getter(ArrayBuffer.prototype, "resizable");
  wrapMethod(ArrayBuffer.prototype, "resize", growTo(bufferLength, 1));
  // A resizable buffer's `transfer` takes its new length from the system too.
  wrapMethod(ArrayBuffer.prototype, "transfer", (buffer, args) => {
    if (args.length === 0 || args[0] === undefined) return [];
    return apply(bufferResizable, buffer, [])
      ? growTo(bufferLength, 1)(buffer, args)
      : [toNumber(args[0])];
  });
  wrapConstructor(globalThis, "ArrayBuffer", resizable);
  if (typeof SharedArrayBuffer === "function") {
    const sharedLength = getter(SharedArrayBuffer.prototype, "byteLength");
    wrapMethod(SharedArrayBuffer.prototype, "grow", growTo(sharedLength, 1));
    wrapConstructor(globalThis, "SharedArrayBuffer", resizable);
  }
  if (typeof WebAssembly === "object" && typeof WebAssembly.Memory === "function") {
    const PAGE = 65536;
    wrapMethod(WebAssembly.Memory.prototype, "grow", growTo(undefined, PAGE));
    // The constructor commits the initial pages: the check is on a descriptor read once.
    const KEYS = ["initial", "maximum", "shared", "address", "index"];
    wrapConstructor(WebAssembly, "Memory", (args) => {
      const descriptor = args[0];
      if (!isObject(descriptor)) return args;
      const read = {};
      for (let i = 0; i < KEYS.length; i++) {
        const value = descriptor[KEYS[i]];
        if (value !== undefined) read[KEYS[i]] = value;
      }
      check(toNumber(read.initial) * PAGE);
      return [read];
    });
  }
});
