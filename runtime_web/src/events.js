// DOM events: `Event`, `EventTarget`, `CustomEvent`, `ErrorEvent`, `reportError`, and the
// global object as an event target (as a worker's global is). Installed after webidl.js.
(function (internalOps, internals) {
  "use strict";

  // Captured before tenant code runs; later patches of these globals do not reach us.
  const { Date, Map, Object, Promise, Reflect, String, TypeError } = globalThis;
  const {
    DOMException,
    configureInterface,
    defineConstants,
    defineGlobal,
    defineGlobalOperation,
    getDOMExceptionData,
    hasOwn,
    uncurryThis,
    webidl,
  } = internals;
  const {
    illegalInvocation,
    isObject,
    requiredArguments,
    toBoolean,
    toCallbackInterface,
    toDOMString,
    toDictionary,
    dictionaryMember,
    toUSVString,
    toUnsignedLong,
  } = webidl;
  const DateNow = Date.now;
  const MapPrototypeGet = uncurryThis(Map.prototype.get);
  const MapPrototypeSet = uncurryThis(Map.prototype.set);
  const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const PromiseReject = Promise.reject;
  const ReflectApply = Reflect.apply;
  const StringPrototypeSlice = uncurryThis(String.prototype.slice);

  const NONE = 0;
  const CAPTURING_PHASE = 1;
  const AT_TARGET = 2;
  const BUBBLING_PHASE = 3;

  // Event.timeStamp is relative to the time origin. The performance group may install a
  // high-resolution clock as `internals.highResTimeNow` (milliseconds since the origin); until
  // then the wall clock since this script ran stands in.
  const timeOrigin = DateNow();
  // Read once it is there (a lookup on `internals` each event would cost more than the clock).
  let clock;
  function now() {
    if (clock === undefined) {
      clock = internals.highResTimeNow;
      if (clock === undefined) return DateNow() - timeOrigin;
    }
    return clock();
  }

  // ---- Event --------------------------------------------------------------------------

  // Internal records use class fields (defined, not assigned, so setters a tenant puts on
  // Object.prototype never run) and a null prototype.
  class EventState {
    type;
    bubbles;
    cancelable;
    composed;
    timeStamp;
    target = null;
    currentTarget = null;
    eventPhase = NONE;
    stopPropagation = false;
    stopImmediatePropagation = false;
    canceled = false;
    inPassiveListener = false;
    dispatching = false;
    initialized = true;
    isTrusted = false;

    constructor(type, bubbles, cancelable, composed, timeStamp) {
      this.type = type;
      this.bubbles = bubbles;
      this.cancelable = cancelable;
      this.composed = composed;
      this.timeStamp = timeStamp;
    }
  }
  ObjectSetPrototypeOf(EventState.prototype, null);

  function setCanceledFlag(state) {
    if (state.cancelable && !state.inPassiveListener) state.canceled = true;
  }

  function initializeEvent(state, type, bubbles, cancelable) {
    state.initialized = true;
    state.stopPropagation = false;
    state.stopImmediatePropagation = false;
    state.canceled = false;
    state.isTrusted = false;
    state.target = null;
    state.type = type;
    state.bubbles = bubbles;
    state.cancelable = cancelable;
  }

  let getEventState;
  let isTrustedDescriptor;

  class Event {
    #state;

    constructor(type, eventInitDict = undefined) {
      const prefix = "Failed to construct 'Event'";
      requiredArguments(arguments.length, 1, prefix);
      type = toDOMString(type, prefix, "Argument 1");
      // EventInit members, read in the order WebIDL fixes (lexicographic).
      const dict = toDictionary(eventInitDict, prefix, "EventInit");
      const bubbles = toBoolean(dictionaryMember(dict, "bubbles"));
      const cancelable = toBoolean(dictionaryMember(dict, "cancelable"));
      const composed = toBoolean(dictionaryMember(dict, "composed"));
      this.#state = new EventState(type, bubbles, cancelable, composed, now());
      // isTrusted is [LegacyUnforgeable]: an own, non-configurable accessor on every instance,
      // all sharing one getter that reads the event's internal flag.
      ObjectDefineProperty(this, "isTrusted", isTrustedDescriptor);
    }

    static #get(self) {
      if (!isObject(self) || !(#state in self)) throw illegalInvocation();
      return self.#state;
    }

    get type() {
      return Event.#get(this).type;
    }

    get target() {
      return Event.#get(this).target;
    }

    get srcElement() {
      return Event.#get(this).target;
    }

    get currentTarget() {
      return Event.#get(this).currentTarget;
    }

    composedPath() {
      const state = Event.#get(this);
      // Our targets have no parents, so the path is the current target alone while
      // dispatching, and empty otherwise.
      if (!state.dispatching || state.currentTarget === null) return [];
      return [state.currentTarget];
    }

    get eventPhase() {
      return Event.#get(this).eventPhase;
    }

    stopPropagation() {
      Event.#get(this).stopPropagation = true;
    }

    get cancelBubble() {
      return Event.#get(this).stopPropagation;
    }

    set cancelBubble(value) {
      const state = Event.#get(this);
      if (toBoolean(value)) state.stopPropagation = true;
    }

    stopImmediatePropagation() {
      const state = Event.#get(this);
      state.stopPropagation = true;
      state.stopImmediatePropagation = true;
    }

    get bubbles() {
      return Event.#get(this).bubbles;
    }

    get cancelable() {
      return Event.#get(this).cancelable;
    }

    get returnValue() {
      return !Event.#get(this).canceled;
    }

    set returnValue(value) {
      const state = Event.#get(this);
      if (!toBoolean(value)) setCanceledFlag(state);
    }

    preventDefault() {
      setCanceledFlag(Event.#get(this));
    }

    get defaultPrevented() {
      return Event.#get(this).canceled;
    }

    get composed() {
      return Event.#get(this).composed;
    }

    get timeStamp() {
      return Event.#get(this).timeStamp;
    }

    initEvent(type, bubbles = false, cancelable = false) {
      const state = Event.#get(this);
      const prefix = "Failed to execute 'initEvent' on 'Event'";
      requiredArguments(arguments.length, 1, prefix);
      type = toDOMString(type, prefix, "parameter 1");
      bubbles = toBoolean(bubbles);
      cancelable = toBoolean(cancelable);
      if (state.dispatching) return;
      initializeEvent(state, type, bubbles, cancelable);
    }

    static {
      getEventState = (value) => (isObject(value) && #state in value ? value.#state : undefined);
      const getter = ObjectGetOwnPropertyDescriptor(
        { get isTrusted() { return Event.#get(this).isTrusted; } },
        "isTrusted",
      ).get;
      isTrustedDescriptor = {
        __proto__: null,
        get: getter,
        set: undefined,
        enumerable: true,
        configurable: false,
      };
    }
  }

  configureInterface(Event);
  const eventPhaseConstants = { __proto__: null, NONE, CAPTURING_PHASE, AT_TARGET, BUBBLING_PHASE };
  defineConstants([Event, Event.prototype], eventPhaseConstants);

  class CustomEvent extends Event {
    #detail = null;

    constructor(type, eventInitDict = undefined) {
      const prefix = "Failed to construct 'CustomEvent'";
      requiredArguments(arguments.length, 1, prefix);
      super(type, eventInitDict);
      const detail = dictionaryMember(toDictionary(eventInitDict, prefix, "CustomEventInit"), "detail");
      this.#detail = detail === undefined ? null : detail;
    }

    static #check(self) {
      if (!isObject(self) || !(#detail in self)) throw illegalInvocation();
    }

    get detail() {
      CustomEvent.#check(this);
      return this.#detail;
    }

    initCustomEvent(type, bubbles = false, cancelable = false, detail = null) {
      CustomEvent.#check(this);
      const prefix = "Failed to execute 'initCustomEvent' on 'CustomEvent'";
      requiredArguments(arguments.length, 1, prefix);
      type = toDOMString(type, prefix, "parameter 1");
      bubbles = toBoolean(bubbles);
      cancelable = toBoolean(cancelable);
      const state = getEventState(this);
      if (state.dispatching) return;
      initializeEvent(state, type, bubbles, cancelable);
      this.#detail = detail;
    }
  }

  configureInterface(CustomEvent);

  let isErrorEvent;
  let errorEventHandlerArguments;

  class ErrorEvent extends Event {
    #message = "";
    #filename = "";
    #lineno = 0;
    #colno = 0;
    #error = undefined;

    constructor(type, eventInitDict = undefined) {
      const prefix = "Failed to construct 'ErrorEvent'";
      requiredArguments(arguments.length, 1, prefix);
      super(type, eventInitDict);
      const dict = toDictionary(eventInitDict, prefix, "ErrorEventInit");
      if (dict !== undefined) {
        // ErrorEventInit members in lexicographic order, after EventInit's.
        let value = dict.colno;
        if (value !== undefined) this.#colno = toUnsignedLong(value, undefined, prefix, "colno");
        this.#error = dict.error;
        value = dict.filename;
        if (value !== undefined) this.#filename = toUSVString(value, prefix, "filename");
        value = dict.lineno;
        if (value !== undefined) this.#lineno = toUnsignedLong(value, undefined, prefix, "lineno");
        value = dict.message;
        if (value !== undefined) this.#message = toDOMString(value, prefix, "message");
      }
    }

    static #check(self) {
      if (!isObject(self) || !(#error in self)) throw illegalInvocation();
    }

    get message() {
      ErrorEvent.#check(this);
      return this.#message;
    }

    get filename() {
      ErrorEvent.#check(this);
      return this.#filename;
    }

    get lineno() {
      ErrorEvent.#check(this);
      return this.#lineno;
    }

    get colno() {
      ErrorEvent.#check(this);
      return this.#colno;
    }

    get error() {
      ErrorEvent.#check(this);
      return this.#error;
    }

    static {
      isErrorEvent = (value) => isObject(value) && #error in value;
      errorEventHandlerArguments = (event) => [
        event.#message,
        event.#filename,
        event.#lineno,
        event.#colno,
        event.#error,
      ];
    }
  }

  configureInterface(ErrorEvent);

  // ---- Listener storage ---------------------------------------------------------------

  // Per target, a map from event type to a doubly linked list of listeners in the order they
  // were added, plus per-capture maps from callback to listener so that adding and removing
  // are constant time. A dispatch walks the list from its head and stops after the listener
  // that was last when it began (ids only grow along the list): listeners added meanwhile are
  // not called, removed ones carry the removed flag and are skipped, and a removed listener
  // keeps its `next` so that a walk standing on it goes on. This is the spec's "clone the
  // list" without copying it.
  let nextListenerId = 0;

  class ListenerRecord {
    id;
    list;
    callback;
    capture;
    passive;
    once;
    signal;
    abortAlgorithm = null;
    removed = false;
    prev = null;
    next = null;

    constructor(list, callback, capture, passive, once, signal) {
      this.id = ++nextListenerId;
      this.list = list;
      this.callback = callback;
      this.capture = capture;
      this.passive = passive;
      this.once = once;
      this.signal = signal;
    }
  }
  ObjectSetPrototypeOf(ListenerRecord.prototype, null);

  class ListenerList {
    owner;
    type;
    head = null;
    tail = null;
    size = 0;
    captureCount = 0;
    byCallback = null;
    byCallbackCapture = null;

    constructor(owner, type) {
      this.owner = owner;
      this.type = type;
    }
  }
  ObjectSetPrototypeOf(ListenerList.prototype, null);

  class TargetState {
    types = new Map();
    handlers = null;
    // Told when a type's list becomes non-empty or empty (AbortSignal.any's dependents
    // must stay alive while they have abort listeners).
    hook = null;
  }
  ObjectSetPrototypeOf(TargetState.prototype, null);

  // EventTarget state is a private field stamped onto the object, so that the global object
  // can carry it without EventTarget.prototype in its chain.
  class Stamper {
    constructor(object) {
      return object;
    }
  }

  let getTargetState;
  // The global object's state, should the engine refuse private fields on the global proxy.
  let globalTargetState;

  class EventTargetStamp extends Stamper {
    #targetState = new TargetState();

    // Explicit: V8's implicit derived constructor spreads its arguments through the array
    // iterator, which tenants can patch.
    constructor(object) {
      super(object);
    }

    static {
      getTargetState = (value) => {
        if (isObject(value) && #targetState in value) return value.#targetState;
        return value === globalThis ? globalTargetState : undefined;
      };
    }
  }

  function initEventTarget(object) {
    if (getTargetState(object) !== undefined) return;
    try {
      new EventTargetStamp(object);
    } catch (error) {
      if (object !== globalThis) throw error;
      globalTargetState = new TargetState();
    }
  }

  function findListener(list, callback, capture) {
    const index = capture ? list.byCallbackCapture : list.byCallback;
    return index === null ? undefined : MapPrototypeGet(index, callback);
  }

  function addListener(targetState, type, callback, capture, passive, once, signal) {
    let list = MapPrototypeGet(targetState.types, type);
    if (list === undefined) {
      list = new ListenerList(targetState, type);
      MapPrototypeSet(targetState.types, type, list);
    } else if (findListener(list, callback, capture) !== undefined) {
      return null;
    }
    const record = new ListenerRecord(list, callback, capture, passive, once, signal);
    if (list.tail === null) {
      list.head = record;
    } else {
      list.tail.next = record;
      record.prev = list.tail;
    }
    list.tail = record;
    if (capture) {
      if (list.byCallbackCapture === null) list.byCallbackCapture = new Map();
      MapPrototypeSet(list.byCallbackCapture, callback, record);
      list.captureCount++;
    } else {
      if (list.byCallback === null) list.byCallback = new Map();
      MapPrototypeSet(list.byCallback, callback, record);
    }
    list.size++;
    if (list.size === 1 && targetState.hook !== null) targetState.hook(type, true);
    if (signal !== null) {
      const algorithm = () => removeListener(record);
      record.abortAlgorithm = algorithm;
      internals.addAbortAlgorithm(signal, algorithm);
    }
    return record;
  }

  function removeListener(record) {
    if (record.removed) return;
    record.removed = true;
    const list = record.list;
    if (record.prev === null) list.head = record.next;
    else record.prev.next = record.next;
    if (record.next === null) list.tail = record.prev;
    else record.next.prev = record.prev;
    if (record.capture) {
      MapPrototypeDelete(list.byCallbackCapture, record.callback);
      list.captureCount--;
    } else {
      MapPrototypeDelete(list.byCallback, record.callback);
    }
    list.size--;
    if (list.size === 0) {
      const owner = list.owner;
      if (MapPrototypeGet(owner.types, list.type) === list) {
        MapPrototypeDelete(owner.types, list.type);
      }
      if (owner.hook !== null) owner.hook(list.type, false);
    }
    if (record.signal !== null) {
      // A listener gone by other means no longer needs its signal to remove it.
      internals.removeAbortAlgorithm(record.signal, record.abortAlgorithm);
      record.signal = null;
      record.abortAlgorithm = null;
    }
  }

  // ---- Dispatch -----------------------------------------------------------------------

  // "Call a user object's operation": a function is called with the current target as
  // `this`; any other object has its handleEvent looked up anew on every call.
  function callListener(callback, event, thisArg) {
    try {
      if (typeof callback === "function") {
        ReflectApply(callback, thisArg, [event]);
      } else {
        const handleEvent = callback.handleEvent;
        if (typeof handleEvent !== "function") {
          throw new TypeError("The listener's handleEvent is not a function.");
        }
        ReflectApply(handleEvent, callback, [event]);
      }
    } catch (error) {
      reportException(error);
    }
  }

  // Our targets have no parents, so there is no propagation for the stop propagation flag
  // to stop: as in browsers' EventTarget (and as WPT expects), only the stop immediate
  // propagation flag ends a dispatch, even when set before it began.
  function invoke(target, targetState, state, event, capturing) {
    if (state.stopImmediatePropagation) return;
    state.currentTarget = target;
    const list = MapPrototypeGet(targetState.types, state.type);
    if (list === undefined) return;
    if (capturing ? list.captureCount === 0 : list.size === list.captureCount) return;
    const lastId = list.tail.id;
    for (let record = list.head; record !== null && record.id <= lastId; record = record.next) {
      if (record.removed || record.capture !== capturing) continue;
      if (record.once) removeListener(record);
      if (record.passive) state.inPassiveListener = true;
      callListener(record.callback, event, state.currentTarget);
      state.inPassiveListener = false;
      if (state.stopImmediatePropagation) break;
    }
  }

  // The DOM's dispatch for targets without parents: the capture pass (capturing listeners,
  // at target) then the bubble pass (the others). Returns false if the event was canceled.
  function dispatch(target, event) {
    const state = getEventState(event);
    const targetState = getTargetState(target);
    if (state === undefined || targetState === undefined) throw illegalInvocation();
    state.dispatching = true;
    try {
      state.target = target;
      state.eventPhase = AT_TARGET;
      invoke(target, targetState, state, event, true);
      state.eventPhase = AT_TARGET;
      invoke(target, targetState, state, event, false);
    } finally {
      state.eventPhase = NONE;
      state.currentTarget = null;
      state.dispatching = false;
      state.stopPropagation = false;
      state.stopImmediatePropagation = false;
    }
    return !state.canceled;
  }

  // ---- EventTarget --------------------------------------------------------------------

  // WebIDL: an operation called on undefined or null acts on the global object.
  function targetStateOf(self) {
    const state = getTargetState(self === undefined || self === null ? globalThis : self);
    if (state === undefined) throw illegalInvocation();
    return state;
  }

  class EventTarget {
    constructor() {
      initEventTarget(this);
    }

    addEventListener(type, callback, options = undefined) {
      const targetState = targetStateOf(this);
      const prefix = "Failed to execute 'addEventListener' on 'EventTarget'";
      requiredArguments(arguments.length, 2, prefix);
      type = toDOMString(type, prefix, "parameter 1");
      callback = toCallbackInterface(callback, prefix, "parameter 2");
      let capture = false;
      let once = false;
      let passive = false;
      let signal = null;
      if (isObject(options)) {
        // AddEventListenerOptions: EventListenerOptions' member, then its own, each in
        // lexicographic order.
        capture = toBoolean(options.capture);
        once = toBoolean(options.once);
        passive = toBoolean(options.passive);
        const value = options.signal;
        if (value !== undefined) {
          const isAbortSignal = internals.isAbortSignal;
          if (isAbortSignal === undefined || !isAbortSignal(value)) {
            throw new TypeError(
              `${prefix}: Failed to read the 'signal' property from 'AddEventListenerOptions': Failed to convert value to 'AbortSignal'.`,
            );
          }
          signal = value;
        }
      } else if (options !== undefined && options !== null) {
        capture = toBoolean(options);
      }
      if (signal !== null && internals.abortSignalAborted(signal)) return;
      if (callback === null) return;
      addListener(targetState, type, callback, capture, passive, once, signal);
    }

    removeEventListener(type, callback, options = undefined) {
      const targetState = targetStateOf(this);
      const prefix = "Failed to execute 'removeEventListener' on 'EventTarget'";
      requiredArguments(arguments.length, 2, prefix);
      type = toDOMString(type, prefix, "parameter 1");
      callback = toCallbackInterface(callback, prefix, "parameter 2");
      let capture = false;
      if (isObject(options)) {
        capture = toBoolean(options.capture);
      } else if (options !== undefined && options !== null) {
        capture = toBoolean(options);
      }
      if (callback === null) return;
      const list = MapPrototypeGet(targetState.types, type);
      if (list === undefined) return;
      const record = findListener(list, callback, capture);
      if (record !== undefined) removeListener(record);
    }

    dispatchEvent(event) {
      const self = this === undefined || this === null ? globalThis : this;
      targetStateOf(self);
      const prefix = "Failed to execute 'dispatchEvent' on 'EventTarget'";
      requiredArguments(arguments.length, 1, prefix);
      const state = getEventState(event);
      if (state === undefined) {
        throw new TypeError(`${prefix}: parameter 1 is not of type 'Event'.`);
      }
      if (state.dispatching || !state.initialized) {
        throw new DOMException(
          `${prefix}: The event is already being dispatched.`,
          "InvalidStateError",
        );
      }
      state.isTrusted = false;
      return dispatch(self, event);
    }
  }

  configureInterface(EventTarget);

  // ---- Event handler IDL attributes ---------------------------------------------------

  class HandlerEntry {
    value = null;
    record = null;
  }
  ObjectSetPrototypeOf(HandlerEntry.prototype, null);

  // HTML's event handler processing algorithm, run by the listener that activating a handler
  // adds. The global's onerror gets ErrorEvent's fields as arguments and cancels on `true`.
  function processEventHandler(thisArg, event, entry, name) {
    const callback = entry.value;
    // [LegacyTreatNonObjectAsNull]: a non-callable object is kept but does nothing.
    if (typeof callback !== "function") return;
    const state = getEventState(event);
    if (name === "onerror" && thisArg === globalThis && state.type === "error" && isErrorEvent(event)) {
      if (ReflectApply(callback, thisArg, errorEventHandlerArguments(event)) === true) {
        setCanceledFlag(state);
      }
      return;
    }
    if (ReflectApply(callback, thisArg, [event]) === false) setCanceledFlag(state);
  }

  function setEventHandler(targetState, name, type, value) {
    if (!isObject(value)) value = null;
    let entry = targetState.handlers === null ? undefined : MapPrototypeGet(targetState.handlers, name);
    if (value === null) {
      if (entry === undefined) return;
      entry.value = null;
      if (entry.record !== null) {
        removeListener(entry.record);
        entry.record = null;
      }
      return;
    }
    if (entry === undefined) {
      if (targetState.handlers === null) targetState.handlers = new Map();
      entry = new HandlerEntry();
      MapPrototypeSet(targetState.handlers, name, entry);
    }
    entry.value = value;
    // The listener is added at first activation and keeps its place until deactivation.
    if (entry.record === null) {
      const handlerListener = function (event) {
        processEventHandler(this, event, entry, name);
      };
      entry.record = addListener(targetState, type, handlerListener, false, false, false, null);
    }
  }

  // Defines the `on<type>` attribute `name` on `object` (an interface prototype, or the global
  // object). `isReceiver`, if given, brand-checks `this` beyond being an event target.
  function defineEventHandlerAttribute(object, name, isReceiver = undefined) {
    const type = StringPrototypeSlice(name, 2);
    const receiverState = (self) => {
      if (self === undefined || self === null) self = globalThis;
      if (isReceiver !== undefined && !isReceiver(self)) throw illegalInvocation();
      return targetStateOf(self);
    };
    const accessors = {
      get [name]() {
        const targetState = receiverState(this);
        const entry = targetState.handlers === null ? undefined : MapPrototypeGet(targetState.handlers, name);
        return entry === undefined ? null : entry.value;
      },
      set [name](value) {
        setEventHandler(receiverState(this), name, type, value);
      },
    };
    const desc = ObjectGetOwnPropertyDescriptor(accessors, name);
    ObjectDefineProperty(object, name, {
      __proto__: null,
      get: desc.get,
      set: desc.set,
      enumerable: true,
      configurable: true,
    });
  }

  // ---- Reporting exceptions -----------------------------------------------------------

  // ErrorEvent.message is implementation-defined. It is built from own data properties and
  // the prototype chain's `name` without calling getters; only a proxy's traps could run.
  function describeError(error) {
    if (!isObject(error)) return `Uncaught ${String(error)}`;
    const data = getDOMExceptionData(error);
    if (data !== undefined) return `Uncaught ${data.name}: ${data.message}`;
    let message = "";
    let name = "";
    try {
      const desc = ObjectGetOwnPropertyDescriptor(error, "message");
      if (desc !== undefined && hasOwn(desc, "value") && typeof desc.value === "string") {
        message = desc.value;
      }
      let object = error;
      for (let depth = 0; object !== null && depth < 16; depth++) {
        const nameDesc = ObjectGetOwnPropertyDescriptor(object, "name");
        if (nameDesc !== undefined) {
          if (hasOwn(nameDesc, "value") && typeof nameDesc.value === "string") name = nameDesc.value;
          break;
        }
        object = ObjectGetPrototypeOf(object);
      }
    } catch {
      // A revoked proxy or a throwing trap: keep what we have.
    }
    if (name === "") return message === "" ? "Uncaught exception" : `Uncaught ${message}`;
    return message === "" ? `Uncaught ${name}` : `Uncaught ${name}: ${message}`;
  }

  // An error nobody canceled goes to the host as an uncaught error: a rejected promise that
  // no script can reach, and so never handles, reaches the host's rejection tracking.
  function leaveUncaught(error) {
    ReflectApply(PromiseReject, Promise, [error]);
  }

  let inErrorReporting = false;

  // HTML's "report an exception": an `error` ErrorEvent at the global object; an error
  // raised while one is being reported goes straight to the host.
  function reportException(error) {
    if (inErrorReporting || getTargetState(globalThis) === undefined) {
      leaveUncaught(error);
      return;
    }
    const event = new ErrorEvent("error", {
      __proto__: null,
      cancelable: true,
      message: describeError(error),
      filename: "",
      lineno: 0,
      colno: 0,
      error,
    });
    getEventState(event).isTrusted = true;
    let notCanceled;
    inErrorReporting = true;
    try {
      notCanceled = dispatch(globalThis, event);
    } finally {
      inErrorReporting = false;
    }
    if (notCanceled) leaveUncaught(error);
  }

  function reportError(e) {
    requiredArguments(arguments.length, 1, "Failed to execute 'reportError'");
    reportException(e);
  }

  // ---- Helpers for other groups -------------------------------------------------------

  // DOM "fire an event": a trusted event of `EventClass` made from `eventInitDict` (pass
  // null-prototype objects so no inherited member is read) and dispatched at `target`.
  function fireEvent(target, type, eventInitDict = undefined, EventClass = Event) {
    // With no listener of that type the dispatch would be unobservable (our targets have no
    // parents), so the event is not even made.
    const targetState = getTargetState(target);
    if (targetState !== undefined && MapPrototypeGet(targetState.types, type) === undefined) return true;
    const event = new EventClass(type, eventInitDict);
    getEventState(event).isTrusted = true;
    return dispatch(target, event);
  }

  function setEventIsTrusted(event, value) {
    getEventState(event).isTrusted = value;
  }

  function setEventTarget(event, target) {
    getEventState(event).target = target;
  }

  function setEventTargetListenerHook(target, hook) {
    getTargetState(target).hook = hook;
  }

  // ---- Globals ------------------------------------------------------------------------

  initEventTarget(globalThis);
  const { addEventListener, removeEventListener, dispatchEvent } = EventTarget.prototype;

  defineGlobal("Event", Event);
  defineGlobal("EventTarget", EventTarget);
  defineGlobal("CustomEvent", CustomEvent);
  defineGlobal("ErrorEvent", ErrorEvent);
  defineGlobalOperation("reportError", reportError);
  defineGlobalOperation("addEventListener", addEventListener);
  defineGlobalOperation("removeEventListener", removeEventListener);
  defineGlobalOperation("dispatchEvent", dispatchEvent);

  internals.Event = Event;
  internals.EventTarget = EventTarget;
  internals.CustomEvent = CustomEvent;
  internals.ErrorEvent = ErrorEvent;
  internals.isEvent = (value) => getEventState(value) !== undefined;
  internals.isEventTarget = (value) => getTargetState(value) !== undefined;
  internals.initEventTarget = initEventTarget;
  internals.dispatch = dispatch;
  internals.fireEvent = fireEvent;
  internals.setEventIsTrusted = setEventIsTrusted;
  internals.setEventTarget = setEventTarget;
  internals.setEventTargetListenerHook = setEventTargetListenerHook;
  internals.defineEventHandlerAttribute = defineEventHandlerAttribute;
  internals.reportException = reportException;
})
