// The globals every runtime installs besides its ops: the console (unless
// `RuntimeOptions::console` is `None`) and the timers.
declare var console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
};
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number;
declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number;
declare function clearTimeout(id?: number): void;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
/** An unref'd timer does not keep the event loop alive (deno's `Deno.unrefTimer`). */
declare function unrefTimer(id: number): void;
/** Undoes `unrefTimer`. */
declare function refTimer(id: number): void;
