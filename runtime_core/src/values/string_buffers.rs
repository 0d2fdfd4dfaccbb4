//! Strings without the heap: where string arguments are read to, and the `ByteString` type.
//!
//! A `#[string] &str` argument is, in order of preference:
//! 1. **borrowed in place** from V8's one-byte ASCII representation (zero copy), when no
//!    JavaScript can run during the call (the op does not take the scope), since only then is
//!    the string certain not to move;
//! 2. otherwise transcoded (Latin-1 and two-byte strings; lone surrogates become U+FFFD) or
//!    copied into a **stack buffer** of [`STRING_STACK_BUFFER_SIZE`] bytes;
//! 3. beyond that, into a **thread-local reusable buffer** lent for the call: taken out, put
//!    back afterwards. A reentrant call that finds the pool empty allocates its own buffer; two
//!    calls never share one.

use std::cell::Cell;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ops::Deref;

/// Bytes of stack each string argument may use before it borrows a thread-local buffer.
///
/// Measured with bench-ops (BENCHMARKS.md, "String buffer size"): lending the thread-local buffer
/// costs a few ns per call; on the stack, uninitialised, the buffer costs nothing until used.
/// 1 KiB covers the transcoding of strings of up to 341 two-byte or 512 Latin-1 characters
/// without a lend, and stays well under the 4 KiB at which the compiler adds stack probes.
pub const STRING_STACK_BUFFER_SIZE: usize = 1024;

/// Lent buffers above this capacity are freed rather than kept for the next call, so one huge
/// string does not pin its memory for the thread's lifetime.
pub const STRING_BUFFER_RETAIN_LIMIT: usize = 16 << 20;

/// Buffers kept per thread: enough for an op with several large string arguments.
const STRING_BUFFER_POOL_SIZE: usize = 4;

thread_local! {
    // Slots, not a `RefCell<Vec<_>>`: a buffer is two words, taken and put back with one
    // `Cell` swap each, and passed in registers (a `Vec` went through memory, and its copies
    // stalled on store forwarding: perf, `op_string_large_utf8_1000`).
    static STRING_BUFFER_POOL: [Cell<Option<Bytes>>; STRING_BUFFER_POOL_SIZE] =
        const { [const { Cell::new(None) }; STRING_BUFFER_POOL_SIZE] };
}

/// A lent buffer's memory. Uninitialised: its writers write before anything reads.
type Bytes = Box<[MaybeUninit<u8>]>;

/// A buffer taken out of the thread's pool for one call; goes back on drop.
pub(crate) struct LentBuffer {
    bytes: Bytes,
}

impl LentBuffer {
    /// Takes a pooled buffer of at least `len` bytes, or makes one: when the pool is empty
    /// (e.g. in a reentrant call) or its buffer is too small (that one is freed, and the new
    /// one doubles it at least, so growing strings reallocate rarely).
    #[inline]
    pub(crate) fn lend(len: usize) -> Self {
        let pooled = STRING_BUFFER_POOL
            .try_with(|pool| pool.iter().find_map(Cell::take))
            .ok()
            .flatten();
        let bytes = match pooled {
            Some(bytes) if bytes.len() >= len => bytes,
            pooled => {
                let grown = pooled.map_or(0, |bytes| bytes.len().saturating_mul(2));
                let grown = grown.min(STRING_BUFFER_RETAIN_LIMIT);
                Box::new_uninit_slice(len.max(grown))
            }
        };
        Self { bytes }
    }
}

impl Drop for LentBuffer {
    fn drop(&mut self) {
        if self.bytes.len() > STRING_BUFFER_RETAIN_LIMIT {
            return;
        }
        let mut returned = Some(std::mem::take(&mut self.bytes));
        let _ = STRING_BUFFER_POOL.try_with(|pool| {
            // Into the first slot (taken first next time), each occupied slot's buffer moving
            // on to the next; with every slot full, the last one is freed.
            for slot in pool {
                returned = slot.replace(returned);
                if returned.is_none() {
                    return;
                }
            }
        });
    }
}

/// Storage for one string argument during one call: the V8 string view its content is read
/// from (kept until the buffer drops), and room to copy or transcode that content to.
pub struct StringBuffer<'s> {
    // (Dropped by hand, in `Drop`: most calls build no view, and the drop is then a test
    // inlined in the op, not a call.)
    pub(crate) view: ManuallyDrop<crate::values::string_view::ViewSlot<'s>>,
    /// A field of its own, so that a view built in `view` is read while `room` is written:
    /// moving the view out instead copies it right after V8 wrote it, a store-forwarding stall.
    pub(crate) room: Room,
}

