// Allocates on the JavaScript heap without end.
const hoard = [];
export function handle(event) {
  if (event.attack) for (;;) hoard.push(new Array(1e5).fill(event.name));
  hoard.length = 0;
  return `heap_hog serves ${event.name}`;
}
