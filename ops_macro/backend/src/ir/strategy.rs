//! Conversion strategies: what the kind table in [`super::ArgKind`] and [`super::RetKind`] answers for each kind, and
//! what the emitters in [`crate::codegen`] turn into code.

use super::contract::{FastHelper, Marker, SlowHelper};
use super::values::{BufferSource, CType, LocalType};

/// What of V8 a slow call holds, in increasing cost: nothing, the isolate (one V8 call), or a
/// handle scope (rusty_v8's scope bookkeeping besides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum V8Access {
    /// Nothing: arguments are read and numbers returned through the callback info.
    Nothing,
    /// The isolate.
    Isolate,
    /// A handle scope.
    Scope,
}

/// How an argument reaches the function on the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowArg {
    /// From the next JavaScript argument, through the argument type's `FromArg<kind>` impl.
    Trait(Marker),
    /// From the next JavaScript argument, through `SlowCall::<helper>(index)`.
    Convert {
        /// The `runtime_core::__op::SlowCall` method that converts (and throws on bad input).
        helper: SlowHelper,
    },
    /// As `Convert`, through an `unsafe` helper that lends memory V8 owns for the call (a
    /// buffer's bytes): sound because the op cannot run JavaScript while it holds them (the
    /// classification's rules).
    Lent {
        /// The `runtime_core::__op::SlowCall` method that lends.
        helper: SlowHelper,
    },
    /// From the next JavaScript argument, through `SlowCall::<helper>(index, &mut buffer)`
    /// with a `StringBuffer` that lives for the call.
    Buffered {
        /// The helper for an op that cannot run JavaScript: may borrow V8's memory in place
        /// (`unsafe`, as `Lent`'s).
        in_place: SlowHelper,
        /// The helper for an op that takes the scope (JavaScript may run and move the
        /// string): always copies into the buffer.
        copied: SlowHelper,
    },
    /// From the next JavaScript argument, through `SlowCall::<helper>(index, &mut storage)`
    /// with a `BufferStorage` that lives for the call (a small array on the V8 heap is copied
    /// there: reading it allocates nothing).
    WithStorage {
        /// The helper (`unsafe`, lending as `Lent`'s).
        helper: SlowHelper,
    },
    /// From the next JavaScript argument, through `SlowCall::<helper>(index, source)`.
    FromSource {
        /// The helper.
        helper: SlowHelper,
        /// What JavaScript may pass.
        source: BufferSource,
    },
    /// From the next JavaScript argument, checked to be a `v8::Local<T>` of this type.
    Local(LocalType),
    /// As `Local`, then made a `v8::Global<T>` with the isolate.
    Global(LocalType),
    /// From the next JavaScript argument, through the argument type's `FromV8`.
    FromV8,
    /// From the next JavaScript argument, through serde (`runtime_core::serde::Serde<T>`).
    Serde,
    /// From the next JavaScript argument, by WebIDL rules (`runtime_core::webidl::WebIdl<T>`).
    WebIdl,
    /// The receiver, unwrapped to the class's Rust value.
    Receiver,
    /// From the next JavaScript argument: an instance of the class, unwrapped.
    Cppgc,
    /// The receiver (`receiver`) or the next JavaScript argument, held by a persistent handle.
    Held { receiver: bool },
    /// The call's scope.
    Scope,
    /// The isolate.
    Isolate,
    /// A shared borrow of the op state.
    StateRef,
    /// An exclusive borrow of the op state.
    StateMut,
    /// The op state handle.
    StateRc,
}

impl SlowArg {
    /// Whether reading the argument can throw (its error is made on the V8 heap).
    pub fn may_throw(self) -> bool {
        match self {
            SlowArg::Local(LocalType::Value) | SlowArg::StateRc => false,
            SlowArg::Scope | SlowArg::Isolate => false,
            SlowArg::Trait(_)
            | SlowArg::Convert { .. }
            | SlowArg::Lent { .. }
            | SlowArg::Buffered { .. }
            | SlowArg::WithStorage { .. }
            | SlowArg::FromSource { .. }
            | SlowArg::Local(_)
            | SlowArg::Global(_)
            | SlowArg::FromV8
            | SlowArg::Serde
            | SlowArg::WebIdl
            | SlowArg::Receiver
            | SlowArg::Cppgc
            | SlowArg::Held { .. }
            | SlowArg::StateRef
            | SlowArg::StateMut => true,
        }
    }
}

