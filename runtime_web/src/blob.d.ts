// `Blob`, `File` (W3C File API). Merges with lib.dom and lib.webworker: the interfaces merge,
// and each `declare var` has exactly their type (their `BlobPart` and `EndingType` aliases
// written out, since an alias cannot be declared twice). `Blob.stream()` is declared with the
// streams group (`blob_stream.d.ts`).
interface BlobPropertyBag {
  endings?: "native" | "transparent";
  type?: string;
}
interface FilePropertyBag extends BlobPropertyBag {
  lastModified?: number;
}
interface Blob {
  readonly size: number;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  slice(start?: number, end?: number, contentType?: string): Blob;
  text(): Promise<string>;
}
declare var Blob: {
  prototype: Blob;
  new (
    blobParts?: (ArrayBufferView<ArrayBuffer> | ArrayBuffer | Blob | string)[],
    options?: BlobPropertyBag,
  ): Blob;
};
interface File extends Blob {
  readonly lastModified: number;
  readonly name: string;
  readonly webkitRelativePath: string;
}
declare var File: {
  prototype: File;
  new (
    fileBits: (ArrayBufferView<ArrayBuffer> | ArrayBuffer | Blob | string)[],
    fileName: string,
    options?: FilePropertyBag,
  ): File;
};
