// `Headers` (the Fetch standard): a header list of lowercase names and byte-string values,
// with a guard. Iteration is the spec's "sort and combine", made once per change and kept.
// Guards: `immutable` refuses every change; the browser's forbidden names (`request`,
// `response`) are not applied, as deno and workerd apply none: a server sets `Host` and
// `Set-Cookie`.
(function (internalOps, internals) {
  "use strict";
  const { op_web_is_proxy } = internalOps;
  const { configureInterface, defineGlobal } = internals;
  const { apply: ReflectApply, ownKeys: ReflectOwnKeys } = Reflect;
  const {
    defineProperty: ObjectDefineProperty,
    keys: ObjectKeys,
    getOwnPropertySymbols: ObjectGetOwnPropertySymbols,
  } = Object;
  const TypeErrorCtor = TypeError;
  const SymbolIterator = Symbol.iterator;
  const {
    toLowerCase: StringToLowerCase,
    slice: StringSlice,
    charCodeAt: StringCharCodeAt,
    indexOf: StringIndexOf,
  } = String.prototype;
  const { push: ArrayPush, sort: ArraySort } = Array.prototype;
  const { uncurryThis, readPairs, pairListSet, pairListDelete } = internals;
  const JSONStringify = JSON.stringify;

  const push = (array, value) => ReflectApply(ArrayPush, array, [value]);
  const indexOf = uncurryThis(StringIndexOf);
  const sliceOf = uncurryThis(StringSlice);

  // A host's request headers come packed in one string, "\nname\rvalue\nname\rvalue" (no
  // name or value of an HTTP request holds a CR or LF): `get` and `has` read them there, and
  // anything else splits them into the list first (`#pairs`). A handler that reads a header
  // or two makes no string but the values it gets.
  const PAIR = "\n";
  const VALUE = "\r";

  function unpack(packed) {
    const list = [];
    let from = 1;
    while (from < packed.length) {
      const value = indexOf(packed, VALUE, from);
      let end = indexOf(packed, PAIR, value);
      if (end === -1) end = packed.length;
      list[list.length] = sliceOf(packed, from, value);
      list[list.length] = sliceOf(packed, value + 1, end);
      from = end + 1;
    }
    return list;
  }

  // Where `name`'s next pair starts in `packed`, from `from` (-1 when none): a match of the
  // name that lies between a pair's start and its value.
  function packedFind(packed, name, from) {
    for (;;) {
      const at = indexOf(packed, name, from);
      if (at === -1) return -1;
      const end = at + name.length;
      if (charCodeAt(packed, at - 1) === 0x0a && charCodeAt(packed, end) === 0x0d) return at;
      from = at + 1;
    }
  }

  function packedGet(packed, name) {
    let found = null;
    let at = packedFind(packed, name, 0);
    while (at !== -1) {
      const start = at + name.length + 1;
      let end = indexOf(packed, PAIR, start);
      if (end === -1) end = packed.length;
      const value = sliceOf(packed, start, end);
      found = found === null ? value : `${found}, ${value}`;
      at = packedFind(packed, name, end);
    }
    return found;
  }

  const lower = (string) => ReflectApply(StringToLowerCase, string, []);
  const charCodeAt = uncurryThis(StringCharCodeAt);
  const isEnumerable = uncurryThis(Object.prototype.propertyIsEnumerable);
  const MapCtor = Map;
  const MapGet = uncurryThis(Map.prototype.get);
  const MapSet = uncurryThis(Map.prototype.set);
  const MapClear = uncurryThis(Map.prototype.clear);
  const MapSize = uncurryThis(Object.getOwnPropertyDescriptor(Map.prototype, "size").get);

  // Names and values checked lately, by the string given (a server's handler sets the same
  // few `content-type`s over and over): a hit costs one lookup instead of a pass over the
  // characters. Bounded: cleared when full.
  const CHECKED_MAX = 256;
  const checkedNames = new MapCtor();
  const checkedValues = new MapCtor();
  function remember(cache, key, value) {
    if (MapSize(cache) >= CHECKED_MAX) MapClear(cache);
    MapSet(cache, key, value);
  }

  // RFC 9110's token characters, by code.
  const TOKEN = new Uint8Array(128);
  for (const c of "!#$%&'*+-.^_`|~") TOKEN[ReflectApply(StringCharCodeAt, c, [0])] = 1;
  for (let c = 0x30; c <= 0x39; c++) TOKEN[c] = 1;
  for (let c = 0x41; c <= 0x5a; c++) TOKEN[c] = 1;
  for (let c = 0x61; c <= 0x7a; c++) TOKEN[c] = 1;

  function failure(member, why) {
    return new TypeErrorCtor(`Failed to execute '${member}' on 'Headers': ${why}`);
  }

  function requireArguments(count, needed, member) {
    if (count < needed) {
      throw failure(
        member,
        `${needed} argument${needed === 1 ? "" : "s"} required, but only ${count} present.`,
      );
    }
  }

  // A header name: WebIDL's ByteString (ToString, a symbol throws), a token, lowercased. One
  // pass, no allocation when it is lowercase already.
  function toName(value, member) {
    const name = typeof value === "string" ? value : `${value}`;
    return checkedOnce(checkedNames, name, checkName, member);
  }

  // What `check` made of `given`, from `memo` when it was checked lately.
  function checkedOnce(memo, given, check, member) {
    const checked = MapGet(memo, given);
    if (checked !== undefined) return checked;
    const result = check(given, member);
    remember(memo, given, result);
    return result;
  }

  function checkName(name, member) {
    const length = name.length;
    let upper = false;
    for (let i = 0; i < length; i++) {
      const c = charCodeAt(name, i);
      if (c >= 128 || TOKEN[c] === 0) return badName(name, member);
      if (c <= 0x5a && c >= 0x41) upper = true;
    }
    if (length === 0) return badName(name, member);
    return upper ? lower(name) : name;
  }

  function badName(name, member) {
    for (let i = 0; i < name.length; i++) {
      if (charCodeAt(name, i) > 0xff) {
        throw failure(member, `${JSONStringify(name)} is not a valid ByteString.`);
      }
    }
    throw failure(member, `Invalid name: ${JSONStringify(name)}.`);
  }

  // A header value: a ByteString, normalized (leading and trailing HTTP whitespace dropped),
  // with no NUL, LF or CR. One pass, no allocation when there is nothing to trim.
  function toValue(value, member) {
    const given = typeof value === "string" ? value : `${value}`;
    if (given.length > 64) return checkValue(given, member);
    return checkedOnce(checkedValues, given, checkValue, member);
  }

  function checkValue(given, member) {
    let string = given;
    const length = string.length;
    for (let i = 0; i < length; i++) {
      const c = charCodeAt(string, i);
      if (c > 0xff) throw failure(member, `${JSONStringify(string)} is not a valid ByteString.`);
      if (c === 0x00 || c === 0x0a || c === 0x0d) return valueWithBreaks(string, member);
    }
    if (length !== 0 && (isWhitespace(charCodeAt(string, 0)) || isWhitespace(charCodeAt(string, length - 1)))) {
      string = trim(string);
    }
    return string;
  }

  // LF and CR at the ends are trimmed; anywhere else, and NUL anywhere, refused.
  function valueWithBreaks(string, member) {
    const trimmed = trim(string);
    for (let i = 0; i < trimmed.length; i++) {
      const c = charCodeAt(trimmed, i);
      if (c > 0xff) throw failure(member, `${JSONStringify(string)} is not a valid ByteString.`);
      if (c === 0x00 || c === 0x0a || c === 0x0d) {
        throw failure(member, `Invalid value: ${JSONStringify(trimmed)}.`);
      }
    }
    return trimmed;
  }

  function isWhitespace(code) {
    return code === 0x09 || code === 0x0a || code === 0x0d || code === 0x20;
  }

  function trim(string) {
    let start = 0;
    let end = string.length;
    while (start < end && isWhitespace(charCodeAt(string, start))) start++;
    while (end > start && isWhitespace(charCodeAt(string, end - 1))) end--;
    return ReflectApply(StringSlice, string, [start, end]);
  }

  // `Headers.prototype.entries`, the original @@iterator of every Headers.
  let headersEntries;

  const GUARD_NONE = 0;
  const GUARD_IMMUTABLE = 1;
  // A token only this script has: `new Headers(INTERNAL)` makes an empty one for Request
  // and Response.
  const INTERNAL = {};

  class Headers {
    // Names (lowercase) and values, alternating, in the order they were added.
    #list = [];
    #guard = GUARD_NONE;
    // The sorted and combined view, made on first iteration after a change.
    #sorted = null;

    constructor(init = undefined) {
      if (init === INTERNAL || init === undefined) return;
      fillFromInit(this.#list, init);
    }

    // The list, split first if it came packed (see `unpack`).
    #pairs() {
      const list = this.#list;
      if (typeof list !== "string") return list;
      return (this.#list = unpack(list));
    }

    static list(headers) {
      return headers.#pairs();
    }

    static fill(headers, list) {
      headers.#list = list;
      headers.#sorted = null;
    }

    static freeze(headers) {
      headers.#guard = GUARD_IMMUTABLE;
    }

    #mutable(member) {
      if (this.#guard === GUARD_IMMUTABLE) throw failure(member, "Headers are immutable.");
      this.#sorted = null;
    }

    append(name, value) {
      requireArguments(arguments.length, 2, "append");
      name = toName(name, "append");
      value = toValue(value, "append");
      this.#mutable("append");
      const list = this.#pairs();
      push(list, name);
      push(list, value);
    }

    delete(name) {
      requireArguments(arguments.length, 1, "delete");
      name = toName(name, "delete");
      this.#mutable("delete");
      pairListDelete(this.#pairs(), name);
    }

    get(name) {
      requireArguments(arguments.length, 1, "get");
      name = toName(name, "get");
      if (typeof this.#list === "string") return packedGet(this.#list, name);
      const list = this.#pairs();
      let found = null;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] !== name) continue;
        found = found === null ? list[i + 1] : `${found}, ${list[i + 1]}`;
      }
      return found;
    }

    getSetCookie() {
      const list = this.#pairs();
      const cookies = [];
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === "set-cookie") push(cookies, list[i + 1]);
      }
      return cookies;
    }

    has(name) {
      requireArguments(arguments.length, 1, "has");
      name = toName(name, "has");
      if (typeof this.#list === "string") return packedFind(this.#list, name, 0) !== -1;
      const list = this.#pairs();
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name) return true;
      }
      return false;
    }

    set(name, value) {
      requireArguments(arguments.length, 2, "set");
      name = toName(name, "set");
      value = toValue(value, "set");
      this.#mutable("set");
      pairListSet(this.#pairs(), name, value);
    }

    forEach(callback, thisArg = undefined) {
      requireArguments(arguments.length, 1, "forEach");
      if (typeof callback !== "function") {
        throw failure("forEach", "The callback provided as parameter 1 is not a function.");
      }
      // Live, as pair iterators are: the callback may change the headers.
      for (let i = 0; ; i += 2) {
        const sorted = this.#sortedList();
        if (i >= sorted.length) break;
        ReflectApply(callback, thisArg, [sorted[i + 1], sorted[i], this]);
      }
    }

    entries() {
      return newIterator(this, KIND_ENTRIES);
    }

    keys() {
      return newIterator(this, KIND_KEYS);
    }

    values() {
      return newIterator(this, KIND_VALUES);
    }

    // "Sort and combine": names in byte order, each once with its values joined by ", "
    // (but `set-cookie`, once per value).
    #sortedList() {
      if (this.#sorted !== null) return this.#sorted;
      const list = this.#pairs();
      const order = [];
      for (let i = 0; i < list.length; i += 2) push(order, i);
      ReflectApply(ArraySort, order, [
        (a, b) => (list[a] < list[b] ? -1 : list[a] > list[b] ? 1 : a - b),
      ]);
      const sorted = [];
      for (let k = 0; k < order.length; k++) {
        const name = list[order[k]];
        const value = list[order[k] + 1];
        const last = sorted.length - 2;
        if (last >= 0 && sorted[last] === name && name !== "set-cookie") {
          sorted[last + 1] = `${sorted[last + 1]}, ${value}`;
        } else {
          push(sorted, name);
          push(sorted, value);
        }
      }
      this.#sorted = sorted;
      return sorted;
    }

    static sortedList(headers) {
      return headers.#sortedList();
    }

    static isHeaders(value) {
      return value !== null && typeof value === "object" && #list in value;
    }
  }
  const sortedList = Headers.sortedList;
  const headersList = Headers.list;
  const fillHeaders = Headers.fill;
  const freezeHeaders = Headers.freeze;
  delete Headers.sortedList;
  delete Headers.list;
  delete Headers.fill;
  delete Headers.freeze;
  const isHeaders = Headers.isHeaders;
  delete Headers.isHeaders;

  // A HeadersInit's pairs appended to `list`: the constructor's, and Request's and
  // Response's `headers` member.
  function fillFromInit(list, init) {
    if (init === null || (typeof init !== "object" && typeof init !== "function")) {
      throw new TypeErrorCtor(
        "Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.",
      );
    }
    const method = init[SymbolIterator];
    if (method === headersEntries && isHeaders(init)) {
      // Another Headers iterated as it was made to be: its list is valid already (what its
      // iteration gives, uncombined). One with an iterator of its own goes through it.
      const from = headersList(init);
      for (let i = 0; i < from.length; i++) list[list.length] = from[i];
      return;
    }
    if (method !== undefined && method !== null) {
      if (typeof method !== "function") {
        throw new TypeErrorCtor("Failed to construct 'Headers': @@iterator is not callable.");
      }
      fillFromPairs(list, init, method);
    } else {
      fillFromRecord(list, init);
    }
  }

  // `sequence<sequence<ByteString>>`, each pair exactly two items (webidl.js's `readPairs`).
  function fillFromPairs(list, init, method) {
    readPairs(init, method, "Failed to construct 'Headers'", toByteStringItem, (name, value) => {
      push(list, toName(name, "constructor"));
      push(list, toValue(value, "constructor"));
    });
  }

  // A pair's item as a string (a symbol throws); toName and toValue check the rest.
  const toByteStringItem = (value) => (typeof value === "string" ? value : `${value}`);

  // `record<ByteString, ByteString>`: own enumerable keys, in order. A proxy's traps run as
  // the standard orders them; an ordinary object's string keys come in one step (V8 keeps
  // them listed), then its symbols, which throw if enumerable.
  function fillFromRecord(list, init) {
    if (op_web_is_proxy(init)) {
      fillFromKeys(list, init, ReflectOwnKeys(init));
      return;
    }
    fillFromKeys(list, init, ObjectKeys(init));
    const symbols = ObjectGetOwnPropertySymbols(init);
    for (let i = 0; i < symbols.length; i++) {
      if (isEnumerable(init, symbols[i])) throw recordSymbol();
    }
  }

  const recordSymbol = () =>
    new TypeErrorCtor("Failed to construct 'Headers': a record key is a symbol.");

  // The pairs of `init`'s `keys` that are still its own and enumerable (a getter run for an
  // earlier key may have changed that).
  function fillFromKeys(list, init, keys) {
    const member = "constructor";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      // [[GetOwnProperty]]'s enumerability, with no descriptor object made.
      if (!isEnumerable(init, key)) continue;
      if (typeof key === "symbol") throw recordSymbol();
      const name = toName(key, member);
      const value = toValue(init[key], member);
      push(list, name);
      push(list, value);
    }
  }

  // The "Headers Iterator" (webidl.js's pair iterator).
  const { PAIR_KEYS: KIND_KEYS, PAIR_VALUES: KIND_VALUES, PAIR_ENTRIES: KIND_ENTRIES } = internals;
  const newIterator = internals.pairIterator("Headers", (headers) => sortedList(headers));

  configureInterface(Headers);
  headersEntries = Headers.prototype.entries;
  ObjectDefineProperty(Headers.prototype, SymbolIterator, {
    value: Headers.prototype.entries,
    writable: true,
    configurable: true,
  });
  defineGlobal("Headers", Headers);

  // For Request and Response: an empty `Headers`, its list, its fill (a list, or a host's
  // packed string: see `#pairs`) and its guard.
  internals.headers = {
    __proto__: null,
    create: () => new Headers(INTERNAL),
    list: headersList,
    fill: fillHeaders,
    // A HeadersInit appended to a list, checked as the constructor checks it.
    append: (headers, init) => fillFromInit(headersList(headers), init),
    freeze: freezeHeaders,
    sortedList,
  };
})
