// `structuredClone` (an overload of lib.dom's and lib.webworker's where they are loaded: only
// ArrayBuffers can be transferred here).
declare function structuredClone<T = any>(value: T, options?: { transfer?: ArrayBuffer[] }): T;