impl Drop for StringBuffer<'_> {
    #[ops_macro::inline_hot]
    fn drop(&mut self) {
        // SAFETY: dropped once, here (the field is `ManuallyDrop`).
        unsafe { ManuallyDrop::drop(&mut self.view) };
    }
}

impl Default for StringBuffer<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl StringBuffer<'_> {
    /// An empty buffer; costs nothing until used (the stack part stays uninitialised).
    #[ops_macro::inline_hot]
    pub fn new() -> Self {
        Self {
            view: ManuallyDrop::new(crate::values::string_view::ViewSlot::new()),
            room: Room::new(),
        }
    }
}

/// Where a string's content is copied or transcoded to, as UTF-8: a stack buffer, and a lent
/// buffer when the stack one is too small.
pub(crate) struct Room {
    stack: [MaybeUninit<u8>; STRING_STACK_BUFFER_SIZE],
    // (Given back by hand, in `Drop`: most calls lend none, and the drop is then a test.)
    lent: ManuallyDrop<Option<LentBuffer>>,
}

impl Drop for Room {
    #[ops_macro::inline_hot]
    fn drop(&mut self) {
        if self.lent.is_some() {
            self.give_back_lent();
        }
    }
}

impl Room {
    /// Empty room; costs nothing until used (the stack part stays uninitialised).
    #[ops_macro::inline_hot]
    pub(crate) fn new() -> Self {
        Self {
            stack: [const { MaybeUninit::uninit() }; STRING_STACK_BUFFER_SIZE],
            lent: ManuallyDrop::new(None),
        }
    }

    #[cold]
    #[inline(never)]
    fn give_back_lent(&mut self) {
        drop(self.lent.take());
    }

    /// Room for at least `len` bytes: the stack buffer if it fits, else a lent buffer.
    #[ops_macro::inline_hot]
    pub(crate) fn uninit(&mut self, len: usize) -> &mut [MaybeUninit<u8>] {
        if len <= STRING_STACK_BUFFER_SIZE {
            &mut self.stack[..]
        } else {
            &mut self.lent.insert(LentBuffer::lend(len)).bytes[..]
        }
    }

    /// A V8 string's content copied into this buffer, as UTF-8 (see [`Room::copy_utf8`]):
    /// what a reader that may run JavaScript meanwhile keeps (nothing stays borrowed from V8).
    #[ops_macro::inline_hot]
    pub(crate) fn copy_string(
        &mut self,
        isolate: &mut v8::Isolate,
        string: v8::Local<'_, v8::String>,
    ) -> &str {
        let mut slot = crate::values::string_view::ViewSlot::new();
        let view = slot.build(isolate, string);
        self.copy_utf8(view.data())
    }

    /// Copies (one-byte ASCII), transcodes (Latin-1, UTF-16 with lone surrogates as U+FFFD)
    /// the content of a V8 string into this buffer, as UTF-8.
    pub(crate) fn copy_utf8(&mut self, data: v8::ValueViewData<'_>) -> &str {
        match data {
            v8::ValueViewData::OneByte(bytes) if is_ascii(bytes) => {
                let room = &mut self.uninit(bytes.len())[..bytes.len()];
                // SAFETY: `room` has room for `bytes`; distinct allocations do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        room.as_mut_ptr().cast(),
                        bytes.len(),
                    );
                    std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                        room.as_ptr().cast(),
                        bytes.len(),
                    ))
                }
            }
            v8::ValueViewData::OneByte(latin1) => self.latin1_to_utf8(latin1),
            v8::ValueViewData::TwoByte(units) => self.utf16_to_utf8(units),
        }
    }

    /// Latin-1 as UTF-8: ASCII in place (no copy), anything else transcoded into the buffer.
    #[ops_macro::inline_hot]
    pub(crate) fn latin1_as_str<'b>(&'b mut self, latin1: &'b [u8]) -> &'b str {
        if is_ascii(latin1) {
            // SAFETY: ASCII is UTF-8.
            return unsafe { std::str::from_utf8_unchecked(latin1) };
        }
        self.latin1_to_utf8(latin1)
    }

    /// Latin-1 to UTF-8, with SIMD (simdutf).
    pub(crate) fn latin1_to_utf8(&mut self, latin1: &[u8]) -> &str {
        crate::values::simdutf_raw::latin1_to_utf8(latin1, self.uninit(latin1.len() * 2))
    }

    /// UTF-16 to UTF-8, with SIMD (simdutf); a scalar loop where a lone surrogate needs
    /// replacing.
    pub(crate) fn utf16_to_utf8(&mut self, units: &[u16]) -> &str {
        crate::values::simdutf_raw::utf16_to_utf8(units, self.uninit(units.len() * 3))
    }
}

