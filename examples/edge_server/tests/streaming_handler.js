// A standard fetch handler whose bodies stream both ways (the server's streaming tests).
const encoder = new TextEncoder();
const state = { pulls: 0, cancelled: 0, release: null };
const text = (body) => new Response(String(body));

export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/held") {
      // Its first chunk now, its last once /release is asked for.
      let step = 0;
      return new Response(
        new ReadableStream({
          pull(controller) {
            if (step++ === 0) return controller.enqueue(encoder.encode("first "));
            return new Promise((resolve) => {
              state.release = () => {
                controller.enqueue(encoder.encode("last"));
                controller.close();
                resolve();
              };
            });
          },
        }),
      );
    }
    if (path === "/answer-later") {
      // A stream answered once the request's body is done, which its client holds past the
      // request's deadline.
      try {
        await request.text();
      } catch {}
      return new Response(
        new ReadableStream({
          pull(controller) {
            state.pulls++;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
          cancel() {
            state.cancelled++;
          },
        }),
      );
    }
    if (path === "/read-held") {
      // Reads its whole body, which its client sends part of and then holds.
      try {
        await request.arrayBuffer();
      } catch {
        state.cancelled++;
      }
      return text("read");
    }
    if (path === "/release") {
      const release = state.release;
      state.release = null;
      if (release) release();
      return text(release ? "released" : "nothing held");
    }
    if (path === "/endless") {
      // A chunk of 64 KiB each pull, for ever; counted, and its cancel too.
      const chunk = new Uint8Array(64 * 1024).fill(120);
      return new Response(
        new ReadableStream({
          pull(controller) {
            state.pulls++;
            controller.enqueue(chunk.slice());
          },
          cancel() {
            state.cancelled++;
          },
        }),
      );
    }
    if (path === "/trickle") {
      // A chunk every 10 ms, for ever.
      return new Response(
        new ReadableStream({
          pull(controller) {
            return new Promise((resolve) =>
              setTimeout(() => resolve(controller.enqueue(encoder.encode("."))), 10),
            );
          },
          cancel() {
            state.cancelled++;
          },
        }),
      );
    }
    if (path === "/bad-chunk") {
      return new Response(ReadableStream.from([encoder.encode("ok "), "not bytes"]));
    }
    if (path === "/counts") return text(`${state.pulls} ${state.cancelled}`);
    if (path === "/first-chunk") {
      // Answers from the body's first chunk, whatever follows.
      const reader = request.body.getReader();
      const { value } = await reader.read();
      reader.cancel();
      return new Response(value);
    }
    if (path === "/chunks") {
      // The body read as a stream: how many bytes.
      let total = 0;
      for await (const chunk of request.body) total += chunk.length;
      return text(total);
    }
    if (path === "/text") return text(await request.text());
    if (path === "/clone") {
      const copy = request.clone();
      return text(`${await request.text()}|${await copy.text()}`);
    }
    return new Response(request.body);
  },
};
