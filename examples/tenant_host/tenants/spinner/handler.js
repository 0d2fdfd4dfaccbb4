// Spins on /spin: the entry limit stops it, and its runtime is replaced.
export default function handle(request) {
  if (request.path === "/spin") for (;;) {}
  return { status: 200, body: "spinner serves" };
}
