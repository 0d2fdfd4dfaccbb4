// Holds ArrayBuffers (outside the heap) without end, and grows a resizable one.
const hoard = [];
export function handle(event) {
  if (event.attack) {
    const growing = new ArrayBuffer(0, { maxByteLength: 2 ** 30 });
    growing.resize(2 ** 30);
    for (;;) hoard.push(new Uint8Array(16 << 20).fill(1));
  }
  hoard.length = 0;
  return `buffer_hog serves ${event.name}`;
}
