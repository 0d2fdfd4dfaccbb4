// `URL` and `URLSearchParams` (the URL standard) over ada (`url.rs`).
// A URL keeps its serialization and where each component lies in it: getters slice, with no
// op call; a parse or a setter crosses into Rust once.
(function (internalOps, internals) {
  "use strict";
  const {
    op_web_url_parse,
    op_web_url_parse_with_base,
    op_web_url_take,
    op_web_url_set,
    op_web_url_search_parse,
    op_web_url_search_serialize,
  } = internalOps;
  const { configureInterface, defineGlobal } = internals;
  const { apply: ReflectApply, ownKeys: ReflectOwnKeys } = Reflect;
  const {
    defineProperty: ObjectDefineProperty,
    getOwnPropertyDescriptor: ObjectGetOwnPropertyDescriptor,
  } = Object;
  const TypeErrorCtor = TypeError;
  const SymbolIterator = Symbol.iterator;
  const { slice: StringSlice, charCodeAt: StringCharCodeAt, toWellFormed: StringToWellFormed } =
    String.prototype;
  const { push: ArrayPush, sort: ArraySort } = Array.prototype;
  const Uint32ArrayCtor = Uint32Array;

  const slice = (string, start, end) => ReflectApply(StringSlice, string, [start, end]);
  const push = (array, value) => ReflectApply(ArrayPush, array, [value]);

  // WebIDL's USVString: ToString (a symbol throws), lone surrogates replaced.
  const toUSVString = (value) => ReflectApply(StringToWellFormed, `${value}`, []);

  function requireArguments(count, needed, interfaceName, member) {
    if (count < needed) {
      throw new TypeErrorCtor(
        `Failed to execute '${member}' on '${interfaceName}': ${needed} argument${
          needed === 1 ? "" : "s"
        } required, but only ${count} present.`,
      );
    }
  }

  // What a parse left in `components` (`url.rs` writes there; this function returns it to
  // Rust): indices into the serialization.
  const components = new Uint32ArrayCtor(8);
  const PARSED_SAME = 0;
  const FAILED = 2;
  const ABSENT = 0xffffffff;
  // `op_web_url_set`'s setter numbers.
  const SET_HASH = 0;
  const SET_HOST = 1;
  const SET_HOSTNAME = 2;
  const SET_PASSWORD = 3;
  const SET_PATHNAME = 4;
  const SET_PORT = 5;
  const SET_PROTOCOL = 6;
  const SET_SEARCH = 7;
  const SET_USERNAME = 8;

  // An error names at most this much of a tenant's input (a URL may be megabytes).
  const QUOTED = 256;
  const quote = (input) => (input.length > QUOTED ? `${slice(input, 0, QUOTED)}...` : input);
  const invalid = (input) => new TypeErrorCtor(`Invalid URL: '${quote(input)}'`);

  // The URLs parsed lately without a base, by their input (a server parses the same few
  // request URLs over and over): a hit costs a string comparison instead of a parse in Rust,
  // and a miss little more than the parse (no hashing, no table). A parse depends on its input
  // alone, and what is kept is never changed (each URL copies it). Slots by input length,
  // one input each; long inputs are not kept.
  const REMEMBERED_SLOTS = 16;
  const REMEMBERED_LENGTH = 2048;
  const rememberedInputs = [];
  const rememberedParses = [];
  for (let slot = 0; slot < REMEMBERED_SLOTS; slot++) {
    rememberedInputs[slot] = "";
    rememberedParses[slot] = null;
  }

  // Lets `URLSearchParams` reach its URL's private state, and `URL` its search params'.
  let attachSearchParams;
  let setSearchParamsList;
  let searchParamsList;

  class URL {
    #href = "";
    // Ada's components: where each part of the serialization lies.
    #protocolEnd = 0;
    #usernameEnd = 0;
    #hostStart = 0;
    #hostEnd = 0;
    #port = ABSENT;
    #pathnameStart = 0;
    #searchStart = ABSENT;
    #hashStart = ABSENT;
    #searchParams = null;

    constructor(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL", "constructor");
      url = toUSVString(url);
      let status;
      if (base === undefined) {
        const slot = url.length & (REMEMBERED_SLOTS - 1);
        if (rememberedInputs[slot] === url) {
          this.#adopt(rememberedParses[slot]);
          return;
        }
        status = op_web_url_parse(url);
        if (status !== FAILED && url.length <= REMEMBERED_LENGTH) {
          this.#take(status, url);
          rememberedParses[slot] = this.#parsed();
          rememberedInputs[slot] = url;
          return;
        }
      } else {
        base = toUSVString(base);
        status = op_web_url_parse_with_base(url, base);
      }
      if (status === FAILED) throw invalid(url);
      this.#take(status, url);
    }

    static canParse(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL", "canParse");
      url = toUSVString(url);
      const status =
        base === undefined
          ? op_web_url_parse(url)
          : op_web_url_parse_with_base(url, toUSVString(base));
      if (status === FAILED) return false;
      if (status !== PARSED_SAME) op_web_url_take();
      return true;
    }

    static parse(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL", "parse");
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }

    // Keeps what a parse left: the serialization (`input` when it did not change) and where
    // its components lie.
    #take(status, input) {
      this.#href = status === PARSED_SAME ? input : op_web_url_take();
      this.#protocolEnd = components[0];
      this.#usernameEnd = components[1];
      this.#hostStart = components[2];
      this.#hostEnd = components[3];
      this.#port = components[4];
      this.#pathnameStart = components[5];
      this.#searchStart = components[6];
      this.#hashStart = components[7];
    }

    // What `#take` kept, to remember.
    #parsed() {
      return [
        this.#href,
        this.#protocolEnd,
        this.#usernameEnd,
        this.#hostStart,
        this.#hostEnd,
        this.#port,
        this.#pathnameStart,
        this.#searchStart,
        this.#hashStart,
      ];
    }

    #adopt(parsed) {
      this.#href = parsed[0];
      this.#protocolEnd = parsed[1];
      this.#usernameEnd = parsed[2];
      this.#hostStart = parsed[3];
      this.#hostEnd = parsed[4];
      this.#port = parsed[5];
      this.#pathnameStart = parsed[6];
      this.#searchStart = parsed[7];
      this.#hashStart = parsed[8];
    }

    #set(setter, value) {
      const status = op_web_url_set(this.#href, setter, toUSVString(value));
      if (status !== FAILED) this.#take(status, this.#href);
    }

    // Where the host starts: ada's host start is the `@` of credentials when there are any.
    #hostFrom() {
      const at = this.#hostStart;
      return ReflectApply(StringCharCodeAt, this.#href, [at]) === 0x40 ? at + 1 : at;
    }

    #host() {
      const start = this.#hostFrom();
      // An empty host: what lies up to the path may be a `/`.
      if (start === this.#hostEnd) return "";
      return slice(this.#href, start, this.#pathnameStart);
    }

    #pathEnd() {
      if (this.#searchStart !== ABSENT) return this.#searchStart;
      if (this.#hashStart !== ABSENT) return this.#hashStart;
      return this.#href.length;
    }

    // The query without its `?` ("" when there is none).
    #query() {
      if (this.#searchStart === ABSENT) return "";
      const end = this.#hashStart === ABSENT ? this.#href.length : this.#hashStart;
      return slice(this.#href, this.#searchStart + 1, end);
    }

    #origin() {
      const protocol = slice(this.#href, 0, this.#protocolEnd);
      switch (protocol) {
        case "http:":
        case "https:":
        case "ws:":
        case "wss:":
        case "ftp:":
          return `${protocol}//${this.#host()}`;
        case "blob:": {
          const path = slice(this.#href, this.#pathnameStart, this.#pathEnd());
          if (op_web_url_parse(path) === FAILED) return "null";
          const inner = new URL(path);
          const innerProtocol = slice(inner.#href, 0, inner.#protocolEnd);
          return innerProtocol === "http:" || innerProtocol === "https:" ? inner.#origin() : "null";
        }
        default:
          return "null";
      }
    }

    get href() {
      return this.#href;
    }

    set href(value) {
      value = toUSVString(value);
      const status = op_web_url_parse(value);
      if (status === FAILED) throw invalid(value);
      this.#take(status, value);
      if (this.#searchParams !== null) setSearchParamsList(this.#searchParams, this.#query());
    }

    get origin() {
      return this.#origin();
    }

    get protocol() {
      return slice(this.#href, 0, this.#protocolEnd);
    }

    set protocol(value) {
      this.#set(SET_PROTOCOL, value);
    }

    get username() {
      const start = this.#protocolEnd + 2;
      return start < this.#usernameEnd ? slice(this.#href, start, this.#usernameEnd) : "";
    }

    set username(value) {
      this.#set(SET_USERNAME, value);
    }

    get password() {
      return this.#hostStart > this.#usernameEnd
        ? slice(this.#href, this.#usernameEnd + 1, this.#hostStart)
        : "";
    }

    set password(value) {
      this.#set(SET_PASSWORD, value);
    }

    get host() {
      return this.#host();
    }

    set host(value) {
      this.#set(SET_HOST, value);
    }

    get hostname() {
      return slice(this.#href, this.#hostFrom(), this.#hostEnd);
    }

    set hostname(value) {
      this.#set(SET_HOSTNAME, value);
    }

    get port() {
      return this.#port === ABSENT ? "" : `${this.#port}`;
    }

    set port(value) {
      this.#set(SET_PORT, value);
    }

    get pathname() {
      return slice(this.#href, this.#pathnameStart, this.#pathEnd());
    }

    set pathname(value) {
      this.#set(SET_PATHNAME, value);
    }

    get search() {
      const query = this.#query();
      return query === "" ? "" : `?${query}`;
    }

    set search(value) {
      this.#set(SET_SEARCH, value);
      if (this.#searchParams !== null) setSearchParamsList(this.#searchParams, this.#query());
    }

    get searchParams() {
      if (this.#searchParams === null) {
        this.#searchParams = attachSearchParams(this, this.#query());
      }
      return this.#searchParams;
    }

    get hash() {
      if (this.#hashStart === ABSENT) return "";
      const fragment = slice(this.#href, this.#hashStart, this.#href.length);
      return fragment.length === 1 ? "" : fragment;
    }

    set hash(value) {
      this.#set(SET_HASH, value);
    }

    toString() {
      return this.#href;
    }

    toJSON() {
      return this.#href;
    }

    // The search params' update steps: their serialization becomes the query.
    static updateQuery(url, serialized) {
      url.#set(SET_SEARCH, serialized);
    }
  }
  const updateQuery = URL.updateQuery;
  delete URL.updateQuery;

  // A token only this script has: `new URLSearchParams(ATTACHED)` makes one for a URL.
  const ATTACHED = {};

  class URLSearchParams {
    // Names and values, alternating.
    #list = [];
    #url = null;

    constructor(init = "") {
      if (init === ATTACHED) return;
      if (init !== null && (typeof init === "object" || typeof init === "function")) {
        const method = init[SymbolIterator];
        if (method !== undefined && method !== null) {
          if (typeof method !== "function") {
            throw new TypeErrorCtor("Failed to construct 'URLSearchParams': @@iterator is not callable");
          }
          this.#fromPairs(init, method);
        } else {
          this.#fromRecord(init);
        }
        return;
      }
      init = toUSVString(init);
      if (ReflectApply(StringCharCodeAt, init, [0]) === 0x3f) init = slice(init, 1, init.length);
      this.#list = op_web_url_search_parse(init);
    }

    // `sequence<sequence<USVString>>` (webidl.js's `readPairs`).
    #fromPairs(init, method) {
      const list = this.#list;
      internals.readPairs(init, method, "Failed to construct 'URLSearchParams'", toUSVString, (name, value) => {
        push(list, name);
        push(list, value);
      });
    }

    // `record<USVString, USVString>`: own enumerable keys, in order; a later duplicate (two
    // keys equal once lone surrogates are replaced) replaces the value in place.
    #fromRecord(init) {
      const list = this.#list;
      const keys = ReflectOwnKeys(init);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const descriptor = ObjectGetOwnPropertyDescriptor(init, key);
        if (descriptor === undefined || !descriptor.enumerable) continue;
        if (typeof key === "symbol") {
          throw new TypeErrorCtor("Failed to construct 'URLSearchParams': a record key is a symbol");
        }
        const name = toUSVString(key);
        const value = toUSVString(init[key]);
        let found = false;
        for (let j = 0; j < list.length; j += 2) {
          if (list[j] === name) {
            list[j + 1] = value;
            found = true;
            break;
          }
        }
        if (!found) {
          push(list, name);
          push(list, value);
        }
      }
    }

    static attach(url, query) {
      const params = new URLSearchParams(ATTACHED);
      params.#url = url;
      params.#list = op_web_url_search_parse(query);
      return params;
    }

    static setList(params, query) {
      params.#list = op_web_url_search_parse(query);
    }

    static list(params) {
      return params.#list;
    }

    #update() {
      if (this.#url !== null) updateQuery(this.#url, op_web_url_search_serialize(this.#list));
    }

    get size() {
      return this.#list.length / 2;
    }

    append(name, value) {
      requireArguments(arguments.length, 2, "URLSearchParams", "append");
      push(this.#list, toUSVString(name));
      push(this.#list, toUSVString(value));
      this.#update();
    }

    delete(name, value = undefined) {
      requireArguments(arguments.length, 1, "URLSearchParams", "delete");
      name = toUSVString(name);
      if (value !== undefined) value = toUSVString(value);
      const list = this.#list;
      const kept = [];
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name && (value === undefined || list[i + 1] === value)) continue;
        push(kept, list[i]);
        push(kept, list[i + 1]);
      }
      this.#list = kept;
      this.#update();
    }

    get(name) {
      requireArguments(arguments.length, 1, "URLSearchParams", "get");
      name = toUSVString(name);
      const list = this.#list;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name) return list[i + 1];
      }
      return null;
    }

    getAll(name) {
      requireArguments(arguments.length, 1, "URLSearchParams", "getAll");
      name = toUSVString(name);
      const list = this.#list;
      const values = [];
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name) push(values, list[i + 1]);
      }
      return values;
    }

    has(name, value = undefined) {
      requireArguments(arguments.length, 1, "URLSearchParams", "has");
      name = toUSVString(name);
      if (value !== undefined) value = toUSVString(value);
      const list = this.#list;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name && (value === undefined || list[i + 1] === value)) return true;
      }
      return false;
    }

    set(name, value) {
      requireArguments(arguments.length, 2, "URLSearchParams", "set");
      name = toUSVString(name);
      value = toUSVString(value);
      const list = this.#list;
      const kept = [];
      let found = false;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] !== name) {
          push(kept, list[i]);
          push(kept, list[i + 1]);
        } else if (!found) {
          found = true;
          push(kept, name);
          push(kept, value);
        }
      }
      if (!found) {
        push(kept, name);
        push(kept, value);
      }
      this.#list = kept;
      this.#update();
    }

    // A stable sort by name, in code units (V8's sort is stable).
    sort() {
      const list = this.#list;
      const pairs = [];
      for (let i = 0; i < list.length; i += 2) push(pairs, [list[i], list[i + 1]]);
      ReflectApply(ArraySort, pairs, [(a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)]);
      const sorted = [];
      for (let i = 0; i < pairs.length; i++) {
        push(sorted, pairs[i][0]);
        push(sorted, pairs[i][1]);
      }
      this.#list = sorted;
      this.#update();
    }

    toString() {
      return op_web_url_search_serialize(this.#list);
    }

    forEach(callback, thisArg = undefined) {
      requireArguments(arguments.length, 1, "URLSearchParams", "forEach");
      if (typeof callback !== "function") {
        throw new TypeErrorCtor("Failed to execute 'forEach' on 'URLSearchParams': the callback is not a function");
      }
      // Live: the callback may change the list.
      for (let i = 0; i < this.#list.length; i += 2) {
        ReflectApply(callback, thisArg, [this.#list[i + 1], this.#list[i], this]);
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
  }
  attachSearchParams = URLSearchParams.attach;
  setSearchParamsList = URLSearchParams.setList;
  searchParamsList = URLSearchParams.list;
  delete URLSearchParams.attach;
  delete URLSearchParams.setList;
  delete URLSearchParams.list;

  // The "URLSearchParams Iterator" (webidl.js's pair iterator).
  const { PAIR_KEYS: KIND_KEYS, PAIR_VALUES: KIND_VALUES, PAIR_ENTRIES: KIND_ENTRIES } = internals;
  const newIterator = internals.pairIterator("URLSearchParams", (params) => searchParamsList(params));

  configureInterface(URL);
  configureInterface(URLSearchParams);
  ObjectDefineProperty(URLSearchParams.prototype, SymbolIterator, {
    value: URLSearchParams.prototype.entries,
    writable: true,
    configurable: true,
  });
  defineGlobal("URL", URL);
  defineGlobal("URLSearchParams", URLSearchParams);
  return components;
})
