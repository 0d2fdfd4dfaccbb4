// `structuredClone` (HTML) over V8's serializer (`clone.rs`), which calls `dataCloneError`
// for the `DOMException`s it throws.
(function (internalOps, internals) {
  "use strict";
  const { op_web_structured_clone } = internalOps;
  const { DOMException, defineGlobalOperation } = internals;
  const { apply: ReflectApply } = Reflect;
  const TypeErrorCtor = TypeError;
  const SymbolIterator = Symbol.iterator;
  const { push: ArrayPush } = Array.prototype;
  const SetCtor = Set;
  const { has: SetHas, add: SetAdd } = Set.prototype;
  const getter = (object, name) => Object.getOwnPropertyDescriptor(object, name).get;
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, "byteLength");
  const ArrayBufferDetached = getter(ArrayBuffer.prototype, "detached");

  const dataCloneError = (message) => new DOMException(message, "DataCloneError");
  const NO_TRANSFER = [];

  // `StructuredSerializeOptions.transfer`: a sequence of objects (by the tenant's iterator,
  // as WebIDL converts one); only ArrayBuffers can move here, each once, not detached.
  function transferList(options) {
    if (options === undefined || options === null) return NO_TRANSFER;
    if (typeof options !== "object" && typeof options !== "function") {
      throw new TypeErrorCtor("Failed to execute 'structuredClone': the options are not an object");
    }
    const transfer = options.transfer;
    if (transfer === undefined) return NO_TRANSFER;
    if (transfer === null || (typeof transfer !== "object" && typeof transfer !== "function")) {
      throw new TypeErrorCtor("Failed to execute 'structuredClone': transfer is not a sequence");
    }
    const method = transfer[SymbolIterator];
    if (typeof method !== "function") {
      throw new TypeErrorCtor("Failed to execute 'structuredClone': transfer is not iterable");
    }
    const iterator = ReflectApply(method, transfer, []);
    const next = iterator.next;
    const list = [];
    for (;;) {
      const step = ReflectApply(next, iterator, []);
      if (step === null || typeof step !== "object") {
        throw new TypeErrorCtor("Failed to execute 'structuredClone': an iterator result is not an object");
      }
      if (step.done) break;
      const item = step.value;
      if (item === null || (typeof item !== "object" && typeof item !== "function")) {
        throw new TypeErrorCtor("Failed to execute 'structuredClone': transfer holds a value that is not an object");
      }
      ReflectApply(ArrayPush, list, [item]);
    }
    const seen = new SetCtor();
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      try {
        ReflectApply(ArrayBufferByteLength, item, []);
      } catch {
        throw dataCloneError("Failed to execute 'structuredClone': only ArrayBuffers can be transferred");
      }
      if (ReflectApply(SetHas, seen, [item])) {
        throw dataCloneError("Failed to execute 'structuredClone': an ArrayBuffer is transferred twice");
      }
      ReflectApply(SetAdd, seen, [item]);
      if (ReflectApply(ArrayBufferDetached, item, [])) {
        throw dataCloneError("Failed to execute 'structuredClone': a transferred ArrayBuffer is detached");
      }
    }
    return list;
  }

  defineGlobalOperation("structuredClone", function structuredClone(value, options = undefined) {
    if (arguments.length === 0) {
      throw new TypeErrorCtor(
        "Failed to execute 'structuredClone': 1 argument required, but only 0 present.",
      );
    }
    return op_web_structured_clone(value, transferList(options), dataCloneError);
  });
})
