// Keeps state in its runtime: one count per worker, started again when the runtime is
// replaced. A request that waits too long (/wait) is answered 504 and its timer cancelled.
let count = 0;
export default async function handle(request) {
  if (request.path === "/wait") await new Promise((resolve) => setTimeout(resolve, 3600e3));
  count += 1;
  return { status: 200, body: String(count) };
}
