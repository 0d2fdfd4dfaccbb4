//! Bounds on the sequences and maps a conversion reads. A JavaScript array's `length` costs
//! its script nothing (`a = []; a.length = 2 ** 32 - 1` is 16 bytes of V8 heap), while the
//! Rust value read from it costs an element per index: so conversions never trust `length`
//! for memory (they grow as elements are read), refuse sequences longer than the runtime's
//! [`RuntimeOptions::max_sequence_length`](crate::RuntimeOptions::max_sequence_length), and
//! stop when the runtime's [`TerminationHandle`](crate::TerminationHandle) asks, since no
//! JavaScript runs (so V8 checks no interrupt) while a conversion reads plain elements.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::OpError;

/// How many elements a conversion reads between two looks at the runtime's termination
/// request (a power of two); also the length up to which no limit is looked up at all.
pub const CHECK_EVERY: u32 = 4096;

/// The default of [`RuntimeOptions::max_sequence_length`](crate::RuntimeOptions): 2^24
/// elements (an array V8 holds in 128 MiB when every element is real).
pub const DEFAULT_MAX_SEQUENCE_LENGTH: u32 = 1 << 24;

/// How much room a conversion reserves before reading: what it has read decides the rest.
const RESERVE_LIMIT: usize = 1024;

/// Per isolate (a slot set by `Runtime::new`): the runtime's limit and termination handle.
pub(crate) struct ConversionLimits {
    pub(crate) max_sequence_length: u32,
    pub(crate) termination: crate::TerminationHandle,
}

/// The smallest limit of any runtime the process made, if under [`CHECK_EVERY`]: sequences up
/// to it are checked without a lookup (a load of this, no slot), and only in a process with a
/// runtime of a smaller limit does a shorter sequence look its runtime's up.
static SMALLEST_LIMIT: AtomicU32 = AtomicU32::new(CHECK_EVERY);

impl ConversionLimits {
    /// The limits of a runtime about to be made.
    pub(crate) fn new(max_sequence_length: u32, termination: crate::TerminationHandle) -> Self {
        SMALLEST_LIMIT.fetch_min(max_sequence_length, Ordering::Relaxed);
        Self {
            max_sequence_length,
            termination,
        }
    }
}

/// Room to reserve for a sequence said to have `len` elements: a little, never `len` itself.
#[inline]
pub fn reserve_for(len: u32) -> usize {
    (len as usize).min(RESERVE_LIMIT)
}

/// `len`, if a sequence (or map) of that many elements may be read in this runtime; else a
/// `RangeError`. Short sequences are checked without a lookup.
#[inline]
pub fn checked_len(isolate: &v8::Isolate, len: u32) -> Result<u32, OpError> {
    if len <= SMALLEST_LIMIT.load(Ordering::Relaxed) {
        return Ok(len);
    }
    check_len_slow(isolate, len)
}

#[cold]
#[inline(never)]
fn check_len_slow(isolate: &v8::Isolate, len: u32) -> Result<u32, OpError> {
    let max = isolate
        .get_slot::<ConversionLimits>()
        .map_or(DEFAULT_MAX_SEQUENCE_LENGTH, |limits| {
            limits.max_sequence_length
        });
    if len > max {
        return Err(OpError::range_error(format!(
            "a sequence of {len} elements is longer than this runtime converts ({max}: \
             RuntimeOptions::max_sequence_length)"
        )));
    }
    Ok(len)
}

/// The elements one conversion reads, counted. Before each, [`ElementBudget::before_element`]
/// looks at the runtime's termination request every [`CHECK_EVERY`] elements (no JavaScript
/// runs while plain elements are read, so V8 checks for no interrupt), and stops a sequence of
/// unknown length (an iterable) exactly at the runtime's limit. Between two looks an element
/// costs one comparison.
#[derive(Debug)]
pub struct ElementBudget {
    /// The index at which to look next.
    next_check: u32,
}

impl Default for ElementBudget {
    fn default() -> Self {
        Self {
            next_check: SMALLEST_LIMIT.load(Ordering::Relaxed).min(CHECK_EVERY),
        }
    }
}

impl ElementBudget {
    /// Before reading element `index` (counting from 0, one after the other).
    #[inline]
    pub fn before_element(
        &mut self,
        scope: &mut v8::PinScope<'_, '_>,
        index: u32,
    ) -> Result<(), OpError> {
        if index < self.next_check {
            return Ok(());
        }
        self.look(scope, index)
    }

    #[cold]
    #[inline(never)]
    fn look(&mut self, scope: &mut v8::PinScope<'_, '_>, index: u32) -> Result<(), OpError> {
        let Some(limits) = scope.get_slot::<ConversionLimits>() else {
            self.next_check = u32::MAX;
            return Ok(());
        };
        let max = limits.max_sequence_length;
        if limits.termination.is_requested() || scope.is_execution_terminating() {
            // V8 acts on the request now, so that the conversion's error is no exception the
            // script could catch: the op's call ends in the termination.
            crate::isolate::termination::check_interrupts(scope);
            return Err(OpError::generic(
                "the conversion was stopped: execution is terminating",
            ));
        }
        if index >= max {
            return Err(OpError::range_error(format!(
                "a sequence of more than {max} elements is longer than this runtime converts \
                 (RuntimeOptions::max_sequence_length)"
            )));
        }
        let next_interval = (index / CHECK_EVERY)
            .saturating_add(1)
            .saturating_mul(CHECK_EVERY);
        self.next_check = next_interval.min(max);
        Ok(())
    }
}

const _: () = assert!(CHECK_EVERY.is_power_of_two());
