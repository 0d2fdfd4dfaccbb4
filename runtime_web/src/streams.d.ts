// Streams (the WHATWG Streams standard). The interfaces merge with lib.dom's and
// lib.webworker's; each constructor's variable takes their type where one of them is loaded,
// else its own. Byte streams are declared in byte_streams.d.ts.
interface QueuingStrategySize<T = any> {
  (chunk: T): number;
}
interface QueuingStrategy<T = any> {
  highWaterMark?: number;
  size?: QueuingStrategySize<T>;
}
interface QueuingStrategyInit {
  highWaterMark: number;
}
interface ReadableStreamReadDoneResult<T> {
  done: true;
  value: T | undefined;
}
interface ReadableStreamReadValueResult<T> {
  done: false;
  value: T;
}
interface ReadableStreamDefaultController<R = any> {
  readonly desiredSize: number | null;
  close(): void;
  enqueue(chunk?: R): void;
  error(e?: any): void;
}
interface ReadableStreamDefaultReader<R = any> {
  readonly closed: Promise<void>;
  cancel(reason?: any): Promise<void>;
  read(): Promise<ReadableStreamReadDoneResult<R> | ReadableStreamReadValueResult<R>>;
  releaseLock(): void;
}
interface UnderlyingDefaultSource<R = any> {
  cancel?: (reason?: any) => void | PromiseLike<void>;
  pull?: (controller: ReadableStreamDefaultController<R>) => void | PromiseLike<void>;
  start?: (controller: ReadableStreamDefaultController<R>) => any;
  type?: undefined;
}
interface StreamPipeOptions {
  preventAbort?: boolean;
  preventCancel?: boolean;
  preventClose?: boolean;
  signal?: AbortSignal;
}
interface ReadableWritablePair<R = any, W = any> {
  readable: ReadableStream<R>;
  writable: WritableStream<W>;
}
interface ReadableStream<R = any> {
  readonly locked: boolean;
  cancel(reason?: any): Promise<void>;
  getReader(): ReadableStreamDefaultReader<R>;
  pipeThrough<T>(transform: ReadableWritablePair<T, R>, options?: StreamPipeOptions): ReadableStream<T>;
  pipeTo(destination: WritableStream<R>, options?: StreamPipeOptions): Promise<void>;
  tee(): [ReadableStream<R>, ReadableStream<R>];
  values(options?: { preventCancel?: boolean }): AsyncIterableIterator<R>;
  [Symbol.asyncIterator](options?: { preventCancel?: boolean }): AsyncIterableIterator<R>;
}
interface OpwireReadableStreamConstructor {
  prototype: ReadableStream;
  new <R = any>(underlyingSource?: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>): ReadableStream<R>;
  from<R>(asyncIterable: AsyncIterable<R> | Iterable<R | PromiseLike<R>>): ReadableStream<R>;
}
declare var ReadableStream: typeof globalThis extends { onmessage: any; ReadableStream: infer T }
  ? T
  : OpwireReadableStreamConstructor;
declare var ReadableStreamDefaultReader: typeof globalThis extends {
  onmessage: any;
  ReadableStreamDefaultReader: infer T;
}
  ? T
  : { prototype: ReadableStreamDefaultReader; new <R = any>(stream: ReadableStream<R>): ReadableStreamDefaultReader<R> };
declare var ReadableStreamDefaultController: typeof globalThis extends {
  onmessage: any;
  ReadableStreamDefaultController: infer T;
}
  ? T
  : { prototype: ReadableStreamDefaultController; new (): ReadableStreamDefaultController };

interface WritableStreamDefaultController {
  readonly signal: AbortSignal;
  error(e?: any): void;
}
interface WritableStreamDefaultWriter<W = any> {
  readonly closed: Promise<void>;
  readonly desiredSize: number | null;
  readonly ready: Promise<void>;
  abort(reason?: any): Promise<void>;
  close(): Promise<void>;
  releaseLock(): void;
  write(chunk?: W): Promise<void>;
}
interface UnderlyingSink<W = any> {
  abort?: (reason?: any) => void | PromiseLike<void>;
  close?: () => void | PromiseLike<void>;
  start?: (controller: WritableStreamDefaultController) => any;
  type?: undefined;
  write?: (chunk: W, controller: WritableStreamDefaultController) => void | PromiseLike<void>;
}
interface WritableStream<W = any> {
  readonly locked: boolean;
  abort(reason?: any): Promise<void>;
  close(): Promise<void>;
  getWriter(): WritableStreamDefaultWriter<W>;
}
declare var WritableStream: typeof globalThis extends { onmessage: any; WritableStream: infer T }
  ? T
  : { prototype: WritableStream; new <W = any>(underlyingSink?: UnderlyingSink<W>, strategy?: QueuingStrategy<W>): WritableStream<W> };
declare var WritableStreamDefaultWriter: typeof globalThis extends {
  onmessage: any;
  WritableStreamDefaultWriter: infer T;
}
  ? T
  : { prototype: WritableStreamDefaultWriter; new <W = any>(stream: WritableStream<W>): WritableStreamDefaultWriter<W> };
declare var WritableStreamDefaultController: typeof globalThis extends {
  onmessage: any;
  WritableStreamDefaultController: infer T;
}
  ? T
  : { prototype: WritableStreamDefaultController; new (): WritableStreamDefaultController };

interface TransformStreamDefaultController<O = any> {
  readonly desiredSize: number | null;
  enqueue(chunk?: O): void;
  error(reason?: any): void;
  terminate(): void;
}
interface Transformer<I = any, O = any> {
  flush?: (controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
  cancel?: (reason: any) => void | PromiseLike<void>;
  readableType?: undefined;
  start?: (controller: TransformStreamDefaultController<O>) => any;
  transform?: (chunk: I, controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
  writableType?: undefined;
}
interface TransformStream<I = any, O = any> {
  readonly readable: ReadableStream<O>;
  readonly writable: WritableStream<I>;
}
declare var TransformStream: typeof globalThis extends { onmessage: any; TransformStream: infer T }
  ? T
  : {
      prototype: TransformStream;
      new <I = any, O = any>(
        transformer?: Transformer<I, O>,
        writableStrategy?: QueuingStrategy<I>,
        readableStrategy?: QueuingStrategy<O>,
      ): TransformStream<I, O>;
    };
declare var TransformStreamDefaultController: typeof globalThis extends {
  onmessage: any;
  TransformStreamDefaultController: infer T;
}
  ? T
  : { prototype: TransformStreamDefaultController; new (): TransformStreamDefaultController };

interface ByteLengthQueuingStrategy extends QueuingStrategy<ArrayBufferView> {
  readonly highWaterMark: number;
  readonly size: QueuingStrategySize<ArrayBufferView>;
}
declare var ByteLengthQueuingStrategy: typeof globalThis extends {
  onmessage: any;
  ByteLengthQueuingStrategy: infer T;
}
  ? T
  : { prototype: ByteLengthQueuingStrategy; new (init: QueuingStrategyInit): ByteLengthQueuingStrategy };
interface CountQueuingStrategy extends QueuingStrategy {
  readonly highWaterMark: number;
  readonly size: QueuingStrategySize;
}
declare var CountQueuingStrategy: typeof globalThis extends {
  onmessage: any;
  CountQueuingStrategy: infer T;
}
  ? T
  : { prototype: CountQueuingStrategy; new (init: QueuingStrategyInit): CountQueuingStrategy };
