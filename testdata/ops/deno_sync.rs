// Ports of deno_ops 0.289's sync test cases (`op2/test_cases/sync/`) and of rows of its
// `valid_args.md` / `valid_retvals.md`, in opwire's spelling (`#[op]` for `#[op2]`). Read by
// the expansion snapshots and `include!`d by runtime_core's `deno_sync` test, which runs each
// on both paths.

pub type Int16 = i16;
pub type Uint16 = u16;
pub type ResourceId = u32;

/// `smi.rs`: `#[smi]` on aliases of integer types.
#[op(fast)]
#[smi]
fn op_smi_unsigned_return(
    #[smi] a: Int16,
    #[smi] b: i32,
    #[smi] c: Uint16,
    #[smi] d: ResourceId,
) -> ResourceId {
    (a as ResourceId)
        .wrapping_add(b as ResourceId)
        .wrapping_add(c as ResourceId)
        .wrapping_add(d)
}

#[op]
#[smi]
fn op_smi_option(#[smi] a: Option<ResourceId>) -> Option<ResourceId> {
    a
}

/// `#[number]` 64-bit and pointer-sized integers, in and out.
#[op(fast)]
#[number]
fn op_number_i64(#[number] a: i64, #[number] b: u64) -> i64 {
    a.wrapping_add(b as i64)
}

#[op(fast)]
#[number]
fn op_number_usize_double(#[number] a: usize) -> usize {
    a.wrapping_mul(2)
}

/// `bigint.rs` with the pointer-sized rows.
#[op(fast)]
#[bigint]
fn op_bigint_isize(#[bigint] a: isize, #[bigint] b: usize) -> isize {
    a.wrapping_add(b as isize)
}

/// `string_return.rs`: string returns marked as deno marks them.
#[op]
#[string]
pub fn op_string_return() -> String {
    "".into()
}

#[op]
#[string]
pub fn op_string_return_ref() -> &'static str {
    "static"
}

#[op]
#[string]
pub fn op_string_return_cow<'a>() -> Cow<'a, str> {
    "cow".into()
}

/// `string_option_return.rs`.
#[op]
#[string]
pub fn op_string_option_return(#[string] s: Option<String>) -> Option<String> {
    s
}

/// A returned `&str` borrowing the argument: read into a buffer, returned before it goes.
#[op]
#[string]
fn op_str_trim(#[string] s: &str) -> &str {
    s.trim()
}

/// A returned `Cow<str>` that borrows when it can.
#[op]
fn op_cow_lowercase<'a>(#[string] s: Cow<'a, str>) -> Cow<'a, str> {
    if s.chars().any(char::is_uppercase) {
        Cow::Owned(s.to_lowercase())
    } else {
        s
    }
}

/// `#[string(onebyte)]` return: bytes as Latin-1 characters.
#[op]
#[string(onebyte)]
fn op_latin1_from_bytes(#[buffer] bytes: &[u8]) -> Cow<'_, [u8]> {
    Cow::Borrowed(bytes)
}

/// `v8_lifetime.rs`: a handle in, the same handle out.
#[op]
pub fn op_v8_lifetime<'s>(s: v8::Local<'s, v8::String>) -> v8::Local<'s, v8::String> {
    s
}

/// `v8_string.rs`: `&v8::String` and a made handle returned.
#[op]
fn op_v8_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    str1: &v8::String,
    str2: v8::Local<v8::String>,
) -> v8::Local<'s, v8::String> {
    let joined = str1.to_rust_string_lossy(scope) + &str2.to_rust_string_lossy(scope);
    v8::String::new(scope, &joined).expect("short")
}

/// `&v8::T` on the fast path.
#[op(fast)]
fn op_v8_ref_length(s: &v8::String) -> u32 {
    s.length() as u32
}

/// `v8_ref_option.rs`: fast, as in deno.
#[op(fast)]
pub fn op_v8_ref_option(s: Option<&v8::String>, s2: Option<&v8::String>) -> u32 {
    s.map_or(0, |s| s.length() as u32) + s2.map_or(0, |s| s.length() as u32)
}

