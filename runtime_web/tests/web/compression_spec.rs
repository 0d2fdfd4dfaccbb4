//! Compression streams, by the Compression Streams standard: each format round-trips in any
//! chunking, reads what other encoders (zlib, Python's gzip, Google's brotli) wrote, headers of
//! every optional part included, and refuses what is no stream of its format: a bad chunk, corrupt or
//! truncated data, data past the end, with a `TypeError` that errors the stream.

use crate::{eval, settle, web};

/// JavaScript helpers: `hex(s)` → bytes, `run(stream, chunks)` → the output bytes (chunks
/// written in order, then the writer closed), `sizes` the output chunks' lengths.
const HELPERS: &str = "\
    const hex = (s) => new Uint8Array(s.match(/../g).map((b) => parseInt(b, 16))); \
    const text = (bytes) => new TextDecoder().decode(bytes); \
    globalThis.sizes = []; \
    async function run(stream, chunks) { \
      const writer = stream.writable.getWriter(); \
      const writing = (async () => { for (const c of chunks) await writer.write(c); await writer.close(); })(); \
      writing.catch(() => {}); \
      const parts = []; \
      for await (const part of stream.readable) { \
        if (!(part instanceof Uint8Array)) throw new Error('not a Uint8Array'); \
        parts.push(part); sizes.push(part.length); \
      } \
      await writing; \
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0)); \
      let at = 0; for (const p of parts) { out.set(p, at); at += p.length; } \
      return out; \
    } \
    async function outcome(stream, chunks) { \
      try { await run(stream, chunks); return 'ok'; } \
      catch (e) { return e.name + (e instanceof TypeError ? '' : ' (not a TypeError)'); } \
    } ";

/// "hello world, hello compression streams" as zlib (Python's `zlib.compress`), raw deflate
/// (level 9), and gzip: Python's plain member, and one with an extra field, a name, a comment
/// and a header CRC.
const DATA: &str = "hello world, hello compression streams";
const DEFLATE: &str =
    "789ccb48cdc9c95728cf2fca49d151c8007392f3730b8a528b8b33f3f3148a4b8a5213738b0118a90eae";
const DEFLATE_RAW: &str =
    "cb48cdc9c95728cf2fca49d151c8007392f3730b8a528b8b33f3f3148a4b8a5213738b01";
const GZIP_PLAIN: &str = "1f8b0800000000000203cb48cdc9c95728cf2fca49d151c8007392f3730b8a528b8b33f3f3148a4b8a5213738b0139546b8826000000";
/// The same as Google's brotli encoder writes it (Node's `zlib.brotliCompressSync`): its
/// defaults (quality 11, a 4 MiB window), and quality 4 with a 16 MiB window.
const BROTLI: &str = "1b2500e0a5cbd0d8de342185ac028c7c3572497dff40e7552301";
const BROTLI_WIDE: &str =
    "1f25000044b779bde3f77d240605dac29594c02351356b6c5609977d0167a9dfd03ebaf01f661b";
/// The same in large-window brotli (Google's encoder with `BROTLI_PARAM_LARGE_WINDOW`, a 1 GiB
/// window): not RFC 7932's format, which Google's decoder refuses unless asked not to.
const BROTLI_LARGE_WINDOW: &str = "115e940080972e43637bd38414b20a30f2a52127a9ef1fe8bc6a24";
const GZIP_EVERY_PART: &str = "1f8b081e00000000000303006162636e616d652e747874006120636f6d6d656e74009c31cb48cdc9c95728cf2fca49d151c8007392f3730b8a528b8b33f3f3148a4b8a5213738b0139546b8826000000";

