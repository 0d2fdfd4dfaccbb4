// String arguments and returns. Read by the expansion snapshots and `include!`d by
// runtime_core's string tests.

/// The UTF-8 length: a string op with a number result, so it can take the fast path.
#[op]
fn op_str_len(#[string] s: &str) -> u32 {
    s.len() as u32
}

/// FNV-1a of the UTF-8 bytes: tells apart any two contents, on either path.
#[op]
fn op_str_hash(#[string] s: &str) -> u32 {
    fnv1a(s.as_bytes())
}

#[op]
fn op_cow_hash(#[string] s: Cow<str>) -> u32 {
    fnv1a(s.as_bytes())
}

#[op]
fn op_owned_hash(#[string] s: String) -> u32 {
    fnv1a(s.as_bytes())
}

/// deno's `op_string_serde` shape: a newtype of a string through serde. Its fast path takes
/// sequential one-byte strings (one allocation: the `String`'s), the slow path anything.
#[derive(serde::Deserialize)]
pub struct SerdeString(String);

#[op]
fn op_serde_string_hash(#[serde] s: SerdeString) -> u32 {
    fnv1a(s.0.as_bytes())
}

/// A string read before an argument that can throw: the error is made on the V8 heap, so no
/// view of the string may be alive then (V8 aborts on a heap allocation under one).
#[op]
fn op_str_then_number(#[string] s: &str, n: u32) -> u32 {
    s.len() as u32 + n
}

/// The bytes an owned string argument allocated beyond its content: 0 when the one
/// allocation is exact.
#[op]
fn op_owned_spare(#[string] s: String) -> u32 {
    (s.capacity() - s.len()) as u32
}

#[op]
fn op_onebyte_hash(#[string(onebyte)] bytes: Cow<[u8]>) -> u32 {
    fnv1a(&bytes)
}

#[op]
fn op_bytestring_hash(bytes: ByteString) -> u32 {
    fnv1a(&bytes)
}

#[op]
fn op_echo(#[string] s: &str) -> String {
    s.to_owned()
}

#[op]
fn op_echo_cow(#[string] s: Cow<str>) -> String {
    s.into_owned()
}

#[op]
fn op_echo_owned(#[string] s: String) -> String {
    s
}

#[op]
fn op_echo_onebyte(#[string(onebyte)] bytes: Cow<[u8]>) -> ByteString {
    ByteString::from(bytes.into_owned())
}

#[op]
fn op_echo_bytestring(bytes: ByteString) -> ByteString {
    bytes
}

#[op]
fn op_static_str() -> &'static str {
    "a static ASCII string, handed to V8 without a copy"
}

#[op]
fn op_static_str_utf8() -> &'static str {
    "café ©"
}

/// Different static strings in turn: the op's cache of its last static string must follow.
#[op]
fn op_static_pick(which: u32) -> &'static str {
    ["zero", "one", "twö"][which as usize % 3]
}

#[op]
fn op_static_cow(owned: bool) -> Cow<'static, str> {
    if owned {
        Cow::Owned("owned".repeat(2))
    } else {
        Cow::Borrowed("borrowed")
    }
}

#[op]
fn op_maybe_string(present: bool) -> Option<String> {
    present.then(|| "here".to_owned())
}

/// Two string arguments, the second after a number: positions and buffers stay apart.
#[op]
fn op_concat_len(#[string] a: &str, separator: u32, #[string] b: Cow<str>) -> u32 {
    (a.len() + b.len()) as u32 + separator
}

/// Takes the scope, so the string is copied (JavaScript may run and move it): calls
/// `globalThis.reenter(depth - 1)`, which may call this op again with other content, and checks
/// that its own string is unchanged afterwards.
#[op]
fn op_reenter(scope: &mut v8::PinScope, #[string] s: &str, depth: u32) -> u32 {
    // Every 64th byte and the length: enough to see another call's content, cheap on 1 MB.
    let sample = |s: &str| fnv1a(&s.bytes().step_by(64).collect::<Vec<u8>>()) ^ s.len() as u32;
    let before = sample(s);
    if depth > 0 {
        let global = scope.get_current_context().global(scope);
        let key = v8::String::new(scope, "reenter").unwrap();
        let callback = global.get(scope, key.into()).unwrap();
        let callback = v8::Local::<v8::Function>::try_from(callback).unwrap();
        let depth = v8::Integer::new_from_unsigned(scope, depth - 1);
        let receiver = v8::undefined(scope).into();
        callback.call(scope, receiver, &[depth.into()]);
    }
    let after = sample(s);
    assert_eq!(before, after, "a reentrant call changed this call's string");
    after
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c9dc5u32, |hash, &byte| (hash ^ u32::from(byte)).wrapping_mul(0x01000193))
}
