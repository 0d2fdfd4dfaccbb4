// `FormData`. The interface merges with lib.dom's and lib.webworker's (their
// `FormDataEntryValue` alias written out: an alias cannot be declared twice); the
// constructor's variable takes their type where one of them is loaded, else its own.
interface FormData {
  append(name: string, value: string | Blob): void;
  append(name: string, blobValue: Blob, filename?: string): void;
  delete(name: string): void;
  get(name: string): File | string | null;
  getAll(name: string): (File | string)[];
  has(name: string): boolean;
  set(name: string, value: string | Blob): void;
  set(name: string, blobValue: Blob, filename?: string): void;
  forEach(callbackfn: (value: File | string, key: string, parent: FormData) => void, thisArg?: any): void;
  [Symbol.iterator](): IterableIterator<[string, File | string]>;
  entries(): IterableIterator<[string, File | string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<File | string>;
}
declare var FormData: typeof globalThis extends { onmessage: any; FormData: infer T }
  ? T
  : { prototype: FormData; new (): FormData };
