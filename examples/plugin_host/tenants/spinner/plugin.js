// Spins: only the deadline stops it.
export function handle(event) {
  if (event.attack) for (;;) {}
  return `spinner serves ${event.name}`;
}
