// `CompressionStream` and `DecompressionStream` (the Compression Streams standard): a codec
// (`compression.rs`) behind a `TransformStream`. Each chunk is handed to the codec, then its
// output read back a bounded piece at a time until it has none. Installed after the streams
// group; what they use is captured then.
(function (internalOps, internals) {
  "use strict";
  const { op_web_codec_new, op_web_codec_write, op_web_codec_read, op_web_codec_close } =
    internalOps;
  const { configureInterface, defineGlobal, uncurryThis, webidl } = internals;
  const TransformStreamCtor = TransformStream;
  const TransformReadable = uncurryThis(
    Object.getOwnPropertyDescriptor(TransformStream.prototype, "readable").get,
  );
  const TransformWritable = uncurryThis(
    Object.getOwnPropertyDescriptor(TransformStream.prototype, "writable").get,
  );
  const ControllerEnqueue = uncurryThis(TransformStreamDefaultController.prototype.enqueue);
  const TypeErrorCtor = TypeError;

  // The `CompressionFormat` enumeration's values.
  const FORMATS = { __proto__: null, deflate: true, "deflate-raw": true, gzip: true, brotli: true };

  function toFormat(args, name) {
    const prefix = `Failed to construct '${name}'`;
    webidl.requiredArguments(args.length, 1, prefix);
    const format = webidl.toDOMString(args[0], prefix, "Argument 1");
    if (FORMATS[format] !== true) {
      throw new TypeErrorCtor(
        `${prefix}: The provided value '${format}' is not a valid enum value of type CompressionFormat.`,
      );
    }
    return format;
  }

  // A transform stream over a new codec; a failed call frees the codec's state at once (the
  // op does), a cancelled stream's here.
  function codecStream(format, compress) {
    const codec = op_web_codec_new(format, compress);
    const drain = (controller, last) => {
      for (;;) {
        const out = op_web_codec_read(codec, last);
        if (out.length === 0) return;
        ControllerEnqueue(controller, out);
      }
    };
    return new TransformStreamCtor({
      __proto__: null,
      transform(chunk, controller) {
        op_web_codec_write(codec, chunk);
        drain(controller, false);
      },
      flush(controller) {
        drain(controller, true);
      },
      cancel() {
        op_web_codec_close(codec);
      },
    });
  }

  // The two interfaces are one shape (a format, then a readable and a writable side): each is
  // a class of its own name made here.
  function codecStreamClass(name, compress) {
    const Class = {
      [name]: class {
        #transform;

        constructor(format) {
          this.#transform = codecStream(toFormat(arguments, name), compress);
        }

        get readable() {
          return TransformReadable(this.#transform);
        }

        get writable() {
          return TransformWritable(this.#transform);
        }
      },
    }[name];
    return Class;
  }

  const CompressionStream = codecStreamClass("CompressionStream", true);
  const DecompressionStream = codecStreamClass("DecompressionStream", false);

  configureInterface(CompressionStream);
  configureInterface(DecompressionStream);
  defineGlobal("CompressionStream", CompressionStream);
  defineGlobal("DecompressionStream", DecompressionStream);
})