/// How a fast-call parameter becomes the function's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastConvert {
    /// Passed as is.
    Direct,
    /// Through the argument type's `FromFast<kind, C>` impl (V8 converted it already).
    Trait(Marker),
    /// Through the `runtime_core::__op` function of this name; `buffered` ones also take a
    /// `StringBuffer` for the call.
    Helper {
        /// The helper's name.
        name: FastHelper,
        /// Whether it takes a `&mut StringBuffer`.
        buffered: bool,
    },
    /// Through `runtime_core::__op::<name>(value, options, index)`, which checks the value and
    /// throws the same `TypeError` the slow path would (V8 allows throwing from a fast call);
    /// `None` then, and the fast function returns at once.
    Checked {
        /// The helper's name.
        name: FastHelper,
    },
    /// As `Checked`, with a `BufferStorage` for the call: `<name>(value, options, index,
    /// &mut storage)`.
    CheckedWithStorage {
        /// The helper's name.
        name: FastHelper,
    },
    /// As `Checked`, with what JavaScript may pass: `<name>(value, options, index, source)`.
    CheckedWithSource {
        /// The helper's name.
        name: FastHelper,
        /// What JavaScript may pass.
        source: BufferSource,
    },
    /// A `FromV8` type (`#[serde]`: `Serde<T>`, then its value) from a one-byte string's
    /// bytes, through `runtime_core::__op::fast_from_one_byte`, which reads them as the slow
    /// path reads that string, throwing the same error. Registered only when the type's
    /// `FromV8::READS_ONE_BYTE` is `true` (always, for serde).
    FromOneByte {
        /// Whether through `Serde<T>`.
        serde: bool,
    },
    /// Checked to be a `v8::Local<T>` of this type, throwing as the slow path would.
    CheckedLocal(LocalType),
    /// Unwrapped to an instance of the argument's class, throwing as the slow path would.
    Cppgc,
    /// As `Cppgc`, `null`/`undefined` being `None`.
    OptionalCppgc,
    /// A `*mut c_void` made `*const c_void`.
    CastConst,
    /// `Option<number>`: through `runtime_core::__op::fast_option_number`: nullish is `None`, a
    /// Number converts as on the slow path.
    OptionalNumber,
    /// `Option<v8::Local<T>>`: through `runtime_core::__op::fast_option_local`: nullish is
    /// `None`, else checked as `CheckedLocal`.
    OptionalLocal(LocalType),
}

impl FastConvert {
    /// Whether the conversion may throw (a wrong type, a detached buffer), which takes the
    /// callback options V8 passes: the isolate to throw in.
    pub fn throws(self) -> bool {
        match self {
            FastConvert::Direct
            | FastConvert::Trait(_)
            | FastConvert::Helper { .. }
            | FastConvert::CastConst => false,
            FastConvert::Checked { .. }
            | FastConvert::CheckedWithStorage { .. }
            | FastConvert::CheckedWithSource { .. }
            | FastConvert::FromOneByte { .. }
            | FastConvert::CheckedLocal(_)
            | FastConvert::Cppgc
            | FastConvert::OptionalCppgc
            | FastConvert::OptionalNumber
            | FastConvert::OptionalLocal(_) => true,
        }
    }
}

/// How an argument reaches the function on the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastArg {
    /// A parameter of the fast function, of `ctype`, converted by `convert`.
    Param {
        /// The Fast API type V8 passes.
        ctype: CType,
        /// How it becomes the Rust argument.
        convert: FastConvert,
    },
    /// A shared borrow of the op state, reached through the callback options.
    StateRef,
    /// An exclusive borrow of the op state.
    StateMut,
    /// The op state handle.
    StateRc,
    /// The receiver, unwrapped to the class's Rust value (V8 checked it against the class's
    /// signature before choosing the fast call).
    Receiver,
    /// Cannot be passed to a fast call, for this reason.
    Unsupported(&'static str),
}

impl FastArg {
    /// Whether it reads the callback options: to throw, or for the op's context (its state;
    /// the receiver's class).
    pub fn reads_options(self) -> bool {
        match self {
            FastArg::Param { convert, .. } => convert.throws(),
            FastArg::StateRef | FastArg::StateMut | FastArg::StateRc | FastArg::Receiver => true,
            FastArg::Unsupported(_) => false,
        }
    }
}

/// How the return value reaches JavaScript on the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowRet {
    /// Nothing: `undefined`.
    Undefined,
    /// Through the return type's `IntoReturn<kind>` impl.
    Set(Marker),
}

/// How the return value leaves the fast function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastRet {
    /// Nothing: `void`.
    Void,
    /// As `ctype`, through the return type's `IntoFast<kind, C>` impl.
    Value {
        /// The Fast API return type.
        ctype: CType,
        /// The kind.
        marker: Marker,
        /// Whether the conversion may throw (a 64-bit number beyond 2^53 - 1), which takes
        /// the callback options; `IntoFast` impls of the others never read them.
        throws: bool,
    },
    /// An async op's status (`int32`; see `AsyncCall::Status`), whatever its output.
    Status,
    /// Cannot be returned from a fast call, for this reason.
    Unsupported(&'static str),
}
