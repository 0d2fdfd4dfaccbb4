//! `CompressionStream` and `DecompressionStream` (`compression.js`): gzip, deflate (zlib) and
//! deflate-raw through flate2's pure-Rust backend (miniz_oxide), brotli through the `brotli`
//! crate (`brotli_codec.rs`), each codec an object on V8's C++ heap, so the collector frees
//! what a tenant abandons.
//!
//! What a tenant controls cannot pass its budget: a codec's state is held as the runtime's
//! [`ExternalMemory`] while it lives (its budget counts it; V8 collects sooner as it grows;
//! a brotli codec's share is what it has allocated, read after each call);
//! input is taken a chunk at a time and output given back at
//! most [`OUTPUT_CHUNK`] bytes per call, so a small input that inflates without end becomes
//! many chunks on the V8 heap, each counted, never one unbounded buffer in Rust.

use std::cell::{Cell, RefCell};

use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};
use runtime_core::v8;
use runtime_core::{
    op, Extension, ExternalMemory, GlobalScript, HeldMemory, OpError, OpState, Trace,
};

mod brotli_codec;
mod gzip;

use brotli_codec::Counted;
use gzip::{GzipHeader, HEADER as GZIP_HEADER};

/// The most bytes one read gives back.
const OUTPUT_CHUNK: usize = 64 * 1024;

/// What a compressor's state takes: miniz_oxide's dictionary and hash chains, its LZ code
/// buffer and output buffer, and its Huffman tables.
const COMPRESSOR_BYTES: usize = 320 * 1024;
/// What a decompressor's state takes: miniz_oxide's 32 KiB window and its tables.
const DECOMPRESSOR_BYTES: usize = 48 * 1024;

/// The formats of the spec's `CompressionFormat`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Deflate,
    DeflateRaw,
    Gzip,
    Brotli,
}

/// A codec's work, by direction.
enum Coder {
    Compress {
        deflate: Box<Compress>,
        /// gzip: the CRC of the input so far; whether the header and trailer are out.
        crc: Option<Crc>,
        header_written: bool,
        trailer_written: bool,
    },
    Decompress {
        inflate: Box<Decompress>,
        /// gzip: the CRC of the output so far.
        crc: Option<Crc>,
        phase: Inflating,
    },
    BrotliCompress(Box<brotli_codec::Compressor>),
    BrotliDecompress(Box<brotli_codec::Decompressor>),
    /// Finished, failed or closed: its state is freed and uncounted.
    Done,
}

/// Where a decompressor is in its stream.
enum Inflating {
    /// gzip's header, read a byte at a time (none of it kept).
    Header(GzipHeader),
    Body,
    /// gzip's trailer: CRC and size, the bytes read so far.
    Trailer([u8; 8], usize),
    /// The stream's end was read: any more input is an error.
    Ended,
}

/// One `CompressionStream`'s or `DecompressionStream`'s codec.
pub struct Codec {
    coder: RefCell<Coder>,
    /// Input written and not yet consumed (emptied by the reads that follow each write).
    input: RefCell<Vec<u8>>,
    /// The state's share of the runtime's external memory, until the state is freed.
    held: RefCell<Option<HeldMemory>>,
    /// A brotli codec's allocator, which counts what its state holds (`None`: a fixed share).
    counted: Option<Counted>,
    /// The bytes `held` holds.
    held_bytes: Cell<usize>,
}

// SAFETY: a `Codec` holds no V8 reference to trace and has no base class.
unsafe impl Trace for Codec {}

impl Codec {
    /// Frees the state (finished, failed or closed) and gives back its share.
    fn end(&self, isolate: &mut v8::Isolate) {
        *self.coder.borrow_mut() = Coder::Done;
        *self.input.borrow_mut() = Vec::new();
        if let Some(held) = self.held.borrow_mut().take() {
            held.release(isolate);
        }
    }

    /// A brotli codec's share made what its state holds now.
    fn account(&self, isolate: &mut v8::Isolate, memory: &ExternalMemory) {
        let Some(counted) = &self.counted else {
            return;
        };
        let mut held = self.held.borrow_mut();
        let live = counted.live();
        if held.is_some() && self.held_bytes.get() != live {
            let now = memory.hold(isolate, live);
            if let Some(before) = held.replace(now) {
                before.release(isolate);
            }
            self.held_bytes.set(live);
        }
    }
}

