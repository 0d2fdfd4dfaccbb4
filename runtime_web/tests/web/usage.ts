const u = new URL("https://a/b?c=1");
const h: string = u.host;
const p: URL | null = URL.parse("x");
const ok: boolean = URL.canParse("x", "https://a/");
const v: string | null = u.searchParams.get("c");
for (const [k, val] of new URLSearchParams("a=1")) { const s: string = k + val; }
const bytes = new TextEncoder().encode("x");
const r = new TextEncoder().encodeInto("x", bytes); const n: number = r.read + r.written;
const t: string = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
const b: string = btoa(atob("YQ=="));
const c: { a: number } = structuredClone({ a: 1 }, { transfer: [new ArrayBuffer(1)] });
const id: string = crypto.randomUUID();
const arr: Uint32Array = crypto.getRandomValues(new Uint32Array(4));
const d: Promise<ArrayBuffer> = crypto.subtle.digest("SHA-256", bytes);
const now: number = performance.now() + performance.timeOrigin;
const target = new EventTarget();
target.addEventListener("x", (event: Event) => { const t: string = event.type; }, { once: true, signal: AbortSignal.timeout(10) });
const custom = new CustomEvent<{ n: number }>("c", { detail: { n: 1 } });
const detail: number = custom.detail.n;
const dispatched: boolean = target.dispatchEvent(custom);
const errorEvent = new ErrorEvent("error", { message: "m", error: new Error("e") });
const line: number = errorEvent.lineno;
reportError(new DOMException("gone", "NotFoundError"));
const code: number = new DOMException("x").code;
const controller = new AbortController();
controller.signal.onabort = () => {};
controller.abort("why");
const anySignal: AbortSignal = AbortSignal.any([controller.signal, AbortSignal.abort()]);
anySignal.throwIfAborted();
const blob = new Blob(["a", new Uint8Array(1)], { type: "text/plain" });
const file = new File([blob], "a.txt", { lastModified: 1 });
const name: string = file.name;
const text: Promise<string> = blob.slice(0, 1).text();
const buffer: Promise<ArrayBuffer> = file.arrayBuffer();
const quota: number | null = new QuotaExceededError("full", { quota: 1, requested: 2 }).quota;
export {};
{
  const headers = new Headers({ "Content-Type": "text/plain" });
  headers.append("set-cookie", "a=1");
  const copy = new Headers(headers);
  const pairs = new Headers([["x", "1"]]);
  const type: string | null = headers.get("content-type");
  const cookies: string[] = copy.getSetCookie();
  for (const [name, value] of pairs) { const s: string = name + value + type + cookies.length; }
  headers.forEach((value, name) => { const s: string = value + name; });
}
async function streamsUsage(): Promise<string[]> {
  const out: string[] = [];
  const source = new ReadableStream<string>({
    start(controller) {
      controller.enqueue("a");
      controller.close();
    },
  });
  const upper = new TransformStream<string, string>({
    transform(chunk, controller) {
      controller.enqueue(chunk.toUpperCase());
    },
  });
  const reader = source.pipeThrough(upper).getReader();
  const step = await reader.read();
  if (!step.done) out.push(step.value);
  const sink = new WritableStream<number>({ write(n) { out.push(String(n)); } }, new CountQueuingStrategy({ highWaterMark: 2 }));
  // (Not `ReadableStream.from`: TypeScript's lib.dom does not declare it, and under lib.dom
  // the constructor's type is lib.dom's.)
  const numbers = new ReadableStream<number>({ pull(controller) { controller.enqueue(1); controller.close(); } });
  await numbers.pipeTo(sink, { signal: new AbortController().signal });
  const bytes = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
  out.push(String(bytes.highWaterMark));
  return out;
}
void streamsUsage;
async function fetchTypesUsage(): Promise<string> {
  const request = new Request("https://example.com/a", { method: "POST", body: "hi", headers: { "x-a": "1" } });
  const response = new Response(await request.text(), { status: 201, headers: [["content-type", "text/plain"]] });
  const json = Response.json({ ok: true });
  const copy = response.clone();
  const bytes: Uint8Array = await copy.bytes();
  return `${request.method} ${request.url} ${response.status} ${response.ok} ${await json.text()} ${bytes.length} ${Response.error().type}`;
}
void fetchTypesUsage;
async function textStreamsUsage(): Promise<string> {
  const encoded = new Blob(["hé"]).stream().pipeThrough(new TextDecoderStream("utf-8", { fatal: true }));
  const reader = encoded.pipeThrough(new TextEncoderStream()).getReader();
  const first = await reader.read();
  return first.done ? "" : String(first.value.length);
}
void textStreamsUsage;
async function compressionUsage(): Promise<number> {
  const gzipped = new Blob(["hello"]).stream().pipeThrough(new CompressionStream("gzip"));
  const back = gzipped.pipeThrough(new DecompressionStream("gzip"));
  const bytes: Uint8Array = await new Response(back).bytes();
  return bytes.length;
}
void compressionUsage;
async function byteStreamUsage(): Promise<number> {
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest;
      if (request !== null && request.view !== null) request.respond(0);
      else controller.enqueue(new Uint8Array([1]));
    },
  });
  const reader = stream.getReader({ mode: "byob" });
  const { value } = await reader.read(new Uint8Array(4), { min: 1 });
  return value === undefined ? 0 : value.byteLength;
}
void byteStreamUsage;
async function formDataUsage(): Promise<number> {
  const form = new FormData();
  form.append("name", "value");
  form.append("file", new Blob(["x"]), "x.txt");
  const back = await new Response(form).formData();
  return back.getAll("name").length;
}
void formDataUsage;