/// `v8_handlescope.rs` with a shared scope: a made handle, `Option` of it.
#[op]
fn op_v8_maybe_array<'s>(scope: &v8::PinScope<'s, '_>, len: u32) -> Option<v8::Local<'s, v8::Array>> {
    let _ = scope;
    None.filter(|_: &v8::Local<v8::Array>| len > 0)
}

/// `v8::Global` in and out: kept in the op state across calls.
#[op]
fn op_global_keep(state: &mut OpState, f: v8::Global<v8::Function>) {
    state.put(f);
}

#[op]
fn op_global_kept(state: &mut OpState) -> Option<v8::Global<v8::Function>> {
    state.take::<v8::Global<v8::Function>>()
}

/// `#[arraybuffer]` returns: an ArrayBuffer over the vector's memory.
#[op]
#[arraybuffer]
fn op_arraybuffer_return(len: u32) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

/// `#[buffer]` on a return, as deno writes it.
#[op]
#[buffer]
fn op_buffer_return(len: u32) -> Box<[u8]> {
    vec![7; len as usize].into_boxed_slice()
}

/// `buffers.rs` / `buffers_copy.rs` with other element types (deno's `op_buffers_32`); one
/// mutable borrow per op, as opwire requires (two borrows of one array would alias).
#[op(fast)]
fn op_typed_sum_u32(#[buffer] values: &[u32]) -> u32 {
    values.iter().fold(0, |sum, &value| sum.wrapping_add(value))
}

#[op(fast)]
fn op_typed_fill_f64(#[buffer] values: &mut [f64], value: f64) -> u32 {
    values.fill(value);
    values.len() as u32
}

#[op(fast)]
#[allow(clippy::boxed_local)] // deno's signature: a `Box<[u32]>` argument is the point
fn op_buffers_32(#[buffer(copy)] a: Vec<u32>, #[buffer(copy)] b: Box<[u32]>) -> u32 {
    a.iter().chain(b.iter()).fold(0, |sum, &value| sum.wrapping_add(value))
}

#[op(fast)]
#[bigint]
fn op_typed_max_i64(#[buffer] values: &[i64]) -> i64 {
    values.iter().copied().max().unwrap_or(i64::MIN)
}

#[op]
#[buffer]
fn op_typed_return_u16(len: u32) -> Vec<u16> {
    (0..len as u16).map(|i| i * 1000).collect()
}

#[op]
fn op_typed_return_f32() -> Box<[f32]> {
    vec![0.5, -1.0].into_boxed_slice()
}

/// `buffers_out.rs`: a `JsBuffer` in, the same memory out (no copy either way).
#[op]
#[buffer]
fn op_buffers(#[buffer] buffer: JsBuffer) -> JsBuffer {
    buffer
}

#[op]
#[buffer]
fn op_buffers_option(#[buffer] buffer: Option<JsBuffer>) -> Option<JsBuffer> {
    buffer
}

#[op]
#[arraybuffer]
fn op_arraybuffers(#[arraybuffer] buffer: JsBuffer) -> JsBuffer {
    buffer
}

/// A `JsBuffer` kept in the op state; JavaScript's later writes show in it.
#[op(fast)]
fn op_js_buffer_keep(state: &mut OpState, #[anybuffer] buffer: JsBuffer) -> u32 {
    let len = buffer.len() as u32;
    state.put(buffer);
    len
}

/// Writes `value` to the kept buffer's first byte and sums its bytes.
#[op(fast)]
fn op_js_buffer_kept_sum(state: &mut OpState, value: u8) -> u32 {
    let buffer = state.borrow::<JsBuffer>();
    if let Some(first) = buffer.as_cells().first() {
        first.set(value);
    }
    buffer.as_cells().iter().map(|byte| u32::from(byte.get())).sum()
}

/// `#[buffer(detach)]`: the memory is taken; JavaScript's array is empty afterwards.
#[op]
fn op_detach_sum(#[buffer(detach)] buffer: DetachedBuffer) -> u32 {
    buffer.iter().map(|&byte| u32::from(byte)).sum()
}

/// A detached buffer goes to another thread (it is `Send`), is reversed there, and comes back
/// as a Uint8Array over the same memory.
#[op]
#[buffer]
fn op_detach_reverse_elsewhere(#[arraybuffer(detach)] buffer: DetachedBuffer) -> DetachedBuffer {
    std::thread::spawn(move || {
        let mut buffer = buffer;
        buffer.reverse();
        buffer
    })
    .join()
    .expect("the reversing thread")
}

