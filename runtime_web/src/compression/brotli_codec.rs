//! brotli for the compression streams, through the `brotli` crate (a pure-Rust port of
//! Google's codec), each codec's memory counted as it allocates it: a decoder's window is as
//! large as the stream declares (up to 16 MiB), so what it holds is read after each call
//! rather than assumed.

use std::cell::Cell;
use std::rc::Rc;

use ::brotli::enc::encode::{BrotliEncoderOperation, BrotliEncoderStateStruct};
use ::brotli::enc::BrotliEncoderParams;
use ::brotli::{Allocator, SliceWrapper, SliceWrapperMut};
use ::brotli::{BrotliDecompressStream, BrotliResult, BrotliState};

use super::OUTPUT_CHUNK;

/// The compressor's quality and window: a streaming setting (nginx's and most CDNs' range),
/// not the format's slowest (quality 11, whose state takes ten times the memory and whose
/// speed is a megabyte a second).
const QUALITY: u32 = 5;
const WINDOW_BITS: u32 = 20;

/// An allocator for one codec that counts the bytes it has given out and not had back.
#[derive(Clone, Default)]
pub(super) struct Counted {
    live: Rc<Cell<usize>>,
}

impl Counted {
    /// The bytes the codec holds now.
    pub(super) fn live(&self) -> usize {
        self.live.get()
    }
}

/// Memory a codec was given: a boxed slice.
pub(super) struct Cells<T>(Box<[T]>);

impl<T> Default for Cells<T> {
    fn default() -> Self {
        Self(Box::default())
    }
}

impl<T> SliceWrapper<T> for Cells<T> {
    fn slice(&self) -> &[T] {
        &self.0
    }
}

impl<T> SliceWrapperMut<T> for Cells<T> {
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Default> Allocator<T> for Counted {
    type AllocatedMemory = Cells<T>;

    fn alloc_cell(&mut self, len: usize) -> Cells<T> {
        self.live
            .set(self.live.get() + len * std::mem::size_of::<T>());
        Cells(vec![T::default(); len].into_boxed_slice())
    }

    fn free_cell(&mut self, cells: Cells<T>) {
        self.live
            .set(self.live.get() - cells.0.len() * std::mem::size_of::<T>());
    }
}

// Every cell type the encoder asks for is one of `Counted`'s.
impl ::brotli::enc::BrotliAlloc for Counted {}

/// A brotli compressor.
pub(super) struct Compressor {
    state: BrotliEncoderStateStruct<Counted>,
}

impl Compressor {
    pub(super) fn new(counted: Counted) -> Self {
        let mut state = BrotliEncoderStateStruct::new(counted);
        let params: &mut BrotliEncoderParams = &mut state.params;
        params.quality = QUALITY as i32;
        params.lgwin = WINDOW_BITS as i32;
        Self { state }
    }

    /// One read: what the input so far (consumed from `input`) makes, at most
    /// [`OUTPUT_CHUNK`] bytes; with `last`, the stream's end too (empty once it is all out).
    pub(super) fn read(&mut self, input: &mut Vec<u8>, last: bool) -> Vec<u8> {
        let op = if last {
            BrotliEncoderOperation::BROTLI_OPERATION_FINISH
        } else {
            BrotliEncoderOperation::BROTLI_OPERATION_PROCESS
        };
        let mut out = vec![0; OUTPUT_CHUNK];
        let (mut available_in, mut in_at) = (input.len(), 0);
        let (mut available_out, mut out_at) = (out.len(), 0);
        // Finishing, a call that gave nothing is called again (a few times at most): the
        // stream reads an empty output as its end.
        for _ in 0..4 {
            // Fails only on a misuse of its API (none here): its output is what it gave.
            let _ = self.state.compress_stream(
                op,
                &mut available_in,
                input,
                &mut in_at,
                &mut available_out,
                &mut out,
                &mut out_at,
                &mut None,
                &mut |_, _, _, _| (),
            );
            if out_at > 0 || !last || self.state.is_finished() {
                break;
            }
        }
        input.drain(..in_at);
        out.truncate(out_at);
        out
    }
}

/// A brotli decompressor.
pub(super) struct Decompressor {
    state: BrotliState<Counted, Counted, Counted>,
    ended: bool,
}

impl Decompressor {
    pub(super) fn new(counted: Counted) -> Self {
        Self {
            // RFC 7932's windows only (16 MiB at most): `new` also takes large-window streams,
            // whose window (up to 1 GiB) is allocated before any data is read.
            state: BrotliState::new_strict(counted.clone(), counted.clone(), counted),
            ended: false,
        }
    }

    /// Whether the stream's end was read.
    pub(super) fn ended(&self) -> bool {
        self.ended
    }

    /// One read: what the input so far (consumed from `input`) inflates to, at most
    /// [`OUTPUT_CHUNK`] bytes, or why it is no brotli stream. Past the end, input is left in
    /// `input` for the caller to refuse.
    pub(super) fn read(&mut self, input: &mut Vec<u8>) -> Result<Vec<u8>, String> {
        if self.ended {
            return Ok(Vec::new());
        }
        let mut out = vec![0; OUTPUT_CHUNK];
        let (mut available_in, mut in_at) = (input.len(), 0);
        let (mut available_out, mut out_at, mut total) = (out.len(), 0, 0);
        let result = BrotliDecompressStream(
            &mut available_in,
            &mut in_at,
            input,
            &mut available_out,
            &mut out_at,
            &mut out,
            &mut total,
            &mut self.state,
        );
        input.drain(..in_at);
        out.truncate(out_at);
        match result {
            BrotliResult::ResultSuccess => self.ended = true,
            BrotliResult::NeedsMoreInput | BrotliResult::NeedsMoreOutput => {}
            BrotliResult::ResultFailure => return Err("not a brotli stream".to_owned()),
        }
        Ok(out)
    }
}
