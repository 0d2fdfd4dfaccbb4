// A standard fetch handler that misbehaves on some routes (the server's tests).
export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    if (path === "/not-a-response") return { status: 200, body: "hi" };
    if (path === "/throw") throw new Error("the handler failed");
    if (path === "/loop") for (;;) {}
    if (path === "/stream") {
      // A body the handler streams, in two chunks.
      const encoder = new TextEncoder();
      return new Response(ReadableStream.from([encoder.encode("stre"), encoder.encode("amed")]));
    }
    if (path === "/wait-until") {
      ctx.waitUntil(Promise.reject(new Error("background work failed")));
      return new Response("answered", { headers: [["set-cookie", "a=1"], ["set-cookie", "b=2"]] });
    }
    if (path === "/patched") {
      // Patching the globals after start-up does not reach the server's glue.
      Response.prototype.arrayBuffer = () => Promise.resolve(new ArrayBuffer(1));
      Object.defineProperty(Response.prototype, "status", { get: () => 999 });
      return new Response("still mine", { status: 202 });
    }
    if (path === "/false-length") {
      // A length that, sent as given, would make the rest of the body the next response.
      return new Response("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nforged", {
        headers: { "content-length": "0", "transfer-encoding": "chunked" },
      });
    }
    if (path === "/then") {
      // The answer resolves a promise: a `then` on every array presents another.
      Array.prototype.then = function (resolve) {
        delete Array.prototype.then;
        resolve([101, "upgrade\nwebsocket", null]);
      };
      await null;
      return new Response("switched?");
    }
    return new Response(`${request.method} ${request.headers.get("x-a")} ${await request.text()}`);
  },
};
