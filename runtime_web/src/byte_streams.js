// Byte streams (the WHATWG Streams standard): `ReadableByteStreamController`,
// `ReadableStreamBYOBReader`, `ReadableStreamBYOBRequest`, and a byte stream's tee. The spec's
// algorithms, by its names, over the records `streams.js` keeps (installed before this; its
// `ReadableStream` calls `internals.byteStreams` for `type: "bytes"`, a BYOB reader and a
// byte stream's tee). A buffer handed to a stream is transferred (its old `ArrayBuffer`
// detached), as the spec says, so no chunk is shared with its giver.
(function (internalOps, internals) {
  "use strict";

  const { Object, Reflect, Symbol, Array, RangeError, ArrayBuffer, Uint8Array, DataView, Math } =
    globalThis;
  const { configureInterface, defineGlobal, uncurryThis, webidl } = internals;
  const {
    CONSTRUCT,
    noop,
    newDeferred,
    then,
    resolvedWith,
    rejectedWith,
    promiseCall,
    typeError,
    brandedSlots,
    illegalInvocation,
    readableSlotsOf,
    readableStreamCancel,
    readableStreamClose,
    readableStreamError,
    readableStreamFulfillReadRequest,
    readableStreamGetNumReadRequests,
    readableStreamHasDefaultReader,
    acquireDefaultReader,
    readerRead,
    defaultReaderRelease,
    takeFirst,
    startController,
    readableCallPullIfNeeded,
    ReadableStream,
    newReaderSlots,
    setUpReaderSlots,
    readerCancel,
    releasedReader,
  } = internals.readableStreams;
  const { isObject, requiredArguments } = webidl;
  const ReflectApply = Reflect.apply;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const MathMin = Math.min;
  const RangeErrorCtor = RangeError;
  const ArrayBufferCtor = ArrayBuffer;
  const Uint8ArrayCtor = Uint8Array;
  const DataViewCtor = DataView;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const getter = (proto, name) => uncurryThis(ObjectGetOwnPropertyDescriptor(proto, name).get);
  const ArrayBufferTransfer = uncurryThis(ArrayBuffer.prototype.transfer);
  const ArrayBufferSlice = uncurryThis(ArrayBuffer.prototype.slice);
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, "byteLength");
  const ArrayBufferDetached = getter(ArrayBuffer.prototype, "detached");
  const ArrayBufferResizable = getter(ArrayBuffer.prototype, "resizable");
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);
  const TypedArrayBuffer = getter(TypedArrayPrototype, "buffer");
  const TypedArrayByteOffset = getter(TypedArrayPrototype, "byteOffset");
  const TypedArrayByteLength = getter(TypedArrayPrototype, "byteLength");
  const TypedArrayLength = getter(TypedArrayPrototype, "length");
  const TypedArraySet = uncurryThis(TypedArrayPrototype.set);
  const DataViewBuffer = getter(DataView.prototype, "buffer");
  const DataViewByteOffset = getter(DataView.prototype, "byteOffset");
  const DataViewByteLength = getter(DataView.prototype, "byteLength");
  const ArrayPrototypePush = uncurryThis(Array.prototype.push);
  const queueMicrotask = globalThis.queueMicrotask;
  const ENFORCE_RANGE = { __proto__: null, enforceRange: true };

  // Each typed array's constructor by name, captured now.
  const TYPED_ARRAYS = { __proto__: null };
  for (const name of [
    "Int8Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "Int16Array",
    "Uint16Array",
    "Int32Array",
    "Uint32Array",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
  ]) {
    if (typeof globalThis[name] === "function") TYPED_ARRAYS[name] = globalThis[name];
  }

  // ---- Buffers and views ------------------------------------------------------------------

  // A view's parts: its buffer, offset, length in bytes, element size and constructor.
  function viewParts(view) {
    const name = TypedArrayName(view);
    if (name !== undefined) {
      const ctor = TYPED_ARRAYS[name];
      return {
        buffer: TypedArrayBuffer(view),
        byteOffset: TypedArrayByteOffset(view),
        byteLength: TypedArrayByteLength(view),
        elementSize: ctor.BYTES_PER_ELEMENT,
        ctor,
        length: TypedArrayLength(view),
      };
    }
    const byteLength = DataViewByteLength(view);
    return {
      buffer: DataViewBuffer(view),
      byteOffset: DataViewByteOffset(view),
      byteLength,
      elementSize: 1,
      ctor: DataViewCtor,
      length: byteLength,
    };
  }

  function isDetached(buffer) {
    try {
      return ArrayBufferDetached(buffer);
    } catch {
      return false; // a SharedArrayBuffer
    }
  }

  // WebIDL's ArrayBufferView (no [AllowShared], no [AllowResizable]): its parts, or a
  // TypeError.
  function toArrayBufferView(value, prefix, what) {
    if (!ArrayBufferIsView(value)) throw typeError(`${prefix}: ${what} is not an ArrayBufferView.`);
    const parts = viewParts(value);
    let resizable;
    try {
      resizable = ArrayBufferResizable(parts.buffer);
    } catch {
      throw typeError(`${prefix}: ${what} is a view of a SharedArrayBuffer.`);
    }
    if (resizable) throw typeError(`${prefix}: ${what} is a view of a resizable ArrayBuffer.`);
    return parts;
  }

  // TransferArrayBuffer: a new ArrayBuffer of the same memory, the old one detached (a
  // TypeError for one that cannot be: a WebAssembly memory's, an already detached one).
  function transferArrayBuffer(buffer) {
    if (isDetached(buffer)) throw typeError("The ArrayBuffer is detached.");
    return ArrayBufferTransfer(buffer);
  }

  function copyBytes(to, toIndex, from, fromIndex, count) {
    TypedArraySet(
      new Uint8ArrayCtor(to, toIndex, count),
      new Uint8ArrayCtor(from, fromIndex, count),
    );
  }

  // ---- ReadableStreamBYOBRequest ------------------------------------------------------------

  class ReadableStreamBYOBRequest {
    #slots;

    constructor(key = undefined) {
      if (key !== CONSTRUCT) throw typeError("Illegal constructor.");
    }

    get view() {
      return this.#slots.view;
    }

    respond(bytesWritten) {
      const slots = this.#slots;
      const prefix = "Failed to execute 'respond' on 'ReadableStreamBYOBRequest'";
      requiredArguments(arguments.length, 1, prefix);
      bytesWritten = webidl.toUnsignedLongLong(bytesWritten, ENFORCE_RANGE, prefix, "bytesWritten");
      if (slots.controller === undefined) throw typeError(`${prefix}: the request was answered.`);
      if (isDetached(viewParts(slots.view).buffer)) {
        throw typeError(`${prefix}: the view's buffer is detached.`);
      }
      byteControllerRespond(slots.controller, bytesWritten);
    }

    respondWithNewView(view) {
      const slots = this.#slots;
      const prefix = "Failed to execute 'respondWithNewView' on 'ReadableStreamBYOBRequest'";
      requiredArguments(arguments.length, 1, prefix);
      const parts = toArrayBufferView(view, prefix, "The view");
      if (slots.controller === undefined) throw typeError(`${prefix}: the request was answered.`);
      if (isDetached(parts.buffer)) throw typeError(`${prefix}: the view's buffer is detached.`);
      byteControllerRespondWithNewView(slots.controller, parts);
    }

    static attach(request, slots) {
      request.#slots = slots;
    }
  }
  const attachRequest = ReadableStreamBYOBRequest.attach;
  delete ReadableStreamBYOBRequest.attach;

  // ---- ReadableByteStreamController --------------------------------------------------------

  class ReadableByteStreamController {
    #slots;

    constructor(key = undefined) {
      if (key !== CONSTRUCT) throw typeError("Illegal constructor.");
    }

    get byobRequest() {
      const request = byteControllerGetBYOBRequest(this.#slots);
      return request === null ? null : request.object;
    }

    get desiredSize() {
      return byteControllerGetDesiredSize(this.#slots);
    }

    close() {
      const slots = this.#slots;
      if (slots.closeRequested) throw typeError("The stream is already closing.");
      if (slots.stream.state !== "readable") throw typeError("The stream is not readable.");
      byteControllerClose(slots);
    }

    enqueue(chunk) {
      const slots = this.#slots;
      const prefix = "Failed to execute 'enqueue' on 'ReadableByteStreamController'";
      requiredArguments(arguments.length, 1, prefix);
      const parts = toArrayBufferView(chunk, prefix, "The chunk");
      if (parts.byteLength === 0) throw typeError(`${prefix}: the chunk is empty.`);
      if (ArrayBufferByteLength(parts.buffer) === 0) {
        throw typeError(`${prefix}: the chunk's buffer is empty (or detached).`);
      }
      if (slots.closeRequested) throw typeError(`${prefix}: the stream is closing.`);
      if (slots.stream.state !== "readable") throw typeError(`${prefix}: the stream is not readable.`);
      byteControllerEnqueue(slots, parts);
    }

    error(error = undefined) {
      byteControllerError(this.#slots, error);
    }

    static attach(controller, slots) {
      controller.#slots = slots;
    }
  }
  const attachController = ReadableByteStreamController.attach;
  delete ReadableByteStreamController.attach;

  function setUpFromSource(stream, source, members, highWaterMark, prefix) {
    const { start, pull, cancel, autoAllocateChunkSize } = members;
    if (autoAllocateChunkSize === 0) {
      throw typeError(`${prefix}: autoAllocateChunkSize must be greater than 0.`);
    }
    // (The controller is the stream's by the time start runs.)
    setUpByteController(
      stream,
      start === undefined ? noop : () => ReflectApply(start, source, [stream.controller.object]),
      pull === undefined
        ? () => resolvedWith(undefined)
        : () => promiseCall(pull, source, [stream.controller.object]),
      cancel === undefined ? () => resolvedWith(undefined) : (reason) => promiseCall(cancel, source, [reason]),
      highWaterMark,
      autoAllocateChunkSize,
    );
  }

  function setUpByteController(stream, startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark, autoAllocateChunkSize) {
    const controller = {
      object: new ReadableByteStreamController(CONSTRUCT),
      stream,
      pullAgain: false,
      pulling: false,
      byobRequest: null,
      queue: [],
      queueTotalSize: 0,
      closeRequested: false,
      started: false,
      strategyHWM: highWaterMark,
      pullAlgorithm,
      cancelAlgorithm,
      autoAllocateChunkSize,
      pendingPullIntos: [],
      pulled: undefined,
      pullFailed: undefined,
      isByteController: true,
      shouldCallPull: byteControllerShouldCallPull,
      pullSteps: byteControllerPullSteps,
      cancelSteps: byteControllerCancelSteps,
      releaseSteps: byteControllerReleaseSteps,
    };
    attachController(controller.object, controller);
    startController(controller, startAlgorithm, byteControllerError);
  }

  function createByteStream(pullAlgorithm, cancelAlgorithm) {
    const stream = readableSlotsOf(new ReadableStream(CONSTRUCT), "The stream");
    setUpByteController(stream, noop, pullAlgorithm, cancelAlgorithm, 0, undefined);
    return stream;
  }

  function byteControllerShouldCallPull(controller) {
    const stream = controller.stream;
    if (stream.state !== "readable" || controller.closeRequested || !controller.started) return false;
    if (readableStreamHasDefaultReader(stream) && readableStreamGetNumReadRequests(stream) > 0) {
      return true;
    }
    if (hasBYOBReader(stream) && stream.reader.readIntoRequests.length > 0) return true;
    return byteControllerGetDesiredSize(controller) > 0;
  }

  function byteControllerClearAlgorithms(controller) {
    controller.pullAlgorithm = undefined;
    controller.cancelAlgorithm = undefined;
  }

  function byteControllerClearPendingPullIntos(controller) {
    byteControllerInvalidateBYOBRequest(controller);
    controller.pendingPullIntos = [];
  }

  function byteControllerClose(controller) {
    const stream = controller.stream;
    if (controller.closeRequested || stream.state !== "readable") return;
    if (controller.queueTotalSize > 0) {
      controller.closeRequested = true;
      return;
    }
    if (controller.pendingPullIntos.length > 0) {
      const first = controller.pendingPullIntos[0];
      if (first.bytesFilled % first.elementSize !== 0) {
        const error = typeError("Closed with a partial element in the pending read.");
        byteControllerError(controller, error);
        throw error;
      }
    }
    byteControllerClearAlgorithms(controller);
    readableStreamClose(stream);
  }

  function byteControllerCommitPullIntoDescriptor(stream, descriptor) {
    const done = stream.state === "closed";
    const filledView = byteControllerConvertPullIntoDescriptor(descriptor);
    if (descriptor.readerType === "default") {
      readableStreamFulfillReadRequest(stream, filledView, done);
    } else {
      fulfillReadIntoRequest(stream, filledView, done);
    }
  }

  function byteControllerConvertPullIntoDescriptor(descriptor) {
    const buffer = transferArrayBuffer(descriptor.buffer);
    return new descriptor.viewConstructor(
      buffer,
      descriptor.byteOffset,
      descriptor.bytesFilled / descriptor.elementSize,
    );
  }

  function byteControllerEnqueue(controller, parts) {
    const stream = controller.stream;
    if (controller.closeRequested || stream.state !== "readable") return;
    const { buffer, byteOffset, byteLength } = parts;
    if (isDetached(buffer)) throw typeError("The chunk's buffer is detached.");
    const transferredBuffer = transferArrayBuffer(buffer);
    if (controller.pendingPullIntos.length > 0) {
      const first = controller.pendingPullIntos[0];
      if (isDetached(first.buffer)) throw typeError("The pending read's buffer is detached.");
      byteControllerInvalidateBYOBRequest(controller);
      first.buffer = transferArrayBuffer(first.buffer);
      if (first.readerType === "none") byteControllerEnqueueDetachedPullIntoToQueue(controller, first);
    }
    if (readableStreamHasDefaultReader(stream)) {
      byteControllerProcessReadRequestsUsingQueue(controller);
      if (readableStreamGetNumReadRequests(stream) === 0) {
        byteControllerEnqueueChunkToQueue(controller, transferredBuffer, byteOffset, byteLength);
      } else {
        if (controller.pendingPullIntos.length > 0) byteControllerShiftPendingPullInto(controller);
        const view = new Uint8ArrayCtor(transferredBuffer, byteOffset, byteLength);
        readableStreamFulfillReadRequest(stream, view, false);
      }
    } else if (hasBYOBReader(stream)) {
      byteControllerEnqueueChunkToQueue(controller, transferredBuffer, byteOffset, byteLength);
      const filled = byteControllerProcessPullIntoDescriptorsUsingQueue(controller);
      for (let i = 0; i < filled.length; i++) byteControllerCommitPullIntoDescriptor(stream, filled[i]);
    } else {
      byteControllerEnqueueChunkToQueue(controller, transferredBuffer, byteOffset, byteLength);
    }
    readableCallPullIfNeeded(controller);
  }

  function byteControllerEnqueueChunkToQueue(controller, buffer, byteOffset, byteLength) {
    ArrayPrototypePush(controller.queue, { buffer, byteOffset, byteLength });
    controller.queueTotalSize += byteLength;
  }

  function byteControllerEnqueueClonedChunkToQueue(controller, buffer, byteOffset, byteLength) {
    let clone;
    try {
      clone = ArrayBufferSlice(buffer, byteOffset, byteOffset + byteLength);
    } catch (error) {
      byteControllerError(controller, error);
      throw error;
    }
    byteControllerEnqueueChunkToQueue(controller, clone, 0, byteLength);
  }

  function byteControllerEnqueueDetachedPullIntoToQueue(controller, descriptor) {
    if (descriptor.bytesFilled > 0) {
      byteControllerEnqueueClonedChunkToQueue(
        controller,
        descriptor.buffer,
        descriptor.byteOffset,
        descriptor.bytesFilled,
      );
    }
    byteControllerShiftPendingPullInto(controller);
  }

  function byteControllerError(controller, error) {
    const stream = controller.stream;
    if (stream.state !== "readable") return;
    byteControllerClearPendingPullIntos(controller);
    controller.queue = [];
    controller.queueTotalSize = 0;
    byteControllerClearAlgorithms(controller);
    readableStreamError(stream, error);
  }

  function byteControllerFillHeadPullIntoDescriptor(controller, size, descriptor) {
    descriptor.bytesFilled += size;
  }

  function byteControllerFillPullIntoDescriptorFromQueue(controller, descriptor) {
    const maxBytesToCopy = MathMin(
      controller.queueTotalSize,
      descriptor.byteLength - descriptor.bytesFilled,
    );
    const maxBytesFilled = descriptor.bytesFilled + maxBytesToCopy;
    let totalBytesToCopyRemaining = maxBytesToCopy;
    let ready = false;
    const remainderBytes = maxBytesFilled % descriptor.elementSize;
    const maxAlignedBytes = maxBytesFilled - remainderBytes;
    if (maxAlignedBytes >= descriptor.minimumFill) {
      totalBytesToCopyRemaining = maxAlignedBytes - descriptor.bytesFilled;
      ready = true;
    }
    while (totalBytesToCopyRemaining > 0) {
      const head = controller.queue[0];
      const bytesToCopy = MathMin(totalBytesToCopyRemaining, head.byteLength);
      const destStart = descriptor.byteOffset + descriptor.bytesFilled;
      copyBytes(descriptor.buffer, destStart, head.buffer, head.byteOffset, bytesToCopy);
      if (head.byteLength === bytesToCopy) {
        takeFirst(controller, "queue");
      } else {
        head.byteOffset += bytesToCopy;
        head.byteLength -= bytesToCopy;
      }
      controller.queueTotalSize -= bytesToCopy;
      byteControllerFillHeadPullIntoDescriptor(controller, bytesToCopy, descriptor);
      totalBytesToCopyRemaining -= bytesToCopy;
    }
    return ready;
  }

  function byteControllerFillReadRequestFromQueue(controller, readRequest) {
    const entry = takeFirst(controller, "queue");
    controller.queueTotalSize -= entry.byteLength;
    byteControllerHandleQueueDrain(controller);
    readRequest.chunk(new Uint8ArrayCtor(entry.buffer, entry.byteOffset, entry.byteLength));
  }

  function byteControllerGetBYOBRequest(controller) {
    if (controller.byobRequest === null && controller.pendingPullIntos.length > 0) {
      const first = controller.pendingPullIntos[0];
      const view = new Uint8ArrayCtor(
        first.buffer,
        first.byteOffset + first.bytesFilled,
        first.byteLength - first.bytesFilled,
      );
      const request = { object: new ReadableStreamBYOBRequest(CONSTRUCT), controller, view };
      attachRequest(request.object, request);
      controller.byobRequest = request;
    }
    return controller.byobRequest;
  }

  function byteControllerGetDesiredSize(controller) {
    const state = controller.stream.state;
    if (state === "errored") return null;
    if (state === "closed") return 0;
    return controller.strategyHWM - controller.queueTotalSize;
  }

  function byteControllerHandleQueueDrain(controller) {
    if (controller.queueTotalSize === 0 && controller.closeRequested) {
      byteControllerClearAlgorithms(controller);
      readableStreamClose(controller.stream);
    } else {
      readableCallPullIfNeeded(controller);
    }
  }

  function byteControllerInvalidateBYOBRequest(controller) {
    const request = controller.byobRequest;
    if (request === null) return;
    request.controller = undefined;
    request.view = null;
    controller.byobRequest = null;
  }

  function byteControllerProcessPullIntoDescriptorsUsingQueue(controller) {
    const filled = [];
    while (controller.pendingPullIntos.length > 0) {
      if (controller.queueTotalSize === 0) break;
      const descriptor = controller.pendingPullIntos[0];
      if (byteControllerFillPullIntoDescriptorFromQueue(controller, descriptor)) {
        byteControllerShiftPendingPullInto(controller);
        ArrayPrototypePush(filled, descriptor);
      }
    }
    return filled;
  }

  function byteControllerProcessReadRequestsUsingQueue(controller) {
    const reader = controller.stream.reader;
    while (reader.readRequests.length > 0) {
      if (controller.queueTotalSize === 0) return;
      const readRequest = takeFirst(reader, "readRequests");
      byteControllerFillReadRequestFromQueue(controller, readRequest);
    }
  }

  function byteControllerPullInto(controller, parts, min, readIntoRequest) {
    const stream = controller.stream;
    const { elementSize, ctor, byteOffset, byteLength } = parts;
    const minimumFill = min * elementSize;
    let buffer;
    try {
      buffer = transferArrayBuffer(parts.buffer);
    } catch (error) {
      readIntoRequest.error(error);
      return;
    }
    const descriptor = {
      buffer,
      bufferByteLength: ArrayBufferByteLength(buffer),
      byteOffset,
      byteLength,
      bytesFilled: 0,
      minimumFill,
      elementSize,
      viewConstructor: ctor,
      readerType: "byob",
    };
    if (controller.pendingPullIntos.length > 0) {
      ArrayPrototypePush(controller.pendingPullIntos, descriptor);
      ArrayPrototypePush(stream.reader.readIntoRequests, readIntoRequest);
      return;
    }
    if (stream.state === "closed") {
      readIntoRequest.close(new ctor(descriptor.buffer, descriptor.byteOffset, 0));
      return;
    }
    if (controller.queueTotalSize > 0) {
      if (byteControllerFillPullIntoDescriptorFromQueue(controller, descriptor)) {
        const filledView = byteControllerConvertPullIntoDescriptor(descriptor);
        byteControllerHandleQueueDrain(controller);
        readIntoRequest.chunk(filledView);
        return;
      }
      if (controller.closeRequested) {
        const error = typeError("The stream closed with too few bytes for the read.");
        byteControllerError(controller, error);
        readIntoRequest.error(error);
        return;
      }
    }
    ArrayPrototypePush(controller.pendingPullIntos, descriptor);
    ArrayPrototypePush(stream.reader.readIntoRequests, readIntoRequest);
    readableCallPullIfNeeded(controller);
  }

  function byteControllerRespond(controller, bytesWritten) {
    const first = controller.pendingPullIntos[0];
    if (controller.stream.state === "closed") {
      if (bytesWritten !== 0) throw typeError("The stream is closed: only 0 bytes may be written.");
    } else {
      if (bytesWritten === 0) throw typeError("bytesWritten must be greater than 0.");
      if (first.bytesFilled + bytesWritten > first.byteLength) {
        throw new RangeErrorCtor("bytesWritten is more than the view holds.");
      }
    }
    first.buffer = transferArrayBuffer(first.buffer);
    byteControllerRespondInternal(controller, bytesWritten);
  }

  function byteControllerRespondInClosedState(controller, first) {
    if (first.readerType === "none") byteControllerShiftPendingPullInto(controller);
    const stream = controller.stream;
    if (hasBYOBReader(stream)) {
      const filled = [];
      while (filled.length < stream.reader.readIntoRequests.length) {
        ArrayPrototypePush(filled, byteControllerShiftPendingPullInto(controller));
      }
      for (let i = 0; i < filled.length; i++) byteControllerCommitPullIntoDescriptor(stream, filled[i]);
    }
  }

  function byteControllerRespondInReadableState(controller, bytesWritten, descriptor) {
    const stream = controller.stream;
    byteControllerFillHeadPullIntoDescriptor(controller, bytesWritten, descriptor);
    if (descriptor.readerType === "none") {
      byteControllerEnqueueDetachedPullIntoToQueue(controller, descriptor);
      const filled = byteControllerProcessPullIntoDescriptorsUsingQueue(controller);
      for (let i = 0; i < filled.length; i++) byteControllerCommitPullIntoDescriptor(stream, filled[i]);
      return;
    }
    if (descriptor.bytesFilled < descriptor.minimumFill) return;
    byteControllerShiftPendingPullInto(controller);
    const remainderSize = descriptor.bytesFilled % descriptor.elementSize;
    if (remainderSize > 0) {
      const end = descriptor.byteOffset + descriptor.bytesFilled;
      byteControllerEnqueueClonedChunkToQueue(controller, descriptor.buffer, end - remainderSize, remainderSize);
    }
    descriptor.bytesFilled -= remainderSize;
    const filled = byteControllerProcessPullIntoDescriptorsUsingQueue(controller);
    byteControllerCommitPullIntoDescriptor(stream, descriptor);
    for (let i = 0; i < filled.length; i++) byteControllerCommitPullIntoDescriptor(stream, filled[i]);
  }

  function byteControllerRespondInternal(controller, bytesWritten) {
    const first = controller.pendingPullIntos[0];
    byteControllerInvalidateBYOBRequest(controller);
    if (controller.stream.state === "closed") {
      byteControllerRespondInClosedState(controller, first);
    } else {
      byteControllerRespondInReadableState(controller, bytesWritten, first);
    }
    readableCallPullIfNeeded(controller);
  }

  function byteControllerRespondWithNewView(controller, parts) {
    const first = controller.pendingPullIntos[0];
    if (controller.stream.state === "closed") {
      if (parts.byteLength !== 0) throw typeError("The stream is closed: the view must be empty.");
    } else if (parts.byteLength === 0) {
      throw typeError("The view is empty.");
    }
    if (first.byteOffset + first.bytesFilled !== parts.byteOffset) {
      throw new RangeErrorCtor("The view does not start where the request's did.");
    }
    if (first.bufferByteLength !== ArrayBufferByteLength(parts.buffer)) {
      throw new RangeErrorCtor("The view's buffer is not the request's length.");
    }
    if (first.bytesFilled + parts.byteLength > first.byteLength) {
      throw new RangeErrorCtor("The view is longer than the request's.");
    }
    const viewByteLength = parts.byteLength;
    first.buffer = transferArrayBuffer(parts.buffer);
    byteControllerRespondInternal(controller, viewByteLength);
  }

  function byteControllerShiftPendingPullInto(controller) {
    return takeFirst(controller, "pendingPullIntos");
  }

  function byteControllerCancelSteps(controller, reason) {
    byteControllerClearPendingPullIntos(controller);
    controller.queue = [];
    controller.queueTotalSize = 0;
    const result = controller.cancelAlgorithm(reason);
    byteControllerClearAlgorithms(controller);
    return result;
  }

  function byteControllerPullSteps(controller, readRequest) {
    const stream = controller.stream;
    if (controller.queueTotalSize > 0) {
      byteControllerFillReadRequestFromQueue(controller, readRequest);
      return;
    }
    const autoAllocateChunkSize = controller.autoAllocateChunkSize;
    if (autoAllocateChunkSize !== undefined) {
      let buffer;
      try {
        buffer = new ArrayBufferCtor(autoAllocateChunkSize);
      } catch (error) {
        readRequest.error(error);
        return;
      }
      ArrayPrototypePush(controller.pendingPullIntos, {
        buffer,
        bufferByteLength: autoAllocateChunkSize,
        byteOffset: 0,
        byteLength: autoAllocateChunkSize,
        bytesFilled: 0,
        minimumFill: 1,
        elementSize: 1,
        viewConstructor: Uint8ArrayCtor,
        readerType: "default",
      });
    }
    ArrayPrototypePush(stream.reader.readRequests, readRequest);
    readableCallPullIfNeeded(controller);
  }

  function byteControllerReleaseSteps(controller) {
    if (controller.pendingPullIntos.length > 0) {
      const first = controller.pendingPullIntos[0];
      first.readerType = "none";
      controller.pendingPullIntos = [first];
    }
  }

  // ---- ReadableStreamBYOBReader -------------------------------------------------------------

  class ReadableStreamBYOBReader {
    #slots;

    constructor(stream) {
      requiredArguments(arguments.length, 1, "Failed to construct 'ReadableStreamBYOBReader'");
      const streamSlots = readableSlotsOf(stream, "The argument");
      this.#slots = setUpBYOBReader(this, streamSlots);
    }

    get closed() {
      try {
        return this.#slots.closed.promise;
      } catch (error) {
        return rejectedWith(error);
      }
    }

    cancel(reason = undefined) {
      return readerCancel(brandedSlots(byobReaderSlots, this), reason);
    }

    read(view, options = undefined) {
      const slots = brandedSlots(byobReaderSlots, this);
      if (slots === null) return rejectedWith(illegalInvocation());
      const prefix = "Failed to execute 'read' on 'ReadableStreamBYOBReader'";
      let parts;
      let min = 1;
      try {
        requiredArguments(arguments.length, 1, prefix);
        parts = toArrayBufferView(view, prefix, "The view");
        if (options !== undefined && options !== null) {
          if (!isObject(options)) throw typeError(`${prefix}: the options are not an object.`);
          const given = options.min;
          if (given !== undefined) min = webidl.toUnsignedLongLong(given, ENFORCE_RANGE, prefix, "min");
        }
      } catch (error) {
        return rejectedWith(error);
      }
      if (parts.byteLength === 0) return rejectedWith(typeError(`${prefix}: the view is empty.`));
      if (ArrayBufferByteLength(parts.buffer) === 0) {
        return rejectedWith(typeError(`${prefix}: the view's buffer is empty (or detached).`));
      }
      if (isDetached(parts.buffer)) {
        return rejectedWith(typeError(`${prefix}: the view's buffer is detached.`));
      }
      if (min === 0) return rejectedWith(typeError(`${prefix}: min must be greater than 0.`));
      if (min > parts.length) {
        return rejectedWith(new RangeErrorCtor(`${prefix}: min is more than the view holds.`));
      }
      if (slots.stream === undefined) return rejectedWith(releasedReader());
      const deferred = newDeferred();
      byobReaderRead(slots, parts, min, {
        chunk: (value) => deferred.resolve({ value, done: false }),
        close: (value) => deferred.resolve({ value, done: true }),
        error: (error) => deferred.reject(error),
      });
      return deferred.promise;
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
  const byobReaderSlots = ReadableStreamBYOBReader.slots;
  delete ReadableStreamBYOBReader.slots;

  function setUpBYOBReader(object, stream) {
    if (stream.reader !== undefined) throw typeError("The ReadableStream is locked to a reader.");
    if (!stream.controller.isByteController) {
      throw typeError("A BYOB reader needs a byte stream (type: 'bytes').");
    }
    const reader = newReaderSlots(object);
    reader.readIntoRequests = [];
    setUpReaderSlots(reader, stream);
    return reader;
  }

  function acquireBYOBReader(stream) {
    return byobReaderSlots(new ReadableStreamBYOBReader(stream.object));
  }

  function byobReaderRead(reader, parts, min, readIntoRequest) {
    const stream = reader.stream;
    stream.disturbed = true;
    if (stream.state === "errored") readIntoRequest.error(stream.storedError);
    else byteControllerPullInto(stream.controller, parts, min, readIntoRequest);
  }

  function hasBYOBReader(stream) {
    return stream.reader !== undefined && stream.reader.readIntoRequests !== undefined;
  }

  function fulfillReadIntoRequest(stream, chunk, done) {
    const request = takeFirst(stream.reader, "readIntoRequests");
    if (done) request.close(chunk);
    else request.chunk(chunk);
  }

  // ---- A byte stream's tee ------------------------------------------------------------------

  function cloneAsUint8Array(view) {
    const parts = viewParts(view);
    const buffer = ArrayBufferSlice(parts.buffer, parts.byteOffset, parts.byteOffset + parts.byteLength);
    return new Uint8ArrayCtor(buffer);
  }

  function readableByteStreamTee(stream) {
    let reader = acquireDefaultReader(stream);
    let reading = false;
    let readAgainForBranch1 = false;
    let readAgainForBranch2 = false;
    let canceled1 = false;
    let canceled2 = false;
    let reason1;
    let reason2;
    let branch1;
    let branch2;
    const cancelPromise = newDeferred();

    function forwardReaderError(thisReader) {
      then(thisReader.closed.promise, undefined, (error) => {
        if (thisReader !== reader) return;
        byteControllerError(branch1.controller, error);
        byteControllerError(branch2.controller, error);
        if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
      });
    }

    function cloneFailed(error) {
      byteControllerError(branch1.controller, error);
      byteControllerError(branch2.controller, error);
      cancelPromise.resolve(readableStreamCancel(stream, error));
    }

    function pullWithDefaultReader() {
      if (reader.readIntoRequests !== undefined) {
        defaultReaderRelease(reader);
        reader = acquireDefaultReader(stream);
        forwardReaderError(reader);
      }
      readerRead(reader, {
        chunk: (chunk) => {
          queueMicrotask(() => {
            readAgainForBranch1 = false;
            readAgainForBranch2 = false;
            const chunk1 = chunk;
            let chunk2 = chunk;
            if (!canceled1 && !canceled2) {
              try {
                chunk2 = cloneAsUint8Array(chunk);
              } catch (error) {
                cloneFailed(error);
                return;
              }
            }
            if (!canceled1) byteControllerEnqueue(branch1.controller, viewParts(chunk1));
            if (!canceled2) byteControllerEnqueue(branch2.controller, viewParts(chunk2));
            reading = false;
            if (readAgainForBranch1) pull1Algorithm();
            else if (readAgainForBranch2) pull2Algorithm();
          });
        },
        close: () => {
          reading = false;
          if (!canceled1) byteControllerClose(branch1.controller);
          if (!canceled2) byteControllerClose(branch2.controller);
          if (branch1.controller.pendingPullIntos.length > 0) byteControllerRespond(branch1.controller, 0);
          if (branch2.controller.pendingPullIntos.length > 0) byteControllerRespond(branch2.controller, 0);
          if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
        },
        error: () => {
          reading = false;
        },
      });
    }

    function pullWithBYOBReader(view, forBranch2) {
      if (reader.readIntoRequests === undefined) {
        defaultReaderRelease(reader);
        reader = acquireBYOBReader(stream);
        forwardReaderError(reader);
      }
      const byobBranch = forBranch2 ? branch2 : branch1;
      const otherBranch = forBranch2 ? branch1 : branch2;
      byobReaderRead(reader, viewParts(view), 1, {
        chunk: (chunk) => {
          queueMicrotask(() => {
            readAgainForBranch1 = false;
            readAgainForBranch2 = false;
            const byobCanceled = forBranch2 ? canceled2 : canceled1;
            const otherCanceled = forBranch2 ? canceled1 : canceled2;
            if (!otherCanceled) {
              let cloned;
              try {
                cloned = cloneAsUint8Array(chunk);
              } catch (error) {
                cloneFailed(error);
                return;
              }
              if (!byobCanceled) byteControllerRespondWithNewView(byobBranch.controller, viewParts(chunk));
              byteControllerEnqueue(otherBranch.controller, viewParts(cloned));
            } else if (!byobCanceled) {
              byteControllerRespondWithNewView(byobBranch.controller, viewParts(chunk));
            }
            reading = false;
            if (readAgainForBranch1) pull1Algorithm();
            else if (readAgainForBranch2) pull2Algorithm();
          });
        },
        close: (chunk) => {
          reading = false;
          const byobCanceled = forBranch2 ? canceled2 : canceled1;
          const otherCanceled = forBranch2 ? canceled1 : canceled2;
          if (!byobCanceled) byteControllerClose(byobBranch.controller);
          if (!otherCanceled) byteControllerClose(otherBranch.controller);
          if (chunk !== undefined) {
            if (!byobCanceled) byteControllerRespondWithNewView(byobBranch.controller, viewParts(chunk));
            if (!otherCanceled && otherBranch.controller.pendingPullIntos.length > 0) {
              byteControllerRespond(otherBranch.controller, 0);
            }
          }
          if (!byobCanceled || !otherCanceled) cancelPromise.resolve(undefined);
        },
        error: () => {
          reading = false;
        },
      });
    }

    function pull1Algorithm() {
      if (reading) {
        readAgainForBranch1 = true;
        return resolvedWith(undefined);
      }
      reading = true;
      const request = byteControllerGetBYOBRequest(branch1.controller);
      if (request === null) pullWithDefaultReader();
      else pullWithBYOBReader(request.view, false);
      return resolvedWith(undefined);
    }

    function pull2Algorithm() {
      if (reading) {
        readAgainForBranch2 = true;
        return resolvedWith(undefined);
      }
      reading = true;
      const request = byteControllerGetBYOBRequest(branch2.controller);
      if (request === null) pullWithDefaultReader();
      else pullWithBYOBReader(request.view, true);
      return resolvedWith(undefined);
    }

    function cancel1Algorithm(reason) {
      canceled1 = true;
      reason1 = reason;
      if (canceled2) cancelPromise.resolve(readableStreamCancel(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    function cancel2Algorithm(reason) {
      canceled2 = true;
      reason2 = reason;
      if (canceled1) cancelPromise.resolve(readableStreamCancel(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    branch1 = createByteStream(pull1Algorithm, cancel1Algorithm);
    branch2 = createByteStream(pull2Algorithm, cancel2Algorithm);
    forwardReaderError(reader);
    return [branch1, branch2];
  }

  // ---- Globals ------------------------------------------------------------------------------

  for (const Class of [ReadableByteStreamController, ReadableStreamBYOBReader, ReadableStreamBYOBRequest]) {
    configureInterface(Class);
    defineGlobal(Class.name, Class);
  }

  internals.byteStreams = {
    __proto__: null,
    setUpFromSource,
    acquireBYOBReader,
    tee: readableByteStreamTee,
  };
})
