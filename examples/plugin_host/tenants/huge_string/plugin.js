// One huge string, built by a builtin that checks for no interrupt while it runs.
export function handle(event) {
  if (event.attack) return JSON.stringify("x".repeat(2 ** 26)).length;
  return `huge_string serves ${event.name}`;
}
