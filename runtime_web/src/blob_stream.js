// `Blob.prototype.stream()`, installed once both the files and the streams groups are: a
// stream of the blob's bytes in chunks of 64 KiB, each a fresh copy (a reader may transfer
// one's buffer).
(function (internalOps, internals) {
  "use strict";
  const { blobBytes, streams, uncurryThis } = internals;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const TypedArraySlice = uncurryThis(TypedArrayPrototype.slice);
  const TypedArrayLength = uncurryThis(
    Object.getOwnPropertyDescriptor(TypedArrayPrototype, "length").get,
  );
  const PromiseResolve = Promise.resolve.bind(Promise);
  const CHUNK = 64 * 1024;

  const { stream } = {
    stream() {
      const bytes = blobBytes(this);
      const length = TypedArrayLength(bytes);
      let offset = 0;
      const readable = streams.create(
        () => {
          if (offset >= length) {
            streams.close(readable);
          } else if (offset === 0 && length <= CHUNK) {
            offset = length;
            streams.enqueue(readable, bytes);
          } else {
            const end = offset + CHUNK < length ? offset + CHUNK : length;
            streams.enqueue(readable, TypedArraySlice(bytes, offset, end));
            offset = end;
          }
          return PromiseResolve(undefined);
        },
        () => {
          offset = length;
          return PromiseResolve(undefined);
        },
        0,
      );
      return readable;
    },
  };
  Object.defineProperty(internals.Blob.prototype, "stream", {
    __proto__: null,
    value: stream,
    writable: true,
    enumerable: true,
    configurable: true,
  });
})
