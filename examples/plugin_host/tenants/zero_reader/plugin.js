// Reads a device without end.
export async function handle(event) {
  if (event.attack) {
    const zero = await import("/dev/zero", { with: { type: "bytes" } });
    return zero.default.length;
  }
  return `zero_reader serves ${event.name}`;
}