/// A V8 string as a `String`: one allocation of the exact UTF-8 length, lone surrogates
/// replaced (U+FFFD), as `#[string] String` arguments.
pub(crate) fn v8_to_string(isolate: &mut v8::Isolate, string: v8::Local<'_, v8::String>) -> String {
    let mut slot = crate::values::string_view::ViewSlot::new();
    let view = slot.build(isolate, string);
    match view.data() {
        v8::ValueViewData::OneByte(latin1) => latin1_to_string(latin1),
        v8::ValueViewData::TwoByte(units) => utf16_to_string(units),
    }
}

/// UTF-16 to an owned `String` of exactly the UTF-8 length: one allocation. (Never inlined:
/// its string buffer would add a kilobyte to the frame of every op that reads a `String`.)
#[inline(never)]
pub(crate) fn utf16_to_string(units: &[u16]) -> String {
    // Up to the size a lent buffer is kept at: transcoded once into a string buffer (the
    // stack, or the thread's lent one), then copied into the exact allocation. Measuring the
    // length first and writing into a zeroed allocation cost two passes more (BENCHMARKS.md,
    // "Figures moved out of the code").
    if units.len().saturating_mul(3) <= STRING_BUFFER_RETAIN_LIMIT {
        return Room::new().utf16_to_utf8(units).to_owned();
    }
    // Larger: no copy of that size; the allocation comes zeroed from fresh pages.
    let utf8_len = v8::simdutf::utf8_length_from_utf16le(units);
    let mut utf8 = vec![0u8; utf8_len];
    // SAFETY: simdutf writes at most `utf8_length_from_utf16le` bytes for valid input.
    let result = unsafe { v8::simdutf::convert_utf16le_to_utf8_with_errors(units, &mut utf8) };
    let written = result.count;
    if !result.is_ok() {
        // A lone surrogate (rare): simdutf counted it as 2 bytes, U+FFFD takes 3, so the
        // vector grows to the exact length (a reallocation, on this path only; `reserve_exact`
        // keeps the capacity exact, as `cargo xtask fuzz` checks).
        let exact: usize = char::decode_utf16(units.iter().copied())
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER).len_utf8())
            .sum();
        utf8.reserve_exact(exact - utf8.len());
        utf8.resize(exact, 0);
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; only bytes are written.
        let room = unsafe { &mut *(&mut utf8[..] as *mut [u8] as *mut [MaybeUninit<u8>]) };
        let written = crate::values::simdutf_raw::utf16_to_utf8_in(units, room).len();
        debug_assert_eq!(written, exact);
        // SAFETY: the scalar loop wrote valid UTF-8 over the whole vector.
        return unsafe { String::from_utf8_unchecked(utf8) };
    }
    debug_assert_eq!(written, utf8_len);
    // SAFETY: simdutf wrote valid UTF-8.
    unsafe { String::from_utf8_unchecked(utf8) }
}

/// The length from which [`is_ascii`] hands the scan to simdutf, whose AVX2 loop is no faster
/// than std's SSE2 one while the text fits the L1 cache, and faster beyond it (figures in
/// BENCHMARKS.md).
const SIMD_ASCII_MIN_LEN: usize = 32 * 1024;

/// Whether every byte is ASCII. Same answer as `<[u8]>::is_ascii`, shaped for the short
/// strings ops see most: no byte-by-byte tail (the last word is read overlapping), which
/// measured in bench-ops as the difference between a 75-byte `&str` and a one-byte argument.
#[ops_macro::inline_hot]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let len = bytes.len();
    // SAFETY: every read below is of 8 (or 4) bytes starting at least that many before `len`.
    let word = |at: usize| unsafe { bytes.as_ptr().add(at).cast::<u64>().read_unaligned() };
    if len < 8 {
        if len >= 4 {
            // SAFETY: as above, for 4-byte reads.
            let half = |at: usize| unsafe { bytes.as_ptr().add(at).cast::<u32>().read_unaligned() };
            return (half(0) | half(len - 4)) & 0x8080_8080 == 0;
        }
        return bytes.iter().all(|&byte| byte < 0x80);
    }
    if len >= SIMD_ASCII_MIN_LEN {
        return is_long_ascii(bytes);
    }
    // Whole 64-byte blocks: std's loop, which the compiler vectorises; it checks byte by byte
    // only past the last whole block, and there is none past `blocks`.
    let blocks = len & !63;
    if blocks > 0 && !bytes[..blocks].is_ascii() {
        return false;
    }
    let mut at = blocks;
    let mut rest = 0;
    while at + 8 <= len {
        rest |= word(at);
        at += 8;
    }
    (rest | word(len - 8)) & HIGH_BITS == 0
}

