// Base install script: DOMException, interface shaping and the WebIDL conversions that the
// other groups share. Runs first in every new context, before any tenant code.
(function (internalOps, internals) {
  "use strict";

  // Captured before tenant code runs; later patches of these globals do not reach us.
  const {
    Error,
    Number,
    Object,
    Reflect,
    String,
    Symbol,
    TypeError,
  } = globalThis;
  const ErrorPrototype = Error.prototype;
  const ErrorCaptureStackTrace = Error.captureStackTrace;
  const FunctionPrototype = Function.prototype;
  const FunctionPrototypeBind = FunctionPrototype.bind;
  const FunctionPrototypeCall = FunctionPrototype.call;
  const MathTrunc = Math.trunc;
  const MathFloor = Math.floor;
  const MathMin = Math.min;
  const MathMax = Math.max;
  const NumberIsNaN = Number.isNaN;
  const NumberIsFinite = Number.isFinite;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectPrototypeHasOwnProperty = Object.prototype.hasOwnProperty;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ReflectApply = Reflect.apply;
  const ReflectOwnKeys = Reflect.ownKeys;
  const StringPrototypeToWellFormed = String.prototype.toWellFormed;
  const StringPrototypeCharCodeAt = String.prototype.charCodeAt;
  const StringPrototypeSlice = String.prototype.slice;
  const StringFromCharCode = String.fromCharCode;
  const SymbolIterator = Symbol.iterator;
  const SymbolToStringTag = Symbol.toStringTag;

  const uncurryThis = (fn) => ReflectApply(FunctionPrototypeBind, FunctionPrototypeCall, [fn]);
  const hasOwn = uncurryThis(ObjectPrototypeHasOwnProperty);

  // Descriptors are null-prototype objects so that properties a tenant adds to
  // Object.prototype ("get", "set", "value", ...) cannot leak into them.
  function defineGlobal(name, value) {
    ObjectDefineProperty(globalThis, name, {
      __proto__: null,
      value,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }

  // WebIDL operations on the global object are enumerable, unlike interface objects.
  // A readonly attribute of the global object (`crypto`, `performance`): an enumerable
  // accessor, as WebIDL makes one. `[Replaceable]` ones take a script's own value when set.
  function defineGlobalAttribute(name, value, replaceable = false) {
    const get = { [name]() { return value; } }[name];
    const set = replaceable
      ? {
          [name](replacement) {
            ObjectDefineProperty(globalThis, name, {
              __proto__: null,
              value: replacement,
              writable: true,
              configurable: true,
              enumerable: true,
            });
          },
        }[name]
      : undefined;
    ObjectDefineProperty(globalThis, name, {
      __proto__: null,
      get,
      set,
      configurable: true,
      enumerable: true,
    });
  }

  function defineGlobalOperation(name, value) {
    ObjectDefineProperty(globalThis, name, {
      __proto__: null,
      value,
      writable: true,
      configurable: true,
      enumerable: true,
    });
  }

  function makeMembersEnumerable(object, skipConstructorKeys) {
    const keys = ReflectOwnKeys(object);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      // Symbol-keyed members (@@iterator, @@toStringTag) stay non-enumerable per WebIDL.
      if (typeof key !== "string") continue;
      if (skipConstructorKeys) {
        if (key === "length" || key === "name" || key === "prototype") continue;
      } else if (key === "constructor") {
        continue;
      }
      const desc = ObjectGetOwnPropertyDescriptor(object, key);
      if (!desc.configurable || desc.enumerable) continue;
      ObjectDefineProperty(object, key, { __proto__: null, enumerable: true });
    }
  }

  // Class syntax makes members non-enumerable; WebIDL wants operations, attributes and
  // static members enumerable, and a @@toStringTag naming the interface.
  function configureInterface(Class, name = Class.name) {
    makeMembersEnumerable(Class.prototype, false);
    makeMembersEnumerable(Class, true);
    ObjectDefineProperty(Class.prototype, SymbolToStringTag, {
      __proto__: null,
      value: name,
      writable: false,
      enumerable: false,
      configurable: true,
    });
  }

  // WebIDL's `sequence<sequence<T>>` of pairs, by the tenant's iterators (the spec's
  // steps): each pair exactly two items, each item converted by `convert` as it is read, then
  // `onPair(first, second)`. `prefix`: "Failed to construct 'Headers'", say.
  function readPairs(init, method, prefix, convert, onPair) {
    const outer = ReflectApply(method, init, []);
    if (!isObject(outer)) throw new TypeError(`${prefix}: the iterator is not an object.`);
    const next = outer.next;
    for (;;) {
      const step = ReflectApply(next, outer, []);
      if (!isObject(step)) throw new TypeError(`${prefix}: an iterator result is not an object.`);
      if (step.done) return;
      const pair = step.value;
      if (!isObject(pair)) throw new TypeError(`${prefix}: a pair is not a sequence.`);
      const pairMethod = pair[SymbolIterator];
      if (typeof pairMethod !== "function") throw new TypeError(`${prefix}: a pair is not iterable.`);
      const inner = ReflectApply(pairMethod, pair, []);
      const innerNext = inner.next;
      let first;
      let count = 0;
      let second;
      for (;;) {
        const item = ReflectApply(innerNext, inner, []);
        if (!isObject(item)) {
          throw new TypeError(`${prefix}: an iterator result is not an object.`);
        }
        if (item.done) break;
        if (count === 2) throw new TypeError(`${prefix}: a pair must have exactly two items.`);
        if (count === 0) first = convert(item.value);
        else second = convert(item.value);
        count++;
      }
      if (count !== 2) throw new TypeError(`${prefix}: a pair must have exactly two items.`);
      onPair(first, second);
    }
  }

  // A list of names and values, alternating (Headers', FormData's): `pairListDelete` drops
  // every entry of `name`; `pairListSet` replaces the first one's value and drops the rest, or
  // appends, as both standards' `set` does.
  function pairListDelete(list, name) {
    let kept = 0;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) continue;
      list[kept] = list[i];
      list[kept + 1] = list[i + 1];
      kept += 2;
    }
    list.length = kept;
  }

  function pairListSet(list, name, value) {
    let at = -1;
    let kept = 0;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) {
        if (at !== -1) continue;
        at = kept;
      }
      list[kept] = list[i];
      list[kept + 1] = list[i + 1];
      kept += 2;
    }
    list.length = kept;
    if (at === -1) {
      list[list.length] = name;
      list[list.length] = value;
    } else {
      list[at + 1] = value;
    }
  }

  // WebIDL's pair iterators (`URLSearchParams`, `Headers`): `pairIterator(name, listOf)`
  // gives `(object, kind) => iterator` over `listOf(object)` (names and values alternating),
  // read at each step so that a change is seen by the next one, and named `${name} Iterator`.
  const PAIR_KEYS = 0;
  const PAIR_VALUES = 1;
  const PAIR_ENTRIES = 2;
  const IteratorPrototype = ObjectGetPrototypeOf(ObjectGetPrototypeOf([][SymbolIterator]()));
  function pairIterator(name, listOf) {
    class PairIterator {
      #target;
      #kind;
      #index = 0;

      constructor(target, kind) {
        this.#target = target;
        this.#kind = kind;
      }

      next() {
        if (!(#target in this)) {
          throw new TypeError(`next called on an object that is not a ${name} Iterator`);
        }
        const list = listOf(this.#target);
        const at = this.#index;
        if (at >= list.length) return { value: undefined, done: true };
        this.#index = at + 2;
        const kind = this.#kind;
        const value =
          kind === PAIR_KEYS ? list[at] : kind === PAIR_VALUES ? list[at + 1] : [list[at], list[at + 1]];
        return { value, done: false };
      }
    }
    const prototype = PairIterator.prototype;
    ObjectSetPrototypeOf(prototype, IteratorPrototype);
    ObjectDefineProperty(prototype, "next", { __proto__: null, enumerable: true });
    ObjectDefineProperty(prototype, SymbolToStringTag, {
      __proto__: null,
      value: `${name} Iterator`,
      configurable: true,
    });
    return (target, kind) => new PairIterator(target, kind);
  }

  function defineConstants(targets, constants) {
    const keys = ReflectOwnKeys(constants);
    for (let t = 0; t < targets.length; t++) {
      for (let i = 0; i < keys.length; i++) {
        ObjectDefineProperty(targets[t], keys[i], {
          __proto__: null,
          value: constants[keys[i]],
          writable: false,
          enumerable: true,
          configurable: false,
        });
      }
    }
  }

  // ---- WebIDL conversions -------------------------------------------------------------

  function illegalInvocation() {
    return new TypeError("Illegal invocation");
  }

  function illegalConstructor() {
    return new TypeError("Illegal constructor");
  }

  function requiredArguments(present, required, prefix) {
    if (present < required) {
      const noun = required === 1 ? "argument" : "arguments";
      throw new TypeError(`${prefix}: ${required} ${noun} required, but only ${present} present.`);
    }
  }

  function toDOMString(value, prefix = "Conversion", context = "Value") {
    if (typeof value === "string") return value;
    if (typeof value === "symbol") {
      throw new TypeError(`${prefix}: ${context} is a symbol, which cannot be converted to a string.`);
    }
    // ToString, which may call the tenant's toString/valueOf as WebIDL specifies.
    return `${value}`;
  }

  function toWellFormed(string) {
    if (StringPrototypeToWellFormed !== undefined) {
      return ReflectApply(StringPrototypeToWellFormed, string, []);
    }
    let result = "";
    let start = 0;
    for (let i = 0; i < string.length; i++) {
      const c = ReflectApply(StringPrototypeCharCodeAt, string, [i]);
      let lone = false;
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = i + 1 < string.length ? ReflectApply(StringPrototypeCharCodeAt, string, [i + 1]) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
        } else {
          lone = true;
        }
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        lone = true;
      }
      if (lone) {
        result += `${ReflectApply(StringPrototypeSlice, string, [start, i])}${StringFromCharCode(0xfffd)}`;
        start = i + 1;
      }
    }
    return start === 0 ? string : result + ReflectApply(StringPrototypeSlice, string, [start]);
  }

  function toUSVString(value, prefix, context) {
    return toWellFormed(toDOMString(value, prefix, context));
  }

  function toBoolean(value) {
    return !!value;
  }

  function toNumber(value, prefix, context) {
    if (typeof value === "number") return value;
    if (typeof value === "bigint" || typeof value === "symbol") {
      throw new TypeError(`${prefix}: ${context} cannot be converted to a number.`);
    }
    return +value;
  }

  function roundHalfToEven(x) {
    const floor = MathFloor(x);
    const diff = x - floor;
    if (diff < 0.5) return floor;
    if (diff > 0.5) return floor + 1;
    return floor % 2 === 0 ? floor : floor + 1;
  }

  // WebIDL ConvertToInt. `options` may carry enforceRange / clamp (extended attributes).
  function convertToInt(value, bitLength, signed, options, prefix, context) {
    let lower;
    let upper;
    if (bitLength === 64) {
      upper = 2 ** 53 - 1;
      lower = signed ? -(2 ** 53) + 1 : 0;
    } else if (signed) {
      lower = -(2 ** (bitLength - 1));
      upper = 2 ** (bitLength - 1) - 1;
    } else {
      lower = 0;
      upper = 2 ** bitLength - 1;
    }
    let x = toNumber(value, prefix, context);
    if (x === 0) x = 0;
    if (options !== undefined && options.enforceRange) {
      if (!NumberIsFinite(x)) {
        throw new TypeError(`${prefix}: ${context} is not a finite number.`);
      }
      x = MathTrunc(x);
      if (x < lower || x > upper) {
        throw new TypeError(`${prefix}: ${context} is outside the range [${lower}, ${upper}].`);
      }
      return x === 0 ? 0 : x;
    }
    if (!NumberIsNaN(x) && options !== undefined && options.clamp) {
      x = roundHalfToEven(MathMin(MathMax(x, lower), upper));
      return x === 0 ? 0 : x;
    }
    if (!NumberIsFinite(x) || x === 0) return 0;
    x = MathTrunc(x);
    if (x >= lower && x <= upper) return x === 0 ? 0 : x;
    const size = 2 ** bitLength;
    x %= size;
    if (x < 0) x += size;
    if (signed && x >= size / 2) x -= size;
    return x === 0 ? 0 : x;
  }

  const toShort = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 16, true, o, p, c);
  const toUnsignedShort = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 16, false, o, p, c);
  const toLong = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 32, true, o, p, c);
  const toUnsignedLong = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 32, false, o, p, c);
  const toLongLong = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 64, true, o, p, c);
  const toUnsignedLongLong = (v, o, p = "Conversion", c = "Value") => convertToInt(v, 64, false, o, p, c);

  function toUnrestrictedDouble(value, prefix = "Conversion", context = "Value") {
    return toNumber(value, prefix, context);
  }

  function toDouble(value, prefix = "Conversion", context = "Value") {
    const x = toNumber(value, prefix, context);
    if (!NumberIsFinite(x)) {
      throw new TypeError(`${prefix}: ${context} is not a finite floating-point value.`);
    }
    return x;
  }

  function isObject(value) {
    return (typeof value === "object" && value !== null) || typeof value === "function";
  }

  // Dictionary argument: undefined/null mean "all defaults" (returned as undefined); any other
  // non-object is a TypeError. Members are then read with dictionaryMember in the order the
  // spec fixes (inherited dictionaries first, each in lexicographic order).
  function toDictionary(value, prefix = "Conversion", name = "dictionary") {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) {
      throw new TypeError(`${prefix}: The provided value is not of type '${name}'.`);
    }
    return value;
  }

  function dictionaryMember(dict, key) {
    return dict === undefined ? undefined : dict[key];
  }

  // Nullable callback interface value (EventListener and the like).
  function toCallbackInterface(value, prefix, context) {
    if (value === undefined || value === null) return null;
    if (!isObject(value)) {
      throw new TypeError(`${prefix}: ${context} is not an object.`);
    }
    return value;
  }

  // sequence<T>: the iteration protocol runs as WebIDL says (the tenant's @@iterator is
  // called), but through captured functions only. The result has a null prototype so that
  // index setters on Array.prototype cannot observe it.
  function toSequence(value, convertElement, prefix = "Conversion", context = "Value") {
    if (!isObject(value)) {
      throw new TypeError(`${prefix}: ${context} can not be converted to sequence.`);
    }
    const method = value[SymbolIterator];
    if (typeof method !== "function") {
      throw new TypeError(`${prefix}: ${context} can not be converted to sequence.`);
    }
    const iterator = ReflectApply(method, value, []);
    if (!isObject(iterator)) {
      throw new TypeError(`${prefix}: ${context} has an invalid iterator.`);
    }
    const next = iterator.next;
    const result = [];
    ObjectSetPrototypeOf(result, null);
    let length = 0;
    for (;;) {
      const step = ReflectApply(next, iterator, []);
      if (!isObject(step)) {
        throw new TypeError(`${prefix}: iterator result is not an object.`);
      }
      if (step.done) break;
      result[length] = convertElement(step.value, length);
      length++;
    }
    return result;
  }

  // ---- DOMException -------------------------------------------------------------------

  // The error names table's legacy codes; a name it does not list has code zero.
  const legacyCodes = {
    __proto__: null,
    IndexSizeError: 1,
    HierarchyRequestError: 3,
    WrongDocumentError: 4,
    InvalidCharacterError: 5,
    NoModificationAllowedError: 7,
    NotFoundError: 8,
    NotSupportedError: 9,
    InUseAttributeError: 10,
    InvalidStateError: 11,
    SyntaxError: 12,
    InvalidModificationError: 13,
    NamespaceError: 14,
    InvalidAccessError: 15,
    TypeMismatchError: 17,
    SecurityError: 18,
    NetworkError: 19,
    AbortError: 20,
    URLMismatchError: 21,
    QuotaExceededError: 22,
    TimeoutError: 23,
    InvalidNodeTypeError: 24,
    DataCloneError: 25,
  };

  const legacyConstants = {
    __proto__: null,
    INDEX_SIZE_ERR: 1,
    DOMSTRING_SIZE_ERR: 2,
    HIERARCHY_REQUEST_ERR: 3,
    WRONG_DOCUMENT_ERR: 4,
    INVALID_CHARACTER_ERR: 5,
    NO_DATA_ALLOWED_ERR: 6,
    NO_MODIFICATION_ALLOWED_ERR: 7,
    NOT_FOUND_ERR: 8,
    NOT_SUPPORTED_ERR: 9,
    INUSE_ATTRIBUTE_ERR: 10,
    INVALID_STATE_ERR: 11,
    SYNTAX_ERR: 12,
    INVALID_MODIFICATION_ERR: 13,
    NAMESPACE_ERR: 14,
    INVALID_ACCESS_ERR: 15,
    VALIDATION_ERR: 16,
    TYPE_MISMATCH_ERR: 17,
    SECURITY_ERR: 18,
    NETWORK_ERR: 19,
    ABORT_ERR: 20,
    URL_MISMATCH_ERR: 21,
    QUOTA_EXCEEDED_ERR: 22,
    TIMEOUT_ERR: 23,
    INVALID_NODE_TYPE_ERR: 24,
    DATA_CLONE_ERR: 25,
  };

  let getDOMExceptionData;

  class DOMException {
    #name;
    #message;
    #code;
    #cause;

    // The second argument is the name, or a DOMExceptionOptions dictionary ({ cause, name }),
    // as the WebIDL proposal that adds `cause` (and WPT) have it.
    constructor(message = undefined, options = undefined) {
      const prefix = "Failed to construct 'DOMException'";
      message = message === undefined ? "" : toDOMString(message, prefix, "Argument 1");
      let name = "Error";
      let cause;
      if (isObject(options)) {
        cause = options.cause;
        const value = options.name;
        if (value !== undefined) name = toDOMString(value, prefix, "name");
      } else if (options !== undefined) {
        name = toDOMString(options, prefix, "Argument 2");
      }
      this.#message = message;
      this.#name = name;
      this.#cause = cause;
      const code = legacyCodes[name];
      this.#code = code === undefined ? 0 : code;
      // Instances are not real Error objects, so give them the `stack` that an Error has.
      if (ErrorCaptureStackTrace !== undefined) {
        ErrorCaptureStackTrace(this, new.target);
      }
    }

    static #check(self) {
      if (!isObject(self) || !(#name in self)) throw illegalInvocation();
    }

    get name() {
      DOMException.#check(this);
      return this.#name;
    }

    get message() {
      DOMException.#check(this);
      return this.#message;
    }

    get code() {
      DOMException.#check(this);
      return this.#code;
    }

    get cause() {
      DOMException.#check(this);
      return this.#cause;
    }

    static {
      getDOMExceptionData = (value) => {
        if (!isObject(value) || !(#name in value)) return undefined;
        return {
          __proto__: null,
          name: value.#name,
          message: value.#message,
          code: value.#code,
          cause: value.#cause,
        };
      };
    }
  }

  ObjectSetPrototypeOf(DOMException.prototype, ErrorPrototype);
  configureInterface(DOMException);
  defineConstants([DOMException, DOMException.prototype], legacyConstants);
  defineGlobal("DOMException", DOMException);

  // WebIDL's `QuotaExceededError`: a DOMException named so, with the quota and what was
  // asked for (each `null` when unknown; negative or not finite: a RangeError).
  class QuotaExceededError extends DOMException {
    #quota;
    #requested;

    constructor(message = undefined, options = undefined) {
      const prefix = "Failed to construct 'QuotaExceededError'";
      options = toDictionary(options, prefix, "QuotaExceededErrorOptions");
      const read = (key) => {
        const value = dictionaryMember(options, key);
        if (value === undefined) return null;
        const number = toDouble(value, prefix, key);
        if (number < 0) throw new RangeError(`${prefix}: ${key} is negative.`);
        return number;
      };
      const quota = read("quota");
      const requested = read("requested");
      if (quota !== null && requested !== null && requested < quota) {
        throw new RangeError(`${prefix}: requested is less than quota.`);
      }
      super(message, "QuotaExceededError");
      this.#quota = quota;
      this.#requested = requested;
    }

    get quota() {
      if (!isObject(this) || !(#quota in this)) throw illegalInvocation();
      return this.#quota;
    }

    get requested() {
      if (!isObject(this) || !(#requested in this)) throw illegalInvocation();
      return this.#requested;
    }
  }
  configureInterface(QuotaExceededError);
  defineGlobal("QuotaExceededError", QuotaExceededError);

  // ---- Exports ------------------------------------------------------------------------

  internals.DOMException = DOMException;
  internals.QuotaExceededError = QuotaExceededError;
  internals.getDOMExceptionData = getDOMExceptionData;
  internals.configureInterface = configureInterface;
  internals.defineConstants = defineConstants;
  internals.defineGlobal = defineGlobal;
  internals.defineGlobalOperation = defineGlobalOperation;
  internals.defineGlobalAttribute = defineGlobalAttribute;
  internals.uncurryThis = uncurryThis;
  internals.pairIterator = pairIterator;
  internals.readPairs = readPairs;
  internals.pairListDelete = pairListDelete;
  internals.pairListSet = pairListSet;
  internals.PAIR_KEYS = PAIR_KEYS;
  internals.PAIR_VALUES = PAIR_VALUES;
  internals.PAIR_ENTRIES = PAIR_ENTRIES;
  internals.hasOwn = hasOwn;
  internals.webidl = {
    __proto__: null,
    illegalInvocation,
    illegalConstructor,
    requiredArguments,
    isObject,
    toDOMString,
    toUSVString,
    toBoolean,
    toShort,
    toUnsignedShort,
    toLong,
    toUnsignedLong,
    toLongLong,
    toUnsignedLongLong,
    toDouble,
    toUnrestrictedDouble,
    toDictionary,
    dictionaryMember,
    toCallbackInterface,
    toSequence,
  };
})
