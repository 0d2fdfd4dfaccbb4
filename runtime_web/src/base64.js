// `atob` and `btoa` (HTML's forgiving-base64) over `base64.rs`.
(function (internalOps, internals) {
  "use strict";
  const { op_web_atob, op_web_btoa } = internalOps;
  const { DOMException, defineGlobalOperation } = internals;
  const TypeErrorCtor = TypeError;

  function required(count, name) {
    if (count === 0) {
      throw new TypeErrorCtor(
        `Failed to execute '${name}' on 'Window': 1 argument required, but only 0 present.`,
      );
    }
  }

  defineGlobalOperation("atob", function atob(data) {
    required(arguments.length, "atob");
    const decoded = op_web_atob(`${data}`);
    if (decoded === null) {
      throw new DOMException(
        "Failed to execute 'atob': The string to be decoded is not correctly encoded.",
        "InvalidCharacterError",
      );
    }
    return decoded;
  });

  defineGlobalOperation("btoa", function btoa(data) {
    required(arguments.length, "btoa");
    const encoded = op_web_btoa(`${data}`);
    if (encoded === null) {
      throw new DOMException(
        "Failed to execute 'btoa': The string to be encoded contains characters outside of the Latin1 range.",
        "InvalidCharacterError",
      );
    }
    return encoded;
  });
})