/// [`is_ascii`] of text of `SIMD_ASCII_MIN_LEN` bytes or more: simdutf's scan, which uses the
/// widest vectors the CPU has (std's loop is built for SSE2), after a first block that rejects
/// most non-ASCII text without a pass over all of it. (Out of line: not worth its code at
/// every string argument.)
#[inline(never)]
fn is_long_ascii(bytes: &[u8]) -> bool {
    bytes[..64].is_ascii() && v8::simdutf::validate_ascii(&bytes[64..])
}

/// Latin-1 to an owned `String` of exactly the UTF-8 length: one allocation.
#[ops_macro::inline_hot]
pub(crate) fn latin1_to_string(latin1: &[u8]) -> String {
    if is_ascii(latin1) {
        // SAFETY: ASCII is UTF-8.
        return unsafe { String::from_utf8_unchecked(latin1.to_vec()) };
    }
    non_ascii_latin1_to_string(latin1)
}

/// As [`utf16_to_string`]: transcoded once into a string buffer, then copied into the exact
/// allocation: fewer passes than measuring the length first and transcoding into a zeroed
/// allocation (BENCHMARKS.md). Never inlined, for the same reason.
#[inline(never)]
fn non_ascii_latin1_to_string(latin1: &[u8]) -> String {
    if latin1.len().saturating_mul(2) <= STRING_BUFFER_RETAIN_LIMIT {
        return Room::new().latin1_to_utf8(latin1).to_owned();
    }
    // Larger: no copy of that size; the allocation comes zeroed from fresh pages.
    let utf8_len = v8::simdutf::utf8_length_from_latin1(latin1);
    let mut utf8 = vec![0u8; utf8_len];
    // SAFETY: `utf8` holds exactly the UTF-8 length of `latin1`.
    let written = unsafe { v8::simdutf::convert_latin1_to_utf8(latin1, &mut utf8) };
    debug_assert_eq!(written, utf8_len);
    // SAFETY: simdutf wrote valid UTF-8 (every Latin-1 input is valid).
    unsafe { String::from_utf8_unchecked(utf8) }
}

/// Narrows UTF-16 code units that are all at most U+00FF into `out` (which must hold
/// `units.len()` bytes); `None` if any is above.
pub(crate) fn narrow_to_latin1_in<'b>(
    units: &[u16],
    out: &'b mut [MaybeUninit<u8>],
) -> Option<&'b [u8]> {
    let out = &mut out[..units.len()];
    for (slot, &unit) in out.iter_mut().zip(units) {
        slot.write(u8::try_from(unit).ok()?);
    }
    // SAFETY: every byte of `out` was written above.
    Some(unsafe { std::slice::from_raw_parts(out.as_ptr().cast(), out.len()) })
}

/// Latin-1 bytes: a string whose characters are all at most U+00FF, one byte each, with no
/// UTF-8 validation (e.g. HTTP header values). As an op argument, a string with a character
/// above U+00FF is a `TypeError`; as a return value, it becomes a one-byte string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ByteString(pub Vec<u8>);

