// `URL`, `URLSearchParams`. Interfaces merge with lib.dom's and lib.webworker's; each
// constructor's variable takes their type where one of them is loaded (the global scope then
// has `onmessage`), else its own: the two never conflict.
interface URL {
  hash: string;
  host: string;
  hostname: string;
  href: string;
  toString(): string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toJSON(): string;
}
interface OpwireURLConstructor {
  prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
  canParse(url: string | URL, base?: string | URL): boolean;
  parse(url: string | URL, base?: string | URL): URL | null;
}
declare var URL: typeof globalThis extends { onmessage: any; URL: infer T }
  ? T
  : OpwireURLConstructor;

interface URLSearchParams {
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(
    callbackfn: (value: string, key: string, parent: URLSearchParams) => void,
    thisArg?: any,
  ): void;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
}
interface OpwireURLSearchParamsConstructor {
  prototype: URLSearchParams;
  new (
    init?: string[][] | Record<string, string> | string | URLSearchParams,
  ): URLSearchParams;
}
declare var URLSearchParams: typeof globalThis extends {
  onmessage: any;
  URLSearchParams: infer T;
}
  ? T
  : OpwireURLSearchParamsConstructor;
