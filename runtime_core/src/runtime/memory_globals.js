// Wrappers of the functions that grow memory V8 takes from the system itself, not through the
// runtime's ArrayBuffer allocator: resizable and growable buffers, WebAssembly memories. Each
// asks the runtime's memory budget (`fits(bytes)`) before it grows anything, and throws the
// `RangeError` the language gives for memory it cannot have. Intrinsics are captured here,
// before any script runs.
(function (internalOps) {
  "use strict";
  const fits = internalOps.op_memory_fits;
  const { apply, construct, defineProperty, getOwnPropertyDescriptor } = Reflect;
  const toNumber = Number;
  const RangeErrorCtor = RangeError;

  function refuse(bytes) {
    throw new RangeErrorCtor(
      "Array buffer allocation failed: " + bytes + " more bytes pass the runtime's memory limit",
    );
  }
  function check(bytes) {
    if (bytes > 0 && !fits(bytes)) refuse(bytes);
  }
  function getter(object, name) {
    const descriptor = getOwnPropertyDescriptor(object, name);
    return descriptor && descriptor.get;
  }
  function wrapMethod(prototype, name, growth) {
    const original = prototype && prototype[name];
    if (typeof original !== "function") return;
    const wrapped = {
      [name](...args) {
        check(growth(this, args));
        return apply(original, this, args);
      },
    }[name];
    defineProperty(prototype, name, { value: wrapped, writable: true, configurable: true });
  }

  const bufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const bufferResizable = getter(ArrayBuffer.prototype, "resizable");
  wrapMethod(ArrayBuffer.prototype, "resize", (buffer, [length]) =>
    toNumber(length) - apply(bufferLength, buffer, []));
  // A resizable buffer's `transfer` commits its new length from the system too.
  wrapMethod(ArrayBuffer.prototype, "transfer", (buffer, args) =>
    apply(bufferResizable, buffer, []) && args.length > 0
      ? toNumber(args[0]) - apply(bufferLength, buffer, [])
      : 0);
  if (typeof SharedArrayBuffer === "function") {
    const sharedLength = getter(SharedArrayBuffer.prototype, "byteLength");
    wrapMethod(SharedArrayBuffer.prototype, "grow", (buffer, [length]) =>
      toNumber(length) - apply(sharedLength, buffer, []));
  }
  if (typeof WebAssembly === "object" && typeof WebAssembly.Memory === "function") {
    const PAGE = 65536;
    const Original = WebAssembly.Memory;
    wrapMethod(Original.prototype, "grow", (_, [pages]) => toNumber(pages) * PAGE);
    // The constructor commits the initial pages: the same check, before them.
    const checked = function Memory(descriptor) {
      if (new.target === undefined) return apply(Original, this, arguments);
      const initial = descriptor !== null && typeof descriptor === "object"
        ? toNumber(descriptor.initial)
        : 0;
      check(initial * PAGE);
      return construct(Original, arguments, new.target === checked ? Original : new.target);
    };
    defineProperty(checked, "prototype", { value: Original.prototype });
    defineProperty(checked, "length", { value: 1 });
    defineProperty(Original.prototype, "constructor", {
      value: checked, writable: true, configurable: true,
    });
    defineProperty(WebAssembly, "Memory", { value: checked, writable: true, configurable: true });
  }
});
