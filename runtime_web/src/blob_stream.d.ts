// `Blob.stream()`, where both the files and the streams groups are given.
interface Blob {
  stream(): ReadableStream<Uint8Array<ArrayBuffer>>;
}