/// A codec for `format` (a `CompressionFormat` value, checked by the caller), compressing or
/// decompressing.
#[op]
#[cppgc]
fn op_web_codec_new(
    scope: &mut v8::PinScope<'_, '_>,
    state: &OpState,
    #[string] format: &str,
    compress: bool,
) -> Result<Codec, OpError> {
    let format = match format {
        "deflate" => Format::Deflate,
        "deflate-raw" => Format::DeflateRaw,
        "gzip" => Format::Gzip,
        "brotli" => Format::Brotli,
        _ => return Err(OpError::type_error(format!("unknown format \"{format}\""))),
    };
    let zlib = format == Format::Deflate;
    let gzip = format == Format::Gzip;
    // A brotli codec's state is allocated as it works: held as it grows (from nothing).
    let counted = (format == Format::Brotli).then(Counted::default);
    let (coder, bytes) = match (&counted, compress) {
        (Some(counted), true) => (
            Coder::BrotliCompress(Box::new(brotli_codec::Compressor::new(counted.clone()))),
            counted.live(),
        ),
        (Some(counted), false) => (
            Coder::BrotliDecompress(Box::new(brotli_codec::Decompressor::new(counted.clone()))),
            counted.live(),
        ),
        (None, true) => (
            Coder::Compress {
                deflate: Box::new(Compress::new(Compression::default(), zlib)),
                crc: gzip.then(Crc::new),
                header_written: !gzip,
                trailer_written: !gzip,
            },
            COMPRESSOR_BYTES,
        ),
        (None, false) => (
            Coder::Decompress {
                inflate: Box::new(Decompress::new(zlib)),
                crc: gzip.then(Crc::new),
                phase: if gzip {
                    Inflating::Header(GzipHeader::default())
                } else {
                    Inflating::Body
                },
            },
            DECOMPRESSOR_BYTES,
        ),
    };
    let held = state.borrow::<ExternalMemory>().hold(scope, bytes);
    Ok(Codec {
        coder: RefCell::new(coder),
        input: RefCell::new(Vec::new()),
        held: RefCell::new(Some(held)),
        counted,
        held_bytes: Cell::new(bytes),
    })
}

/// Takes `chunk` (a `BufferSource`: an ArrayBuffer or a view of one, never shared memory) as
/// the codec's next input.
#[op]
fn op_web_codec_write(
    scope: &mut v8::PinScope<'_, '_>,
    #[cppgc] codec: &Codec,
    chunk: v8::Local<'_, v8::Value>,
) -> Result<(), OpError> {
    let shared = if let Ok(view) = v8::Local::<v8::ArrayBufferView>::try_from(chunk) {
        view.buffer(scope)
            .is_none_or(|buffer| buffer.is_shared_array_buffer())
    } else {
        !chunk.is_array_buffer()
    };
    if shared {
        return Err(OpError::type_error(
            "The chunk is not an ArrayBuffer or ArrayBufferView (shared memory is not one)",
        ));
    }
    // SAFETY: nothing runs JavaScript while the bytes are copied.
    let bytes = unsafe { crate::buffer_source::bytes_of(chunk) };
    codec.input.borrow_mut().extend_from_slice(bytes);
    Ok(())
}

/// The codec's next output, at most [`OUTPUT_CHUNK`] bytes; empty when it has none until
/// more input (or, with `last`, when it is done). `last` says no input follows: the stream is
/// finished (compressing) or must have ended (decompressing).
#[op]
fn op_web_codec_read(
    scope: &mut v8::PinScope<'_, '_>,
    state: &OpState,
    #[cppgc] codec: &Codec,
    last: bool,
) -> Result<Vec<u8>, OpError> {
    let mut coder = codec.coder.borrow_mut();
    let mut input = codec.input.borrow_mut();
    let result = match &mut *coder {
        Coder::Compress {
            deflate,
            crc,
            header_written,
            trailer_written,
        } => Ok(compress(
            deflate,
            crc,
            header_written,
            trailer_written,
            &mut input,
            last,
        )),
        Coder::Decompress {
            inflate,
            crc,
            phase,
        } => decompress(inflate, crc, phase, &mut input, last),
        Coder::BrotliCompress(compressor) => Ok(compressor.read(&mut input, last)),
        Coder::BrotliDecompress(decompressor) => decompressor
            .read(&mut input)
            .map_err(|why| corrupt(&why))
            .and_then(|out| after_end(out, decompressor.ended(), &input, last)),
        Coder::Done => Ok(Vec::new()),
    };
    let finished = match &*coder {
        Coder::Compress {
            trailer_written, ..
        } => last && *trailer_written && result.as_ref().is_ok_and(Vec::is_empty),
        Coder::Decompress { phase, .. } => last && matches!(phase, Inflating::Ended),
        // Finished once the end is out and nothing is left to give.
        Coder::BrotliCompress(_) => last && result.as_ref().is_ok_and(Vec::is_empty),
        Coder::BrotliDecompress(decompressor) => last && decompressor.ended(),
        Coder::Done => false,
    };
    drop((coder, input));
    if result.is_err() || finished {
        codec.end(scope);
    } else {
        codec.account(scope, state.borrow::<ExternalMemory>());
    }
    // The vector becomes the chunk's memory as it is, and V8 counts a buffer by its length:
    // none of the reserve a read made may stay behind it, unseen by the budget.
    result.map(|mut out| {
        out.shrink_to_fit();
        out
    })
}

