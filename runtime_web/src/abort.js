// `AbortController` and `AbortSignal` (DOM), over events.js. Installed after it, and after
// the host's timers.
(function (internalOps, internals) {
  "use strict";

  // Captured before tenant code runs; later patches of these globals do not reach us.
  const { FinalizationRegistry, Math, Object, Reflect, Set, Symbol, TypeError, WeakRef } = globalThis;
  const {
    DOMException,
    EventTarget,
    configureInterface,
    defineEventHandlerAttribute,
    defineGlobal,
    fireEvent,
    reportException,
    setEventTargetListenerHook,
    uncurryThis,
    webidl,
  } = internals;
  const {
    illegalConstructor,
    illegalInvocation,
    isObject,
    requiredArguments,
    toSequence,
    toUnsignedLongLong,
  } = webidl;
  // The host installs its timers before this script runs.
  const hostSetTimeout = globalThis.setTimeout;
  const hostUnrefTimer = globalThis.unrefTimer;
  const MathMax = Math.max;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ReflectApply = Reflect.apply;
  const SetPrototypeAdd = uncurryThis(Set.prototype.add);
  const SetPrototypeDelete = uncurryThis(Set.prototype.delete);
  const SetPrototypeHas = uncurryThis(Set.prototype.has);
  const SetPrototypeValues = uncurryThis(Set.prototype.values);
  const SetPrototypeGetSize = uncurryThis(ObjectGetOwnPropertyDescriptor(Set.prototype, "size").get);
  const SetIteratorPrototypeNext = uncurryThis(ObjectGetPrototypeOf(new Set().values()).next);
  const WeakRefPrototypeDeref = uncurryThis(WeakRef.prototype.deref);
  const FinalizationRegistryPrototypeRegister =
    FinalizationRegistry !== undefined ? uncurryThis(FinalizationRegistry.prototype.register) : undefined;
  const FinalizationRegistryPrototypeUnregister =
    FinalizationRegistry !== undefined ? uncurryThis(FinalizationRegistry.prototype.unregister) : undefined;

  // Host timers take a delay of at most this many milliseconds; longer timeouts are chained.
  const MAX_TIMER_DELAY = 2147483647;

  const constructorKey = Symbol("AbortSignal");

  // What a source signal knows of one dependent signal (AbortSignal.any): a weak reference,
  // and a strong one while the dependent has abort listeners or abort algorithms (the spec
  // forbids collecting it then). The cell is reachable only from its sources' sets and from
  // the dependent itself, so a pinned dependent still dies with its last source.
  class DependentCell {
    ref;
    strong = null;

    constructor(ref) {
      this.ref = ref;
    }
  }
  ObjectSetPrototypeOf(DependentCell.prototype, null);

  // Held by the finalization registry for a dependent: enough to drop its cell from its
  // sources' sets once it is collected, without referring to the dependent strongly.
  class DependentRecord {
    sources;
    cellRef;

    constructor(sources, cellRef) {
      this.sources = sources;
      this.cellRef = cellRef;
    }
  }
  ObjectSetPrototypeOf(DependentRecord.prototype, null);

  function newList() {
    const list = [];
    ObjectSetPrototypeOf(list, null);
    return list;
  }

  function scheduleTimeout(milliseconds, callback) {
    if (typeof hostSetTimeout !== "function") {
      throw new DOMException("AbortSignal.timeout() needs the host's timers.", "NotSupportedError");
    }
    const delay = milliseconds > MAX_TIMER_DELAY ? MAX_TIMER_DELAY : milliseconds;
    const rest = milliseconds - delay;
    const run = rest > 0 ? () => scheduleTimeout(rest, callback) : callback;
    const id = ReflectApply(hostSetTimeout, globalThis, [run, delay]);
    // A timeout signal must not keep the host's event loop alive.
    if (typeof hostUnrefTimer === "function") ReflectApply(hostUnrefTimer, globalThis, [id]);
  }

  let isAbortSignal;
  let newAbortSignal;
  let signalAbort;
  let abortSignalAborted;
  let abortSignalReason;
  let addAbortAlgorithm;
  let removeAbortAlgorithm;
  let createDependentAbortSignal;
  let finalizeDependent;

  class AbortSignal extends EventTarget {
    #aborted = false;
    #reason = undefined;
    // A set of functions, made on first use.
    #algorithms = null;
    #dependent = false;
    // On a dependent: its sources, as weak references (a null-prototype array), and its cell.
    #sources = null;
    #cell = null;
    #hasAbortListeners = false;
    // On a source: the cells of its dependents, in the order they were made.
    #dependents = null;
    #sweepAt = 16;
    #selfRef = null;

    constructor(key = undefined) {
      if (key !== constructorKey) throw illegalConstructor();
      super();
    }

    static #get(self) {
      if (!isObject(self) || !(#aborted in self)) throw illegalInvocation();
      return self;
    }

    get aborted() {
      return AbortSignal.#get(this).#aborted;
    }

    get reason() {
      return AbortSignal.#get(this).#reason;
    }

    throwIfAborted() {
      const signal = AbortSignal.#get(this);
      if (signal.#aborted) throw signal.#reason;
    }

    static abort(reason = undefined) {
      const signal = new AbortSignal(constructorKey);
      signal.#aborted = true;
      signal.#reason = reason !== undefined ? reason : AbortSignal.#abortError();
      return signal;
    }

    static timeout(milliseconds) {
      const prefix = "Failed to execute 'timeout' on 'AbortSignal'";
      requiredArguments(arguments.length, 1, prefix);
      const ms = toUnsignedLongLong(milliseconds, { __proto__: null, enforceRange: true }, prefix, "parameter 1");
      const signal = new AbortSignal(constructorKey);
      scheduleTimeout(ms, () => {
        AbortSignal.#signalAbort(signal, new DOMException("The operation timed out.", "TimeoutError"));
      });
      return signal;
    }

    static any(signals) {
      const prefix = "Failed to execute 'any' on 'AbortSignal'";
      requiredArguments(arguments.length, 1, prefix);
      const list = toSequence(
        signals,
        (value) => {
          if (!isObject(value) || !(#aborted in value)) {
            throw new TypeError(`${prefix}: Failed to convert value to 'AbortSignal'.`);
          }
          return value;
        },
        prefix,
        "parameter 1",
      );
      return AbortSignal.#createDependent(list);
    }

    static #abortError() {
      return new DOMException("This operation was aborted", "AbortError");
    }

    // DOM "signal abort". Dependents are all marked aborted (with the same reason) before
    // any abort algorithm or listener runs, then aborted in the order they were made.
    static #signalAbort(signal, reason) {
      if (signal.#aborted) return;
      if (reason === undefined) reason = AbortSignal.#abortError();
      signal.#aborted = true;
      signal.#reason = reason;
      const dependents = signal.#dependents;
      signal.#dependents = null;
      let toAbort = null;
      let count = 0;
      if (dependents !== null) {
        toAbort = newList();
        const iterator = SetPrototypeValues(dependents);
        for (let step = SetIteratorPrototypeNext(iterator); !step.done; step = SetIteratorPrototypeNext(iterator)) {
          const cell = step.value;
          const dependent = cell.strong !== null ? cell.strong : WeakRefPrototypeDeref(cell.ref);
          if (dependent === undefined || dependent.#aborted) continue;
          dependent.#aborted = true;
          dependent.#reason = reason;
          toAbort[count++] = dependent;
        }
      }
      AbortSignal.#runAbortSteps(signal);
      for (let i = 0; i < count; i++) AbortSignal.#runAbortSteps(toAbort[i]);
    }

    static #runAbortSteps(signal) {
      AbortSignal.#detach(signal);
      const algorithms = signal.#algorithms;
      if (algorithms !== null) {
        // Walked live: an algorithm removed by an earlier one does not run.
        const iterator = SetPrototypeValues(algorithms);
        for (let step = SetIteratorPrototypeNext(iterator); !step.done; step = SetIteratorPrototypeNext(iterator)) {
          try {
            step.value();
          } catch (error) {
            reportException(error);
          }
        }
        signal.#algorithms = null;
      }
      fireEvent(signal, "abort");
    }

    // An aborted dependent needs its sources no more, nor they it.
    static #detach(signal) {
      const sources = signal.#sources;
      if (sources === null) return;
      const cell = signal.#cell;
      signal.#sources = null;
      cell.strong = null;
      for (let i = 0; i < sources.length; i++) {
        const source = WeakRefPrototypeDeref(sources[i]);
        if (source !== undefined && source.#dependents !== null) {
          SetPrototypeDelete(source.#dependents, cell);
        }
      }
      if (registry !== null) FinalizationRegistryPrototypeUnregister(registry, cell);
    }

    static #updatePin(signal) {
      const cell = signal.#cell;
      if (cell === null) return;
      const pinned = signal.#sources !== null && !signal.#aborted && (signal.#hasAbortListeners ||
        (signal.#algorithms !== null && SetPrototypeGetSize(signal.#algorithms) > 0));
      cell.strong = pinned ? signal : null;
    }

    static #attach(source, cell) {
      let dependents = source.#dependents;
      if (dependents === null) {
        dependents = new Set();
        source.#dependents = dependents;
      } else if (SetPrototypeGetSize(dependents) >= source.#sweepAt) {
        // Drop the cells of collected dependents whose finalization has not run yet; the
        // threshold doubles with the live size, so this is amortized constant time.
        const iterator = SetPrototypeValues(dependents);
        for (let step = SetIteratorPrototypeNext(iterator); !step.done; step = SetIteratorPrototypeNext(iterator)) {
          const dead = step.value;
          if (dead.strong === null && WeakRefPrototypeDeref(dead.ref) === undefined) {
            SetPrototypeDelete(dependents, dead);
          }
        }
        source.#sweepAt = MathMax(16, 2 * SetPrototypeGetSize(dependents));
      }
      SetPrototypeAdd(dependents, cell);
    }

    // DOM "create a dependent abort signal". Sources of dependent signals are taken in their
    // place, so a dependent only ever hangs on non-dependent signals.
    static #createDependent(signals) {
      const result = new AbortSignal(constructorKey);
      for (let i = 0; i < signals.length; i++) {
        const signal = signals[i];
        if (signal.#aborted) {
          result.#aborted = true;
          result.#reason = signal.#reason;
          return result;
        }
      }
      result.#dependent = true;
      const cell = new DependentCell(new WeakRef(result));
      // Holds the sources strongly, so it must not be captured by any closure that outlives
      // this call (the listener hook below is made elsewhere for that reason).
      const seen = new Set();
      const sources = newList();
      let count = 0;
      for (let i = 0; i < signals.length; i++) {
        const signal = signals[i];
        if (!signal.#dependent) {
          count = AbortSignal.#addSource(signal, seen, sources, count, cell);
          continue;
        }
        const theirs = signal.#sources;
        if (theirs === null) continue;
        for (let j = 0; j < theirs.length; j++) {
          const source = WeakRefPrototypeDeref(theirs[j]);
          if (source !== undefined) count = AbortSignal.#addSource(source, seen, sources, count, cell);
        }
      }
      if (count === 0) return result;
      result.#sources = sources;
      result.#cell = cell;
      if (registry !== null) {
        FinalizationRegistryPrototypeRegister(registry, result, new DependentRecord(sources, new WeakRef(cell)), cell);
      }
      setEventTargetListenerHook(result, AbortSignal.#listenerHook(result));
      return result;
    }

    static #addSource(source, seen, sources, count, cell) {
      if (SetPrototypeHas(seen, source)) return count;
      SetPrototypeAdd(seen, source);
      if (source.#selfRef === null) source.#selfRef = new WeakRef(source);
      sources[count] = source.#selfRef;
      AbortSignal.#attach(source, cell);
      return count + 1;
    }

    static #listenerHook(signal) {
      return (type, hasListeners) => {
        if (type !== "abort") return;
        signal.#hasAbortListeners = hasListeners;
        AbortSignal.#updatePin(signal);
      };
    }

    static {
      isAbortSignal = (value) => isObject(value) && #aborted in value;
      newAbortSignal = () => new AbortSignal(constructorKey);
      signalAbort = (signal, reason = undefined) => AbortSignal.#signalAbort(AbortSignal.#get(signal), reason);
      abortSignalAborted = (signal) => AbortSignal.#get(signal).#aborted;
      abortSignalReason = (signal) => AbortSignal.#get(signal).#reason;
      addAbortAlgorithm = (signal, algorithm) => {
        AbortSignal.#get(signal);
        if (signal.#aborted) return;
        if (signal.#algorithms === null) signal.#algorithms = new Set();
        SetPrototypeAdd(signal.#algorithms, algorithm);
        if (signal.#cell !== null) AbortSignal.#updatePin(signal);
      };
      removeAbortAlgorithm = (signal, algorithm) => {
        AbortSignal.#get(signal);
        if (signal.#algorithms === null) return;
        SetPrototypeDelete(signal.#algorithms, algorithm);
        if (signal.#cell !== null) AbortSignal.#updatePin(signal);
      };
      createDependentAbortSignal = (signals) => {
        for (let i = 0; i < signals.length; i++) AbortSignal.#get(signals[i]);
        return AbortSignal.#createDependent(signals);
      };
      finalizeDependent = (record) => {
        const cell = WeakRefPrototypeDeref(record.cellRef);
        if (cell === undefined) return;
        const sources = record.sources;
        for (let i = 0; i < sources.length; i++) {
          const source = WeakRefPrototypeDeref(sources[i]);
          if (source !== undefined && source.#dependents !== null) {
            SetPrototypeDelete(source.#dependents, cell);
          }
        }
      };
    }
  }

  const registry = FinalizationRegistry !== undefined ? new FinalizationRegistry((record) => finalizeDependent(record)) : null;

  defineEventHandlerAttribute(AbortSignal.prototype, "onabort", isAbortSignal);
  configureInterface(AbortSignal);

  class AbortController {
    #signal;

    constructor() {
      this.#signal = newAbortSignal();
    }

    static #get(self) {
      if (!isObject(self) || !(#signal in self)) throw illegalInvocation();
      return self;
    }

    get signal() {
      return AbortController.#get(this).#signal;
    }

    abort(reason = undefined) {
      signalAbort(AbortController.#get(this).#signal, reason);
    }
  }

  configureInterface(AbortController);

  defineGlobal("AbortController", AbortController);
  defineGlobal("AbortSignal", AbortSignal);

  internals.AbortSignal = AbortSignal;
  internals.AbortController = AbortController;
  internals.isAbortSignal = isAbortSignal;
  internals.newAbortSignal = newAbortSignal;
  internals.signalAbort = signalAbort;
  internals.abortSignalAborted = abortSignalAborted;
  internals.abortSignalReason = abortSignalReason;
  internals.addAbortAlgorithm = addAbortAlgorithm;
  internals.removeAbortAlgorithm = removeAbortAlgorithm;
  internals.createDependentAbortSignal = createDependentAbortSignal;
})
