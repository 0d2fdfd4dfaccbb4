// `crypto`, `Crypto`, `SubtleCrypto` (merging with lib.dom and lib.webworker: see url.d.ts).
interface SubtleCrypto {
  digest(
    algorithm: string | { name: string },
    data: ArrayBuffer | ArrayBufferView<ArrayBuffer>,
  ): Promise<ArrayBuffer>;
}
interface OpwireSubtleCryptoConstructor {
  prototype: SubtleCrypto;
  new (): SubtleCrypto;
}
declare var SubtleCrypto: typeof globalThis extends { onmessage: any; SubtleCrypto: infer T }
  ? T
  : OpwireSubtleCryptoConstructor;
interface Crypto {
  readonly subtle: SubtleCrypto;
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
}
interface OpwireCryptoConstructor {
  prototype: Crypto;
  new (): Crypto;
}
declare var Crypto: typeof globalThis extends { onmessage: any; Crypto: infer T }
  ? T
  : OpwireCryptoConstructor;
declare var crypto: Crypto;
