// Blob and File (W3C File API).
//
// A blob's bytes live in immutable parts (ArrayBuffers that no tenant code can reach). A
// blob is a window [start, start + size) over a table of entries, each entry a range of one
// part; a slice shares its parent's table and narrows the window, so slices of slices stay
// flat and copy nothing. Construction copies the tenant's buffers once; reading copies the
// window once into the result.
(function (internalOps, internals) {
  "use strict";

  const { op_web_utf8_encode, op_web_utf8_decode } = internalOps;
  const { configureInterface, defineGlobal } = internals;

  // Intrinsics are captured before any tenant code runs: tenants may patch them later.
  const { apply: ReflectApply, construct: ReflectConstruct } = Reflect;
  const {
    getOwnPropertyDescriptor: ObjectGetOwnPropertyDescriptor,
    getPrototypeOf: ObjectGetPrototypeOf,
    setPrototypeOf: ObjectSetPrototypeOf,
  } = Object;
  const { floor: MathFloor, trunc: MathTrunc, min: MathMin, max: MathMax } = Math;
  const NumberIsFinite = Number.isFinite;
  const DateNow = Date.now;
  const PromiseCtor = Promise;
  const TypeErrorCtor = TypeError;
  const ArrayBufferCtor = ArrayBuffer;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const SymbolIterator = Symbol.iterator;
  const SymbolToStringTag = Symbol.toStringTag;

  const getterOf = (proto, key) => {
    const desc = ObjectGetOwnPropertyDescriptor(proto, key);
    return desc === undefined ? undefined : desc.get;
  };
  const ArrayBufferPrototypeGetByteLength = getterOf(ArrayBuffer.prototype, "byteLength");
  const ArrayBufferPrototypeGetResizable = getterOf(ArrayBuffer.prototype, "resizable");
  const SharedArrayBufferPrototypeGetByteLength =
    typeof SharedArrayBuffer === "function"
      ? getterOf(SharedArrayBuffer.prototype, "byteLength")
      : undefined;
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayPrototypeGetBuffer = getterOf(TypedArrayPrototype, "buffer");
  const TypedArrayPrototypeGetByteOffset = getterOf(TypedArrayPrototype, "byteOffset");
  const TypedArrayPrototypeGetByteLength = getterOf(TypedArrayPrototype, "byteLength");
  const TypedArrayPrototypeGetToStringTag = getterOf(TypedArrayPrototype, SymbolToStringTag);
  const TypedArrayPrototypeSet = TypedArrayPrototype.set;
  const DataViewPrototypeGetBuffer = getterOf(DataView.prototype, "buffer");
  const DataViewPrototypeGetByteOffset = getterOf(DataView.prototype, "byteOffset");
  const DataViewPrototypeGetByteLength = getterOf(DataView.prototype, "byteLength");
  const StringPrototypeCharCodeAt = String.prototype.charCodeAt;
  const StringPrototypeIndexOf = String.prototype.indexOf;
  const StringPrototypeSlice = String.prototype.slice;
  const StringPrototypeToLowerCase = String.prototype.toLowerCase;
  const StringPrototypeIsWellFormed = String.prototype.isWellFormed;
  const StringPrototypeToWellFormed = String.prototype.toWellFormed;

  // Pieces shorter than this are copied into a shared run rather than tracked as entries
  // of their own, so a table never holds many more entries than its bytes justify.
  const SMALL_PIECE = 1024;
  // A slice covering at most this many entries gets a table of its own, so that it keeps
  // alive only the parts it shows; a wider slice shares its parent's table and copies nothing.
  const COMPACT_SLICE_ENTRIES = 8;
  // Pending text is encoded once it is this long: bounds the rope and keeps the text
  // under the engine's string length limit however many strings are given.
  const TEXT_FLUSH_LENGTH = 1 << 24;

  // Arrays without a prototype: writing an index never reaches a setter a tenant put on
  // Array.prototype or Object.prototype.
  const newList = () => ObjectSetPrototypeOf([], null);

  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

  const charCodeAt = (s, i) => ReflectApply(StringPrototypeCharCodeAt, s, [i]);
  const indexOf = (s, search, from) => ReflectApply(StringPrototypeIndexOf, s, [search, from]);
  const stringSlice = (s, from, to) => ReflectApply(StringPrototypeSlice, s, [from, to]);

  function toWellFormed(s) {
    if (StringPrototypeIsWellFormed !== undefined) {
      return ReflectApply(StringPrototypeIsWellFormed, s, [])
        ? s
        : ReflectApply(StringPrototypeToWellFormed, s, []);
    }
    // Engines without String.prototype.toWellFormed: replace lone surrogates by hand.
    let out = "";
    let from = 0;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = charCodeAt(s, i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < n) {
        const d = charCodeAt(s, i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      out += stringSlice(s, from, i) + "\ufffd";
      from = i + 1;
    }
    return from === 0 ? s : out + stringSlice(s, from, n);
  }

  // WebIDL USVString: ToString, which throws for symbols, then lone surrogates replaced.
  const toUSVString = (v) => toWellFormed(`${v}`);

  // WebIDL [Clamp] long long.
  function toClampedLongLong(v) {
    let x = +v;
    if (x !== x) return 0;
    if (x > 9007199254740991) x = 9007199254740991;
    if (x < -9007199254740991) x = -9007199254740991;
    let f = MathFloor(x);
    const d = x - f;
    if (d > 0.5 || (d === 0.5 && f % 2 !== 0)) f += 1;
    return f === 0 ? 0 : f;
  }

  // WebIDL long long (no [Clamp], no [EnforceRange]): wraps modulo 2^64.
  function toLongLong(v) {
    let x = +v;
    if (!NumberIsFinite(x)) return 0;
    x = MathTrunc(x);
    if (x >= -9007199254740991 && x <= 9007199254740991) return x === 0 ? 0 : x;
    x -= MathFloor(x / 18446744073709551616) * 18446744073709551616;
    if (x >= 9223372036854775808) x -= 18446744073709551616;
    return x;
  }

  // The File API's type rule: "" when any character is outside U+0020..U+007E, else ASCII
  // lowercase (toLowerCase is ASCII lowercasing on such a string).
  function normalizeType(t) {
    const n = t.length;
    for (let i = 0; i < n; i++) {
      const c = charCodeAt(t, i);
      if (c < 0x20 || c > 0x7e) return "";
    }
    return ReflectApply(StringPrototypeToLowerCase, t, []);
  }

  // "Convert line endings to native": CRLF and lone CR become LF, the native ending here.
  function toNativeLineEndings(s) {
    let i = indexOf(s, "\r", 0);
    if (i === -1) return s;
    let out = "";
    let from = 0;
    const n = s.length;
    while (i !== -1) {
      out += stringSlice(s, from, i) + "\n";
      from = i + 1;
      if (from < n && charCodeAt(s, from) === 0x0a) from++;
      i = indexOf(s, "\r", from);
    }
    return out + stringSlice(s, from, n);
  }

  // ----- buffer sources -----

  function isArrayBuffer(v) {
    try {
      ReflectApply(ArrayBufferPrototypeGetByteLength, v, []);
      return true;
    } catch {
      return false;
    }
  }

  function isSharedArrayBuffer(v) {
    if (SharedArrayBufferPrototypeGetByteLength === undefined) return false;
    try {
      ReflectApply(SharedArrayBufferPrototypeGetByteLength, v, []);
      return true;
    } catch {
      return false;
    }
  }

  const isTypedArray = (v) => ReflectApply(TypedArrayPrototypeGetToStringTag, v, []) !== undefined;

  function viewBuffer(view) {
    return isTypedArray(view)
      ? ReflectApply(TypedArrayPrototypeGetBuffer, view, [])
      : ReflectApply(DataViewPrototypeGetBuffer, view, []);
  }

  // BufferSource without [AllowShared] or [AllowResizable] refuses shared and resizable
  // buffers. `buffer` is an ArrayBuffer or a SharedArrayBuffer.
  function checkBuffer(buffer, prefix) {
    if (!isArrayBuffer(buffer)) {
      throw new TypeErrorCtor(`${prefix}: The provided buffer source must not be shared.`);
    }
    const resizable =
      ArrayBufferPrototypeGetResizable !== undefined &&
      ReflectApply(ArrayBufferPrototypeGetResizable, buffer, []);
    if (resizable) {
      throw new TypeErrorCtor(`${prefix}: The provided buffer source must not be resizable.`);
    }
  }

  // ----- tables -----
  //
  // A table is one flat list: for each entry i, at 3i the offset where the entry begins in
  // the table's bytes, at 3i+1 its part (an ArrayBuffer), at 3i+2 its byte offset in the
  // part; the last element (index 3n) is the table's size. Entries are never empty.

  const newTable = () => {
    const table = newList();
    table[0] = 0;
    return table;
  };
  const EMPTY_TABLE = newTable();

  const entryCount = (table) => (table.length - 1) / 3;
  const tableSize = (table) => table[table.length - 1];

  // The entry that holds byte `pos` (pos below the table's size).
  function findEntry(table, pos) {
    let lo = 0;
    let hi = entryCount(table) - 1;
    while (lo < hi) {
      const mid = lo + ((hi - lo + 1) >>> 1);
      if (table[3 * mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  function pushEntry(table, part, off, len) {
    const k = table.length - 1;
    const start = table[k];
    table[k + 1] = part;
    table[k + 2] = off;
    table[k + 3] = start + len;
  }

  // Builds a table from pieces in order. Small pieces gather in a run that is copied once
  // into a part of its own. Consecutive strings gather in `text`; short text joins the run's
  // `runText`, so that one encoding serves every short string of a run.
  function newBuilder() {
    return {
      __proto__: null,
      table: newTable(),
      // The run's pieces, three elements each: a part (or null for a range of the run's
      // encoded text), an offset in it, a length.
      run: newList(),
      runLength: 0,
      // Whether the run is a single piece that is immutable and ours, or text alone: then
      // it becomes an entry without a copy.
      runOwned: false,
      runOnlyText: true,
      runText: "",
      runTextBytes: 0,
      text: "",
    };
  }

  function runAdd(b, part, off, len, owned) {
    const run = b.run;
    const k = run.length;
    run[k] = part;
    run[k + 1] = off;
    run[k + 2] = len;
    b.runLength += len;
    b.runOwned = k === 0 && owned;
    if (part !== null) b.runOnlyText = false;
  }

  function flushRun(b) {
    const run = b.run;
    const k = run.length;
    if (k === 0) return;
    let textPart = null;
    let textOff = 0;
    if (b.runText !== "") {
      const bytes = op_web_utf8_encode(b.runText);
      if (ReflectApply(TypedArrayPrototypeGetByteLength, bytes, []) !== b.runTextBytes) {
        throw new TypeErrorCtor("Blob: UTF-8 length mismatch");
      }
      textPart = ReflectApply(TypedArrayPrototypeGetBuffer, bytes, []);
      textOff = ReflectApply(TypedArrayPrototypeGetByteOffset, bytes, []);
    }
    if (b.runOnlyText) {
      pushEntry(b.table, textPart, textOff, b.runLength);
    } else if (k === 3 && b.runOwned) {
      pushEntry(b.table, run[0], run[1], run[2]);
    } else {
      const part = new ArrayBufferCtor(b.runLength);
      const dest = new Uint8ArrayCtor(part);
      let pos = 0;
      for (let i = 0; i < k; i += 3) {
        const src = run[i];
        const len = run[i + 2];
        const source =
          src === null
            ? new Uint8ArrayCtor(textPart, textOff + run[i + 1], len)
            : new Uint8ArrayCtor(src, run[i + 1], len);
        ReflectApply(TypedArrayPrototypeSet, dest, [source, pos]);
        pos += len;
      }
      pushEntry(b.table, part, 0, b.runLength);
    }
    run.length = 0;
    b.runLength = 0;
    b.runOwned = false;
    b.runOnlyText = true;
    b.runText = "";
    b.runTextBytes = 0;
  }

  // Adds bytes that are immutable and ours (owned) or a tenant's (copied at flush).
  function addBytes(b, part, off, len, owned) {
    if (len === 0) return;
    if (len < SMALL_PIECE || !owned) {
      runAdd(b, part, off, len, owned);
    } else {
      flushRun(b);
      pushEntry(b.table, part, off, len);
    }
  }

  // UTF-8 length of a well-formed string.
  function utf8Length(s) {
    const n = s.length;
    let len = 0;
    for (let i = 0; i < n; i++) {
      const c = charCodeAt(s, i);
      if (c < 0x80) len += 1;
      else if (c < 0x800) len += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        len += 4;
        i++;
      } else len += 3;
    }
    return len;
  }

  function flushText(b) {
    const text = b.text;
    if (text === "") return;
    b.text = "";
    if (text.length < SMALL_PIECE) {
      const len = utf8Length(text);
      runAdd(b, null, b.runTextBytes, len, false);
      b.runText += text;
      b.runTextBytes += len;
      return;
    }
    const bytes = op_web_utf8_encode(text);
    addBytes(
      b,
      ReflectApply(TypedArrayPrototypeGetBuffer, bytes, []),
      ReflectApply(TypedArrayPrototypeGetByteOffset, bytes, []),
      ReflectApply(TypedArrayPrototypeGetByteLength, bytes, []),
      true,
    );
  }

  function addText(b, s) {
    if (s === "") return;
    b.text += s;
    if (b.text.length >= TEXT_FLUSH_LENGTH) flushText(b);
  }

  function addWindow(b, table, start, size) {
    if (size === 0) return;
    flushText(b);
    const end = start + size;
    let k = 3 * findEntry(table, start);
    let pos = start;
    while (pos < end) {
      const entryEnd = table[k + 3];
      const to = entryEnd < end ? entryEnd : end;
      addBytes(b, table[k + 1], table[k + 2] + (pos - table[k]), to - pos, true);
      pos = to;
      k += 3;
    }
  }

  function addBufferSource(b, source) {
    flushText(b);
    let part;
    let off = 0;
    let len;
    if (ArrayBufferIsView(source)) {
      if (isTypedArray(source)) {
        part = ReflectApply(TypedArrayPrototypeGetBuffer, source, []);
        off = ReflectApply(TypedArrayPrototypeGetByteOffset, source, []);
        len = ReflectApply(TypedArrayPrototypeGetByteLength, source, []);
      } else {
        part = ReflectApply(DataViewPrototypeGetBuffer, source, []);
        try {
          off = ReflectApply(DataViewPrototypeGetByteOffset, source, []);
          len = ReflectApply(DataViewPrototypeGetByteLength, source, []);
        } catch {
          // A DataView over a detached buffer holds no bytes.
          len = 0;
        }
      }
    } else {
      part = source;
      len = ReflectApply(ArrayBufferPrototypeGetByteLength, source, []);
    }
    addBytes(b, part, off, len, false);
  }

  function finishTable(b) {
    flushText(b);
    flushRun(b);
    return b.table.length === 1 ? EMPTY_TABLE : b.table;
  }

  // Copies a window of a table into a new ArrayBuffer.
  function copyWindow(table, start, size) {
    const result = new ArrayBufferCtor(size);
    if (size === 0) return result;
    const dest = new Uint8ArrayCtor(result);
    let k = 3 * findEntry(table, start);
    let pos = 0;
    while (pos < size) {
      const skip = start + pos - table[k];
      const len = MathMin(table[k + 3] - table[k] - skip, size - pos);
      ReflectApply(TypedArrayPrototypeSet, dest, [
        new Uint8ArrayCtor(table[k + 1], table[k + 2] + skip, len),
        pos,
      ]);
      pos += len;
      k += 3;
    }
    return result;
  }

  // The window's bytes for a reader that only reads them: a view when one entry holds
  // them all, else a copy.
  function readWindow(table, start, size) {
    if (size === 0) return new Uint8ArrayCtor(0);
    const k = 3 * findEntry(table, start);
    if (start + size <= table[k + 3]) {
      return new Uint8ArrayCtor(table[k + 1], table[k + 2] + (start - table[k]), size);
    }
    return new Uint8ArrayCtor(copyWindow(table, start, size));
  }

  // A slice's table: its parent's (shared, nothing copied) unless the slice covers few
  // entries. Leaves the slice's start in that table in sliceStart (no object per slice).
  let sliceStart = 0;
  function sliceTable(table, start, size) {
    sliceStart = 0;
    if (size === 0) return EMPTY_TABLE;
    if (start === 0 && size === tableSize(table)) return table;
    const first = findEntry(table, start);
    const last = findEntry(table, start + size - 1);
    if (last - first >= COMPACT_SLICE_ENTRIES) {
      sliceStart = start;
      return table;
    }
    const own = newTable();
    const end = start + size;
    let pos = start;
    for (let k = 3 * first; k <= 3 * last; k += 3) {
      const to = table[k + 3] < end ? table[k + 3] : end;
      pushEntry(own, table[k + 1], table[k + 2] + (pos - table[k]), to - pos);
      pos = to;
    }
    return own;
  }

  // ----- WebIDL conversions -----

  // sequence<BlobPart>: the iterable protocol as WebIDL runs it, each element converted to
  // the union (Blob or BufferSource or USVString) as it comes.
  function convertBlobParts(value, prefix, optional) {
    const items = newList();
    if (value === undefined && optional) return items;
    if (!isObject(value)) {
      throw new TypeErrorCtor(
        `${prefix}: The provided value cannot be converted to a sequence.`,
      );
    }
    const method = value[SymbolIterator];
    if (method === undefined || method === null) {
      throw new TypeErrorCtor(
        `${prefix}: The object must have a callable @@iterator property.`,
      );
    }
    if (typeof method !== "function") {
      throw new TypeErrorCtor(`${prefix}: The object's @@iterator property is not callable.`);
    }
    const iterator = ReflectApply(method, value, []);
    if (!isObject(iterator)) {
      throw new TypeErrorCtor(`${prefix}: The iterator is not an object.`);
    }
    const next = iterator.next;
    for (;;) {
      const result = ReflectApply(next, iterator, []);
      if (!isObject(result)) {
        throw new TypeErrorCtor(`${prefix}: The iterator result is not an object.`);
      }
      if (result.done) break;
      items[items.length] = convertBlobPart(result.value, prefix);
    }
    return items;
  }

  // Returns the Blob, the ArrayBuffer or view (bytes copied later, when the parts are
  // processed, as the spec does), or the string.
  function convertBlobPart(v, prefix) {
    if (isObject(v)) {
      if (isBlob(v)) return v;
      // Views first: the buffer checks below cost a caught exception for any other object.
      if (ArrayBufferIsView(v)) {
        checkBuffer(viewBuffer(v), prefix);
        return v;
      }
      if (typeof v !== "function") {
        if (isArrayBuffer(v)) {
          checkBuffer(v, prefix);
          return v;
        }
        if (isSharedArrayBuffer(v)) {
          throw new TypeErrorCtor(`${prefix}: The provided buffer source must not be shared.`);
        }
      }
    }
    return toUSVString(v);
  }

  // BlobPropertyBag, and FilePropertyBag when `file`: members in lexicographic order,
  // inherited ones first.
  function convertPropertyBag(options, prefix, file) {
    const bag = { __proto__: null, native: false, type: "", lastModified: undefined };
    if (options === undefined || options === null) return bag;
    if (!isObject(options)) {
      const dictionary = file ? "FilePropertyBag" : "BlobPropertyBag";
      throw new TypeErrorCtor(`${prefix}: The provided value is not of type '${dictionary}'.`);
    }
    const endings = options.endings;
    if (endings !== undefined) {
      const s = `${endings}`;
      if (s === "native") {
        bag.native = true;
      } else if (s !== "transparent") {
        throw new TypeErrorCtor(
          `${prefix}: The provided value is not a valid enum value of type EndingType.`,
        );
      }
    }
    const type = options.type;
    if (type !== undefined) bag.type = `${type}`;
    if (file) {
      const lastModified = options.lastModified;
      if (lastModified !== undefined) bag.lastModified = toLongLong(lastModified);
    }
    return bag;
  }

  // "Process blob parts", once every argument is converted.
  function processParts(items, native) {
    const b = newBuilder();
    const n = items.length;
    for (let i = 0; i < n; i++) {
      const item = items[i];
      if (typeof item === "string") {
        addText(b, native ? toNativeLineEndings(item) : item);
      } else if (isBlob(item)) {
        addWindow(b, blobTable(item), blobStart(item), blobSize(item));
      } else {
        addBufferSource(b, item);
      }
    }
    return finishTable(b);
  }

  const resolved = (value) => new PromiseCtor((resolve) => resolve(value));
  const rejected = (error) => new PromiseCtor((resolve, reject) => reject(error));

  const illegal = (member, iface) =>
    new TypeErrorCtor(`Failed to execute '${member}' on '${iface}': Illegal invocation`);
  const illegalGet = (member, iface) =>
    new TypeErrorCtor(
      `Failed to read the '${member}' property from '${iface}': Illegal invocation`,
    );

  // ----- interfaces -----

  // Filled by the classes' static blocks: private state read outside the class bodies.
  let isBlob;
  let blobTable;
  let blobStart;
  let blobSize;
  let blobType;
  let setBlobState;
  let isFile;
  let fileName;
  let fileLastModified;
  let setFileState;

  class Blob {
    #table = EMPTY_TABLE;
    #start = 0;
    #size = 0;
    #type = "";

    static {
      isBlob = (v) => isObject(v) && #table in v;
      blobTable = (blob) => blob.#table;
      blobStart = (blob) => blob.#start;
      blobSize = (blob) => blob.#size;
      blobType = (blob) => blob.#type;
      setBlobState = (blob, table, start, size, type) => {
        blob.#table = table;
        blob.#start = start;
        blob.#size = size;
        blob.#type = type;
      };
    }

    constructor(blobParts = undefined, options = undefined) {
      // Blob() with nothing to convert is the empty blob (and how File and internal
      // creation start one).
      if (blobParts === undefined && options === undefined) return;
      const prefix = "Failed to construct 'Blob'";
      const items = convertBlobParts(blobParts, prefix, true);
      const bag = convertPropertyBag(options, prefix, false);
      const table = processParts(items, bag.native);
      this.#table = table;
      this.#size = tableSize(table);
      this.#type = normalizeType(bag.type);
    }

    get size() {
      if (!isBlob(this)) throw illegalGet("size", "Blob");
      return this.#size;
    }

    get type() {
      if (!isBlob(this)) throw illegalGet("type", "Blob");
      return this.#type;
    }

    slice(start = undefined, end = undefined, contentType = undefined) {
      if (!isBlob(this)) throw illegal("slice", "Blob");
      const size = this.#size;
      let relativeStart = 0;
      let relativeEnd = size;
      if (start !== undefined) {
        const s = toClampedLongLong(start);
        relativeStart = s < 0 ? MathMax(size + s, 0) : MathMin(s, size);
      }
      if (end !== undefined) {
        const e = toClampedLongLong(end);
        relativeEnd = e < 0 ? MathMax(size + e, 0) : MathMin(e, size);
      }
      const type = contentType === undefined ? "" : normalizeType(`${contentType}`);
      const span = MathMax(relativeEnd - relativeStart, 0);
      const table = sliceTable(this.#table, this.#start + relativeStart, span);
      const blob = new Blob();
      setBlobState(blob, table, sliceStart, span, type);
      return blob;
    }

    text() {
      try {
        if (!isBlob(this)) throw illegal("text", "Blob");
        return resolved(op_web_utf8_decode(readWindow(this.#table, this.#start, this.#size)));
      } catch (error) {
        return rejected(error);
      }
    }

    arrayBuffer() {
      try {
        if (!isBlob(this)) throw illegal("arrayBuffer", "Blob");
        return resolved(copyWindow(this.#table, this.#start, this.#size));
      } catch (error) {
        return rejected(error);
      }
    }

    bytes() {
      try {
        if (!isBlob(this)) throw illegal("bytes", "Blob");
        return resolved(new Uint8ArrayCtor(copyWindow(this.#table, this.#start, this.#size)));
      } catch (error) {
        return rejected(error);
      }
    }
  }

  // File's own state lives in FileState's private fields, stamped onto a Blob object: File
  // cannot be a derived class, whose super() call would go through File's [[Prototype]],
  // which tenants can change.
  class Stamp {
    constructor(object) {
      return object;
    }
  }
  class FileState extends Stamp {
    #name = "";
    #lastModified = 0;

    constructor(object) {
      super(object);
    }

    static {
      isFile = (v) => isObject(v) && #name in v;
      fileName = (file) => file.#name;
      fileLastModified = (file) => file.#lastModified;
      setFileState = (file, name, lastModified) => {
        file.#name = name;
        file.#lastModified = lastModified;
      };
    }
  }

  // A File object for `newTarget` (File, or a tenant's subclass of it).
  function makeFile(newTarget, table, start, size, type, name, lastModified) {
    const file = ReflectConstruct(Blob, [], newTarget);
    setBlobState(file, table, start, size, type);
    new FileState(file);
    setFileState(file, name, lastModified);
    return file;
  }

  class File {
    constructor(fileBits, fileName, options = undefined) {
      const prefix = "Failed to construct 'File'";
      if (arguments.length < 2) {
        throw new TypeErrorCtor(
          `${prefix}: 2 arguments required, but only ${arguments.length} present.`,
        );
      }
      const items = convertBlobParts(fileBits, prefix, false);
      const name = toUSVString(fileName);
      const bag = convertPropertyBag(options, prefix, true);
      const table = processParts(items, bag.native);
      const lastModified = bag.lastModified === undefined ? DateNow() : bag.lastModified;
      const type = normalizeType(bag.type);
      return makeFile(new.target, table, 0, tableSize(table), type, name, lastModified);
    }

    get name() {
      if (!isFile(this)) throw illegalGet("name", "File");
      return fileName(this);
    }

    get lastModified() {
      if (!isFile(this)) throw illegalGet("lastModified", "File");
      return fileLastModified(this);
    }

    get webkitRelativePath() {
      if (!isFile(this)) throw illegalGet("webkitRelativePath", "File");
      return "";
    }
  }
  // File inherits from Blob as WebIDL's "interface File : Blob" says.
  ObjectSetPrototypeOf(File, Blob);
  ObjectSetPrototypeOf(File.prototype, Blob.prototype);

  configureInterface(Blob);
  configureInterface(File);
  defineGlobal("Blob", Blob);
  defineGlobal("File", File);

  // For later groups (FormData, fetch bodies, structuredClone). None of these runs tenant
  // code.
  internals.Blob = Blob;
  internals.File = File;
  internals.isBlob = (v) => isBlob(v);
  internals.isFile = (v) => isFile(v);
  // A new Uint8Array of the blob's bytes (one copy).
  internals.blobBytes = (blob) => {
    if (!isBlob(blob)) throw new TypeErrorCtor("The provided value is not of type 'Blob'.");
    return new Uint8ArrayCtor(copyWindow(blobTable(blob), blobStart(blob), blobSize(blob)));
  };
  internals.blobSize = (blob) => blobSize(blob);
  internals.blobType = (blob) => blobType(blob);
  internals.fileName = (file) => fileName(file);
  internals.fileLastModified = (file) => fileLastModified(file);
  // A Blob over `bytes` (a Uint8Array the caller gives up: it is kept, not copied, and must
  // never be written or exposed again), with `type` as given.
  internals.createBlob = (bytes, type = "") => {
    const len = ReflectApply(TypedArrayPrototypeGetByteLength, bytes, []);
    let table = EMPTY_TABLE;
    if (len !== 0) {
      table = newTable();
      pushEntry(
        table,
        ReflectApply(TypedArrayPrototypeGetBuffer, bytes, []),
        ReflectApply(TypedArrayPrototypeGetByteOffset, bytes, []),
        len,
      );
    }
    const blob = new Blob();
    setBlobState(blob, table, 0, len, type);
    return blob;
  };
  // A File showing the same bytes and type as `blob` (FormData's "create an entry").
  internals.createFile = (blob, name, lastModified = DateNow()) => {
    const table = blobTable(blob);
    const start = blobStart(blob);
    return makeFile(File, table, start, blobSize(blob), blobType(blob), name, lastModified);
  };
});
