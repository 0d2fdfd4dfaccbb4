// Waits for ever: a timer an hour away, then a promise nothing settles.
export async function handle(event) {
  if (event.attack) {
    await new Promise((resolve) => setTimeout(resolve, 3600 * 1000));
    await new Promise(() => {});
  }
  return `sleeper serves ${event.name}`;
}