#[test]
fn each_format_round_trips_in_any_chunking() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const input = new Uint8Array(300000); \
                 for (let i = 0; i < input.length; i++) input[i] = (i * 7919) % 251; \
                 const results = []; \
                 for (const format of ['deflate', 'deflate-raw', 'gzip', 'brotli']) {{ \
                   const whole = await run(new CompressionStream(format), [input]); \
                   const split = await run(new CompressionStream(format), \
                     [input.subarray(0, 1), new Uint8Array(0), input.subarray(1, 70000).slice().buffer, new DataView(input.buffer, 70000)]); \
                   for (const compressed of [whole, split]) {{ \
                     const bytes = [...compressed]; \
                     const byByte = await run(new DecompressionStream(format), bytes.map((b) => new Uint8Array([b]))); \
                     const back = await run(new DecompressionStream(format), [compressed]); \
                     results.push(format + ' ' + (back.length === input.length && back.every((b, i) => b === input[i])) \
                       + ' ' + (byByte.length === input.length)); \
                   }} \
                 }} \
                 return results;"
            )
        ),
        r#"["deflate true true","deflate true true","deflate-raw true true","deflate-raw true true","gzip true true","gzip true true","brotli true true","brotli true true"]"#
    );
}

#[test]
fn what_other_encoders_wrote_is_read_in_any_split() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const cases = [['deflate', '{DEFLATE}'], ['deflate-raw', '{DEFLATE_RAW}'], \
                   ['gzip', '{GZIP_PLAIN}'], ['gzip', '{GZIP_EVERY_PART}'], \
                   ['brotli', '{BROTLI}'], ['brotli', '{BROTLI_WIDE}']]; \
                 const results = []; \
                 for (const [format, data] of cases) {{ \
                   const bytes = hex(data); let right = 0; \
                   for (let split = 0; split <= bytes.length; split++) {{ \
                     const out = await run(new DecompressionStream(format), [bytes.subarray(0, split), bytes.subarray(split)]); \
                     if (text(out) === '{DATA}') right++; \
                   }} \
                   results.push(right === bytes.length + 1); \
                 }} \
                 return results;"
            )
        ),
        "[true,true,true,true,true,true]"
    );
}

#[test]
fn the_compressors_write_their_formats_headers() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const input = new TextEncoder().encode('{DATA}'); \
                 const gzip = await run(new CompressionStream('gzip'), [input]); \
                 const deflate = await run(new CompressionStream('deflate'), [input]); \
                 const empty = await run(new CompressionStream('gzip'), []); \
                 const emptyBrotli = await run(new CompressionStream('brotli'), []); \
                 const trailer = [...gzip.subarray(gzip.length - 4)]; \
                 return [[...gzip.subarray(0, 10)], deflate[0], trailer, \
                   text(await run(new DecompressionStream('gzip'), [empty])), \
                   emptyBrotli.length > 0, text(await run(new DecompressionStream('brotli'), [emptyBrotli]))];"
            )
        ),
        // The fixed gzip header (no name, time or flags; OS unknown), zlib's first byte, the
        // trailer's size (38), and empty streams (gzip, brotli) that still decompress.
        r#"[[31,139,8,0,0,0,0,0,0,255],120,[38,0,0,0],"",true,""]"#
    );
}

#[test]
fn output_comes_in_bounded_chunks() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const zeros = new Uint8Array(1 << 20); \
                 const results = []; \
                 for (const format of ['deflate', 'brotli']) {{ \
                   const compressed = await run(new CompressionStream(format), [zeros]); \
                   sizes.length = 0; \
                   const back = await run(new DecompressionStream(format), [compressed]); \
                   results.push([compressed.length < 2000, back.length, sizes.length, Math.max(...sizes)]); \
                 }} \
                 return results;"
            )
        ),
        "[[true,1048576,16,65536],[true,1048576,16,65536]]"
    );
}

#[test]
fn a_bad_format_or_chunk_is_a_type_error() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "return ['gzip', 'deflate', 'deflate-raw', 'brotli', 'GZIP', 'br', 'zip', undefined].map((f) => { \
               try { new CompressionStream(f); new DecompressionStream(f); return 'ok'; } \
               catch (e) { return e.name; } });"
        ),
        r#"["ok","ok","ok","ok","TypeError","TypeError","TypeError","TypeError"]"#
    );
    assert_eq!(
        eval(&mut runtime, "new CompressionStream('lz4')"),
        "throws TypeError: Failed to construct 'CompressionStream': The provided value 'lz4' is not a valid enum value of type CompressionFormat."
    );
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const bad = [undefined, null, 1, 'text', {{}}, [1, 2], new Uint8Array(new SharedArrayBuffer(4))]; \
                 const results = []; \
                 for (const chunk of bad) {{ \
                   results.push(await outcome(new CompressionStream('gzip'), [chunk])); \
                   results.push(await outcome(new DecompressionStream('gzip'), [chunk])); \
                 }} \
                 return results.every((r) => r === 'TypeError') ? 'all TypeError' : results;"
            )
        ),
        r#""all TypeError""#
    );
}

