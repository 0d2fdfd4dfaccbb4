// The edge server's side of a standard fetch handler (WORKLOAD.md, version 3): `bind(module)`
// gives the function each request calls, `serve(method, url, headers, body)`, which makes the
// `Request`, calls the module's `default.fetch(request, env, ctx)` and answers
// `[status, headers, body]` (headers as name, value, name, value...). What it uses is captured
// when the server's snapshot is made, before any tenant code runs; what the handler answers is
// checked again in Rust.
const RequestCtor = Request;
const { apply: ReflectApply } = Reflect;
const PromiseResolve = Promise.resolve.bind(Promise);
const then = (promise, onFulfilled, onRejected) =>
  ReflectApply(Promise.prototype.then, promise, [onFulfilled, onRejected]);
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const ResponseStatus = getter(Response.prototype, "status");
const ResponseHeaders = getter(Response.prototype, "headers");
const ResponseArrayBuffer = Response.prototype.arrayBuffer;
const HeadersForEach = Headers.prototype.forEach;
const Uint8ArrayCtor = Uint8Array;
const TypeErrorCtor = TypeError;
const reportError = globalThis.reportError;

function answer(response) {
  let status;
  try {
    status = ReflectApply(ResponseStatus, response, []);
  } catch {
    throw new TypeErrorCtor("the handler's fetch did not resolve to a Response");
  }
  const flat = [];
  ReflectApply(HeadersForEach, ReflectApply(ResponseHeaders, response, []), [
    (value, name) => {
      flat[flat.length] = name;
      flat[flat.length] = value;
    },
  ]);
  return then(ReflectApply(ResponseArrayBuffer, response, []), (buffer) => [
    status,
    flat,
    new Uint8ArrayCtor(buffer),
  ]);
}

export function bind(module) {
  const handler = module.default;
  const fetch = handler === null || handler === undefined ? undefined : handler.fetch;
  if (typeof fetch !== "function") {
    throw new TypeErrorCtor("the module's default export has no fetch(request, env, ctx)");
  }
  const env = {};
  return function serve(method, url, headers, body) {
    const pairs = [];
    for (let i = 0; i < headers.length; i += 2) pairs[pairs.length] = [headers[i], headers[i + 1]];
    const init = { method, headers: pairs, body };
    const request = new RequestCtor(url, init);
    // Work the handler hands over outlives its response; its failure is reported.
    const ctx = {
      waitUntil(promise) {
        then(PromiseResolve(promise), undefined, (error) => reportError(error));
      },
      passThroughOnException() {},
    };
    return then(PromiseResolve(ReflectApply(fetch, handler, [request, env, ctx])), answer);
  };
}
