// Reaches for another tenant's files.
export async function handle(event) {
  if (event.attack) {
    const other = await import("../greeter/config.json", { with: { type: "json" } });
    return JSON.stringify(other.default);
  }
  return `escaper serves ${event.name}`;
}