#[test]
fn corrupt_truncated_or_overlong_input_errors_the_stream() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 const flip = (data, at) => {{ const b = hex(data); b[at < 0 ? b.length + at : at] ^= 0xff; return b; }}; \
                 const cases = [ \
                   ['deflate', hex('{DEFLATE}')], \
                   ['deflate', flip('{DEFLATE}', 0)], \
                   ['deflate', flip('{DEFLATE}', -1)], \
                   ['gzip', flip('{GZIP_PLAIN}', 1)], \
                   ['gzip', flip('{GZIP_PLAIN}', -8)], \
                   ['gzip', flip('{GZIP_PLAIN}', -1)], \
                   ['gzip', hex('{GZIP_PLAIN}').subarray(0, 30)], \
                   ['deflate-raw', hex('{DEFLATE_RAW}').subarray(0, 10)], \
                   ['gzip', hex('{GZIP_PLAIN}ff')], \
                   ['deflate', hex('{DEFLATE}00')], \
                   ['deflate-raw', new Uint8Array(0)], \
                   ['gzip', hex('1f8b0820')], \
                   ['brotli', hex('{BROTLI}')], \
                   ['brotli', hex('{BROTLI}').subarray(0, 10)], \
                   ['brotli', hex('{BROTLI}ff')], \
                   ['brotli', new Uint8Array(0)], \
                   ['brotli', hex('11')], \
                 ]; \
                 const results = []; \
                 for (const [format, bytes] of cases) results.push(await outcome(new DecompressionStream(format), [bytes])); \
                 return results;"
            )
        ),
        // The intact stream; a bad zlib header, Adler-32, gzip magic, CRC and size; data cut
        // short (gzip, raw); a byte past the end (gzip, zlib); nothing at all; reserved flags.
        // brotli (which has no checksum): intact, cut short, a byte past the end, nothing,
        // and a large-window header (not RFC 7932's).
        r#"["ok","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","ok","TypeError","TypeError","TypeError","TypeError"]"#
    );
}

/// A large-window stream declares a window of up to 1 GiB, which a decoder allocates before it
/// has read any data: refused at its header, as Google's decoder refuses it by default.
#[test]
fn large_window_brotli_is_refused() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            &format!(
                "{HELPERS} \
                 return [await outcome(new DecompressionStream('brotli'), [hex('{BROTLI_LARGE_WINDOW}')]), \
                   await outcome(new DecompressionStream('brotli'), [hex('{BROTLI}')])];"
            )
        ),
        r#"["TypeError","ok"]"#
    );
}

#[test]
fn the_interfaces_are_the_specs() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const c = new CompressionStream('gzip'); const d = new DecompressionStream('deflate'); \
             const getter = (C, name) => typeof Object.getOwnPropertyDescriptor(C.prototype, name).get; \
             return [c.readable instanceof ReadableStream, c.writable instanceof WritableStream, \
               d.readable instanceof ReadableStream, String(c), getter(CompressionStream, 'readable'), \
               Object.getOwnPropertyDescriptor(globalThis, 'DecompressionStream').enumerable, \
               (() => { try { CompressionStream('gzip'); } catch (e) { return e.name; } })(), \
               (() => { try { getter(DecompressionStream, 'readable') && Object.getOwnPropertyDescriptor(DecompressionStream.prototype, 'readable').get.call(c); } catch (e) { return e.name; } })()];"
        ),
        r#"[true,true,true,"[object CompressionStream]","function",false,"TypeError","TypeError"]"#
    );
}
