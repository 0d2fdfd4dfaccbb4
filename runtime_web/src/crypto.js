// `crypto` (Web Crypto): `getRandomValues`, `randomUUID`, `subtle.digest` over `crypto.rs`.
(function (internalOps, internals) {
  "use strict";
  const { op_web_random_fill, op_web_random_uuids, op_web_digest } = internalOps;
  const {
    DOMException,
    QuotaExceededError,
    configureInterface,
    defineGlobal,
    defineGlobalAttribute,
  } = internals;
  const { apply: ReflectApply } = Reflect;
  const {
    getPrototypeOf: ObjectGetPrototypeOf,
    getOwnPropertyDescriptor: ObjectGetOwnPropertyDescriptor,
  } = Object;
  const TypeErrorCtor = TypeError;
  const PromiseCtor = Promise;
  const { resolve: PromiseResolve, reject: PromiseReject } = Promise;
  const { isView: ArrayBufferIsView } = ArrayBuffer;
  const { toUpperCase: StringToUpperCase, slice: StringSlice } = String.prototype;
  const getter = (object, name) => ObjectGetOwnPropertyDescriptor(object, name).get;
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayByteLength = getter(TypedArrayPrototype, "byteLength");
  const TypedArrayToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, "byteLength");

  // Constructors no script may call: the one instance is made here.
  const ILLEGAL = Symbol("illegal constructor");
  const illegal = () => new TypeErrorCtor("Illegal constructor");

  // `getRandomValues` takes integer arrays only.
  const INTEGER_ARRAYS = {
    __proto__: null,
    Int8Array: true,
    Uint8Array: true,
    Uint8ClampedArray: true,
    Int16Array: true,
    Uint16Array: true,
    Int32Array: true,
    Uint32Array: true,
    BigInt64Array: true,
    BigUint64Array: true,
  };
  const MAX_RANDOM_BYTES = 65536;

  // `digest`'s algorithms, by upper-case name, as `op_web_digest` numbers them.
  const DIGESTS = { __proto__: null, "SHA-1": 0, "SHA-256": 1, "SHA-384": 2, "SHA-512": 3 };

  class SubtleCrypto {
    constructor(key = undefined) {
      if (key !== ILLEGAL) throw illegal();
    }

    digest(algorithm, data) {
      try {
        if (!(this instanceof SubtleCrypto)) throw new TypeErrorCtor("Illegal invocation");
        if (arguments.length < 2) {
          throw new TypeErrorCtor(
            `Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only ${arguments.length} present.`,
          );
        }
        let name;
        if (typeof algorithm === "object" && algorithm !== null) {
          if (algorithm.name === undefined) {
            throw new TypeErrorCtor("Failed to execute 'digest' on 'SubtleCrypto': the algorithm has no name");
          }
          name = `${algorithm.name}`;
        } else {
          name = `${algorithm}`;
        }
        const index = DIGESTS[ReflectApply(StringToUpperCase, name, [])];
        if (index === undefined) {
          throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
        }
        if (!ArrayBufferIsView(data)) {
          try {
            ReflectApply(ArrayBufferByteLength, data, []);
          } catch {
            throw new TypeErrorCtor(
              "Failed to execute 'digest' on 'SubtleCrypto': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'",
            );
          }
        }
        return ReflectApply(PromiseResolve, PromiseCtor, [op_web_digest(index, data)]);
      } catch (error) {
        return ReflectApply(PromiseReject, PromiseCtor, [error]);
      }
    }
  }

  const subtle = new SubtleCrypto(ILLEGAL);

  // UUIDs made in Rust a batch at a time (`op_web_random_uuids`), handed out in order.
  let uuids = "";
  let uuidAt = 0;

  class Crypto {
    constructor(key = undefined) {
      if (key !== ILLEGAL) throw illegal();
    }

    get subtle() {
      if (!(this instanceof Crypto)) throw new TypeErrorCtor("Illegal invocation");
      return subtle;
    }

    getRandomValues(array) {
      if (!(this instanceof Crypto)) throw new TypeErrorCtor("Illegal invocation");
      if (arguments.length < 1) {
        throw new TypeErrorCtor(
          "Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.",
        );
      }
      if (!ArrayBufferIsView(array)) {
        throw new TypeErrorCtor(
          "Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'.",
        );
      }
      // A DataView has no tag.
      const tag = ReflectApply(TypedArrayToStringTag, array, []);
      if (INTEGER_ARRAYS[tag] !== true) {
        throw new DOMException(
          `Failed to execute 'getRandomValues' on 'Crypto': The provided ArrayBufferView is of type '${
            tag === undefined ? "DataView" : tag
          }', which is not an integer array type.`,
          "TypeMismatchError",
        );
      }
      const length = ReflectApply(TypedArrayByteLength, array, []);
      if (length > MAX_RANDOM_BYTES) {
        throw new QuotaExceededError(
          `Failed to execute 'getRandomValues' on 'Crypto': The ArrayBufferView's byte length (${length}) exceeds the number of bytes of entropy available via this API (${MAX_RANDOM_BYTES}).`,
        );
      }
      if (length !== 0) op_web_random_fill(array);
      return array;
    }

    randomUUID() {
      if (!(this instanceof Crypto)) throw new TypeErrorCtor("Illegal invocation");
      if (uuidAt === uuids.length) {
        uuids = op_web_random_uuids();
        uuidAt = 0;
      }
      const uuid = ReflectApply(StringSlice, uuids, [uuidAt, uuidAt + 36]);
      uuidAt += 36;
      return uuid;
    }
  }

  configureInterface(SubtleCrypto);
  configureInterface(Crypto);
  defineGlobal("SubtleCrypto", SubtleCrypto);
  defineGlobal("Crypto", Crypto);
  defineGlobalAttribute("crypto", new Crypto(ILLEGAL));
})
