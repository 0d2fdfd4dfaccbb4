// `performance`, `Performance` (merging with lib.dom and lib.webworker: see url.d.ts).
interface Performance {
  readonly timeOrigin: number;
  now(): number;
  toJSON(): any;
}
interface OpwirePerformanceConstructor {
  prototype: Performance;
  new (): Performance;
}
declare var Performance: typeof globalThis extends { onmessage: any; Performance: infer T }
  ? T
  : OpwirePerformanceConstructor;
declare var performance: Performance;
