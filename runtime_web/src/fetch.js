// `Request` and `Response` with the Body mixin (the Fetch standard). A body keeps what it was
// made from (a string, bytes, a Blob, a stream) and makes a `ReadableStream` only when a
// script asks for `body`: `text()`, `json()`, `arrayBuffer()`, `bytes()`, `blob()` of a
// string or bytes read them directly, with no stream and no chunk. Headers guards: `immutable`
// for `Response.error()`'s and `Response.redirect()`'s; the browser's forbidden names are not
// applied (deno and workerd apply none). `fetch()` goes through the host's transport.
(function (internalOps, internals) {
  "use strict";

  const { Object, Reflect, Symbol, TypeError, RangeError, Promise, JSON, Uint8Array, ArrayBuffer } =
    globalThis;
  const {
    configureInterface,
    defineGlobal,
    defineGlobalOperation,
    uncurryThis,
    webidl,
    streams,
    formData,
  } = internals;
  const {
    op_web_fetch,
    op_web_fetch_abort,
    op_web_is_promise,
    op_web_fulfilled_value,
    op_web_incoming_read,
    op_web_incoming_read_all,
    op_web_incoming_cancel,
    op_web_answer_abandoned,
    op_web_sink_new,
    op_web_sink_write,
    op_web_sink_ready,
    op_web_sink_close,
  } = internalOps;
  const { addAbortAlgorithm, abortSignalAborted, abortSignalReason } = internals;
  const { isObject, requiredArguments, toUSVString } = webidl;
  const headersInternals = internals.headers;
  const ReflectApply = Reflect.apply;
  const ReflectOwnKeys = Reflect.ownKeys;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
  const PromisePrototype = Promise.prototype;
  const JSONParse = JSON.parse;
  const JSONStringify = JSON.stringify;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const getter = (proto, name) => uncurryThis(ObjectGetOwnPropertyDescriptor(proto, name).get);
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayBuffer = getter(TypedArrayPrototype, "buffer");
  const TypedArrayByteOffset = getter(TypedArrayPrototype, "byteOffset");
  const TypedArrayByteLength = getter(TypedArrayPrototype, "byteLength");
  const TypedArraySlice = uncurryThis(TypedArrayPrototype.slice);
  const TypedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);
  const DataViewBuffer = getter(DataView.prototype, "buffer");
  const DataViewByteOffset = getter(DataView.prototype, "byteOffset");
  const DataViewByteLength = getter(DataView.prototype, "byteLength");
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, "byteLength");
  const ArrayBufferSlice = uncurryThis(ArrayBuffer.prototype.slice);
  const isArrayBuffer = (value) => {
    try {
      ArrayBufferByteLength(value);
      return true;
    } catch {
      return false;
    }
  };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const encode = uncurryThis(TextEncoder.prototype.encode);
  const decode = uncurryThis(TextDecoder.prototype.decode);
  const URLCtor = URL;
  const URLHref = getter(URL.prototype, "href");
  const URLOrigin = getter(URL.prototype, "origin");
  const URLProtocol = getter(URL.prototype, "protocol");
  const SearchParamsToString = uncurryThis(URLSearchParams.prototype.toString);
  const searchParamsBrand = getter(URLSearchParams.prototype, "size");
  const isSearchParams = (value) => {
    try {
      searchParamsBrand(value);
      return true;
    } catch {
      return false;
    }
  };
  const { isBlob, blobBytes, blobType, createBlob, isShortAscii } = internals;
  const reportError = globalThis.reportError;
  const { isAbortSignal, newAbortSignal, createDependentAbortSignal } = internals;

  const typeError = (message) => new TypeErrorCtor(message);
  const StringToLowerCase = uncurryThis(String.prototype.toLowerCase);
  const StringToUpperCase = uncurryThis(String.prototype.toUpperCase);
  const StringCharCodeAt = uncurryThis(String.prototype.charCodeAt);
  const StringFromCharCode = String.fromCharCode;
  const StringIndexOf = uncurryThis(String.prototype.indexOf);
  const StringSlice = uncurryThis(String.prototype.slice);
  const URLUsername = getter(URL.prototype, "username");
  const URLPassword = getter(URL.prototype, "password");
  const noop = () => {};

  // ---- Bodies -------------------------------------------------------------------------------

  // A body: `source` is a string, a Uint8Array (the body's own copy) or a Blob until a stream
  // is made of it; `stream` once made (or given); `used` once read from its source;
  // `incoming` a host's request body not yet read (`runtime_web::fetch_handler`), read whole
  // or made a stream when asked.
  function newBody(source, stream) {
    return { source, stream, used: false, incoming: null };
  }

  // The input's body, moved: the input's reads as used.
  function moveBody(input) {
    const body = newBody(input.source, input.stream);
    body.incoming = input.incoming;
    input.source = null;
    input.stream = null;
    input.incoming = null;
    input.used = true;
    return body;
  }

  // "Extract a body" of `init`: the body and its Content-Type (null when none).
  // The checks that cannot throw first (a brand check by a getter throws for every other
  // type, and an exception costs a stack trace): the common bodies never throw.
  function extractBody(init) {
    if (typeof init === "string") return [newBody(init, null), "text/plain;charset=UTF-8"];
    if (ArrayBufferIsView(init)) return [newBody(copyView(init), null), null];
    if (isBlob(init)) {
      const type = blobType(init);
      return [newBody(init, null), type === "" ? null : type];
    }
    if (streams.isReadableStream(init)) {
      if (streams.isDisturbed(init) || streams.isLocked(init)) {
        throw typeError("The body's ReadableStream is disturbed or locked.");
      }
      return [newBody(null, init), null];
    }
    if (formData.isFormData(init)) {
      const serialized = formData.serialize(init);
      return [newBody(serialized[0], null), serialized[1]];
    }
    if (isArrayBuffer(init)) {
      return [newBody(new Uint8ArrayCtor(ArrayBufferSlice(init, 0)), null), null];
    }
    if (isSearchParams(init)) {
      return [
        newBody(SearchParamsToString(init), null),
        "application/x-www-form-urlencoded;charset=UTF-8",
      ];
    }
    // Anything else is a string (WebIDL's USVString branch of the union).
    return [newBody(toUSVString(init), null), "text/plain;charset=UTF-8"];
  }

  // A copy of a view's bytes: a small Uint8Array's as `Latin1Bytes`, a larger one's by the
  // constructor (one builtin that reads nothing of the tenant's, no species), any other
  // view's through its buffer.
  function copyView(view) {
    if (TypedArrayName(view) === "Uint8Array") {
      const length = TypedArrayByteLength(view);
      // (An empty view may be a detached one, which the constructor refuses.)
      if (length !== 0 && length <= SMALL_BODY) return latin1Of(view, length);
      return new Uint8ArrayCtor(view);
    }
    let buffer;
    let offset;
    let length;
    try {
      buffer = TypedArrayBuffer(view);
      offset = TypedArrayByteOffset(view);
      length = TypedArrayByteLength(view);
    } catch {
      buffer = DataViewBuffer(view);
      offset = DataViewByteOffset(view);
      length = DataViewByteLength(view);
    }
    return new Uint8ArrayCtor(ArrayBufferSlice(buffer, offset, offset + length));
  }

  // A small body's bytes as a string of one-byte characters, one a byte. V8 makes such a
  // string for less than an ArrayBuffer (every ArrayBuffer of this V8 lies off its heap), and
  // a host takes it in one read (`answerBytes`). The body's own: strings never change.
  const SMALL_BODY = 64;
  class Latin1Bytes {
    #text;
    constructor(text) {
      this.#text = text;
    }

    static text(bytes) {
      return bytes.#text;
    }

    static is(value) {
      return typeof value === "object" && value !== null && #text in value;
    }
  }
  const latin1Text = Latin1Bytes.text;
  const isLatin1Bytes = Latin1Bytes.is;

  function latin1Of(view, length) {
    // The elements by index (a typed array's own, which no tenant can patch), then one call.
    const codes = [];
    for (let i = 0; i < length; i++) codes[i] = view[i];
    return new Latin1Bytes(ReflectApply(StringFromCharCode, undefined, codes));
  }

  function latin1Bytes(latin1) {
    const text = latin1Text(latin1);
    const bytes = new Uint8ArrayCtor(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = StringCharCodeAt(text, i);
    return bytes;
  }

  // The body's stream, made now if it has none.
  function bodyStream(body) {
    if (body.stream !== null) return body.stream;
    if (body.used) {
      body.stream = streams.createUsed();
      return body.stream;
    }
    if (body.incoming !== null) {
      body.stream = incomingStream(body.incoming);
      body.incoming = null;
      return body.stream;
    }
    const source = body.source;
    body.source = null;
    let sent = false;
    const stream = streams.create(
      () => {
        if (sent) return PromiseResolve(undefined);
        sent = true;
        const bytes = sourceBytes(source);
        if (TypedArrayByteLength(bytes) !== 0) streams.enqueue(stream, bytes);
        streams.close(stream);
        return PromiseResolve(undefined);
      },
      () => PromiseResolve(undefined),
      0,
    );
    body.stream = stream;
    return stream;
  }

  // A host's request body as a stream: a chunk read from the host per pull.
  function incomingStream(incoming) {
    const stream = streams.create(
      () =>
        PromisePrototypeThen(op_web_incoming_read(incoming), (chunk) => {
          if (chunk === null) streams.close(stream);
          else streams.enqueue(stream, chunk);
        }),
      () => {
        op_web_incoming_cancel(incoming);
        return PromiseResolve(undefined);
      },
      0,
    );
    return stream;
  }

  function bodyUsed(body) {
    if (body === null) return false;
    if (body.stream !== null) return streams.isDisturbed(body.stream);
    return body.used;
  }

  // "Consume body": its bytes, or its string when it was made of one and a string is wanted.
  function consumeBody(body, asText) {
    if (body === null) return PromiseResolve(asText ? "" : new Uint8ArrayCtor(0));
    if (bodyUsed(body)) return PromiseReject(typeError("The body has already been read."));
    if (body.stream !== null) {
      if (streams.isLocked(body.stream)) {
        return PromiseReject(typeError("The body's stream is locked."));
      }
      const bytes = streams.readAllBytes(body.stream);
      return asText ? PromisePrototypeThen(bytes, (all) => decode(decoder, all)) : bytes;
    }
    body.used = true;
    if (body.incoming !== null) {
      const all = op_web_incoming_read_all(body.incoming);
      body.incoming = null;
      return asText ? PromisePrototypeThen(all, (bytes) => decode(decoder, bytes)) : all;
    }
    const source = body.source;
    body.source = null;
    if (asText && typeof source === "string") return PromiseResolve(source);
    const bytes = sourceBytes(source);
    return PromiseResolve(asText ? decode(decoder, bytes) : bytes);
  }

  // A body source's bytes: a string's UTF-8, a Blob's (a copy), or the body's own bytes.
  // Bytes first: a brand check that misses costs more than one that finds.
  function sourceBytes(source) {
    if (typeof source === "string") return encode(encoder, source);
    if (ArrayBufferIsView(source)) return source;
    if (isLatin1Bytes(source)) return latin1Bytes(source);
    return isBlob(source) ? blobBytes(source) : source;
  }

  // A whole body as the host takes it: its bytes as a string of one-byte characters when it
  // is one (small bytes, or short ASCII text, whose UTF-8 is itself), else as a Uint8Array.
  function answerBytes(source) {
    if (typeof source === "string" && isShortAscii(source)) return source;
    if (!ArrayBufferIsView(source) && isLatin1Bytes(source)) return latin1Text(source);
    return sourceBytes(source);
  }

  // Whose body, and the Content-Type its headers give (for `blob()`).
  function consume(record, kind) {
    const body = record.body;
    if (kind === "text") return consumeBody(body, true);
    if (kind === "json") return PromisePrototypeThen(consumeBody(body, true), (text) => JSONParse(text));
    return PromisePrototypeThen(consumeBody(body, false), (bytes) => {
      if (kind === "bytes") return bytes;
      if (kind === "arrayBuffer") {
        // The body's own copy: its buffer unless the bytes are a window of a larger one.
        const buffer = TypedArrayBuffer(bytes);
        return TypedArrayByteOffset(bytes) === 0 && TypedArrayByteLength(bytes) === ArrayBufferByteLength(buffer)
          ? buffer
          : TypedArrayBuffer(TypedArraySlice(bytes));
      }
      const type = record.headers === null ? null : headersGet(record.headers, "content-type");
      if (kind === "formData") return formDataOf(bytes, type === null ? "" : type);
      return createBlob(bytes, type === null ? "" : lowerAscii(type));
    });
  }

  // `formData()`: the body parsed as its Content-Type says, multipart or urlencoded.
  function formDataOf(bytes, type) {
    const essence = lowerAscii(type);
    if (StringIndexOf(essence, "multipart/form-data") === 0) {
      return formData.parseMultipart(bytes, type);
    }
    if (StringIndexOf(essence, "application/x-www-form-urlencoded") === 0) {
      return formData.parseUrlencoded(decode(decoder, bytes));
    }
    throw typeError("The body's Content-Type is neither multipart/form-data nor application/x-www-form-urlencoded.");
  }

  function lowerAscii(string) {
    return StringToLowerCase(string);
  }

  // A copy of the body for `clone()`: a stream's is teed (this body takes one branch).
  function cloneBody(body) {
    if (body === null) return null;
    if (body.stream === null && body.incoming === null) {
      const source = body.source;
      // Strings and Blobs are immutable. Bytes are the body's own, which a host answering it
      // takes (detaching a large body's buffer): the clone gets its own copy.
      return newBody(ArrayBufferIsView(source) ? copyView(source) : source, null);
    }
    const branches = streams.tee(bodyStream(body));
    body.stream = branches[0];
    return newBody(null, branches[1]);
  }

  // ---- Headers helpers -------------------------------------------------------------------------

  function headersGet(headers, name) {
    const list = headersInternals.list(headers);
    let found = null;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) found = found === null ? list[i + 1] : `${found}, ${list[i + 1]}`;
    }
    return found;
  }

  function headersHas(headers, name) {
    const list = headersInternals.list(headers);
    for (let i = 0; i < list.length; i += 2) if (list[i] === name) return true;
    return false;
  }

  // `init` (a HeadersInit) appended to `headers`, through the Headers constructor's checks.
  function fillHeaders(headers, init) {
    headersInternals.append(headers, init);
  }

  function appendContentType(headers, type) {
    if (type !== null && !headersHas(headers, "content-type")) {
      const list = headersInternals.list(headers);
      list[list.length] = "content-type";
      list[list.length] = type;
    }
  }

  // ---- Response -------------------------------------------------------------------------------

  const isNullBodyStatus = (status) =>
    status === 101 || status === 103 || status === 204 || status === 205 || status === 304;
  const isRedirectStatus = (status) =>
    status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
  const CONSTRUCT = {};

  // A reason phrase: HTAB, SP, VCHAR and obs-text.
  function isReasonPhrase(text) {
    for (let i = 0; i < text.length; i++) {
      const c = StringCharCodeAt(text, i);
      if (c > 0xff || (c < 0x20 && c !== 0x09) || c === 0x7f) return false;
    }
    return true;
  }

  function newResponseRecord() {
    return {
      type: "default",
      urlList: [],
      status: 200,
      statusText: "",
      headers: headersInternals.create(),
      body: null,
    };
  }

  // "Initialize a response" with `init` and the extracted body `pair` ([body, type]).
  function initializeResponse(record, init, pair, prefix) {
    if (init !== undefined && init !== null && !isObject(init)) {
      throw typeError(`${prefix}: init is not an object.`);
    }
    const headersInit = init == null ? undefined : init.headers;
    const statusInit = init == null ? undefined : init.status;
    const statusTextInit = init == null ? undefined : init.statusText;
    // An integer in range is what every handler gives: WebIDL's conversion only for the rest.
    const status =
      statusInit === undefined
        ? 200
        : typeof statusInit === "number" && statusInit >= 0 && statusInit <= 0xffff && statusInit === (statusInit | 0)
          ? statusInit
          : webidl.toUnsignedShort(statusInit, undefined, prefix, "status");
    // A ByteString: `isReasonPhrase` refuses a code unit above 0xFF.
    const statusText = statusTextInit === undefined ? "" : `${statusTextInit}`;
    if (status < 200 || status > 599) {
      throw new RangeErrorCtor(
        `${prefix}: The status provided (${status}) is outside the range [200, 599].`,
      );
    }
    if (!isReasonPhrase(statusText)) throw typeError(`${prefix}: Invalid statusText.`);
    record.status = status;
    record.statusText = statusText;
    if (headersInit !== undefined) fillHeaders(record.headers, headersInit);
    if (pair !== null) {
      if (isNullBodyStatus(status)) {
        throw typeError(`${prefix}: Response with null body status cannot have body.`);
      }
      record.body = pair[0];
      appendContentType(record.headers, pair[1]);
    }
  }

  class Response {
    #record;

    constructor(body = null, init = undefined) {
      const record = newResponseRecord();
      this.#record = record;
      if (body === CONSTRUCT) return;
      const prefix = "Failed to construct 'Response'";
      const pair = body === null || body === undefined ? null : extractBody(body);
      initializeResponse(record, init, pair, prefix);
    }

    static error() {
      const response = new Response(CONSTRUCT);
      const record = response.#record;
      record.type = "error";
      record.status = 0;
      headersInternals.freeze(record.headers);
      return response;
    }

    static redirect(url, status = 302) {
      requiredArguments(arguments.length, 1, "Failed to execute 'redirect' on 'Response'");
      let parsed;
      try {
        parsed = URLHref(new URLCtor(`${url}`, baseURL()));
      } catch {
        throw typeError(`Failed to execute 'redirect' on 'Response': Invalid URL: ${JSONStringify(`${url}`)}.`);
      }
      status = webidl.toUnsignedShort(status, undefined, "Failed to execute 'redirect' on 'Response'", "status");
      if (!isRedirectStatus(status)) {
        throw new RangeErrorCtor(`Failed to execute 'redirect' on 'Response': Invalid status code ${status}.`);
      }
      const response = new Response(CONSTRUCT);
      const record = response.#record;
      record.status = status;
      const list = headersInternals.list(record.headers);
      list[0] = "location";
      list[1] = parsed;
      headersInternals.freeze(record.headers);
      return response;
    }

    static json(data, init = undefined) {
      requiredArguments(arguments.length, 1, "Failed to execute 'json' on 'Response'");
      const prefix = "Failed to execute 'json' on 'Response'";
      const text = JSONStringify(data);
      if (text === undefined) throw typeError(`${prefix}: The data is not JSON serializable.`);
      const response = new Response(CONSTRUCT);
      initializeResponse(response.#record, init, [newBody(text, null), "application/json"], prefix);
      return response;
    }

    get type() {
      return this.#record.type;
    }

    get url() {
      const list = this.#record.urlList;
      return list.length === 0 ? "" : stripFragment(list[list.length - 1]);
    }

    get redirected() {
      return this.#record.urlList.length > 1;
    }

    get status() {
      return this.#record.status;
    }

    get ok() {
      const status = this.#record.status;
      return status >= 200 && status <= 299;
    }

    get statusText() {
      return this.#record.statusText;
    }

    get headers() {
      return this.#record.headers;
    }

    clone() {
      const record = this.#record;
      if (bodyUsed(record.body) || (record.body !== null && record.body.stream !== null && streams.isLocked(record.body.stream))) {
        throw typeError("Failed to execute 'clone' on 'Response': Response body is already used.");
      }
      const response = new Response(CONSTRUCT);
      const copy = response.#record;
      copy.type = record.type;
      copy.urlList = record.urlList;
      copy.status = record.status;
      copy.statusText = record.statusText;
      fillHeaders(copy.headers, record.headers);
      copy.body = cloneBody(record.body);
      return response;
    }

    static record(response) {
      return response.#record;
    }

    static isResponse(value) {
      return isObject(value) && #record in value;
    }
  }
  const responseRecord = Response.record;
  const isResponse = Response.isResponse;
  delete Response.record;
  delete Response.isResponse;

  function stripFragment(url) {
    const hash = StringIndexOf(url, "#");
    return hash === -1 ? url : StringSlice(url, 0, hash);
  }

  // A Body member's read: its class's brand check (`recordOf`), then consume.
  function consumeRecord(recordOf, object, kind) {
    let record;
    try {
      record = recordOf(object);
    } catch (error) {
      return PromiseReject(error);
    }
    return consume(record, kind);
  }

  // ---- Request --------------------------------------------------------------------------------

  const FORBIDDEN_METHODS = ["CONNECT", "TRACE", "TRACK"];
  const NORMALIZED_METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  const RegExpExec = uncurryThis(RegExp.prototype.exec);

  // The base of a relative URL: `location`'s, where the host (or a test harness) gives the
  // global one, as deno's `--location` does; none by default, so a relative URL is an error.
  function baseURL() {
    const location = globalThis.location;
    if (location === undefined || location === null) return undefined;
    return `${location.href}`;
  }

  function normalizeMethod(method, prefix) {
    if (RegExpExec(TOKEN, method) === null) {
      throw typeError(`${prefix}: '${method}' is not a valid HTTP method.`);
    }
    const upper = StringToUpperCase(method);
    for (let i = 0; i < FORBIDDEN_METHODS.length; i++) {
      if (upper === FORBIDDEN_METHODS[i]) {
        throw typeError(`${prefix}: '${method}' HTTP method is unsupported.`);
      }
    }
    for (let i = 0; i < NORMALIZED_METHODS.length; i++) {
      if (upper === NORMALIZED_METHODS[i]) return upper;
    }
    return method;
  }

  const ENUMS = {
    __proto__: null,
    mode: ["navigate", "same-origin", "no-cors", "cors"],
    credentials: ["omit", "same-origin", "include"],
    cache: ["default", "no-store", "reload", "no-cache", "force-cache", "only-if-cached"],
    redirect: ["follow", "error", "manual"],
    duplex: ["half"],
    priority: ["high", "low", "auto"],
  };

  function toEnum(value, name, prefix) {
    const string = `${value}`;
    const allowed = ENUMS[name];
    for (let i = 0; i < allowed.length; i++) if (allowed[i] === string) return string;
    throw typeError(`${prefix}: '${string}' is not a valid value for ${name}.`);
  }

  class Request {
    #record;

    constructor(input, init = undefined) {
      const prefix = "Failed to construct 'Request'";
      if (input === CONSTRUCT) {
        this.#record = init;
        return;
      }
      requiredArguments(arguments.length, 1, prefix);
      if (init !== undefined && init !== null && !isObject(init)) {
        throw typeError(`${prefix}: init is not an object.`);
      }
      let base = null;
      let url;
      if (isRequest(input)) {
        base = requestRecord(input);
        url = base.url;
      } else {
        const text = toUSVString(input);
        try {
          url = URLHref(new URLCtor(text, baseURL()));
        } catch {
          throw typeError(`${prefix}: Invalid URL: ${JSONStringify(text)}.`);
        }
        if (StringIndexOf(url, "@") !== -1) {
          const parsed = new URLCtor(url);
          if (URLUsername(parsed) !== "" || URLPassword(parsed) !== "") {
            throw typeError(`${prefix}: Request cannot be constructed from a URL that includes credentials.`);
          }
        }
      }
      const get = (name) => (init == null ? undefined : init[name]);
      const record = {
        method: base === null ? "GET" : base.method,
        url,
        headers: headersInternals.create(),
        body: null,
        signal: undefined,
        mode: base === null ? "cors" : base.mode,
        credentials: base === null ? "same-origin" : base.credentials,
        cache: base === null ? "default" : base.cache,
        redirect: base === null ? "follow" : base.redirect,
        integrity: base === null ? "" : base.integrity,
        keepalive: base === null ? false : base.keepalive,
        referrer: base === null ? "about:client" : base.referrer,
        referrerPolicy: base === null ? "" : base.referrerPolicy,
        duplex: "half",
      };
      // Read in the spec's order (each a getter a script may have written).
      const bodyInit = get("body");
      const cache = get("cache");
      const credentials = get("credentials");
      const duplex = get("duplex");
      const headersInit = get("headers");
      const integrity = get("integrity");
      const keepalive = get("keepalive");
      const method = get("method");
      const mode = get("mode");
      const priority = get("priority");
      const redirect = get("redirect");
      const referrer = get("referrer");
      const referrerPolicy = get("referrerPolicy");
      const signal = get("signal");
      if (get("window") != null) throw typeError(`${prefix}: 'window' must be null.`);
      if (referrer !== undefined) {
        const text = toUSVString(referrer);
        if (text === "") {
          record.referrer = "";
        } else {
          try {
            record.referrer = URLHref(new URLCtor(text));
          } catch {
            throw typeError(`${prefix}: Invalid referrer URL.`);
          }
        }
      }
      if (referrerPolicy !== undefined) record.referrerPolicy = `${referrerPolicy}`;
      if (mode !== undefined) {
        record.mode = toEnum(mode, "mode", prefix);
        if (record.mode === "navigate") throw typeError(`${prefix}: Cannot construct a Request with a RequestInit whose mode member is set as 'navigate'.`);
      }
      if (credentials !== undefined) record.credentials = toEnum(credentials, "credentials", prefix);
      if (cache !== undefined) record.cache = toEnum(cache, "cache", prefix);
      if (record.cache === "only-if-cached" && record.mode !== "same-origin") {
        throw typeError(`${prefix}: 'only-if-cached' can be set only with 'same-origin' mode.`);
      }
      if (redirect !== undefined) record.redirect = toEnum(redirect, "redirect", prefix);
      if (integrity !== undefined) record.integrity = `${integrity}`;
      if (keepalive !== undefined) record.keepalive = !!keepalive;
      if (method !== undefined) record.method = normalizeMethod(`${method}`, prefix);
      if (priority !== undefined) toEnum(priority, "priority", prefix);
      if (duplex !== undefined) toEnum(duplex, "duplex", prefix);
      if (signal !== undefined && signal !== null && !isAbortSignal(signal)) {
        throw typeError(`${prefix}: member signal is not of type AbortSignal.`);
      }
      const parentSignal = signal != null ? signal : base === null ? undefined : signalOf(base);
      record.signal =
        parentSignal === undefined ? undefined : createDependentAbortSignal([parentSignal]);
      if (record.mode === "no-cors") {
        const m = record.method;
        if (m !== "GET" && m !== "HEAD" && m !== "POST") {
          throw typeError(`${prefix}: '${m}' is unsupported in no-cors mode.`);
        }
      }
      if (headersInit !== undefined) {
        fillHeaders(record.headers, headersInit);
      } else if (base !== null) {
        fillHeaders(record.headers, base.headers);
      }
      const inputBody = base === null ? null : base.body;
      if ((bodyInit != null || inputBody !== null) && (record.method === "GET" || record.method === "HEAD")) {
        if (bodyInit != null) {
          throw typeError(`${prefix}: Request with GET/HEAD method cannot have body.`);
        }
      }
      if (bodyInit != null) {
        const pair = extractBody(bodyInit);
        record.body = pair[0];
        appendContentType(record.headers, pair[1]);
        if (pair[0].stream !== null && duplex === undefined) {
          throw typeError(`${prefix}: The duplex member must be specified for a request with a streaming body.`);
        }
      } else if (inputBody !== null) {
        if (bodyUsed(inputBody) || (inputBody.stream !== null && streams.isLocked(inputBody.stream))) {
          throw typeError(`${prefix}: Cannot construct a Request with a Request object that has already been used.`);
        }
        // The input's body moves to the new request; the input's reads as used.
        record.body = moveBody(inputBody);
      }
      this.#record = record;
    }

    get method() {
      return this.#record.method;
    }

    get url() {
      return this.#record.url;
    }

    get headers() {
      return this.#record.headers;
    }

    get destination() {
      void this.#record;
      return "";
    }

    get referrer() {
      const referrer = this.#record.referrer;
      if (referrer === "") return "";
      return referrer === "about:client" ? "about:client" : referrer;
    }

    get referrerPolicy() {
      return this.#record.referrerPolicy;
    }

    get mode() {
      return this.#record.mode;
    }

    get credentials() {
      return this.#record.credentials;
    }

    get cache() {
      return this.#record.cache;
    }

    get redirect() {
      return this.#record.redirect;
    }

    get integrity() {
      return this.#record.integrity;
    }

    get keepalive() {
      return this.#record.keepalive;
    }

    get isReloadNavigation() {
      void this.#record;
      return false;
    }

    get isHistoryNavigation() {
      void this.#record;
      return false;
    }

    get signal() {
      return signalOf(this.#record);
    }

    get duplex() {
      void this.#record;
      return "half";
    }

    clone() {
      const record = this.#record;
      if (bodyUsed(record.body) || (record.body !== null && record.body.stream !== null && streams.isLocked(record.body.stream))) {
        throw typeError("Failed to execute 'clone' on 'Request': Request body is already used.");
      }
      const copy = { __proto__: null, ...record, headers: headersInternals.create(), body: cloneBody(record.body) };
      copy.signal = createDependentAbortSignal([signalOf(record)]);
      fillHeaders(copy.headers, record.headers);
      return new Request(CONSTRUCT, copy);
    }

    static record(request) {
      return request.#record;
    }

    static isRequest(value) {
      return isObject(value) && #record in value;
    }
  }
  // A request's signal, made when first asked for (most requests a server makes are never
  // asked: an AbortSignal is an EventTarget, not free to make).
  function signalOf(record) {
    if (record.signal === undefined) record.signal = newAbortSignal();
    return record.signal;
  }

  const requestRecord = Request.record;
  const isRequest = Request.isRequest;
  delete Request.record;
  delete Request.isRequest;

  // The Body mixin, made for each class (each interface has its own members): each member
  // reads its own class's record, and a foreign object is a TypeError, as a missing private
  // field is. (One set for both would brand-check for one class first, and a check that
  // misses costs V8 a slow path.)
  function bodyMixin(recordOf) {
    return {
      get body() {
        const body = recordOf(this).body;
        return body === null ? null : bodyStream(body);
      },
      get bodyUsed() {
        return bodyUsed(recordOf(this).body);
      },
      arrayBuffer() {
        return consumeRecord(recordOf, this, "arrayBuffer");
      },
      blob() {
        return consumeRecord(recordOf, this, "blob");
      },
      bytes() {
        return consumeRecord(recordOf, this, "bytes");
      },
      json() {
        return consumeRecord(recordOf, this, "json");
      },
      text() {
        return consumeRecord(recordOf, this, "text");
      },
      formData() {
        return consumeRecord(recordOf, this, "formData");
      },
    };
  }
  for (const [prototype, recordOf] of [
    [Request.prototype, requestRecord],
    [Response.prototype, responseRecord],
  ]) {
    const members = bodyMixin(recordOf);
    const keys = ReflectOwnKeys(members);
    for (let i = 0; i < keys.length; i++) {
      ObjectDefineProperty(prototype, keys[i], ObjectGetOwnPropertyDescriptor(members, keys[i]));
    }
  }
  configureInterface(Request);
  configureInterface(Response);
  defineGlobal("Request", Request);
  defineGlobal("Response", Response);

  // ---- fetch() ---------------------------------------------------------------------------------

  // Ids of the requests an abort may cancel (`op_web_fetch_abort`): from 1, coming round
  // within the small integers.
  let lastAbortableId = 0;
  function nextAbortableId() {
    lastAbortableId = lastAbortableId >= 0x3fffffff ? 1 : lastAbortableId + 1;
    return lastAbortableId;
  }

  // `fetch(input, init)`: the request made as `new Request` makes it (an HTTP(S) URL), its
  // body read whole, then the host's transport (`runtime_web::transport`; none granted: a
  // TypeError). Redirects are followed here, as the Fetch standard's HTTP-redirect fetch says,
  // each hop a request of its own through the transport (which refuses what its host did not
  // allow, on every hop). The response's headers are checked as `Headers` checks them, and
  // immutable. An abort of the request's signal rejects at once with its reason, and drops the
  // transport's request in flight (its connection, its turn).
  function fetch(input, init = undefined) {
    let request;
    try {
      requiredArguments(arguments.length, 1, "Failed to execute 'fetch'");
      request = new Request(input, init);
    } catch (error) {
      return PromiseReject(error);
    }
    const record = requestRecord(request);
    const signal = record.signal;
    if (signal !== undefined && abortSignalAborted(signal)) {
      return PromiseReject(abortSignalReason(signal));
    }
    // HTTP(S) only: a `blob:` URL's origin is that of the URL inside it, and no transport is
    // to be asked for a `blob:`, `data:` or `file:` URL as if it were that origin's.
    const protocol = URLProtocol(new URLCtor(record.url));
    if (protocol !== "http:" && protocol !== "https:") {
      const why = `fetch failed: ${protocol} URLs are not fetched, only HTTP(S) ones.`;
      return PromiseReject(typeError(why));
    }
    return new PromiseCtor((resolve, reject) => {
      // The hop in flight's id, which an abort cancels (0: none, or no signal to abort it).
      let inFlight = 0;
      if (signal !== undefined) {
        addAbortAlgorithm(signal, () => {
          if (inFlight !== 0) op_web_fetch_abort(inFlight);
          reject(abortSignalReason(signal));
        });
      }
      const body = record.body === null ? PromiseResolve(null) : consumeBody(record.body, false);
      const hop = {
        __proto__: null,
        method: record.method,
        // The request's own list (this request is fetch's alone); a redirect that drops
        // names makes a new one.
        headers: headersInternals.list(record.headers),
        bytes: null,
        urlList: [record.url],
      };
      const send = () => {
        if (signal !== undefined) {
          // Aborted while its body was read or its last hop answered: rejected, nothing sent.
          if (abortSignalAborted(signal)) return undefined;
          inFlight = nextAbortableId();
        }
        const url = hop.urlList[hop.urlList.length - 1];
        return PromisePrototypeThen(
          op_web_fetch(inFlight, hop.method, url, hop.headers, hop.bytes),
          (answer) => {
            inFlight = 0;
            if (signal !== undefined && abortSignalAborted(signal)) return;
            const response = fetchedResponse(hop.urlList, answer);
            const next = redirectOf(record.redirect, hop, response);
            if (next === null) resolve(response);
            else if (next === OPAQUE_REDIRECT) resolve(opaqueRedirect(hop.urlList));
            else PromisePrototypeThen(send(), undefined, reject);
          },
        );
      };
      PromisePrototypeThen(
        PromisePrototypeThen(body, (bytes) => {
          hop.bytes = bytes;
          return send();
        }),
        undefined,
        reject,
      );
    });
  }

  const REDIRECT_STATUSES = { __proto__: null, 301: true, 302: true, 303: true, 307: true, 308: true };
  const OPAQUE_REDIRECT = {};
  // Headers a request's body brings, dropped when a redirect turns it into a GET.
  const BODY_HEADERS = {
    __proto__: null,
    "content-encoding": true,
    "content-language": true,
    "content-location": true,
    "content-type": true,
  };

  // After a response: `null` when it is the answer; `OPAQUE_REDIRECT` for a redirect in
  // "manual" mode; else `hop` made the next request (a TypeError thrown where the standard
  // makes a network error).
  function redirectOf(mode, hop, response) {
    const record = responseRecord(response);
    if (REDIRECT_STATUSES[record.status] !== true) return null;
    const list = headersInternals.list(record.headers);
    let location = null;
    for (let i = 0; i + 1 < list.length; i += 2) {
      if (list[i] === "location") {
        location = list[i + 1];
        break;
      }
    }
    if (location === null) return null;
    const current = hop.urlList[hop.urlList.length - 1];
    let target;
    try {
      target = new URLCtor(location, current);
    } catch {
      throw typeError(`fetch failed: the redirect's location ${JSONStringify(location)} is no URL.`);
    }
    if (mode === "error") throw typeError("fetch failed: a redirect, with redirect mode \"error\".");
    if (mode === "manual") return OPAQUE_REDIRECT;
    if (hop.urlList.length > 20) throw typeError("fetch failed: more than 20 redirects.");
    const protocol = URLProtocol(target);
    if (protocol !== "http:" && protocol !== "https:") {
      throw typeError(`fetch failed: a redirect to ${protocol}, which is not HTTP(S).`);
    }
    const status = record.status;
    if (
      ((status === 301 || status === 302) && hop.method === "POST") ||
      (status === 303 && hop.method !== "GET" && hop.method !== "HEAD")
    ) {
      hop.method = "GET";
      hop.bytes = null;
      hop.headers = withoutNames(hop.headers, BODY_HEADERS);
    }
    const href = URLHref(target);
    if (URLOrigin(target) !== URLOrigin(new URLCtor(current))) {
      hop.headers = withoutNames(hop.headers, { __proto__: null, authorization: true });
    }
    hop.urlList[hop.urlList.length] = href;
    return hop;
  }

  // A copy of an array made without its iterator (a tenant's to patch).
  function copyList(list) {
    const copy = [];
    for (let i = 0; i < list.length; i++) copy[i] = list[i];
    return copy;
  }

  function withoutNames(list, names) {
    const kept = [];
    for (let i = 0; i + 1 < list.length; i += 2) {
      if (names[list[i]] === true) continue;
      kept[kept.length] = list[i];
      kept[kept.length] = list[i + 1];
    }
    return kept;
  }

  // A response of type "opaqueredirect": status 0, no headers, no body.
  function opaqueRedirect(urlList) {
    const response = new Response(CONSTRUCT);
    const record = responseRecord(response);
    record.type = "opaqueredirect";
    record.urlList = copyList(urlList);
    record.status = 0;
    record.statusText = "";
    headersInternals.freeze(record.headers);
    record.body = null;
    return response;
  }

  function fetchedResponse(urlList, answer) {
    const status = answer[0];
    if (!(status >= 200 && status <= 599)) {
      throw typeError(`fetch failed: the status ${status} is not one a response may have.`);
    }
    const response = new Response(CONSTRUCT);
    const record = responseRecord(response);
    record.type = "basic";
    record.urlList = copyList(urlList);
    record.status = status;
    record.statusText = isReasonPhrase(answer[1]) ? answer[1] : "";
    const flat = answer[2];
    const pairs = [];
    for (let i = 0; i + 1 < flat.length; i += 2) pairs[pairs.length] = [flat[i], flat[i + 1]];
    fillHeaders(record.headers, pairs);
    headersInternals.freeze(record.headers);
    record.body = isNullBodyStatus(status) ? null : newBody(answer[3], null);
    return response;
  }
  defineGlobalOperation("fetch", fetch);

  // ---- A host serving a standard fetch handler ------------------------------------------------

  // A request from a host's parts: its headers (name, value, ...: names lowercase, values
  // byte strings, as an HTTP server gives them) taken as the list, its body's bytes the body's
  // own. No check is repeated and no signal made until asked for.
  function hostRequest(method, url, headers, body) {
    const record = {
      method,
      url,
      headers: headersInternals.create(),
      body: hostBody(body),
      signal: undefined,
      mode: "cors",
      credentials: "same-origin",
      cache: "default",
      redirect: "follow",
      integrity: "",
      keepalive: false,
      referrer: "about:client",
      referrerPolicy: "",
      duplex: "half",
    };
    headersInternals.fill(record.headers, headers);
    return new Request(CONSTRUCT, record);
  }

  // A host's request body: none, its bytes, or its source to read when asked.
  function hostBody(body) {
    if (body === null || body === undefined) return null;
    if (ArrayBufferIsView(body)) return newBody(body, null);
    const incoming = newBody(null, null);
    incoming.incoming = body;
    return incoming;
  }

  // A response as its parts: `[status, headers, body]`, the headers' list joined in one
  // string, `name\nvalue\n...` (`runtime_web::fetch_handler::ResponseHeaders`), the body null,
  // its bytes (a body not made a stream: `answerBytes`) or a sink the host reads the body's
  // stream from, forwarded chunk by chunk. A network error (status 0) is the host's to refuse.
  function answerOf(response) {
    if (!isResponse(response)) {
      throw typeError("The handler's fetch did not resolve to a Response.");
    }
    const record = responseRecord(response);
    const headers = joinList(headersInternals.list(record.headers));
    const body = record.body;
    if (body === null) return [record.status, headers, null];
    if (body.stream === null && body.incoming === null && !body.used) {
      const source = body.source;
      body.used = true;
      body.source = null;
      return [record.status, headers, answerBytes(source)];
    }
    if (bodyUsed(body)) throw typeError("The handler's Response's body has already been read.");
    const stream = bodyStream(body);
    if (streams.isLocked(stream)) throw typeError("The handler's Response's body is locked.");
    // The host gave up on this call (it timed out, its client went away): a sink would wait
    // for good for a reader, holding the stream and its chunks.
    if (op_web_answer_abandoned()) {
      streams.cancel(stream);
      return [record.status, headers, null];
    }
    const sink = op_web_sink_new();
    streams.forward(
      stream,
      (chunk) => sinkWrite(sink, chunk),
      (failed) => sinkClose(sink, failed),
    );
    return [record.status, headers, sink];
  }

  // `list` joined by LF: concatenated, which costs less than `join` for a response's few
  // headers (the host reads the pieces in one pass).
  function joinList(list) {
    let joined = list.length === 0 ? "" : list[0];
    for (let i = 1; i < list.length; i++) joined = `${joined}\n${list[i]}`;
    return joined;
  }

  // Hands `chunk` to the host: true once it took it all, false when it stopped reading, or a
  // promise of either when it must make room first.
  function sinkWrite(sink, chunk) {
    const left = op_web_sink_write(sink, chunk, 0);
    if (left <= 0) return left === 0;
    return sinkWriteRest(sink, chunk, TypedArrayByteLength(chunk) - left);
  }

  async function sinkWriteRest(sink, chunk, offset) {
    for (;;) {
      if (!(await op_web_sink_ready(sink))) return false;
      const left = op_web_sink_write(sink, chunk, offset);
      if (left <= 0) return left === 0;
      offset = TypedArrayByteLength(chunk) - left;
    }
  }

  // Tells the host the stream ended (or failed), once it has room to be told.
  function sinkClose(sink, failed) {
    if (op_web_sink_close(sink, failed) !== 0) return;
    PromisePrototypeThen(op_web_sink_ready(sink), (ready) => {
      if (ready) sinkClose(sink, failed);
    });
  }

  // A request's `ctx`, as workerd's ExecutionContext: work the handler hands over outlives
  // its response, and its failure is reported. Its members are its class's, so a request
  // makes one object, no functions.
  class ExecutionContext {
    waitUntil(promise) {
      PromisePrototypeThen(PromiseResolve(promise), undefined, reportError);
    }

    passThroughOnException() {}
  }

  // What the runtime keeps (`runtime_web::fetch_handler`): `bind(namespace)` gives the
  // function a host calls per request, `serve(method, url, headers, body)`, which calls the
  // module's `default.fetch(request, env, ctx)` and answers as `answerOf` does.
  return function bind(namespace) {
    const handler = namespace.default;
    const fetch = handler === null || handler === undefined ? undefined : handler.fetch;
    if (typeof fetch !== "function") {
      throw typeError("The module's default export has no fetch(request, env, ctx).");
    }
    const env = {};
    return function serve(method, url, headers, body) {
      const request = hostRequest(method, url, headers, body);
      const answered = ReflectApply(fetch, handler, [request, env, new ExecutionContext()]);
      // A Response returned as it is needs no turn of the microtask queue. A promise (an
      // async handler's) is no Response: not brand-checked, which costs more for a miss.
      if (!op_web_is_promise(answered)) {
        if (isResponse(answered)) return answerOf(answered);
      } else if (ObjectGetPrototypeOf(answered) === PromisePrototype) {
        // An async handler's Response, most often there already: read now, with no
        // reaction and no turn of the microtask queue. (A subclass's promise goes through
        // its own `then`, as `PromiseResolve` takes it.)
        const value = op_web_fulfilled_value(answered);
        if (value !== answered && isResponse(value)) return answerOf(value);
      }
      return PromisePrototypeThen(PromiseResolve(answered), answerOf);
    };
  };
})
