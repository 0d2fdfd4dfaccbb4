// The web platform's microbenchmarks, run as they are by `cargo xtask bench-web` in an opwire
// runtime with runtime_web and in deno: each case is timed in the engine itself (calibrated
// to a minimum run, best of several rounds), so both sides pay the same harness.
"use strict";

const ascii = (n) => "abcdefghijklmnopqrstuvwxyz012345".repeat(Math.ceil(n / 32)).slice(0, n);
// Two- and three-byte UTF-8 characters: "é" and "€".
const nonAscii = (n) => "é€abc".repeat(Math.ceil(n / 5)).slice(0, n);
const KB = 1024;
const MB = 1024 * 1024;

function encodeCases() {
  const cases = {};
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  for (const [label, size] of [["16B", 16], ["1KB", KB], ["1MB", MB]]) {
    for (const [kind, make] of [["ascii", ascii], ["utf8", nonAscii]]) {
      const text = make(size);
      const bytes = encoder.encode(text);
      cases[`encode_${kind}_${label}`] = () => encoder.encode(text);
      cases[`decode_${kind}_${label}`] = () => decoder.decode(bytes);
    }
  }
  const into = new Uint8Array(4 * KB);
  const text = nonAscii(KB);
  cases.encode_into_utf8_1KB = () => encoder.encodeInto(text, into);
  return cases;
}

function makeCases() {
  const shortUrl = "https://example.com/path";
  const longUrl =
    "https://user:secret@sub.domain.example.co.uk:8443/a/very/long/path/with/segments/" +
    "index.html?query=value&other=thing&utm_source=newsletter&utm_medium=email#section-2";
  const parsed = new URL("https://example.com/search?q=opwire&page=2&sort=desc");
  const distinct = Array.from({ length: 512 }, (_, i) => `https://example.com/path/${i}`);
  let nextDistinct = 0;
  const binary = String.fromCharCode(...new Uint8Array(KB).map((_, i) => i & 0xff));
  const encoded = btoa(binary);
  const small = { id: 7, name: "opwire", tags: ["a", "b"], nested: { ok: true } };
  const target = new EventTarget();
  let seen = 0;
  target.addEventListener("ping", () => seen++);
  return {
    url_parse_short: () => new URL(shortUrl),
    url_parse_long: () => new URL(longUrl),
    // 512 inputs in turn: more than a runtime remembers, so every one is parsed.
    url_parse_short_512_distinct: () => new URL(distinct[(nextDistinct = (nextDistinct + 1) & 511)]),
    url_search_params_get: () => parsed.searchParams.get("page"),
    ...encodeCases(),
    atob_1KB: () => atob(encoded),
    btoa_1KB: () => btoa(binary),
    structured_clone_small: () => structuredClone(small),
    random_uuid: () => crypto.randomUUID(),
    dispatch_event_1_listener: () => target.dispatchEvent(new Event("ping")),
    abort_controller_abort: () => new AbortController().abort(),
    ...headersCases(),
    ...bodyCases(),
  };
}

function headersCases() {
  const init = {};
  for (let i = 0; i < 10; i++) init[`x-header-${i}`] = `value number ${i}`;
  const headers = new Headers(init);
  return {
    headers_new_10: () => new Headers(init),
    response_new_hello: () => new Response("hello"),
    response_json_small: () => Response.json({ ok: true, n: 1 }),
    request_new_10_headers: () => new Request("https://example.com/a", { method: "POST", headers: init }),
    headers_get: () => headers.get("X-Header-7"),
    headers_iterate_10: () => {
      let n = 0;
      for (const _ of headers) n++;
      return n;
    },
  };
}

// Bodies read whole and a stream read chunk by chunk: each call awaited (its promise's turns
// are part of its cost, as a handler pays them).
function bodyCases() {
  const bytes = new Uint8Array(KB).fill(97);
  const items = [];
  for (let i = 0; i < 24; i++) items.push({ id: i, name: `item-${i}`, ok: true });
  const json = JSON.stringify({ items }); // about 1 KB
  const megabyte = new Uint8Array(MB);
  const chunk = 64 * KB;
  return {
    response_array_buffer_1KB: async () => await new Response(bytes).arrayBuffer(),
    request_json_1KB: async () =>
      await new Request("https://example.com/", { method: "POST", body: json }).json(),
    stream_read_1MB_in_64KB_chunks: async () => {
      let offset = 0;
      const stream = new ReadableStream({
        pull(controller) {
          controller.enqueue(megabyte.subarray(offset, offset + chunk));
          offset += chunk;
          if (offset >= MB) controller.close();
        },
      });
      const reader = stream.getReader();
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return total;
        total += value.length;
      }
    },
  };
}

let sink;
const cases = makeCases();
const isAsync = (name) => cases[name].constructor.name === "AsyncFunction";

// `n` calls of case `name` (the opwire host counts allocations around this); a promise for
// an async case, whose calls are awaited one after another.
function iterate(name, n) {
  const fn = cases[name];
  if (isAsync(name)) {
    return (async () => {
      for (let i = 0; i < n; i++) sink = await fn();
    })();
  }
  for (let i = 0; i < n; i++) sink = fn();
}

// Nanoseconds a call, best of `rounds` runs of at least `minMs` each.
async function measure(name, minMs, rounds) {
  let n = 1;
  for (;;) {
    const start = performance.now();
    await iterate(name, n);
    if (performance.now() - start >= minMs) break;
    n *= 2;
  }
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await iterate(name, n);
    best = Math.min(best, (performance.now() - start) / n);
  }
  return best * 1e6;
}

async function runAll(quick, filter) {
  const out = {};
  for (const name of Object.keys(cases)) {
    if (filter && !name.includes(filter)) continue;
    out[name] = await measure(name, quick ? 20 : 200, quick ? 2 : 5);
  }
  return out;
}

globalThis.__web_bench = { names: Object.keys(cases), iterate, runAll };

if (typeof Deno !== "undefined") {
  const quick = Deno.args.includes("--quick");
  const filterAt = Deno.args.indexOf("--filter");
  runAll(quick, filterAt >= 0 ? Deno.args[filterAt + 1] : "").then((out) =>
    console.log(JSON.stringify(out)),
  );
}
