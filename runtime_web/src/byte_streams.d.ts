// Byte streams (the WHATWG Streams standard): a `ReadableStream` of `type: "bytes"`, its
// controller, BYOB readers and requests. The interfaces merge with lib.dom's and
// lib.webworker's; each constructor's variable takes their type where one of them is loaded,
// else its own.
interface ReadableStreamBYOBRequest {
  readonly view: ArrayBufferView<ArrayBuffer> | null;
  respond(bytesWritten: number): void;
  respondWithNewView(view: ArrayBufferView<ArrayBuffer>): void;
}
interface ReadableByteStreamController {
  readonly byobRequest: ReadableStreamBYOBRequest | null;
  readonly desiredSize: number | null;
  close(): void;
  enqueue(chunk: ArrayBufferView<ArrayBuffer>): void;
  error(e?: any): void;
}
interface ReadableStreamBYOBReaderReadOptions {
  min?: number;
}
interface ReadableStreamBYOBReader {
  readonly closed: Promise<void>;
  cancel(reason?: any): Promise<void>;
  read<T extends ArrayBufferView<ArrayBufferLike>>(
    view: T,
    options?: ReadableStreamBYOBReaderReadOptions,
  ): Promise<ReadableStreamReadDoneResult<T> | ReadableStreamReadValueResult<T>>;
  releaseLock(): void;
}
interface UnderlyingByteSource {
  autoAllocateChunkSize?: number;
  cancel?: (reason?: any) => void | PromiseLike<void>;
  pull?: (controller: ReadableByteStreamController) => void | PromiseLike<void>;
  start?: (controller: ReadableByteStreamController) => any;
  type: "bytes";
}
interface ReadableStream<R = any> {
  getReader(options: { mode: "byob" }): ReadableStreamBYOBReader;
}
interface OpwireReadableStreamConstructor {
  new (
    underlyingSource: UnderlyingByteSource,
    strategy?: { highWaterMark?: number },
  ): ReadableStream<Uint8Array<ArrayBuffer>>;
}
declare var ReadableByteStreamController: typeof globalThis extends {
  onmessage: any;
  ReadableByteStreamController: infer T;
}
  ? T
  : { prototype: ReadableByteStreamController; new (): ReadableByteStreamController };
declare var ReadableStreamBYOBReader: typeof globalThis extends {
  onmessage: any;
  ReadableStreamBYOBReader: infer T;
}
  ? T
  : { prototype: ReadableStreamBYOBReader; new (stream: ReadableStream<Uint8Array<ArrayBuffer>>): ReadableStreamBYOBReader };
declare var ReadableStreamBYOBRequest: typeof globalThis extends {
  onmessage: any;
  ReadableStreamBYOBRequest: infer T;
}
  ? T
  : { prototype: ReadableStreamBYOBRequest; new (): ReadableStreamBYOBRequest };
