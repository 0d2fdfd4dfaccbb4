// `TextEncoder`, `TextDecoder` (merging with lib.dom and lib.webworker: see url.d.ts).
interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}
interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array<ArrayBuffer>;
  encodeInto(source: string, destination: Uint8Array<ArrayBufferLike>): TextEncoderEncodeIntoResult;
}
interface OpwireTextEncoderConstructor {
  prototype: TextEncoder;
  new (): TextEncoder;
}
declare var TextEncoder: typeof globalThis extends { onmessage: any; TextEncoder: infer T }
  ? T
  : OpwireTextEncoderConstructor;

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
interface TextDecodeOptions {
  stream?: boolean;
}
interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBufferLike | ArrayBufferView<ArrayBufferLike>, options?: TextDecodeOptions): string;
}
interface OpwireTextDecoderConstructor {
  prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
}
declare var TextDecoder: typeof globalThis extends { onmessage: any; TextDecoder: infer T }
  ? T
  : OpwireTextDecoderConstructor;