impl Deref for ByteString {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl ByteString {
    /// The Latin-1 bytes of `string`; `None` if a character is above U+00FF.
    pub(crate) fn of_string(
        scope: &mut v8::PinScope<'_, '_>,
        string: v8::Local<'_, v8::String>,
    ) -> Option<Self> {
        if !string.contains_only_onebyte() {
            return None;
        }
        let mut bytes = vec![0; string.length()];
        string.write_one_byte_v2(scope, 0, &mut bytes, v8::WriteFlags::empty());
        Some(ByteString(bytes))
    }
}

impl From<Vec<u8>> for ByteString {
    fn from(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}

impl From<&[u8]> for ByteString {
    fn from(bytes: &[u8]) -> Self {
        Self(bytes.to_vec())
    }
}

impl From<ByteString> for Vec<u8> {
    fn from(bytes: ByteString) -> Self {
        bytes.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_ascii_agrees_with_std_at_every_length_and_position() {
        for len in 0..200 {
            let mut bytes = vec![b'a'; len];
            assert!(is_ascii(&bytes), "all ASCII, {len}");
            for position in 0..len {
                bytes[position] = 0x80;
                assert!(!is_ascii(&bytes), "0x80 at {position} of {len}");
                bytes[position] = b'a';
            }
        }
        // Around the length simdutf takes over, every position near the edges of its scan.
        for len in [
            SIMD_ASCII_MIN_LEN - 1,
            SIMD_ASCII_MIN_LEN,
            SIMD_ASCII_MIN_LEN + 100,
        ] {
            let mut bytes = vec![b'a'; len];
            assert!(is_ascii(&bytes), "all ASCII, {len}");
            for position in (0..130)
                .chain(len / 2 - 40..len / 2 + 40)
                .chain(len - 130..len)
            {
                bytes[position] = 0xFF;
                assert!(!is_ascii(&bytes), "0xFF at {position} of {len}");
                bytes[position] = b'a';
            }
        }
    }

    #[test]
    fn latin1_transcoding() {
        let mut buffer = Room::new();
        assert_eq!(buffer.latin1_to_utf8(b"plain ascii"), "plain ascii");
        assert_eq!(
            buffer.latin1_to_utf8(&[0xA9, b'x', 0xFF, 0x80]),
            "©xÿ\u{80}"
        );
        assert_eq!(latin1_to_string(&[b'a', 0xE9]), "aé");
        assert_eq!(latin1_to_string(&[0xE9]).capacity(), 2);
    }

    #[test]
    fn utf16_transcoding_replaces_lone_surrogates() {
        let cases: &[(&[u16], &str)] = &[
            (&[0x61, 0x1000, 0xD83D, 0xDE00], "a\u{1000}😀"),
            (&[0x61, 0xD800, 0x62], "a\u{FFFD}b"),
            (&[0xDC00], "\u{FFFD}"),
            (&[0x62, 0xD83D], "b\u{FFFD}"),
        ];
        let latin1: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        let expected: String = latin1.iter().map(|&byte| char::from(byte)).collect();
        assert_eq!(Room::new().latin1_to_utf8(&latin1), expected);
        assert_eq!(
            Room::new().latin1_to_utf8(&latin1[..300]),
            &expected[..expected.char_indices().nth(300).unwrap().0]
        );
        for &(units, expected) in cases {
            let mut out = [MaybeUninit::uninit(); 64];
            assert_eq!(
                crate::values::simdutf_raw::utf16_to_utf8_in(units, &mut out),
                expected
            );
            let owned = utf16_to_string(units);
            assert_eq!(owned, expected);
            // Found by the fuzz target: the lone-surrogate path used to over-allocate.
            assert_eq!(owned.capacity(), owned.len(), "{units:x?}");
            let mut buffer = Room::new();
            assert_eq!(
                buffer.copy_utf8(v8::ValueViewData::TwoByte(units)),
                expected
            );
        }
        // Long enough for the SIMD path, with and without a lone surrogate.
        let mut long: Vec<u16> = "\u{1000}x".encode_utf16().cycle().take(2000).collect();
        let expected = "\u{1000}x".repeat(1000);
        assert_eq!(
            Room::new().copy_utf8(v8::ValueViewData::TwoByte(&long)),
            expected
        );
        assert_eq!(utf16_to_string(&long), expected);
        long[1001] = 0xDC00;
        let with_replacement = String::from_utf16_lossy(&long);
        assert_eq!(
            Room::new().copy_utf8(v8::ValueViewData::TwoByte(&long)),
            with_replacement
        );
        assert_eq!(utf16_to_string(&long), with_replacement);
    }

    #[test]
    fn narrowing_refuses_wide_characters() {
        let mut out = [MaybeUninit::uninit(); 8];
        assert_eq!(
            narrow_to_latin1_in(&[0x41, 0xFF], &mut out),
            Some(&[0x41, 0xFF][..])
        );
        assert_eq!(narrow_to_latin1_in(&[0x41, 0x100], &mut out), None);
    }

    #[test]
    fn lent_buffers_are_reused_and_never_shared() {
        let first = LentBuffer::lend(100);
        let first_ptr = first.bytes.as_ptr();
        // Taken while `first` is out: a different buffer.
        let second = LentBuffer::lend(100);
        assert_ne!(second.bytes.as_ptr(), first_ptr);
        drop(second);
        drop(first);
        // Back in the pool: the next lend gets one of them again, without allocating.
        let again = LentBuffer::lend(50);
        assert!(again.bytes.len() >= 100);
    }
}
