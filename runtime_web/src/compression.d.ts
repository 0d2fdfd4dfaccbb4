// `CompressionStream`, `DecompressionStream` (the Compression Streams standard). The
// interfaces merge with lib.dom's and lib.webworker's; each constructor's variable takes their
// type where one of them is loaded, else its own.
interface CompressionStream {
  readonly readable: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly writable: WritableStream<ArrayBufferView<ArrayBuffer> | ArrayBuffer>;
}
declare var CompressionStream: typeof globalThis extends { onmessage: any; CompressionStream: infer T }
  ? T
  : { prototype: CompressionStream; new (format: "deflate" | "deflate-raw" | "gzip" | "brotli"): CompressionStream };
interface DecompressionStream {
  readonly readable: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly writable: WritableStream<ArrayBufferView<ArrayBuffer> | ArrayBuffer>;
}
declare var DecompressionStream: typeof globalThis extends { onmessage: any; DecompressionStream: infer T }
  ? T
  : { prototype: DecompressionStream; new (format: "deflate" | "deflate-raw" | "gzip" | "brotli"): DecompressionStream };
