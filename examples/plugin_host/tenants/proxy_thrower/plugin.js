// Throws a proxy whose every trap spins: reading what was thrown must not run it.
export function handle(event) {
  if (event.attack) {
    const spin = () => { for (;;) {} };
    throw new Proxy({}, { get: spin, getPrototypeOf: spin, getOwnPropertyDescriptor: spin });
  }
  return `proxy_thrower serves ${event.name}`;
}
