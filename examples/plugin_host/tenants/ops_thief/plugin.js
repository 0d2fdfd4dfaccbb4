// Reaches for the raw ops the host hid.
export async function handle(event) {
  if (event.attack) {
    const ops = await import("ext:core/ops");
    return Object.keys(ops).join();
  }
  return `ops_thief serves ${event.name}`;
}
