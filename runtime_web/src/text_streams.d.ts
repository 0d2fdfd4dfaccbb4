// `TextEncoderStream`, `TextDecoderStream` (the Encoding standard). The interfaces merge with
// lib.dom's and lib.webworker's; each constructor's variable takes their type where one of
// them is loaded, else its own.
interface TextEncoderStream {
  readonly encoding: string;
  readonly readable: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly writable: WritableStream<string>;
}
declare var TextEncoderStream: typeof globalThis extends { onmessage: any; TextEncoderStream: infer T }
  ? T
  : { prototype: TextEncoderStream; new (): TextEncoderStream };
interface TextDecoderStream {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  readonly readable: ReadableStream<string>;
  readonly writable: WritableStream<ArrayBufferView<ArrayBuffer> | ArrayBuffer>;
}
declare var TextDecoderStream: typeof globalThis extends { onmessage: any; TextDecoderStream: infer T }
  ? T
  : {
      prototype: TextDecoderStream;
      new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoderStream;
    };
