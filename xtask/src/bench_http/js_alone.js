// `cargo xtask bench-http --js-alone`: the workload's handler with no op layer. Each op is a
// plain JavaScript function returning what the real op returns for this route's requests,
// but for the three that reach outside the isolate: op_req_body (the request's bytes),
// op_res_send (the hand-off to hyper) and op_kv_get (the 5 ms store). The server's CPU per
// request with this module is then what running handler.js costs on its own: the floor of
// any op layer, and the JS server's excess over it is the op layer's share.
const real = globalThis.ops;
let count = 0;

globalThis.Deno = {
  core: {
    ops: {
      op_req_method: (_rid) => "__METHOD__",
      op_req_path: (_rid) => "__PATH__",
      // A fresh array of fresh pairs, as the real op returns (a literal: the cheapest way).
      op_req_headers: (_rid) => __HEADERS__,
      op_req_body: real.op_req_body,
      op_req_count: async () => ++count,
      op_res_set_header: (_rid, _name, _value) => {},
      op_res_send: real.op_res_send,
      op_kv_get: real.op_kv_get,
    },
  },
};
