// The timers every runtime installs.
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number;
declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number;
declare function clearTimeout(id?: number): void;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
/** An unref'd timer does not keep the event loop alive (deno's `Deno.unrefTimer`). */
declare function unrefTimer(id: number): void;
/** Undoes `unrefTimer`. */
declare function refTimer(id: number): void;
