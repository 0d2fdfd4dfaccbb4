// `TextEncoder` and `TextDecoder` (the Encoding standard) over `encoding.rs`: UTF-8 in one
// piece goes straight between V8 strings and buffers; a stream, or any other encoding, goes
// through a Rust decoder kept for the `TextDecoder` until the stream ends (or the decoder is
// collected).
(function (internalOps, internals) {
  "use strict";
  const {
    op_web_encode,
    op_web_encode_into,
    op_web_decode_utf8,
    op_web_encoding_name,
    op_web_decoder_new,
    op_web_decoder_decode,
    op_web_decoder_free,
  } = internalOps;
  const { configureInterface, defineGlobal } = internals;
  const { apply: ReflectApply } = Reflect;
  const { getPrototypeOf: ObjectGetPrototypeOf, getOwnPropertyDescriptor } = Object;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const Uint32ArrayCtor = Uint32Array;
  const { isView: ArrayBufferIsView } = ArrayBuffer;
  const FinalizationRegistryCtor = FinalizationRegistry;
  const { register: FinalizationRegister, unregister: FinalizationUnregister } =
    FinalizationRegistry.prototype;
  const getter = (object, name) => getOwnPropertyDescriptor(object, name).get;
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayByteLength = getter(TypedArrayPrototype, "byteLength");
  const TypedArrayToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const DataViewByteLength = getter(DataView.prototype, "byteLength");
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, "byteLength");
  const SharedArrayBufferByteLength =
    typeof SharedArrayBuffer === "function"
      ? getter(SharedArrayBuffer.prototype, "byteLength")
      : undefined;

  // WebIDL's DOMString (a symbol throws).
  const toDOMString = (value) => `${value}`;

  // A dictionary member, read as WebIDL reads one (`undefined` when absent).
  function dictionary(value, interfaceName, member) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "object" && typeof value !== "function") {
      throw new TypeErrorCtor(
        `Failed to execute '${member}' on '${interfaceName}': the options are not an object`,
      );
    }
    return value;
  }

  const EMPTY = new Uint8ArrayCtor(0);

  // An `AllowSharedBufferSource`, as the ops take it: an empty one (a detached buffer too)
  // is `EMPTY`.
  function bufferSource(input) {
    let length;
    if (ArrayBufferIsView(input)) {
      length =
        ReflectApply(TypedArrayToStringTag, input, []) === undefined
          ? ReflectApply(DataViewByteLength, input, [])
          : ReflectApply(TypedArrayByteLength, input, []);
    } else {
      try {
        length = ReflectApply(ArrayBufferByteLength, input, []);
      } catch {
        if (SharedArrayBufferByteLength === undefined) throw notBufferSource();
        try {
          length = ReflectApply(SharedArrayBufferByteLength, input, []);
        } catch {
          throw notBufferSource();
        }
      }
    }
    return length === 0 ? EMPTY : input;
  }

  const notBufferSource = () =>
    new TypeErrorCtor(
      "Failed to execute 'decode' on 'TextDecoder': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'",
    );

  // The longest string `encode` copies itself when it is ASCII: past it, the op's loop is
  // faster than the script's.
  const ASCII_IN_SCRIPT = 64;
  const charCodeAt = internals.uncurryThis(String.prototype.charCodeAt);

  // Whether `string` is ASCII and at most `ASCII_IN_SCRIPT` characters long (fetch.js hands
  // such a body to a host as it is: its UTF-8 is itself).
  function isShortAscii(string) {
    const length = string.length;
    if (length > ASCII_IN_SCRIPT) return false;
    for (let at = 0; at < length; at++) if (charCodeAt(string, at) > 0x7f) return false;
    return true;
  }
  internals.isShortAscii = isShortAscii;

  class TextEncoder {
    get encoding() {
      if (!(this instanceof TextEncoder)) throw new TypeErrorCtor("Illegal invocation");
      return "utf-8";
    }

    encode(input = "") {
      const string = toDOMString(input);
      // A short ASCII string is copied here into an array V8 makes, with no op call (checked
      // first, so that any other string allocates nothing here). Any other is the op's.
      if (isShortAscii(string)) {
        const length = string.length;
        const bytes = new Uint8ArrayCtor(length);
        for (let at = 0; at < length; at++) bytes[at] = charCodeAt(string, at);
        return bytes;
      }
      return op_web_encode(string);
    }

    encodeInto(source, destination) {
      if (arguments.length < 2) {
        throw new TypeErrorCtor(
          `Failed to execute 'encodeInto' on 'TextEncoder': 2 arguments required, but only ${arguments.length} present.`,
        );
      }
      source = toDOMString(source);
      if (
        !ArrayBufferIsView(destination) ||
        ReflectApply(TypedArrayToStringTag, destination, []) !== "Uint8Array"
      ) {
        throw new TypeErrorCtor(
          "Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.",
        );
      }
      op_web_encode_into(source, destination, encodeIntoResult);
      return { read: encodeIntoResult[0], written: encodeIntoResult[1] };
    }
  }
  const encodeIntoResult = new Uint32ArrayCtor(2);

  // Frees the decoder of a `TextDecoder` collected in the middle of a stream.
  const decoders = new FinalizationRegistryCtor((id) => op_web_decoder_free(id));

  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    // The Rust decoder of a stream in progress (0: none).
    #decoder = 0;

    constructor(label = "utf-8", options = undefined) {
      label = toDOMString(label);
      options = dictionary(options, "TextDecoder", "constructor");
      const encoding = op_web_encoding_name(label);
      if (encoding === "") {
        const shown = label.length > 256 ? `${label.slice(0, 256)}...` : label;
        throw new RangeErrorCtor(
          `Failed to construct 'TextDecoder': The encoding label provided ('${shown}') is invalid.`,
        );
      }
      this.#encoding = encoding;
      this.#fatal = options === undefined ? false : !!options.fatal;
      this.#ignoreBOM = options === undefined ? false : !!options.ignoreBOM;
    }

    get encoding() {
      return this.#encoding;
    }

    get fatal() {
      return this.#fatal;
    }

    get ignoreBOM() {
      return this.#ignoreBOM;
    }

    decode(input = undefined, options = undefined) {
      if (!(#encoding in this)) throw new TypeErrorCtor("Illegal invocation");
      input = input === undefined ? EMPTY : bufferSource(input);
      options = dictionary(options, "TextDecoder", "decode");
      const stream = options === undefined ? false : !!options.stream;
      let decoder = this.#decoder;
      if (decoder === 0) {
        if (!stream && this.#encoding === "utf-8") {
          return op_web_decode_utf8(input, this.#ignoreBOM, this.#fatal);
        }
        decoder = op_web_decoder_new(this.#encoding, this.#ignoreBOM);
        this.#decoder = decoder;
        ReflectApply(FinalizationRegister, decoders, [this, decoder, this]);
      }
      try {
        return op_web_decoder_decode(decoder, input, !stream, this.#fatal);
      } catch (error) {
        // A fatal error ended the stream (Rust dropped the decoder).
        this.#forgetDecoder();
        throw error;
      } finally {
        if (!stream) this.#forgetDecoder();
      }
    }

    #forgetDecoder() {
      if (this.#decoder === 0) return;
      op_web_decoder_free(this.#decoder);
      this.#decoder = 0;
      ReflectApply(FinalizationUnregister, decoders, [this]);
    }
  }

  configureInterface(TextEncoder);
  configureInterface(TextDecoder);
  defineGlobal("TextEncoder", TextEncoder);
  defineGlobal("TextDecoder", TextDecoder);
})
