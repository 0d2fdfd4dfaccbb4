// The workload's handler, plus routes that misbehave as a tenant's code might.
import { handle as workload } from "../handler.js";

const { op_req_path, op_res_set_header, op_res_send } = globalThis.ops;

export async function handle(req) {
  switch (op_req_path(req)) {
    case "/throw":
      throw new TypeError("a tenant's bug");
    case "/loop":
      for (;;) {}
    case "/hang":
      await new Promise((resolve) => setTimeout(resolve, 1e9));
      return;
    case "/wait":
      // In flight until `/open` comes (or ten seconds pass): answered only if the server
      // starts other requests meanwhile.
      await new Promise((resolve) => {
        globalThis.open = resolve;
        setTimeout(resolve, 10_000);
      });
      op_res_set_header(req, "content-type", "text/plain");
      op_res_send(req, 200, new Uint8Array([119, 97, 105, 116, 101, 100])); // "waited"
      return;
    case "/open":
      globalThis.open?.();
      op_res_set_header(req, "content-type", "text/plain");
      op_res_send(req, 200, new Uint8Array([111, 112, 101, 110])); // "open"
      return;
    case "/slow":
      await new Promise((resolve) => setTimeout(resolve, 150));
      op_res_set_header(req, "content-type", "text/plain");
      op_res_send(req, 200, new Uint8Array([115, 108, 111, 119])); // "slow"
      return;
    case "/nosend":
      return;
    case "/twice":
      op_res_set_header(req, "content-type", "text/plain");
      op_res_send(req, 200, new Uint8Array([111, 107]));
      op_res_send(req, 200, new Uint8Array([111, 107]));
      return;
    default:
      return workload(req);
  }
}