/// Frees the codec's state now (its stream was cancelled or errored).
#[op]
fn op_web_codec_close(scope: &mut v8::PinScope<'_, '_>, #[cppgc] codec: &Codec) {
    codec.end(scope);
}

/// One read of a compressor: the gzip header first, then deflate's output, then (finished)
/// the gzip trailer.
fn compress(
    deflate: &mut Compress,
    crc: &mut Option<Crc>,
    header_written: &mut bool,
    trailer_written: &mut bool,
    input: &mut Vec<u8>,
    last: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(OUTPUT_CHUNK);
    if !*header_written {
        out.extend_from_slice(&GZIP_HEADER);
        *header_written = true;
    }
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::None
    };
    let before = deflate.total_in();
    // Deflate fails only on a misuse of its API (none here); its output is what it gave.
    let status = deflate.compress_vec(input, &mut out, flush);
    let consumed = (deflate.total_in() - before) as usize;
    if let Some(crc) = crc.as_mut() {
        crc.update(&input[..consumed]);
    }
    input.drain(..consumed);
    if matches!(status, Ok(Status::StreamEnd)) && !*trailer_written {
        if let Some(crc) = crc {
            if out.capacity() - out.len() >= 8 {
                out.extend_from_slice(&crc.sum().to_le_bytes());
                out.extend_from_slice(&crc.amount().to_le_bytes());
                *trailer_written = true;
            }
        } else {
            *trailer_written = true;
        }
    }
    out
}

fn corrupt(why: &str) -> OpError {
    OpError::type_error(format!("The compressed data is invalid: {why}"))
}

/// One read of a decompressor: the gzip header, inflate's output, then the gzip trailer; past
/// the end, any input is an error, and so is an end short of it when `last`.
fn decompress(
    inflate: &mut Decompress,
    crc: &mut Option<Crc>,
    phase: &mut Inflating,
    input: &mut Vec<u8>,
    last: bool,
) -> Result<Vec<u8>, OpError> {
    let mut at = 0;
    if let Inflating::Header(header) = phase {
        at = header.read(input).map_err(corrupt)?;
        if header.done() {
            *phase = Inflating::Body;
        }
    }
    let mut out = Vec::new();
    if let Inflating::Body = phase {
        // Called with no input too: what a full output left inside the inflater comes now.
        out.reserve_exact(OUTPUT_CHUNK);
        let before = inflate.total_in();
        let status = inflate
            .decompress_vec(&input[at..], &mut out, FlushDecompress::None)
            .map_err(|error| corrupt(&error.to_string()))?;
        at += (inflate.total_in() - before) as usize;
        if let Some(crc) = crc.as_mut() {
            crc.update(&out);
        }
        if status == Status::StreamEnd {
            *phase = match crc {
                Some(_) => Inflating::Trailer([0; 8], 0),
                None => Inflating::Ended,
            };
        }
    }
    if let Inflating::Trailer(bytes, have) = phase {
        let take = (8 - *have).min(input.len() - at);
        bytes[*have..*have + take].copy_from_slice(&input[at..at + take]);
        *have += take;
        at += take;
        if *have == 8 {
            let crc = crc.as_ref().expect("a gzip stream keeps a CRC");
            let sum = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let size = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
            if sum != crc.sum() || size != crc.amount() {
                return Err(corrupt("the gzip trailer does not match the data"));
            }
            *phase = Inflating::Ended;
        }
    }
    input.drain(..at);
    after_end(out, matches!(phase, Inflating::Ended), input, last)
}

/// A decompressor's read `out`, or the error its stream's end makes of it: data past the end
/// (given after what came before it), or no end when `last` says no input follows.
fn after_end(out: Vec<u8>, ended: bool, input: &[u8], last: bool) -> Result<Vec<u8>, OpError> {
    if ended && !input.is_empty() && out.is_empty() {
        return Err(corrupt("data follows the end of the compressed stream"));
    }
    if last && !ended && out.is_empty() {
        return Err(corrupt("the compressed stream ended early"));
    }
    Ok(out)
}

/// `CompressionStream`, `DecompressionStream` (after the streams extension).
pub(crate) fn extension() -> Extension {
    Extension::new("web_compression")
        .internal_ops(&[
            op_web_codec_new::DECL,
            op_web_codec_write::DECL,
            op_web_codec_read::DECL,
            op_web_codec_close::DECL,
        ])
        .global(
            GlobalScript::new("ext:web/compression.js", include_str!("compression.js"))
                .typescript(include_str!("compression.d.ts")),
        )
}
