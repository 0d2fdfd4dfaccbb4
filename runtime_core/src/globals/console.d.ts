// `console` (unless `RuntimeOptions::console` is `None`), declared as TypeScript's DOM library
// declares it, so that the two merge: a project may compile with `"lib": ["es2022"]` or with
// the DOM's too.
interface Console {
  log(...data: any[]): void;
  info(...data: any[]): void;
  debug(...data: any[]): void;
  warn(...data: any[]): void;
  error(...data: any[]): void;
}
declare var console: Console;
