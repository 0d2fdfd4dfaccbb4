// `Headers` (the Fetch standard). The interface merges with lib.dom's and lib.webworker's;
// the constructor's variable takes their type where one of them is loaded, else its own.
interface Headers {
  append(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  getSetCookie(): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  forEach(callbackfn: (value: string, key: string, parent: Headers) => void, thisArg?: any): void;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
}
interface OpwireHeadersConstructor {
  prototype: Headers;
  new (init?: [string, string][] | Record<string, string> | Headers): Headers;
}
declare var Headers: typeof globalThis extends { onmessage: any; Headers: infer T }
  ? T
  : OpwireHeadersConstructor;
