// Streams (the WHATWG Streams standard): `ReadableStream` with its default reader and
// controller, `WritableStream`, `TransformStream`, the queuing strategies, `pipeTo`,
// `pipeThrough`, `tee`, async iteration and `ReadableStream.from`. The spec's algorithms, by
// its names; each object's slots are a record in one private field, so no tenant can read or
// forge them. Byte streams (`type: "bytes"`, BYOB readers, their controller and tee) are in
// `byte_streams.js`, installed after this: a stream's controller record carries its pull,
// cancel and release steps, so what is written here works on either kind.
(function (internalOps, internals) {
  "use strict";

  const { Object, Promise, Reflect, Symbol, TypeError, RangeError, Number, Array } = globalThis;
  const {
    addAbortAlgorithm,
    removeAbortAlgorithm,
    abortSignalAborted,
    abortSignalReason,
    isAbortSignal,
    newAbortSignal,
    signalAbort,
    configureInterface,
    defineGlobal,
    uncurryThis,
    DOMException,
    webidl,
  } = internals;
  const { isObject, requiredArguments } = webidl;
  const ReflectApply = Reflect.apply;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ObjectCreate = Object.create;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
  const NumberIsNaN = Number.isNaN;
  const ArrayPrototypePush = uncurryThis(Array.prototype.push);
  const ArrayPrototypeShift = uncurryThis(Array.prototype.shift);
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const SymbolAsyncIterator = Symbol.asyncIterator;
  const SymbolIterator = Symbol.iterator;
  const SymbolToStringTag = Symbol.toStringTag;
  const AsyncIteratorPrototype = ObjectGetPrototypeOf(
    ObjectGetPrototypeOf(async function* () {}).prototype,
  );
  const queueMicrotask = globalThis.queueMicrotask;
  // With the clone group (which Request and Response bring): Response.clone()'s tee.
  const structuredCloneOf = globalThis.structuredClone;

  // ---- Promises ----------------------------------------------------------------------------

  const noop = () => {};
  const PENDING = 0;
  const SETTLED = 1;
  // A promise with its resolving functions and whether it is settled (the spec replaces a
  // settled promise where it would settle it again).
  function newDeferred() {
    let resolvePromise;
    let rejectPromise;
    const deferred = { promise: undefined, state: PENDING, resolve: undefined, reject: undefined };
    deferred.promise = new PromiseCtor((resolve, reject) => {
      resolvePromise = resolve;
      rejectPromise = reject;
    });
    deferred.resolve = (value) => {
      if (deferred.state !== PENDING) return;
      deferred.state = SETTLED;
      resolvePromise(value);
    };
    deferred.reject = (reason) => {
      if (deferred.state !== PENDING) return;
      deferred.state = SETTLED;
      rejectPromise(reason);
    };
    return deferred;
  }
  const then = (promise, onFulfilled, onRejected) =>
    PromisePrototypeThen(promise, onFulfilled, onRejected);
  const markHandled = (promise) => {
    PromisePrototypeThen(promise, undefined, noop);
  };
  const resolvedWith = (value) => PromiseResolve(value);
  const rejectedWith = (reason) => PromiseReject(reason);
  // Runs `f` and gives its outcome as a promise (a throw rejects): WebIDL's callback call.
  function promiseCall(f, receiver, args) {
    try {
      return resolvedWith(ReflectApply(f, receiver, args));
    } catch (error) {
      return rejectedWith(error);
    }
  }
  function typeError(message) {
    return new TypeErrorCtor(message);
  }
  // A promise-returning member's brand check: its object's slots, or null for a foreign
  // `this` (which the member rejects, never throws).
  function brandedSlots(slotsOf, object) {
    try {
      return slotsOf(object);
    } catch {
      return null;
    }
  }
  function illegalInvocation() {
    return typeError("Illegal invocation.");
  }
  function requireFunction(value, prefix, what) {
    if (value !== undefined && typeof value !== "function") {
      throw typeError(`${prefix}: ${what} is not a function.`);
    }
  }

  // ---- Queue with sizes --------------------------------------------------------------------

  // A queue of `{ value, size }`, read from `head`: a shift per read would be linear.
  function resetQueue(container) {
    container.queue = [];
    container.queueHead = 0;
    container.queueTotalSize = 0;
  }
  function queueLength(container) {
    return container.queue.length - container.queueHead;
  }
  function enqueueValueWithSize(container, value, size) {
    if (typeof size !== "number" || NumberIsNaN(size) || size < 0 || size === Infinity) {
      throw new RangeErrorCtor("The chunk's size must be a finite, non-negative number.");
    }
    ArrayPrototypePush(container.queue, { value, size });
    container.queueTotalSize += size;
  }
  function dequeueValue(container) {
    const queue = container.queue;
    const pair = queue[container.queueHead];
    queue[container.queueHead] = undefined;
    container.queueHead++;
    if (container.queueHead > 1024 && container.queueHead * 2 > queue.length) {
      container.queue = ReflectApply(Array.prototype.slice, queue, [container.queueHead]);
      container.queueHead = 0;
    }
    container.queueTotalSize -= pair.size;
    if (container.queueTotalSize < 0) container.queueTotalSize = 0; // rounding
    return pair.value;
  }
  function peekQueueValue(container) {
    return container.queue[container.queueHead].value;
  }

  // ---- Strategies ----------------------------------------------------------------------------

  // On a `QueuingStrategy` record (`toStrategy`'s).
  function extractHighWaterMark(strategy, defaultHWM) {
    const hwm = strategy === undefined ? undefined : strategy.highWaterMark;
    if (hwm === undefined) return defaultHWM;
    if (NumberIsNaN(hwm) || hwm < 0) {
      throw new RangeErrorCtor("Invalid highWaterMark.");
    }
    return hwm;
  }
  function extractSizeAlgorithm(strategy) {
    const size = strategy === undefined ? undefined : strategy.size;
    if (size === undefined) return () => 1;
    return (chunk) => ReflectApply(size, undefined, [chunk]);
  }
  // WebIDL's `QueuingStrategy` dictionary, converted as the argument is (before the body reads
  // anything of the other arguments): its members read once, in order.
  function toStrategy(strategy, prefix) {
    if (strategy === undefined || strategy === null) return undefined;
    if (!isObject(strategy)) throw typeError(`${prefix}: the strategy is not an object.`);
    const hwm = strategy.highWaterMark;
    const highWaterMark = hwm === undefined ? undefined : +hwm;
    const size = strategy.size;
    if (size !== undefined && typeof size !== "function") {
      throw typeError(`${prefix}: the strategy's size must be a function.`);
    }
    return { __proto__: null, highWaterMark, size };
  }

  function toHighWaterMarkInit(init, name) {
    if (!isObject(init)) {
      throw typeError(`Failed to construct '${name}': the argument is not an object.`);
    }
    const hwm = init.highWaterMark;
    if (hwm === undefined) {
      throw typeError(`Failed to construct '${name}': highWaterMark is required.`);
    }
    return +hwm;
  }

  // Methods, named `size`: no prototype, no constructor (as the spec's functions are).
  const countSize = {
    size() {
      return 1;
    },
  }.size;
  const byteLengthSize = {
    size(chunk) {
      return chunk.byteLength;
    },
  }.size;

  class ByteLengthQueuingStrategy {
    #highWaterMark;
    constructor(init) {
      requiredArguments(arguments.length, 1, "Failed to construct 'ByteLengthQueuingStrategy'");
      this.#highWaterMark = toHighWaterMarkInit(init, "ByteLengthQueuingStrategy");
    }
    get highWaterMark() {
      return this.#highWaterMark;
    }
    get size() {
      void this.#highWaterMark; // brand check
      return byteLengthSize;
    }
  }

  class CountQueuingStrategy {
    #highWaterMark;
    constructor(init) {
      requiredArguments(arguments.length, 1, "Failed to construct 'CountQueuingStrategy'");
      this.#highWaterMark = toHighWaterMarkInit(init, "CountQueuingStrategy");
    }
    get highWaterMark() {
      return this.#highWaterMark;
    }
    get size() {
      void this.#highWaterMark;
      return countSize;
    }
  }

  // ---- ReadableStream ------------------------------------------------------------------------

  const CONSTRUCT = {};
  const ENFORCE_RANGE = { __proto__: null, enforceRange: true };

  class ReadableStream {
    #slots;

    constructor(underlyingSource = undefined, strategy = undefined) {
      const slots = newReadableSlots(this);
      this.#slots = slots;
      if (underlyingSource === CONSTRUCT) return;
      const prefix = "Failed to construct 'ReadableStream'";
      if (underlyingSource !== undefined && !isObject(underlyingSource)) {
        throw typeError(`${prefix}: the underlying source is not an object.`);
      }
      // WebIDL converts the strategy (a dictionary) with the arguments, before the body reads
      // the source's members, which it reads in lexicographic order.
      strategy = toStrategy(strategy, prefix);
      const source = underlyingSource;
      // The dictionary's members, each converted as it is read.
      let autoAllocateChunkSize = source === undefined ? undefined : source.autoAllocateChunkSize;
      if (autoAllocateChunkSize !== undefined) {
        autoAllocateChunkSize = webidl.toUnsignedLongLong(
          autoAllocateChunkSize,
          ENFORCE_RANGE,
          prefix,
          "autoAllocateChunkSize",
        );
      }
      const cancel = source === undefined ? undefined : source.cancel;
      requireFunction(cancel, prefix, "the underlying source's cancel");
      const pull = source === undefined ? undefined : source.pull;
      requireFunction(pull, prefix, "the underlying source's pull");
      const start = source === undefined ? undefined : source.start;
      requireFunction(start, prefix, "the underlying source's start");
      const type = source === undefined ? undefined : source.type;
      if (type !== undefined) {
        const typeString = `${type}`;
        if (typeString !== "bytes") {
          throw typeError(`${prefix}: '${typeString}' is not a valid stream type.`);
        }
        if (strategy !== undefined && strategy.size !== undefined) {
          throw new RangeErrorCtor(`${prefix}: a byte stream's strategy has no size.`);
        }
        internals.byteStreams.setUpFromSource(
          slots,
          source,
          { start, pull, cancel, autoAllocateChunkSize },
          extractHighWaterMark(strategy, 0),
          prefix,
        );
        return;
      }
      const sizeAlgorithm = extractSizeAlgorithm(strategy);
      const highWaterMark = extractHighWaterMark(strategy, 1);
      setUpReadableStreamDefaultController(
        slots,
        start === undefined ? noop : () => ReflectApply(start, source, [slots.controller.object]),
        pull === undefined
          ? () => resolvedWith(undefined)
          : () => promiseCall(pull, source, [slots.controller.object]),
        cancel === undefined
          ? () => resolvedWith(undefined)
          : (reason) => promiseCall(cancel, source, [reason]),
        highWaterMark,
        sizeAlgorithm,
      );
    }

    get locked() {
      return this.#slots.reader !== undefined;
    }

    cancel(reason = undefined) {
      const slots = brandedSlots(readableSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.reader !== undefined) {
        return rejectedWith(typeError("Cannot cancel a locked ReadableStream."));
      }
      return readableStreamCancel(slots, reason);
    }

    getReader(options = undefined) {
      const slots = this.#slots;
      if (options !== undefined && options !== null) {
        if (!isObject(options)) throw typeError("getReader's options is not an object.");
        const mode = options.mode;
        if (mode !== undefined) {
          const modeString = `${mode}`;
          if (modeString === "byob") return internals.byteStreams.acquireBYOBReader(slots).object;
          throw typeError(`'${modeString}' is not a valid reader mode.`);
        }
      }
      return acquireDefaultReader(slots).object;
    }

    pipeThrough(transform, options = undefined) {
      const slots = this.#slots;
      requiredArguments(arguments.length, 1, "Failed to execute 'pipeThrough' on 'ReadableStream'");
      if (!isObject(transform)) throw typeError("pipeThrough's transform is not an object.");
      const readable = transform.readable;
      const readableSlots = readableSlotsOf(readable, "pipeThrough's transform.readable");
      const writable = transform.writable;
      const writableSlots = writableSlotsOf(writable, "pipeThrough's transform.writable");
      const pipeOptions = toPipeOptions(options);
      if (slots.reader !== undefined) {
        throw typeError("Cannot pipe a locked ReadableStream.");
      }
      if (writableSlots.writer !== undefined) {
        throw typeError("Cannot pipe to a locked WritableStream.");
      }
      const promise = readableStreamPipeTo(slots, writableSlots, pipeOptions);
      markHandled(promise);
      void readableSlots;
      return readable;
    }

    pipeTo(destination, options = undefined) {
      let slots;
      let destinationSlots;
      let pipeOptions;
      try {
        slots = this.#slots;
        destinationSlots = writableSlotsOf(destination, "pipeTo's destination");
        pipeOptions = toPipeOptions(options);
      } catch (error) {
        return rejectedWith(error);
      }
      if (slots.reader !== undefined) {
        return rejectedWith(typeError("Cannot pipe a locked ReadableStream."));
      }
      if (destinationSlots.writer !== undefined) {
        return rejectedWith(typeError("Cannot pipe to a locked WritableStream."));
      }
      return readableStreamPipeTo(slots, destinationSlots, pipeOptions);
    }

    tee() {
      const slots = this.#slots;
      const branches = slots.controller.isByteController
        ? internals.byteStreams.tee(slots)
        : readableStreamDefaultTee(slots, false);
      return [branches[0].object, branches[1].object];
    }

    values(options = undefined) {
      const slots = this.#slots;
      let preventCancel = false;
      if (options !== undefined && options !== null) {
        if (!isObject(options)) throw typeError("values' options is not an object.");
        preventCancel = !!options.preventCancel;
      }
      const reader = acquireDefaultReader(slots);
      return newAsyncIterator(reader, preventCancel);
    }

    static from(asyncIterable) {
      requiredArguments(arguments.length, 1, "Failed to execute 'from' on 'ReadableStream'");
      return readableStreamFromIterable(asyncIterable).object;
    }

    static slots(stream) {
      return stream.#slots;
    }

    static isReadableStream(value) {
      return isObject(value) && #slots in value;
    }
  }
  const readableSlots = ReadableStream.slots;
  const isReadableStream = ReadableStream.isReadableStream;
  delete ReadableStream.slots;
  delete ReadableStream.isReadableStream;

  function readableSlotsOf(value, what) {
    if (!isReadableStream(value)) throw typeError(`${what} is not a ReadableStream.`);
    return readableSlots(value);
  }

  function newReadableSlots(object) {
    return {
      object,
      state: "readable",
      reader: undefined,
      storedError: undefined,
      disturbed: false,
      controller: undefined,
    };
  }

  function createReadableStream(startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark = 1, sizeAlgorithm = () => 1) {
    const stream = new ReadableStream(CONSTRUCT);
    const slots = readableSlots(stream);
    setUpReadableStreamDefaultController(slots, startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark, sizeAlgorithm);
    return slots;
  }

  function readableStreamCancel(stream, reason) {
    stream.disturbed = true;
    if (stream.state === "closed") return resolvedWith(undefined);
    if (stream.state === "errored") return rejectedWith(stream.storedError);
    readableStreamClose(stream);
    const reader = stream.reader;
    if (reader !== undefined && reader.readIntoRequests !== undefined) {
      const requests = reader.readIntoRequests;
      reader.readIntoRequests = [];
      for (let i = 0; i < requests.length; i++) requests[i].close(undefined);
    }
    const sourceCancelPromise = stream.controller.cancelSteps(stream.controller, reason);
    return then(sourceCancelPromise, () => undefined);
  }

  function readableStreamClose(stream) {
    stream.state = "closed";
    const reader = stream.reader;
    if (reader === undefined) return;
    reader.closed.resolve(undefined);
    const requests = reader.readRequests;
    reader.readRequests = [];
    for (let i = 0; i < requests.length; i++) requests[i].close();
  }

  function readableStreamError(stream, error) {
    stream.state = "errored";
    stream.storedError = error;
    const reader = stream.reader;
    if (reader === undefined) return;
    reader.closed.reject(error);
    markHandled(reader.closed.promise);
    const requests = reader.readIntoRequests !== undefined ? reader.readIntoRequests : reader.readRequests;
    if (reader.readIntoRequests !== undefined) reader.readIntoRequests = [];
    else reader.readRequests = [];
    for (let i = 0; i < requests.length; i++) requests[i].error(error);
  }

  function readableStreamFulfillReadRequest(stream, chunk, done) {
    const request = takeFirst(stream.reader, "readRequests");
    if (done) request.close();
    else request.chunk(chunk);
  }

  // The first of `holder[list]`'s items, taken. One item (a reader's one pending read, the
  // rule) leaves a fresh empty list: Array.prototype.shift of a one-item array goes to V8's C++
  // and trims the array's store.
  function takeFirst(holder, list) {
    const items = holder[list];
    if (items.length !== 1) return ArrayPrototypeShift(items);
    holder[list] = [];
    return items[0];
  }

  function readableStreamGetNumReadRequests(stream) {
    return stream.reader.readRequests.length;
  }

  function readableStreamHasDefaultReader(stream) {
    return stream.reader !== undefined && stream.reader.readIntoRequests === undefined;
  }

  // ---- ReadableStreamDefaultReader -------------------------------------------------------------

  class ReadableStreamDefaultReader {
    #slots;

    constructor(stream) {
      requiredArguments(arguments.length, 1, "Failed to construct 'ReadableStreamDefaultReader'");
      const streamSlots = readableSlotsOf(stream, "The argument");
      this.#slots = newReaderSlots(this);
      setUpDefaultReader(this.#slots, streamSlots);
    }

    get closed() {
      try {
        return this.#slots.closed.promise;
      } catch (error) {
        return rejectedWith(error);
      }
    }

    cancel(reason = undefined) {
      return readerCancel(brandedSlots(readerSlots, this), reason);
    }

    read() {
      const slots = brandedSlots(readerSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.stream === undefined) return rejectedWith(releasedReader());
      let request;
      const promise = new PromiseCtor((resolve, reject) => {
        request = new PromiseReadRequest(resolve, reject);
      });
      readerRead(slots, request);
      return promise;
    }

    releaseLock() {
      const slots = this.#slots;
      if (slots.stream === undefined) return;
      defaultReaderRelease(slots);
    }

    static slots(reader) {
      return reader.#slots;
    }
  }
  const readerSlots = ReadableStreamDefaultReader.slots;
  delete ReadableStreamDefaultReader.slots;

  // A read request that settles a `read()`'s promise: its steps are methods, so a read makes
  // no closure but its promise's executor (a stream is read once per chunk).
  class PromiseReadRequest {
    constructor(resolve, reject) {
      this.resolve = resolve;
      this.reject = reject;
    }

    chunk(value) {
      this.resolve({ value, done: false });
    }

    close() {
      this.resolve({ value: undefined, done: true });
    }

    error(error) {
      this.reject(error);
    }
  }

  // The ReadableStreamGenericReader mixin's cancel(), on a reader's slots (null: a `this` of
  // another kind): both readers' own.
  function readerCancel(slots, reason) {
    if (slots === null) return rejectedWith(illegalInvocation());
    if (slots.stream === undefined) return rejectedWith(releasedReader());
    return readableStreamCancel(slots.stream, reason);
  }

  const releasedReader = () => typeError("The reader has no stream (its lock was released).");

  function newReaderSlots(object) {
    return { object, stream: undefined, closed: undefined, readRequests: [] };
  }

  function acquireDefaultReader(stream) {
    const reader = new ReadableStreamDefaultReader(stream.object);
    return readerSlots(reader);
  }

  function setUpDefaultReader(reader, stream) {
    if (stream.reader !== undefined) {
      throw typeError("The ReadableStream is locked to a reader.");
    }
    reader.stream = stream;
    stream.reader = reader;
    reader.closed = newDeferred();
    if (stream.state === "closed") {
      reader.closed.resolve(undefined);
    } else if (stream.state === "errored") {
      reader.closed.reject(stream.storedError);
      markHandled(reader.closed.promise);
    }
  }

  function readerRead(reader, request) {
    const stream = reader.stream;
    stream.disturbed = true;
    if (stream.state === "closed") request.close();
    else if (stream.state === "errored") request.error(stream.storedError);
    else stream.controller.pullSteps(stream.controller, request);
  }

  // The spec's ReadableStreamReaderGenericRelease, then the reader's pending requests (read
  // or read-into) errored.
  function defaultReaderRelease(reader) {
    const stream = reader.stream;
    const error = typeError("The reader's lock was released.");
    if (reader.closed.state !== PENDING) reader.closed = newDeferred();
    reader.closed.reject(error);
    markHandled(reader.closed.promise);
    stream.controller.releaseSteps(stream.controller);
    stream.reader = undefined;
    reader.stream = undefined;
    const requests = reader.readIntoRequests !== undefined ? reader.readIntoRequests : reader.readRequests;
    if (reader.readIntoRequests !== undefined) reader.readIntoRequests = [];
    else reader.readRequests = [];
    for (let i = 0; i < requests.length; i++) requests[i].error(error);
  }

  // ---- ReadableStreamDefaultController -------------------------------------------------------

  class ReadableStreamDefaultController {
    #slots;

    constructor(key = undefined) {
      if (key !== CONSTRUCT) throw typeError("Illegal constructor.");
    }

    get desiredSize() {
      return readableDesiredSize(this.#slots);
    }

    close() {
      const slots = this.#slots;
      if (!canCloseOrEnqueue(slots)) {
        throw typeError("The stream is not in a state that permits close.");
      }
      readableStreamDefaultControllerClose(slots);
    }

    enqueue(chunk = undefined) {
      const slots = this.#slots;
      if (!canCloseOrEnqueue(slots)) {
        throw typeError("The stream is not in a state that permits enqueue.");
      }
      readableStreamDefaultControllerEnqueue(slots, chunk);
    }

    error(error = undefined) {
      readableStreamDefaultControllerError(this.#slots, error);
    }

    static attach(controller, slots) {
      controller.#slots = slots;
    }
  }
  const attachReadableController = ReadableStreamDefaultController.attach;
  delete ReadableStreamDefaultController.attach;

  function setUpReadableStreamDefaultController(stream, startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark, sizeAlgorithm) {
    const controller = {
      object: new ReadableStreamDefaultController(CONSTRUCT),
      stream,
      queue: undefined,
      queueHead: 0,
      queueTotalSize: 0,
      started: false,
      closeRequested: false,
      pullAgain: false,
      pulling: false,
      strategySizeAlgorithm: sizeAlgorithm,
      strategyHWM: highWaterMark,
      pullAlgorithm,
      cancelAlgorithm,
      // A pull's outcome, made once (a stream pulls once per chunk): `startController`'s.
      pulled: undefined,
      pullFailed: undefined,
      isByteController: false,
      shouldCallPull: readableShouldCallPull,
      pullSteps: readableStreamDefaultControllerPullSteps,
      cancelSteps: readableStreamDefaultControllerCancelSteps,
      releaseSteps: noop,
    };
    attachReadableController(controller.object, controller);
    resetQueue(controller);
    startController(controller, startAlgorithm, readableStreamDefaultControllerError);
  }

  // What either controller does once its record is made (its `shouldCallPull` set): its
  // pull's reactions made, the stream's controller set, the source started; `error` errors
  // the controller.
  function startController(controller, startAlgorithm, error) {
    controller.pulled = () => {
      controller.pulling = false;
      if (controller.pullAgain) {
        controller.pullAgain = false;
        readableCallPullIfNeeded(controller);
      }
    };
    controller.pullFailed = (reason) => error(controller, reason);
    controller.stream.controller = controller;
    const startResult = startAlgorithm();
    then(
      resolvedWith(startResult),
      () => {
        controller.started = true;
        readableCallPullIfNeeded(controller);
      },
      controller.pullFailed,
    );
  }

  // Either controller's CallPullIfNeeded (the spec writes one for each; they differ only in
  // ShouldCallPull).
  function readableCallPullIfNeeded(controller) {
    if (!controller.shouldCallPull(controller)) return;
    if (controller.pulling) {
      controller.pullAgain = true;
      return;
    }
    controller.pulling = true;
    then(controller.pullAlgorithm(), controller.pulled, controller.pullFailed);
  }

  function readableShouldCallPull(controller) {
    const stream = controller.stream;
    if (!canCloseOrEnqueue(controller)) return false;
    if (!controller.started) return false;
    if (readableStreamHasDefaultReader(stream) && readableStreamGetNumReadRequests(stream) > 0) {
      return true;
    }
    return readableDesiredSize(controller) > 0;
  }

  function clearReadableAlgorithms(controller) {
    controller.pullAlgorithm = undefined;
    controller.cancelAlgorithm = undefined;
    controller.strategySizeAlgorithm = undefined;
  }

  function readableStreamDefaultControllerClose(controller) {
    if (!canCloseOrEnqueue(controller)) return;
    controller.closeRequested = true;
    if (queueLength(controller) === 0) {
      clearReadableAlgorithms(controller);
      readableStreamClose(controller.stream);
    }
  }

  function readableStreamDefaultControllerEnqueue(controller, chunk) {
    if (!canCloseOrEnqueue(controller)) return;
    const stream = controller.stream;
    if (readableStreamHasDefaultReader(stream) && readableStreamGetNumReadRequests(stream) > 0) {
      readableStreamFulfillReadRequest(stream, chunk, false);
    } else {
      let size;
      try {
        size = controller.strategySizeAlgorithm(chunk);
      } catch (error) {
        readableStreamDefaultControllerError(controller, error);
        throw error;
      }
      try {
        enqueueValueWithSize(controller, chunk, size);
      } catch (error) {
        readableStreamDefaultControllerError(controller, error);
        throw error;
      }
    }
    readableCallPullIfNeeded(controller);
  }

  function readableStreamDefaultControllerError(controller, error) {
    const stream = controller.stream;
    if (stream.state !== "readable") return;
    resetQueue(controller);
    clearReadableAlgorithms(controller);
    readableStreamError(stream, error);
  }

  function readableDesiredSize(controller) {
    const state = controller.stream.state;
    if (state === "errored") return null;
    if (state === "closed") return 0;
    return controller.strategyHWM - controller.queueTotalSize;
  }

  function readableHasBackpressure(controller) {
    return !readableShouldCallPull(controller);
  }

  function canCloseOrEnqueue(controller) {
    return !controller.closeRequested && controller.stream.state === "readable";
  }

  function readableStreamDefaultControllerCancelSteps(controller, reason) {
    resetQueue(controller);
    const result = controller.cancelAlgorithm(reason);
    clearReadableAlgorithms(controller);
    return result;
  }

  function readableStreamDefaultControllerPullSteps(controller, request) {
    const stream = controller.stream;
    if (queueLength(controller) > 0) {
      const chunk = dequeueValue(controller);
      if (controller.closeRequested && queueLength(controller) === 0) {
        clearReadableAlgorithms(controller);
        readableStreamClose(stream);
      } else {
        readableCallPullIfNeeded(controller);
      }
      request.chunk(chunk);
    } else {
      ArrayPrototypePush(stream.reader.readRequests, request);
      readableCallPullIfNeeded(controller);
    }
  }

  // ---- tee ------------------------------------------------------------------------------------

  function readableStreamDefaultTee(stream, cloneForBranch2) {
    const reader = acquireDefaultReader(stream);
    let reading = false;
    let readAgain = false;
    let canceled1 = false;
    let canceled2 = false;
    let reason1;
    let reason2;
    let branch1;
    let branch2;
    const cancelPromise = newDeferred();
    function pullAlgorithm() {
      if (reading) {
        readAgain = true;
        return resolvedWith(undefined);
      }
      reading = true;
      readerRead(reader, {
        chunk: (chunk) => {
          queueMicrotask(() => {
            readAgain = false;
            const chunk1 = chunk;
            let chunk2 = chunk;
            // Response.clone()'s branch gets a structured clone (the spec's cloneForBranch2).
            if (cloneForBranch2 && !canceled2 && structuredCloneOf !== undefined) {
              try {
                chunk2 = structuredCloneOf(chunk);
              } catch (error) {
                readableStreamDefaultControllerError(branch1.controller, error);
                readableStreamDefaultControllerError(branch2.controller, error);
                cancelPromise.resolve(readableStreamCancel(stream, error));
                return;
              }
            }
            if (!canceled1) readableStreamDefaultControllerEnqueue(branch1.controller, chunk1);
            if (!canceled2) readableStreamDefaultControllerEnqueue(branch2.controller, chunk2);
            reading = false;
            if (readAgain) pullAlgorithm();
          });
        },
        close: () => {
          reading = false;
          if (!canceled1) readableStreamDefaultControllerClose(branch1.controller);
          if (!canceled2) readableStreamDefaultControllerClose(branch2.controller);
          if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
        },
        error: () => {
          reading = false;
        },
      });
      return resolvedWith(undefined);
    }
    function cancel1Algorithm(reason) {
      canceled1 = true;
      reason1 = reason;
      if (canceled2) {
        const result = readableStreamCancel(stream, [reason1, reason2]);
        cancelPromise.resolve(result);
      }
      return cancelPromise.promise;
    }
    function cancel2Algorithm(reason) {
      canceled2 = true;
      reason2 = reason;
      if (canceled1) {
        const result = readableStreamCancel(stream, [reason1, reason2]);
        cancelPromise.resolve(result);
      }
      return cancelPromise.promise;
    }
    branch1 = createReadableStream(noop, pullAlgorithm, cancel1Algorithm);
    branch2 = createReadableStream(noop, pullAlgorithm, cancel2Algorithm);
    then(reader.closed.promise, undefined, (error) => {
      readableStreamDefaultControllerError(branch1.controller, error);
      readableStreamDefaultControllerError(branch2.controller, error);
      if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
    });
    return [branch1, branch2];
  }

  // ---- ReadableStream.from and async iteration ------------------------------------------------

  function getIterator(value, async) {
    let method;
    if (async) {
      method = value == null ? undefined : value[SymbolAsyncIterator];
      if (method === undefined || method === null) {
        const syncMethod = value == null ? undefined : value[SymbolIterator];
        if (syncMethod === undefined || syncMethod === null) {
          throw typeError("ReadableStream.from's argument is not iterable.");
        }
        if (typeof syncMethod !== "function") throw typeError("@@iterator is not a function.");
        const syncIterator = ReflectApply(syncMethod, value, []);
        if (!isObject(syncIterator)) throw typeError("The iterator is not an object.");
        const syncNext = syncIterator.next;
        // CreateAsyncFromSyncIterator, by an async generator's own semantics.
        const asyncIterator = {
          next() {
            try {
              const result = ReflectApply(syncNext, syncIterator, []);
              if (!isObject(result)) throw typeError("The iterator result is not an object.");
              const done = !!result.done;
              return then(resolvedWith(result.value), (v) => ({ value: v, done }));
            } catch (error) {
              return rejectedWith(error);
            }
          },
          return(value) {
            try {
              const returnMethod = syncIterator.return;
              if (returnMethod === undefined || returnMethod === null) {
                return resolvedWith({ value, done: true });
              }
              const result = ReflectApply(returnMethod, syncIterator, [value]);
              if (!isObject(result)) throw typeError("The iterator result is not an object.");
              return then(resolvedWith(result.value), (v) => ({ value: v, done: true }));
            } catch (error) {
              return rejectedWith(error);
            }
          },
        };
        return { iterator: asyncIterator, next: asyncIterator.next };
      }
    }
    if (typeof method !== "function") throw typeError("@@asyncIterator is not a function.");
    const iterator = ReflectApply(method, value, []);
    if (!isObject(iterator)) throw typeError("The iterator is not an object.");
    return { iterator, next: iterator.next };
  }

  function readableStreamFromIterable(asyncIterable) {
    if (!isObject(asyncIterable)) {
      throw typeError("ReadableStream.from's argument is not an iterable object.");
    }
    const record = getIterator(asyncIterable, true);
    let stream;
    const pullAlgorithm = () => {
      let nextResult;
      try {
        nextResult = ReflectApply(record.next, record.iterator, []);
      } catch (error) {
        return rejectedWith(error);
      }
      return then(resolvedWith(nextResult), (result) => {
        if (!isObject(result)) throw typeError("The iterator result is not an object.");
        if (result.done) {
          readableStreamDefaultControllerClose(stream.controller);
        } else {
          readableStreamDefaultControllerEnqueue(stream.controller, result.value);
        }
      });
    };
    const cancelAlgorithm = (reason) => {
      const iterator = record.iterator;
      let returnMethod;
      try {
        returnMethod = iterator.return;
      } catch (error) {
        return rejectedWith(error);
      }
      if (returnMethod === undefined || returnMethod === null) return resolvedWith(undefined);
      let returnResult;
      try {
        returnResult = ReflectApply(returnMethod, iterator, [reason]);
      } catch (error) {
        return rejectedWith(error);
      }
      return then(resolvedWith(returnResult), (result) => {
        if (!isObject(result)) throw typeError("The iterator's return result is not an object.");
      });
    };
    stream = createReadableStream(noop, pullAlgorithm, cancelAlgorithm, 0);
    return stream;
  }

  class ReadableStreamAsyncIterator {
    #reader;
    #preventCancel;
    #ongoing = undefined;
    #finished = false;

    constructor(reader, preventCancel) {
      this.#reader = reader;
      this.#preventCancel = preventCancel;
    }

    next() {
      if (!(#reader in this)) return rejectedWith(typeError("next called on a foreign object."));
      const step = () => this.#nextSteps();
      this.#ongoing = this.#ongoing === undefined ? step() : then(this.#ongoing, step, step);
      return this.#ongoing;
    }

    #nextSteps() {
      if (this.#finished) return resolvedWith({ value: undefined, done: true });
      const reader = this.#reader;
      if (reader.stream === undefined) {
        return rejectedWith(typeError("The iterator's reader was released."));
      }
      const deferred = newDeferred();
      readerRead(reader, {
        chunk: (value) => {
          this.#ongoing = undefined;
          deferred.resolve({ value, done: false });
        },
        close: () => {
          this.#ongoing = undefined;
          this.#finished = true;
          defaultReaderRelease(reader);
          deferred.resolve({ value: undefined, done: true });
        },
        error: (error) => {
          this.#ongoing = undefined;
          this.#finished = true;
          defaultReaderRelease(reader);
          deferred.reject(error);
        },
      });
      return deferred.promise;
    }

    return(value = undefined) {
      if (!(#reader in this)) return rejectedWith(typeError("return called on a foreign object."));
      const step = () => this.#returnSteps(value);
      this.#ongoing = this.#ongoing === undefined ? step() : then(this.#ongoing, step, step);
      return this.#ongoing;
    }

    #returnSteps(value) {
      if (this.#finished) return resolvedWith({ value, done: true });
      this.#finished = true;
      const reader = this.#reader;
      if (reader.stream === undefined) {
        return rejectedWith(typeError("The iterator's reader was released."));
      }
      if (!this.#preventCancel) {
        const result = readableStreamCancel(reader.stream, value);
        defaultReaderRelease(reader);
        return then(result, () => ({ value, done: true }));
      }
      defaultReaderRelease(reader);
      return resolvedWith({ value, done: true });
    }
  }
  const newAsyncIterator = (reader, preventCancel) =>
    new ReadableStreamAsyncIterator(reader, preventCancel);
  ObjectSetPrototypeOf(ReadableStreamAsyncIterator.prototype, AsyncIteratorPrototype);
  // An async iterator's prototype has `next` and `return`, and no constructor (WebIDL's).
  delete ReadableStreamAsyncIterator.prototype.constructor;
  ObjectDefineProperty(ReadableStreamAsyncIterator.prototype, "next", { enumerable: true });
  ObjectDefineProperty(ReadableStreamAsyncIterator.prototype, "return", { enumerable: true });

  // ---- WritableStream -------------------------------------------------------------------------

  class WritableStream {
    #slots;

    constructor(underlyingSink = undefined, strategy = undefined) {
      const slots = newWritableSlots(this);
      this.#slots = slots;
      if (underlyingSink === CONSTRUCT) return;
      const prefix = "Failed to construct 'WritableStream'";
      if (underlyingSink !== undefined && !isObject(underlyingSink)) {
        throw typeError(`${prefix}: the underlying sink is not an object.`);
      }
      // The strategy first, then the sink's members in lexicographic order (WebIDL's).
      strategy = toStrategy(strategy, prefix);
      const sizeAlgorithm = extractSizeAlgorithm(strategy);
      const highWaterMark = extractHighWaterMark(strategy, 1);
      const sink = underlyingSink;
      const abort = sink === undefined ? undefined : sink.abort;
      const close = sink === undefined ? undefined : sink.close;
      const start = sink === undefined ? undefined : sink.start;
      const type = sink === undefined ? undefined : sink.type;
      const write = sink === undefined ? undefined : sink.write;
      requireFunction(start, prefix, "the underlying sink's start");
      requireFunction(write, prefix, "the underlying sink's write");
      requireFunction(close, prefix, "the underlying sink's close");
      requireFunction(abort, prefix, "the underlying sink's abort");
      if (type !== undefined) throw new RangeErrorCtor(`${prefix}: an underlying sink has no type.`);
      setUpWritableStreamDefaultController(
        slots,
        start === undefined ? noop : () => ReflectApply(start, sink, [slots.controller.object]),
        write === undefined
          ? () => resolvedWith(undefined)
          : (chunk) => promiseCall(write, sink, [chunk, slots.controller.object]),
        close === undefined ? () => resolvedWith(undefined) : () => promiseCall(close, sink, []),
        abort === undefined ? () => resolvedWith(undefined) : (reason) => promiseCall(abort, sink, [reason]),
        highWaterMark,
        sizeAlgorithm,
      );
    }

    get locked() {
      return this.#slots.writer !== undefined;
    }

    abort(reason = undefined) {
      const slots = brandedSlots(writableSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.writer !== undefined) {
        return rejectedWith(typeError("Cannot abort a locked WritableStream."));
      }
      return writableStreamAbort(slots, reason);
    }

    close() {
      const slots = brandedSlots(writableSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.writer !== undefined) {
        return rejectedWith(typeError("Cannot close a locked WritableStream."));
      }
      if (writableStreamCloseQueuedOrInFlight(slots)) {
        return rejectedWith(typeError("The WritableStream is closing or closed."));
      }
      return writableStreamClose(slots);
    }

    getWriter() {
      return acquireWriter(this.#slots).object;
    }

    static slots(stream) {
      return stream.#slots;
    }

    static isWritableStream(value) {
      return isObject(value) && #slots in value;
    }
  }
  const writableSlots = WritableStream.slots;
  const isWritableStream = WritableStream.isWritableStream;
  delete WritableStream.slots;
  delete WritableStream.isWritableStream;

  function writableSlotsOf(value, what) {
    if (!isWritableStream(value)) throw typeError(`${what} is not a WritableStream.`);
    return writableSlots(value);
  }

  function newWritableSlots(object) {
    return {
      object,
      state: "writable",
      storedError: undefined,
      writer: undefined,
      controller: undefined,
      inFlightWriteRequest: undefined,
      closeRequest: undefined,
      inFlightCloseRequest: undefined,
      pendingAbortRequest: undefined,
      writeRequests: [],
      backpressure: false,
    };
  }

  function createWritableStream(startAlgorithm, writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark = 1, sizeAlgorithm = () => 1) {
    const stream = new WritableStream(CONSTRUCT);
    const slots = writableSlots(stream);
    setUpWritableStreamDefaultController(slots, startAlgorithm, writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark, sizeAlgorithm);
    return slots;
  }

  function writableStreamAbort(stream, reason) {
    if (stream.state === "closed" || stream.state === "errored") return resolvedWith(undefined);
    signalAbort(stream.controller.signal, reason);
    const state = stream.state;
    if (state === "closed" || state === "errored") return resolvedWith(undefined);
    if (stream.pendingAbortRequest !== undefined) return stream.pendingAbortRequest.deferred.promise;
    let wasAlreadyErroring = false;
    if (state === "erroring") {
      wasAlreadyErroring = true;
      reason = undefined;
    }
    const deferred = newDeferred();
    stream.pendingAbortRequest = { deferred, reason, wasAlreadyErroring };
    if (!wasAlreadyErroring) writableStreamStartErroring(stream, reason);
    return deferred.promise;
  }

  function writableStreamClose(stream) {
    const state = stream.state;
    if (state === "closed" || state === "errored") {
      return rejectedWith(typeError("The WritableStream is closed or errored."));
    }
    const deferred = newDeferred();
    stream.closeRequest = deferred;
    const writer = stream.writer;
    if (writer !== undefined && stream.backpressure && state === "writable") {
      writer.ready.resolve(undefined);
    }
    writableStreamDefaultControllerClose(stream.controller);
    return deferred.promise;
  }

  function writableStreamAddWriteRequest(stream) {
    const deferred = newDeferred();
    ArrayPrototypePush(stream.writeRequests, deferred);
    return deferred.promise;
  }

  function writableStreamDealWithRejection(stream, error) {
    if (stream.state === "writable") {
      writableStreamStartErroring(stream, error);
      return;
    }
    writableStreamFinishErroring(stream);
  }

  function writableStreamStartErroring(stream, reason) {
    const controller = stream.controller;
    stream.state = "erroring";
    stream.storedError = reason;
    const writer = stream.writer;
    if (writer !== undefined) writerEnsureReadyPromiseRejected(writer, reason);
    if (!writableStreamHasOperationMarkedInFlight(stream) && controller.started) {
      writableStreamFinishErroring(stream);
    }
  }

  function writableStreamFinishErroring(stream) {
    stream.state = "errored";
    writableStreamDefaultControllerErrorSteps(stream.controller);
    const storedError = stream.storedError;
    const requests = stream.writeRequests;
    stream.writeRequests = [];
    for (let i = 0; i < requests.length; i++) requests[i].reject(storedError);
    const abortRequest = stream.pendingAbortRequest;
    if (abortRequest === undefined) {
      writableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
      return;
    }
    stream.pendingAbortRequest = undefined;
    if (abortRequest.wasAlreadyErroring) {
      abortRequest.deferred.reject(storedError);
      writableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
      return;
    }
    const promise = stream.controller.abortAlgorithm(abortRequest.reason);
    clearWritableAlgorithms(stream.controller);
    then(
      promise,
      () => {
        abortRequest.deferred.resolve(undefined);
        writableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
      },
      (reason) => {
        abortRequest.deferred.reject(reason);
        writableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
      },
    );
  }

  function writableStreamFinishInFlightWrite(stream) {
    stream.inFlightWriteRequest.resolve(undefined);
    stream.inFlightWriteRequest = undefined;
  }

  function writableStreamFinishInFlightWriteWithError(stream, error) {
    stream.inFlightWriteRequest.reject(error);
    stream.inFlightWriteRequest = undefined;
    writableStreamDealWithRejection(stream, error);
  }

  function writableStreamFinishInFlightClose(stream) {
    stream.inFlightCloseRequest.resolve(undefined);
    stream.inFlightCloseRequest = undefined;
    if (stream.state === "erroring") {
      stream.storedError = undefined;
      if (stream.pendingAbortRequest !== undefined) {
        stream.pendingAbortRequest.deferred.resolve(undefined);
        stream.pendingAbortRequest = undefined;
      }
    }
    stream.state = "closed";
    const writer = stream.writer;
    if (writer !== undefined) writer.closed.resolve(undefined);
  }

  function writableStreamFinishInFlightCloseWithError(stream, error) {
    stream.inFlightCloseRequest.reject(error);
    stream.inFlightCloseRequest = undefined;
    if (stream.pendingAbortRequest !== undefined) {
      stream.pendingAbortRequest.deferred.reject(error);
      stream.pendingAbortRequest = undefined;
    }
    writableStreamDealWithRejection(stream, error);
  }

  function writableStreamCloseQueuedOrInFlight(stream) {
    return stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined;
  }

  function writableStreamHasOperationMarkedInFlight(stream) {
    return stream.inFlightWriteRequest !== undefined || stream.inFlightCloseRequest !== undefined;
  }

  function writableStreamMarkCloseRequestInFlight(stream) {
    stream.inFlightCloseRequest = stream.closeRequest;
    stream.closeRequest = undefined;
  }

  function writableStreamMarkFirstWriteRequestInFlight(stream) {
    stream.inFlightWriteRequest = takeFirst(stream, "writeRequests");
  }

  function writableStreamRejectCloseAndClosedPromiseIfNeeded(stream) {
    if (stream.closeRequest !== undefined) {
      stream.closeRequest.reject(stream.storedError);
      stream.closeRequest = undefined;
    }
    const writer = stream.writer;
    if (writer !== undefined) {
      writer.closed.reject(stream.storedError);
      markHandled(writer.closed.promise);
    }
  }

  function writableStreamUpdateBackpressure(stream, backpressure) {
    const writer = stream.writer;
    if (writer !== undefined && backpressure !== stream.backpressure) {
      if (backpressure) {
        writer.ready = newDeferred();
      } else {
        writer.ready.resolve(undefined);
      }
    }
    stream.backpressure = backpressure;
  }

  // ---- WritableStreamDefaultWriter ------------------------------------------------------------

  class WritableStreamDefaultWriter {
    #slots;

    constructor(stream) {
      requiredArguments(arguments.length, 1, "Failed to construct 'WritableStreamDefaultWriter'");
      const streamSlots = writableSlotsOf(stream, "The argument");
      this.#slots = { object: this, stream: undefined, ready: undefined, closed: undefined };
      setUpWriter(this.#slots, streamSlots);
    }

    get closed() {
      try {
        return this.#slots.closed.promise;
      } catch (error) {
        return rejectedWith(error);
      }
    }

    get desiredSize() {
      const slots = this.#slots;
      if (slots.stream === undefined) throw typeError("The writer's lock was released.");
      return writerGetDesiredSize(slots);
    }

    get ready() {
      try {
        return this.#slots.ready.promise;
      } catch (error) {
        return rejectedWith(error);
      }
    }

    abort(reason = undefined) {
      const slots = brandedSlots(writerSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.stream === undefined) {
        return rejectedWith(typeError("The writer's lock was released."));
      }
      return writableStreamAbort(slots.stream, reason);
    }

    close() {
      const slots = brandedSlots(writerSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      const stream = slots.stream;
      if (stream === undefined) return rejectedWith(typeError("The writer's lock was released."));
      if (writableStreamCloseQueuedOrInFlight(stream)) {
        return rejectedWith(typeError("The WritableStream is closing or closed."));
      }
      return writableStreamClose(stream);
    }

    releaseLock() {
      const slots = this.#slots;
      if (slots.stream === undefined) return;
      writerRelease(slots);
    }

    write(chunk = undefined) {
      const slots = brandedSlots(writerSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      if (slots.stream === undefined) {
        return rejectedWith(typeError("The writer's lock was released."));
      }
      return writerWrite(slots, chunk);
    }

    static slots(writer) {
      return writer.#slots;
    }
  }
  const writerSlots = WritableStreamDefaultWriter.slots;
  delete WritableStreamDefaultWriter.slots;

  function acquireWriter(stream) {
    return writerSlots(new WritableStreamDefaultWriter(stream.object));
  }

  function setUpWriter(writer, stream) {
    if (stream.writer !== undefined) throw typeError("The WritableStream is locked to a writer.");
    writer.stream = stream;
    stream.writer = writer;
    const state = stream.state;
    writer.ready = newDeferred();
    writer.closed = newDeferred();
    if (state === "writable") {
      if (writableStreamCloseQueuedOrInFlight(stream) || !stream.backpressure) {
        writer.ready.resolve(undefined);
      }
    } else if (state === "erroring") {
      writer.ready.reject(stream.storedError);
      markHandled(writer.ready.promise);
    } else if (state === "closed") {
      writer.ready.resolve(undefined);
      writer.closed.resolve(undefined);
    } else {
      writer.ready.reject(stream.storedError);
      markHandled(writer.ready.promise);
      writer.closed.reject(stream.storedError);
      markHandled(writer.closed.promise);
    }
  }

  function writerEnsureClosedPromiseRejected(writer, error) {
    if (writer.closed.state !== PENDING) writer.closed = newDeferred();
    writer.closed.reject(error);
    markHandled(writer.closed.promise);
  }

  function writerEnsureReadyPromiseRejected(writer, error) {
    if (writer.ready.state !== PENDING) writer.ready = newDeferred();
    writer.ready.reject(error);
    markHandled(writer.ready.promise);
  }

  function writerGetDesiredSize(writer) {
    const stream = writer.stream;
    const state = stream.state;
    if (state === "errored" || state === "erroring") return null;
    if (state === "closed") return 0;
    return writableDesiredSize(stream.controller);
  }

  function writerRelease(writer) {
    const stream = writer.stream;
    const error = typeError("The writer's lock was released.");
    writerEnsureReadyPromiseRejected(writer, error);
    writerEnsureClosedPromiseRejected(writer, error);
    stream.writer = undefined;
    writer.stream = undefined;
  }

  function writerWrite(writer, chunk) {
    const stream = writer.stream;
    const controller = stream.controller;
    const chunkSize = writableGetChunkSize(controller, chunk);
    if (stream !== writer.stream) return rejectedWith(typeError("The writer's lock was released."));
    const state = stream.state;
    if (state === "errored") return rejectedWith(stream.storedError);
    if (writableStreamCloseQueuedOrInFlight(stream) || state === "closed") {
      return rejectedWith(typeError("The WritableStream is closing or closed."));
    }
    if (state === "erroring") return rejectedWith(stream.storedError);
    const promise = writableStreamAddWriteRequest(stream);
    writableStreamDefaultControllerWrite(controller, chunk, chunkSize);
    return promise;
  }

  // ---- WritableStreamDefaultController --------------------------------------------------------

  class WritableStreamDefaultController {
    #slots;

    constructor(key = undefined) {
      if (key !== CONSTRUCT) throw typeError("Illegal constructor.");
    }

    get signal() {
      return this.#slots.signal;
    }

    error(error = undefined) {
      const slots = this.#slots;
      if (slots.stream.state !== "writable") return;
      writableStreamDefaultControllerError(slots, error);
    }

    static attach(controller, slots) {
      controller.#slots = slots;
    }
  }
  const attachWritableController = WritableStreamDefaultController.attach;
  delete WritableStreamDefaultController.attach;

  // The queue's marker of a close, after the chunks written before it.
  const CLOSE_SENTINEL = {};

  function setUpWritableStreamDefaultController(stream, startAlgorithm, writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark, sizeAlgorithm) {
    const controller = {
      object: new WritableStreamDefaultController(CONSTRUCT),
      stream,
      queue: undefined,
      queueHead: 0,
      queueTotalSize: 0,
      signal: newAbortSignal(),
      started: false,
      strategySizeAlgorithm: sizeAlgorithm,
      strategyHWM: highWaterMark,
      writeAlgorithm,
      closeAlgorithm,
      abortAlgorithm,
    };
    attachWritableController(controller.object, controller);
    resetQueue(controller);
    stream.controller = controller;
    writableStreamUpdateBackpressure(stream, writableGetBackpressure(controller));
    const startResult = startAlgorithm();
    then(
      resolvedWith(startResult),
      () => {
        controller.started = true;
        writableAdvanceQueueIfNeeded(controller);
      },
      (error) => {
        controller.started = true;
        writableStreamDealWithRejection(stream, error);
      },
    );
  }

  function writableAdvanceQueueIfNeeded(controller) {
    const stream = controller.stream;
    if (!controller.started) return;
    if (stream.inFlightWriteRequest !== undefined) return;
    const state = stream.state;
    if (state === "erroring") {
      writableStreamFinishErroring(stream);
      return;
    }
    if (queueLength(controller) === 0) return;
    const value = peekQueueValue(controller);
    if (value === CLOSE_SENTINEL) writableProcessClose(controller);
    else writableProcessWrite(controller, value);
  }

  function clearWritableAlgorithms(controller) {
    controller.writeAlgorithm = undefined;
    controller.closeAlgorithm = undefined;
    controller.abortAlgorithm = undefined;
    controller.strategySizeAlgorithm = undefined;
  }

  function writableStreamDefaultControllerClose(controller) {
    enqueueValueWithSize(controller, CLOSE_SENTINEL, 0);
    writableAdvanceQueueIfNeeded(controller);
  }

  function writableStreamDefaultControllerError(controller, error) {
    const stream = controller.stream;
    clearWritableAlgorithms(controller);
    writableStreamStartErroring(stream, error);
  }

  function writableStreamDefaultControllerErrorSteps(controller) {
    resetQueue(controller);
  }

  function writableErrorIfNeeded(controller, error) {
    if (controller.stream.state === "writable") writableStreamDefaultControllerError(controller, error);
  }

  function writableGetBackpressure(controller) {
    return writableDesiredSize(controller) <= 0;
  }

  function writableGetChunkSize(controller, chunk) {
    if (controller.strategySizeAlgorithm === undefined) return 1;
    try {
      return controller.strategySizeAlgorithm(chunk);
    } catch (error) {
      writableErrorIfNeeded(controller, error);
      return 1;
    }
  }

  function writableDesiredSize(controller) {
    return controller.strategyHWM - controller.queueTotalSize;
  }

  function writableProcessClose(controller) {
    const stream = controller.stream;
    writableStreamMarkCloseRequestInFlight(stream);
    dequeueValue(controller);
    const sinkClosePromise = controller.closeAlgorithm();
    clearWritableAlgorithms(controller);
    then(
      sinkClosePromise,
      () => writableStreamFinishInFlightClose(stream),
      (reason) => writableStreamFinishInFlightCloseWithError(stream, reason),
    );
  }

  function writableProcessWrite(controller, chunk) {
    const stream = controller.stream;
    writableStreamMarkFirstWriteRequestInFlight(stream);
    const sinkWritePromise = controller.writeAlgorithm(chunk);
    then(
      sinkWritePromise,
      () => {
        writableStreamFinishInFlightWrite(stream);
        const state = stream.state;
        dequeueValue(controller);
        if (!writableStreamCloseQueuedOrInFlight(stream) && state === "writable") {
          writableStreamUpdateBackpressure(stream, writableGetBackpressure(controller));
        }
        writableAdvanceQueueIfNeeded(controller);
      },
      (reason) => {
        if (stream.state === "writable") clearWritableAlgorithms(controller);
        writableStreamFinishInFlightWriteWithError(stream, reason);
      },
    );
  }

  function writableStreamDefaultControllerWrite(controller, chunk, chunkSize) {
    try {
      enqueueValueWithSize(controller, chunk, chunkSize);
    } catch (error) {
      writableErrorIfNeeded(controller, error);
      return;
    }
    const stream = controller.stream;
    if (!writableStreamCloseQueuedOrInFlight(stream) && stream.state === "writable") {
      writableStreamUpdateBackpressure(stream, writableGetBackpressure(controller));
    }
    writableAdvanceQueueIfNeeded(controller);
  }

  // ---- pipeTo -----------------------------------------------------------------------------------

  function toPipeOptions(options) {
    if (options === undefined || options === null) {
      return { preventClose: false, preventAbort: false, preventCancel: false, signal: undefined };
    }
    if (!isObject(options)) throw typeError("The pipe options are not an object.");
    const preventAbort = !!options.preventAbort;
    const preventCancel = !!options.preventCancel;
    const preventClose = !!options.preventClose;
    const signal = options.signal;
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw typeError("The pipe options' signal is not an AbortSignal.");
    }
    return { preventClose, preventAbort, preventCancel, signal };
  }

  function readableStreamPipeTo(source, dest, options) {
    const { preventClose, preventAbort, preventCancel, signal } = options;
    const reader = acquireDefaultReader(source);
    const writer = acquireWriter(dest);
    source.disturbed = true;
    let shuttingDown = false;
    let currentWrite = resolvedWith(undefined);
    const done = newDeferred();
    let abortAlgorithm;

    function finalize(isError, error) {
      writerRelease(writer);
      defaultReaderRelease(reader);
      if (signal !== undefined) removeAbortAlgorithm(signal, abortAlgorithm);
      if (isError) done.reject(error);
      else done.resolve(undefined);
    }

    function waitForCurrentWrite(then_) {
      // The writes in flight finish first (their promises are the writer's).
      const write = currentWrite;
      then(write, () => (write === currentWrite ? then_() : waitForCurrentWrite(then_)), () =>
        write === currentWrite ? then_() : waitForCurrentWrite(then_),
      );
    }

    function shutdownWithAction(action, originalIsError, originalError) {
      if (shuttingDown) return;
      shuttingDown = true;
      const doAction = () => {
        then(
          action(),
          () => finalize(originalIsError, originalError),
          (newError) => finalize(true, newError),
        );
      };
      if (dest.state === "writable" && !writableStreamCloseQueuedOrInFlight(dest)) {
        waitForCurrentWrite(doAction);
      } else {
        doAction();
      }
    }

    function shutdown(isError, error) {
      if (shuttingDown) return;
      shuttingDown = true;
      if (dest.state === "writable" && !writableStreamCloseQueuedOrInFlight(dest)) {
        waitForCurrentWrite(() => finalize(isError, error));
      } else {
        finalize(isError, error);
      }
    }

    if (signal !== undefined) {
      abortAlgorithm = () => {
        const error = abortSignalReason(signal);
        const actions = [];
        if (!preventAbort) {
          ArrayPrototypePush(actions, () =>
            dest.state === "writable" ? writableStreamAbort(dest, error) : resolvedWith(undefined),
          );
        }
        if (!preventCancel) {
          ArrayPrototypePush(actions, () =>
            source.state === "readable" ? readableStreamCancel(source, error) : resolvedWith(undefined),
          );
        }
        shutdownWithAction(
          () => {
            const promises = [];
            for (let i = 0; i < actions.length; i++) ArrayPrototypePush(promises, actions[i]());
            return waitAll(promises);
          },
          true,
          error,
        );
      };
      if (abortSignalAborted(signal)) {
        abortAlgorithm();
        return done.promise;
      }
      addAbortAlgorithm(signal, abortAlgorithm);
    }

    // Errors and closes, both ways, checked before each step and as they come.
    function checkStates() {
      if (shuttingDown) return true;
      if (source.state === "errored") {
        if (!preventAbort) shutdownWithAction(() => writableStreamAbort(dest, source.storedError), true, source.storedError);
        else shutdown(true, source.storedError);
        return true;
      }
      if (dest.state === "errored" || dest.state === "erroring") {
        if (!preventCancel) shutdownWithAction(() => readableStreamCancel(source, dest.storedError), true, dest.storedError);
        else shutdown(true, dest.storedError);
        return true;
      }
      if (source.state === "closed") {
        if (!preventClose) {
          shutdownWithAction(() => writerCloseWithErrorPropagation(writer), false, undefined);
        } else {
          shutdown(false, undefined);
        }
        return true;
      }
      if (writableStreamCloseQueuedOrInFlight(dest) || dest.state === "closed") {
        const error = typeError("The destination WritableStream closed before the pipe finished.");
        if (!preventCancel) shutdownWithAction(() => readableStreamCancel(source, error), true, error);
        else shutdown(true, error);
        return true;
      }
      return false;
    }

    then(reader.closed.promise, () => checkStates(), () => checkStates());
    then(writer.closed.promise, () => checkStates(), () => checkStates());

    function step() {
      if (checkStates()) return;
      then(writer.ready.promise, () => {
        if (checkStates()) return;
        readerRead(reader, {
          // The write in a microtask of its own, as the spec's read promise would: an
          // `enqueue` that fulfils this read must not run the sink's write synchronously.
          chunk: (chunk) => {
            queueMicrotask(() => {
              currentWrite = writerWrite(writer, chunk);
              markHandled(currentWrite);
              step();
            });
          },
          close: () => checkStates(),
          error: () => checkStates(),
        });
      }, () => checkStates());
    }
    step();
    return done.promise;
  }

  function writerCloseWithErrorPropagation(writer) {
    const stream = writer.stream;
    const state = stream.state;
    if (writableStreamCloseQueuedOrInFlight(stream) || state === "closed") {
      return resolvedWith(undefined);
    }
    if (state === "errored") return rejectedWith(stream.storedError);
    return writableStreamClose(stream);
  }

  function waitAll(promises) {
    const deferred = newDeferred();
    let left = promises.length;
    if (left === 0) deferred.resolve(undefined);
    let rejected = false;
    for (let i = 0; i < promises.length; i++) {
      then(
        promises[i],
        () => {
          if (--left === 0 && !rejected) deferred.resolve(undefined);
        },
        (error) => {
          if (!rejected) {
            rejected = true;
            deferred.reject(error);
          }
        },
      );
    }
    return deferred.promise;
  }

  // ---- TransformStream --------------------------------------------------------------------------

  class TransformStream {
    #slots;

    constructor(transformer = undefined, writableStrategy = undefined, readableStrategy = undefined) {
      const prefix = "Failed to construct 'TransformStream'";
      if (transformer === null) transformer = undefined;
      if (transformer !== undefined && !isObject(transformer)) {
        throw typeError(`${prefix}: the transformer is not an object.`);
      }
      writableStrategy = toStrategy(writableStrategy, prefix);
      readableStrategy = toStrategy(readableStrategy, prefix);
      const cancel = transformer === undefined ? undefined : transformer.cancel;
      const flush = transformer === undefined ? undefined : transformer.flush;
      const readableType = transformer === undefined ? undefined : transformer.readableType;
      const start = transformer === undefined ? undefined : transformer.start;
      const transform = transformer === undefined ? undefined : transformer.transform;
      const writableType = transformer === undefined ? undefined : transformer.writableType;
      requireFunction(start, prefix, "the transformer's start");
      requireFunction(transform, prefix, "the transformer's transform");
      requireFunction(flush, prefix, "the transformer's flush");
      requireFunction(cancel, prefix, "the transformer's cancel");
      if (readableType !== undefined) {
        throw new RangeErrorCtor(`${prefix}: readableType is not supported.`);
      }
      if (writableType !== undefined) {
        throw new RangeErrorCtor(`${prefix}: writableType is not supported.`);
      }
      const readableHWM = extractHighWaterMark(readableStrategy, 0);
      const readableSize = extractSizeAlgorithm(readableStrategy);
      const writableHWM = extractHighWaterMark(writableStrategy, 1);
      const writableSize = extractSizeAlgorithm(writableStrategy);
      const startPromise = newDeferred();
      const slots = initializeTransformStream(this, startPromise.promise, writableHWM, writableSize, readableHWM, readableSize);
      this.#slots = slots;
      setUpTransformStreamDefaultControllerFromTransformer(slots, transformer, transform, flush, cancel);
      if (start !== undefined) {
        startPromise.resolve(ReflectApply(start, transformer, [slots.controller.object]));
      } else {
        startPromise.resolve(undefined);
      }
    }

    get readable() {
      return this.#slots.readable.object;
    }

    get writable() {
      return this.#slots.writable.object;
    }
  }

  function initializeTransformStream(object, startPromise, writableHWM, writableSize, readableHWM, readableSize) {
    const stream = {
      object,
      readable: undefined,
      writable: undefined,
      backpressure: undefined,
      backpressureChangePromise: undefined,
      controller: undefined,
    };
    const startAlgorithm = () => startPromise;
    stream.writable = createWritableStream(
      startAlgorithm,
      (chunk) => transformStreamDefaultSinkWriteAlgorithm(stream, chunk),
      () => transformStreamDefaultSinkCloseAlgorithm(stream),
      (reason) => transformStreamDefaultSinkAbortAlgorithm(stream, reason),
      writableHWM,
      writableSize,
    );
    stream.readable = createReadableStream(
      startAlgorithm,
      () => transformStreamDefaultSourcePullAlgorithm(stream),
      (reason) => transformStreamDefaultSourceCancelAlgorithm(stream, reason),
      readableHWM,
      readableSize,
    );
    stream.backpressure = undefined;
    transformStreamSetBackpressure(stream, true);
    return stream;
  }

  function transformStreamError(stream, error) {
    readableStreamDefaultControllerError(stream.readable.controller, error);
    transformStreamErrorWritableAndUnblockWrite(stream, error);
  }

  function transformStreamErrorWritableAndUnblockWrite(stream, error) {
    transformStreamDefaultControllerClearAlgorithms(stream.controller);
    writableErrorIfNeeded(stream.writable.controller, error);
    transformStreamUnblockWrite(stream);
  }

  function transformStreamUnblockWrite(stream) {
    if (stream.backpressure) transformStreamSetBackpressure(stream, false);
  }

  function transformStreamSetBackpressure(stream, backpressure) {
    if (stream.backpressureChangePromise !== undefined) {
      stream.backpressureChangePromise.resolve(undefined);
    }
    stream.backpressureChangePromise = newDeferred();
    stream.backpressure = backpressure;
  }

  class TransformStreamDefaultController {
    #slots;

    constructor(key = undefined) {
      if (key !== CONSTRUCT) throw typeError("Illegal constructor.");
    }

    get desiredSize() {
      const readable = this.#slots.stream.readable;
      return readableDesiredSize(readable.controller);
    }

    enqueue(chunk = undefined) {
      transformStreamDefaultControllerEnqueue(this.#slots, chunk);
    }

    error(reason = undefined) {
      transformStreamError(this.#slots.stream, reason);
    }

    terminate() {
      transformStreamDefaultControllerTerminate(this.#slots);
    }

    static attach(controller, slots) {
      controller.#slots = slots;
    }
  }
  const attachTransformController = TransformStreamDefaultController.attach;
  delete TransformStreamDefaultController.attach;

  function setUpTransformStreamDefaultControllerFromTransformer(stream, transformer, transform, flush, cancel) {
    const controller = {
      object: new TransformStreamDefaultController(CONSTRUCT),
      stream,
      finishPromise: undefined,
      transformAlgorithm: undefined,
      flushAlgorithm: undefined,
      cancelAlgorithm: undefined,
    };
    attachTransformController(controller.object, controller);
    stream.controller = controller;
    controller.transformAlgorithm =
      transform === undefined
        ? (chunk) => {
            try {
              transformStreamDefaultControllerEnqueue(controller, chunk);
              return resolvedWith(undefined);
            } catch (error) {
              return rejectedWith(error);
            }
          }
        : (chunk) => promiseCall(transform, transformer, [chunk, controller.object]);
    controller.flushAlgorithm =
      flush === undefined ? () => resolvedWith(undefined) : () => promiseCall(flush, transformer, [controller.object]);
    controller.cancelAlgorithm =
      cancel === undefined ? () => resolvedWith(undefined) : (reason) => promiseCall(cancel, transformer, [reason]);
  }

  function transformStreamDefaultControllerClearAlgorithms(controller) {
    controller.transformAlgorithm = undefined;
    controller.flushAlgorithm = undefined;
    controller.cancelAlgorithm = undefined;
  }

  function transformStreamDefaultControllerEnqueue(controller, chunk) {
    const stream = controller.stream;
    const readableController = stream.readable.controller;
    if (!canCloseOrEnqueue(readableController)) {
      throw typeError("The readable side is not in a state that permits enqueue.");
    }
    try {
      readableStreamDefaultControllerEnqueue(readableController, chunk);
    } catch (error) {
      transformStreamErrorWritableAndUnblockWrite(stream, error);
      throw stream.readable.storedError;
    }
    const backpressure = readableHasBackpressure(readableController);
    if (backpressure !== stream.backpressure) transformStreamSetBackpressure(stream, true);
  }

  function transformStreamDefaultControllerPerformTransform(controller, chunk) {
    const transformPromise = controller.transformAlgorithm(chunk);
    return then(transformPromise, undefined, (reason) => {
      transformStreamError(controller.stream, reason);
      throw reason;
    });
  }

  function transformStreamDefaultControllerTerminate(controller) {
    const stream = controller.stream;
    readableStreamDefaultControllerClose(stream.readable.controller);
    const error = typeError("The TransformStream was terminated.");
    transformStreamErrorWritableAndUnblockWrite(stream, error);
  }

  function transformStreamDefaultSinkWriteAlgorithm(stream, chunk) {
    const controller = stream.controller;
    if (stream.backpressure) {
      const backpressureChangePromise = stream.backpressureChangePromise.promise;
      return then(backpressureChangePromise, () => {
        const writable = stream.writable;
        if (writable.state === "erroring") throw writable.storedError;
        return transformStreamDefaultControllerPerformTransform(controller, chunk);
      });
    }
    return transformStreamDefaultControllerPerformTransform(controller, chunk);
  }

  function transformStreamDefaultSinkAbortAlgorithm(stream, reason) {
    const controller = stream.controller;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const readable = stream.readable;
    controller.finishPromise = newDeferred();
    const cancelPromise = controller.cancelAlgorithm(reason);
    transformStreamDefaultControllerClearAlgorithms(controller);
    then(
      cancelPromise,
      () => {
        if (readable.state === "errored") {
          controller.finishPromise.reject(readable.storedError);
        } else {
          readableStreamDefaultControllerError(readable.controller, reason);
          controller.finishPromise.resolve(undefined);
        }
      },
      (r) => {
        readableStreamDefaultControllerError(readable.controller, r);
        controller.finishPromise.reject(r);
      },
    );
    return controller.finishPromise.promise;
  }

  function transformStreamDefaultSinkCloseAlgorithm(stream) {
    const controller = stream.controller;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const readable = stream.readable;
    controller.finishPromise = newDeferred();
    const flushPromise = controller.flushAlgorithm();
    transformStreamDefaultControllerClearAlgorithms(controller);
    then(
      flushPromise,
      () => {
        if (readable.state === "errored") {
          controller.finishPromise.reject(readable.storedError);
        } else {
          readableStreamDefaultControllerClose(readable.controller);
          controller.finishPromise.resolve(undefined);
        }
      },
      (r) => {
        readableStreamDefaultControllerError(readable.controller, r);
        controller.finishPromise.reject(r);
      },
    );
    return controller.finishPromise.promise;
  }

  function transformStreamDefaultSourcePullAlgorithm(stream) {
    transformStreamSetBackpressure(stream, false);
    return stream.backpressureChangePromise.promise;
  }

  function transformStreamDefaultSourceCancelAlgorithm(stream, reason) {
    const controller = stream.controller;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const writable = stream.writable;
    controller.finishPromise = newDeferred();
    const cancelPromise = controller.cancelAlgorithm(reason);
    transformStreamDefaultControllerClearAlgorithms(controller);
    then(
      cancelPromise,
      () => {
        if (writable.state === "errored") {
          controller.finishPromise.reject(writable.storedError);
        } else {
          writableErrorIfNeeded(writable.controller, reason);
          transformStreamUnblockWrite(stream);
          controller.finishPromise.resolve(undefined);
        }
      },
      (r) => {
        writableErrorIfNeeded(writable.controller, r);
        transformStreamUnblockWrite(stream);
        controller.finishPromise.reject(r);
      },
    );
    return controller.finishPromise.promise;
  }

  // ---- Reading a whole stream ------------------------------------------------------------------

  function readAllBytes(stream) {
    const reader = acquireDefaultReader(stream);
    const chunks = [];
    let total = 0;
    const deferred = newDeferred();
    const fail = (error) => {
      defaultReaderRelease(reader);
      deferred.reject(error);
    };
    const request = {
      chunk: (chunk) => {
        if (!isUint8Array(chunk)) {
          const error = typeError("A body's chunk is not a Uint8Array.");
          readableStreamCancel(stream, error);
          fail(error);
          return;
        }
        chunks[chunks.length] = chunk;
        total += TypedArrayByteLength(chunk);
        // Each read in a microtask of its own: a stream that enqueues without end does not
        // keep this in one task.
        queueMicrotask(() => readerRead(reader, request));
      },
      close: () => {
        defaultReaderRelease(reader);
        deferred.resolve(concatBytes(chunks, total));
      },
      error: fail,
    };
    readerRead(reader, request);
    return deferred.promise;
  }

  // Reads every chunk (each must be a Uint8Array) into `write(chunk)`, which answers true
  // (taken), false (whoever reads went away: the stream is cancelled) or a promise of either
  // (backpressure: the next read waits for it); `end(failed)` once the stream closes (false),
  // or errors or gives a chunk that is not bytes (true). The stream is locked meanwhile: a
  // response body forwarded to the host.
  function forward(stream, write, end) {
    const reader = acquireDefaultReader(stream);
    const stop = (reason, failed) => {
      markHandled(readableStreamCancel(stream, reason));
      defaultReaderRelease(reader);
      if (failed) end(true);
    };
    const next = (taken) => {
      if (taken === true) readerRead(reader, request);
      else if (reader.stream !== undefined) stop(undefined, false);
    };
    const request = {
      chunk: (chunk) => {
        if (!isUint8Array(chunk)) {
          stop(typeError("A body's chunk is not a Uint8Array."), true);
          return;
        }
        let taken;
        try {
          taken = write(chunk);
        } catch (error) {
          stop(error, true);
          return;
        }
        // Each read in a microtask of its own: a stream that enqueues without end does not
        // keep this in one task.
        if (taken === true) queueMicrotask(() => next(true));
        else if (taken === false) next(false);
        else then(taken, next, (error) => stop(error, true));
      },
      close: () => {
        defaultReaderRelease(reader);
        end(false);
      },
      error: () => {
        defaultReaderRelease(reader);
        end(true);
      },
    };
    readerRead(reader, request);
  }

  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayToStringTag = uncurryThis(
    Object.getOwnPropertyDescriptor(TypedArrayPrototype, SymbolToStringTag).get,
  );
  const TypedArrayByteLength = uncurryThis(
    Object.getOwnPropertyDescriptor(TypedArrayPrototype, "byteLength").get,
  );
  const TypedArraySet = uncurryThis(TypedArrayPrototype.set);
  const Uint8ArrayCtor = Uint8Array;
  const isUint8Array = (value) => TypedArrayToStringTag(value) === "Uint8Array";

  // Always a copy: a chunk is the enqueuer's, and may be a view of a larger buffer.
  function concatBytes(chunks, total) {
    const out = new Uint8ArrayCtor(total);
    let at = 0;
    for (let i = 0; i < chunks.length; i++) {
      TypedArraySet(out, chunks[i], at);
      at += TypedArrayByteLength(chunks[i]);
    }
    return out;
  }

  // ---- Globals ----------------------------------------------------------------------------------

  for (const Class of [
    ReadableStream,
    ReadableStreamDefaultReader,
    ReadableStreamDefaultController,
    WritableStream,
    WritableStreamDefaultWriter,
    WritableStreamDefaultController,
    TransformStream,
    TransformStreamDefaultController,
    ByteLengthQueuingStrategy,
    CountQueuingStrategy,
  ]) {
    configureInterface(Class);
    defineGlobal(Class.name, Class);
  }
  ObjectDefineProperty(ReadableStream.prototype, SymbolAsyncIterator, {
    value: ReadableStream.prototype.values,
    writable: true,
    configurable: true,
  });
  ObjectDefineProperty(ReadableStreamAsyncIterator.prototype, SymbolToStringTag, {
    value: "ReadableStream AsyncIterator",
    configurable: true,
  });

  // For byte_streams.js: what byte streams share with these.
  internals.readableStreams = {
    __proto__: null,
    CONSTRUCT,
    PENDING,
    noop,
    newDeferred,
    then,
    markHandled,
    resolvedWith,
    rejectedWith,
    promiseCall,
    typeError,
    brandedSlots,
    illegalInvocation,
    requireFunction,
    readableSlots,
    readableSlotsOf,
    readableStreamCancel,
    readableStreamClose,
    readableStreamError,
    readableStreamFulfillReadRequest,
    readableStreamGetNumReadRequests,
    readableStreamHasDefaultReader,
    acquireDefaultReader,
    newReaderSlots,
    setUpReaderSlots: setUpDefaultReader,
    readerCancel,
    releasedReader,
    readerRead,
    defaultReaderRelease,
    takeFirst,
    startController,
    readableCallPullIfNeeded,
    ReadableStream,
  };

  // For bodies: a stream over a pull and a cancel of the host's, a reader's reads, the
  // checks Request and Response make.
  internals.streams = {
    __proto__: null,
    isReadableStream,
    isDisturbed: (stream) => readableSlots(stream).disturbed,
    isLocked: (stream) => readableSlots(stream).reader !== undefined,
    create: (pull, cancel, highWaterMark) =>
      createReadableStream(noop, pull, cancel, highWaterMark).object,
    enqueue: (stream, chunk) =>
      readableStreamDefaultControllerEnqueue(readableSlots(stream).controller, chunk),
    close: (stream) => readableStreamDefaultControllerClose(readableSlots(stream).controller),
    error: (stream, error) =>
      readableStreamDefaultControllerError(readableSlots(stream).controller, error),
    // Reads every chunk (each must be a Uint8Array) into one Uint8Array: a body's "fully
    // read". The stream is locked meanwhile; a chunk of another type errors it.
    readAllBytes: (stream) => readAllBytes(readableSlots(stream)),
    forward: (stream, write, end) => forward(readableSlots(stream), write, end),
    // Cancels a stream nobody will read (its cancel's failure goes nowhere).
    cancel: (stream) => markHandled(readableStreamCancel(readableSlots(stream), undefined)),
    // A stream that is closed and disturbed: the body of a consumed source.
    createUsed: () => {
      const slots = createReadableStream(noop, () => resolvedWith(undefined), () => resolvedWith(undefined), 0);
      readableStreamDefaultControllerClose(slots.controller);
      slots.disturbed = true;
      return slots.object;
    },
        tee: (stream) => {
      const branches = readableStreamDefaultTee(readableSlots(stream), true);
      return [branches[0].object, branches[1].object];
    },
  };
  void ObjectCreate;
  void DOMException;
})
