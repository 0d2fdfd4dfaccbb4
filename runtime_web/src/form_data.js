// `FormData` (the XMLHttpRequest standard's), and what bodies do with it (`fetch.js` through
// `internals.formData`): serialized as `multipart/form-data`, parsed back from it or from
// `application/x-www-form-urlencoded`. Installed after the files and URL groups.
(function (internalOps, internals) {
  "use strict";
  const { configureInterface, defineGlobal, uncurryThis, webidl, pairIterator } = internals;
  const { PAIR_KEYS, PAIR_VALUES, PAIR_ENTRIES, pairListSet, pairListDelete } = internals;
  const { isBlob, isFile, fileName, createFile, blobBytes } = internals;
  const { requiredArguments, toUSVString } = webidl;
  const TypeErrorCtor = TypeError;
  const BlobCtor = Blob;
  const Uint8ArrayCtor = Uint8Array;
  const URLSearchParamsCtor = URLSearchParams;
  const SearchParamsForEach = uncurryThis(URLSearchParams.prototype.forEach);
  const MathRandom = Math.random;
  const MathFloor = Math.floor;
  const StringToLowerCase = uncurryThis(String.prototype.toLowerCase);
  const StringIndexOf = uncurryThis(String.prototype.indexOf);
  const StringSlice = uncurryThis(String.prototype.slice);
  const StringTrim = uncurryThis(String.prototype.trim);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const encode = uncurryThis(TextEncoder.prototype.encode);
  const decode = uncurryThis(TextDecoder.prototype.decode);
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const TypedArraySubarray = uncurryThis(TypedArrayPrototype.subarray);
  const TypedArrayLength = uncurryThis(
    Object.getOwnPropertyDescriptor(TypedArrayPrototype, "length").get,
  );
  const ReflectApply = Reflect.apply;
  const { blobType } = internals;

  // An entry's value: a string, or a File (a Blob made one, named as the spec says).
  function entryValue(value, filename, argumentCount) {
    if (isBlob(value)) {
      const name =
        filename !== undefined
          ? toUSVString(filename)
          : isFile(value)
            ? fileName(value)
            : "blob";
      return isFile(value) && filename === undefined ? value : createFile(value, name);
    }
    if (argumentCount > 2) {
      throw new TypeErrorCtor(
        "Failed to execute 'append' on 'FormData': parameter 2 is not of type 'Blob'.",
      );
    }
    return toUSVString(value);
  }

  class FormData {
    // Names and values, alternating.
    #list = [];

    constructor(form = undefined, submitter = undefined) {
      if (form !== undefined) {
        throw new TypeErrorCtor(
          "Failed to construct 'FormData': there is no form element here (only FormData() is).",
        );
      }
      void submitter;
    }

    append(name, value, filename = undefined) {
      requiredArguments(arguments.length, 2, "Failed to execute 'append' on 'FormData'");
      const list = this.#list;
      name = toUSVString(name);
      list[list.length] = name;
      list[list.length] = entryValue(value, filename, arguments.length);
    }

    delete(name) {
      requiredArguments(arguments.length, 1, "Failed to execute 'delete' on 'FormData'");
      name = toUSVString(name);
      pairListDelete(this.#list, name);
    }

    get(name) {
      requiredArguments(arguments.length, 1, "Failed to execute 'get' on 'FormData'");
      name = toUSVString(name);
      const list = this.#list;
      for (let i = 0; i < list.length; i += 2) if (list[i] === name) return list[i + 1];
      return null;
    }

    getAll(name) {
      requiredArguments(arguments.length, 1, "Failed to execute 'getAll' on 'FormData'");
      name = toUSVString(name);
      const list = this.#list;
      const all = [];
      for (let i = 0; i < list.length; i += 2) if (list[i] === name) all[all.length] = list[i + 1];
      return all;
    }

    has(name) {
      requiredArguments(arguments.length, 1, "Failed to execute 'has' on 'FormData'");
      name = toUSVString(name);
      const list = this.#list;
      for (let i = 0; i < list.length; i += 2) if (list[i] === name) return true;
      return false;
    }

    set(name, value, filename = undefined) {
      requiredArguments(arguments.length, 2, "Failed to execute 'set' on 'FormData'");
      name = toUSVString(name);
      pairListSet(this.#list, name, entryValue(value, filename, arguments.length));
    }

    forEach(callback, thisArg = undefined) {
      requiredArguments(arguments.length, 1, "Failed to execute 'forEach' on 'FormData'");
      if (typeof callback !== "function") {
        throw new TypeErrorCtor("Failed to execute 'forEach' on 'FormData': the callback is not a function.");
      }
      for (let i = 0; i < this.#list.length; i += 2) {
        const list = this.#list;
        ReflectApply(callback, thisArg, [list[i + 1], list[i], this]);
      }
    }

    entries() {
      return newIterator(this, PAIR_ENTRIES);
    }

    keys() {
      return newIterator(this, PAIR_KEYS);
    }

    values() {
      return newIterator(this, PAIR_VALUES);
    }

    static list(formData) {
      return formData.#list;
    }

    static isFormData(value) {
      return value !== null && typeof value === "object" && #list in value;
    }
  }
  const formDataList = FormData.list;
  const isFormData = FormData.isFormData;
  delete FormData.list;
  delete FormData.isFormData;
  const newIterator = pairIterator("FormData", (formData) => formDataList(formData));

  // ---- multipart/form-data ---------------------------------------------------------------------

  // A name or filename in quotes: LF, CR and `"` percent-encoded. (Loops, not a regular
  // expression's replace: a tenant can patch RegExp.prototype[Symbol.replace].)
  function escapeQuoted(text) {
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      out += c === "\n" ? "%0A" : c === "\r" ? "%0D" : c === '"' ? "%22" : c;
    }
    return out;
  }

  // Every line break as CRLF.
  function crlf(text) {
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\r") {
        out += "\r\n";
        if (text[i + 1] === "\n") i++;
      } else {
        out += c === "\n" ? "\r\n" : c;
      }
    }
    return out;
  }

  // The body of `formData`: a Blob of its parts, and its Content-Type (a fresh boundary).
  function serialize(formData) {
    let boundary = "----opwire-formdata-";
    for (let i = 0; i < 24; i++) boundary += MathFloor(MathRandom() * 10);
    const parts = [];
    const list = formDataList(formData);
    for (let i = 0; i < list.length; i += 2) {
      const name = escapeQuoted(crlf(list[i]));
      const value = list[i + 1];
      if (typeof value === "string") {
        parts[parts.length] =
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${crlf(value)}\r\n`;
      } else {
        const type = blobType(value) === "" ? "application/octet-stream" : blobType(value);
        parts[parts.length] =
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${escapeQuoted(fileName(value))}"\r\nContent-Type: ${type}\r\n\r\n`;
        parts[parts.length] = value;
        parts[parts.length] = "\r\n";
      }
    }
    parts[parts.length] = `--${boundary}--\r\n`;
    return [new BlobCtor(parts), `multipart/form-data; boundary=${boundary}`];
  }

  // A parameter of a Content-Type or a Content-Disposition (`boundary`, `name`, `filename`).
  function parameter(header, name) {
    const lower = StringToLowerCase(header);
    let at = 0;
    for (;;) {
      const found = StringIndexOf(lower, `${name}=`, at);
      if (found === -1) return null;
      const before = found === 0 ? ";" : lower[found - 1];
      at = found + name.length + 1;
      if (before !== ";" && before !== " " && before !== "\t") continue;
      if (header[at] === '"') {
        const end = StringIndexOf(header, '"', at + 1);
        if (end === -1) return null;
        return StringSlice(header, at + 1, end);
      }
      const end = StringIndexOf(header, ";", at);
      return StringTrim(StringSlice(header, at, end === -1 ? header.length : end));
    }
  }

  function unescapeQuoted(text) {
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const code = text[i] === "%" ? StringSlice(text, i, i + 3) : "";
      if (code === "%0A" || code === "%0D" || code === "%22") {
        out += code === "%0A" ? "\n" : code === "%0D" ? "\r" : '"';
        i += 2;
      } else {
        out += text[i];
      }
    }
    return out;
  }

  // Where `needle` (bytes) starts in `bytes` at or after `from`, or -1.
  function indexOfBytes(bytes, needle, from) {
    const needleLength = TypedArrayLength(needle);
    const last = TypedArrayLength(bytes) - needleLength;
    const first = needle[0];
    outer: for (let i = from; i <= last; i++) {
      if (bytes[i] !== first) continue;
      for (let j = 1; j < needleLength; j++) if (bytes[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  function invalid() {
    return new TypeErrorCtor("The body is not valid multipart/form-data.");
  }

  // `multipart/form-data` bytes as a FormData (the body's `formData()`).
  function parseMultipart(bytes, contentType) {
    const boundary = parameter(contentType, "boundary");
    if (boundary === null || boundary === "") throw invalid();
    const delimiter = encode(encoder, `--${boundary}`);
    const formData = new FormData();
    const list = formDataList(formData);
    let at = indexOfBytes(bytes, delimiter, 0);
    if (at === -1) throw invalid();
    for (;;) {
      at += TypedArrayLength(delimiter);
      // `--` after a delimiter ends the body.
      if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) return formData;
      if (bytes[at] !== 0x0d || bytes[at + 1] !== 0x0a) throw invalid();
      at += 2;
      const headersEnd = indexOfBytes(bytes, CRLFCRLF, at);
      if (headersEnd === -1) throw invalid();
      const headers = decode(decoder, TypedArraySubarray(bytes, at, headersEnd));
      let disposition = null;
      let type = "";
      let start = 0;
      while (start < headers.length) {
        let end = StringIndexOf(headers, "\r\n", start);
        if (end === -1) end = headers.length;
        const line = StringSlice(headers, start, end);
        start = end + 2;
        const colon = StringIndexOf(line, ":");
        if (colon === -1) continue;
        const field = StringToLowerCase(StringTrim(StringSlice(line, 0, colon)));
        const value = StringTrim(StringSlice(line, colon + 1));
        if (field === "content-disposition") disposition = value;
        else if (field === "content-type") type = value;
      }
      if (disposition === null) throw invalid();
      const name = parameter(disposition, "name");
      if (name === null) throw invalid();
      const contentStart = headersEnd + 4;
      const next = indexOfBytes(bytes, delimiter, contentStart);
      // The content ends with the CRLF before the next delimiter.
      if (next === -1 || next < contentStart + 2 || bytes[next - 2] !== 0x0d || bytes[next - 1] !== 0x0a) {
        throw invalid();
      }
      const content = TypedArraySubarray(bytes, contentStart, next - 2);
      const filename = parameter(disposition, "filename");
      list[list.length] = unescapeQuoted(name);
      if (filename === null) {
        list[list.length] = decode(decoder, content);
      } else {
        const blob = new BlobCtor([content], { type });
        list[list.length] = createFile(blob, unescapeQuoted(filename));
      }
      at = next;
    }
  }
  const CRLFCRLF = new Uint8ArrayCtor([0x0d, 0x0a, 0x0d, 0x0a]);

  // `application/x-www-form-urlencoded` text as a FormData.
  function parseUrlencoded(text) {
    const formData = new FormData();
    const list = formDataList(formData);
    SearchParamsForEach(new URLSearchParamsCtor(text), (value, name) => {
      list[list.length] = name;
      list[list.length] = value;
    });
    return formData;
  }

  configureInterface(FormData);
  Object.defineProperty(FormData.prototype, Symbol.iterator, {
    __proto__: null,
    value: FormData.prototype.entries,
    writable: true,
    configurable: true,
  });
  defineGlobal("FormData", FormData);

  internals.formData = {
    __proto__: null,
    isFormData,
    serialize,
    parseMultipart,
    parseUrlencoded,
  };
  void blobBytes;
})
