// `TextEncoderStream` and `TextDecoderStream` (the Encoding standard): a `TextEncoder` or
// `TextDecoder` behind a `TransformStream`. Installed after the encoding and streams groups;
// what they use is captured then.
(function (internalOps, internals) {
  "use strict";
  const { configureInterface, defineGlobal, uncurryThis } = internals;
  const TransformStreamCtor = TransformStream;
  const TransformReadable = uncurryThis(
    Object.getOwnPropertyDescriptor(TransformStream.prototype, "readable").get,
  );
  const TransformWritable = uncurryThis(
    Object.getOwnPropertyDescriptor(TransformStream.prototype, "writable").get,
  );
  const TextEncoderCtor = TextEncoder;
  const TextDecoderCtor = TextDecoder;
  const encode = uncurryThis(TextEncoder.prototype.encode);
  const decode = uncurryThis(TextDecoder.prototype.decode);
  const decoderGetter = (name) =>
    uncurryThis(Object.getOwnPropertyDescriptor(TextDecoder.prototype, name).get);
  const DecoderEncoding = decoderGetter("encoding");
  const DecoderFatal = decoderGetter("fatal");
  const DecoderIgnoreBOM = decoderGetter("ignoreBOM");
  const Uint8ArrayCtor = Uint8Array;
  const StringCharCodeAt = uncurryThis(String.prototype.charCodeAt);
  const StringSlice = uncurryThis(String.prototype.slice);
  const STREAM = { __proto__: null, stream: true };

  class TextEncoderStream {
    #transform;

    constructor() {
      const encoder = new TextEncoderCtor();
      // A high surrogate that ended a chunk waits for the next one's low surrogate.
      let pending = "";
      this.#transform = new TransformStreamCtor({
        __proto__: null,
        transform(chunk, controller) {
          let text = pending + `${chunk}`;
          pending = "";
          const last = text.length === 0 ? 0 : StringCharCodeAt(text, text.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            pending = StringSlice(text, text.length - 1);
            text = StringSlice(text, 0, text.length - 1);
          }
          if (text.length !== 0) controller.enqueue(encode(encoder, text));
        },
        flush(controller) {
          // A lone high surrogate at the end: U+FFFD.
          if (pending !== "") controller.enqueue(new Uint8ArrayCtor([0xef, 0xbf, 0xbd]));
        },
      });
    }

    get encoding() {
      void this.#transform;
      return "utf-8";
    }

    get readable() {
      return TransformReadable(this.#transform);
    }

    get writable() {
      return TransformWritable(this.#transform);
    }
  }

  class TextDecoderStream {
    #decoder;
    #transform;

    constructor(label = "utf-8", options = undefined) {
      const decoder = new TextDecoderCtor(label, options);
      this.#decoder = decoder;
      this.#transform = new TransformStreamCtor({
        __proto__: null,
        transform(chunk, controller) {
          const text = decode(decoder, chunk, STREAM);
          if (text.length !== 0) controller.enqueue(text);
        },
        flush(controller) {
          const text = decode(decoder);
          if (text.length !== 0) controller.enqueue(text);
        },
      });
    }

    get encoding() {
      return DecoderEncoding(this.#decoder);
    }

    get fatal() {
      return DecoderFatal(this.#decoder);
    }

    get ignoreBOM() {
      return DecoderIgnoreBOM(this.#decoder);
    }

    get readable() {
      return TransformReadable(this.#transform);
    }

    get writable() {
      return TransformWritable(this.#transform);
    }
  }

  configureInterface(TextEncoderStream);
  configureInterface(TextDecoderStream);
  defineGlobal("TextEncoderStream", TextEncoderStream);
  defineGlobal("TextDecoderStream", TextDecoderStream);
})