/// `buffers.rs`: raw pointers beside a shared borrow (null when empty).
#[op(fast)]
fn op_buffers_ptrs(#[buffer] a: &[u8], #[buffer] c: *const u8, #[buffer] d: *mut u8) -> u32 {
    a.len() as u32 * 100 + u32::from(c.is_null()) * 10 + u32::from(d.is_null())
}

/// Writes through a raw pointer (the op's own `unsafe`).
#[op(fast)]
fn op_buffer_ptr_write(#[buffer] d: *mut u8, value: u8) {
    if !d.is_null() {
        // SAFETY: a non-null pointer from `#[buffer]` points at the view's first byte.
        unsafe { d.write(value) };
    }
}

#[op(fast)]
fn op_anybuffer_sum(#[anybuffer] bytes: &[u8]) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte)).sum()
}

#[op(fast)]
#[allow(clippy::boxed_local)] // the kind under test
fn op_arraybuffer_copy_len(#[arraybuffer(copy)] a: Vec<u8>, #[arraybuffer(copy)] b: Box<[u8]>) -> u32 {
    (a.len() + b.len()) as u32
}

/// `buffers_copy.rs`: every owned copy of a view's bytes, `bytes::Bytes` included.
#[op(fast)]
#[allow(clippy::boxed_local)] // deno's signature
fn op_buffers_copy(
    #[buffer(copy)] a: Vec<u8>,
    #[buffer(copy)] b: Box<[u8]>,
    #[buffer(copy)] c: bytes::Bytes,
) -> u32 {
    (a.len() * 100 + b.len() * 10 + c.len()) as u32
}

#[op]
fn op_arraybuffer_bytes_len(#[arraybuffer(copy)] bytes: bytes::BytesMut) -> u32 {
    bytes.len() as u32
}

/// `valid_retvals.md`: `#[buffer] bytes::BytesMut` and `#[arraybuffer]` returns.
#[op]
#[buffer]
fn op_bytes_mut_return(len: u32) -> bytes::BytesMut {
    bytes::BytesMut::from(&vec![3; len as usize][..])
}

#[op]
#[arraybuffer]
fn op_bytes_arraybuffer_return() -> bytes::Bytes {
    bytes::Bytes::from(vec![1, 2])
}

pub trait Named {
    const NAME: &'static str;
}

pub struct Cat;

impl Named for Cat {
    const NAME: &'static str = "cat";
}

pub struct Horse;

impl Named for Horse {
    const NAME: &'static str = "horse";
}

/// `generics.rs`: one declaration per instantiation (`op_generic_len::<Cat>::DECL`).
#[op(fast)]
fn op_generic_len<T: Named>(extra: u32) -> u32 {
    T::NAME.len() as u32 + extra
}

#[op]
#[string]
fn op_generic_name<T>() -> &'static str
where
    T: Named + 'static,
{
    T::NAME
}

/// `fast_alternative.rs`: a slow op (it takes the scope) whose fast path is another op's.
#[op(fast(op_fast_add))]
fn op_slow_add(scope: &mut v8::PinScope, a: u32, b: u32) -> u32 {
    let _ = scope;
    a.wrapping_add(b)
}

#[op(fast)]
fn op_fast_add(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// `stack_trace.rs`.
#[op(fast, stack_trace)]
fn op_stack_trace() {}

/// `valid_args.md`: `#[buffer] V8Slice<u32>` (kept, no copy; elements as cells).
#[op(fast)]
fn op_v8slice_sum(#[buffer] values: V8Slice<u32>) -> u32 {
    values.as_cells().iter().map(|value| value.get()).sum()
}

/// `valid_retvals.md`: `#[buffer] V8Slice<u32>` returned: the same memory, as a Uint32Array.
#[op]
#[buffer]
fn op_v8slice_echo(#[buffer] values: V8Slice<u32>) -> V8Slice<u32> {
    values
}

/// `valid_args.md`: `#[arraybuffer] V8Slice<u8>`.
#[op]
#[arraybuffer]
fn op_v8slice_arraybuffer(#[arraybuffer] bytes: V8Slice<u8>) -> V8Slice<u8> {
    bytes
}
