// `Request`, `Response`, `fetch()` (the Fetch standard). The interfaces merge with lib.dom's
// and lib.webworker's; each constructor's variable takes their type where one of them is
// loaded, else its own. `destination` is not declared (lib.dom's type for it has no name
// outside lib.dom; it is always "" here).
interface Body {
  readonly body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
  readonly bodyUsed: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
  blob(): Promise<Blob>;
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  formData(): Promise<FormData>;
  json(): Promise<any>;
  text(): Promise<string>;
}
interface ResponseInit {
  headers?: [string, string][] | Record<string, string> | Headers;
  status?: number;
  statusText?: string;
}
interface Response extends Body {
  readonly headers: Headers;
  readonly ok: boolean;
  readonly redirected: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly type: "basic" | "cors" | "default" | "error" | "opaque" | "opaqueredirect";
  readonly url: string;
  clone(): Response;
}
type OpwireBodyInit =
  | ReadableStream<Uint8Array<ArrayBuffer>>
  | Blob
  | ArrayBufferView<ArrayBuffer>
  | ArrayBuffer
  | URLSearchParams
  | FormData
  | string;
interface OpwireResponseConstructor {
  prototype: Response;
  new (body?: OpwireBodyInit | null, init?: ResponseInit): Response;
  error(): Response;
  json(data: any, init?: ResponseInit): Response;
  redirect(url: string | URL, status?: number): Response;
}
declare var Response: typeof globalThis extends { onmessage: any; Response: infer T }
  ? T
  : OpwireResponseConstructor;
interface RequestInit {
  // lib.dom's `BodyInit` where it is loaded (the two must be the same type), else ours.
  body?: ConstructorParameters<typeof Response>[0];
  cache?: "default" | "force-cache" | "no-cache" | "no-store" | "only-if-cached" | "reload";
  credentials?: "include" | "omit" | "same-origin";
  headers?: [string, string][] | Record<string, string> | Headers;
  integrity?: string;
  keepalive?: boolean;
  method?: string;
  mode?: "cors" | "navigate" | "no-cors" | "same-origin";
  priority?: "auto" | "high" | "low";
  redirect?: "error" | "follow" | "manual";
  referrer?: string;
  referrerPolicy?: "" | "no-referrer" | "no-referrer-when-downgrade" | "origin" | "origin-when-cross-origin" | "same-origin" | "strict-origin" | "strict-origin-when-cross-origin" | "unsafe-url";
  signal?: AbortSignal | null;
  window?: null;
}
interface Request extends Body {
  readonly cache: "default" | "force-cache" | "no-cache" | "no-store" | "only-if-cached" | "reload";
  readonly credentials: "include" | "omit" | "same-origin";
  readonly headers: Headers;
  readonly integrity: string;
  readonly keepalive: boolean;
  readonly method: string;
  readonly mode: "cors" | "navigate" | "no-cors" | "same-origin";
  readonly redirect: "error" | "follow" | "manual";
  readonly referrer: string;
  readonly referrerPolicy: "" | "no-referrer" | "no-referrer-when-downgrade" | "origin" | "origin-when-cross-origin" | "same-origin" | "strict-origin" | "strict-origin-when-cross-origin" | "unsafe-url";
  readonly signal: AbortSignal;
  readonly url: string;
  clone(): Request;
}
interface OpwireRequestConstructor {
  prototype: Request;
  new (input: Request | string | URL, init?: RequestInit): Request;
}
declare var Request: typeof globalThis extends { onmessage: any; Request: infer T }
  ? T
  : OpwireRequestConstructor;
declare function fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
