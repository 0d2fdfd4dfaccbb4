//! The web platform for an opwire host's tenants: `URL`, `TextEncoder`/`TextDecoder`,
//! `atob`/`btoa`, `structuredClone`, `crypto`, `Event`/`EventTarget`, `AbortController`,
//! `performance`, `Blob`/`File`, `Headers`, streams, `CompressionStream`, `Request`/`Response`,
//! as workerd, Deno and Bun give them.
//!
//! Built on runtime_core's public API alone, as any host's extension would be: each group is
//! an [`Extension`] whose [`GlobalScript`](runtime_core::GlobalScript) defines its globals
//! over internal ops (Rust where there is work to do: parsing, transcoding, hashing;
//! JavaScript where the spec is object plumbing).
//!
//! ```
//! use runtime_core::{Runtime, RuntimeOptions};
//!
//! let mut runtime = Runtime::new(RuntimeOptions {
//!     extensions: runtime_web::extensions(runtime_web::Groups::ALL),
//!     ..Default::default()
//! });
//! let host = runtime
//!     .execute_script_to_string("<doc>", "new URL('/a?b=1', 'https://example.com').host")
//!     .unwrap();
//! assert_eq!(host, "example.com");
//! ```
//!
//! Globals are defined as the web defines them (writable, configurable, not enumerable);
//! what their scripts use of the language is captured before any tenant code runs, so a
//! tenant that patches intrinsics changes nothing of them.

#![warn(
    missing_docs,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod base64;
mod blob;
mod buffer_source;
mod cancel_signal;
mod clone;
mod compression;
mod crypto;
mod encoding;
mod events;
mod fetch;
pub mod fetch_handler;
mod form_data;
mod headers;
mod performance;
mod streams;
pub mod transport;
mod url;

use runtime_core::Extension;

/// Which groups of the web platform a runtime gets (`Groups::URL | Groups::ENCODING`).
/// `DOMException` comes with every choice; a group that builds on another brings it
/// (`ABORT` brings `EVENTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Groups(u16);

impl Groups {
    /// `URL`, `URLSearchParams`.
    pub const URL: Self = Self(1);
    /// `TextEncoder`, `TextDecoder`.
    pub const ENCODING: Self = Self(1 << 1);
    /// `atob`, `btoa`.
    pub const BASE64: Self = Self(1 << 2);
    /// `structuredClone`.
    pub const CLONE: Self = Self(1 << 3);
    /// `crypto.getRandomValues`, `crypto.randomUUID`, `crypto.subtle.digest`.
    pub const CRYPTO: Self = Self(1 << 4);
    /// `Event`, `EventTarget`, `CustomEvent`, `ErrorEvent`, `reportError`; the global object
    /// as an event target.
    pub const EVENTS: Self = Self(1 << 5);
    /// `AbortController`, `AbortSignal` (brings `EVENTS`).
    pub const ABORT: Self = Self(1 << 6);
    /// `performance.now()`, `performance.timeOrigin`.
    pub const PERFORMANCE: Self = Self(1 << 7);
    /// `Blob`, `File`.
    pub const FILES: Self = Self(1 << 8);
    /// `Headers`.
    pub const HEADERS: Self = Self(1 << 9);
    /// `ReadableStream` (byte streams and BYOB readers too), `WritableStream`,
    /// `TransformStream`, their readers, writers and controllers, `ByteLengthQueuingStrategy`, `CountQueuingStrategy`, `TextEncoderStream`,
    /// `TextDecoderStream` (brings `ABORT` and `ENCODING`).
    pub const STREAMS: Self = Self(1 << 10);
    /// `Request`, `Response`, `FormData`, `fetch()` through the host's transport
    /// ([`transport::grant`]; none: it rejects) (brings `HEADERS`, `STREAMS`, `FILES`, `URL`,
    /// `ENCODING`, `CLONE`).
    pub const FETCH: Self = Self(1 << 11);
    /// `CompressionStream`, `DecompressionStream`: gzip, deflate, deflate-raw, brotli (brings
    /// `STREAMS`).
    pub const COMPRESSION: Self = Self(1 << 12);
    /// Every group.
    pub const ALL: Self = Self((1 << 13) - 1);

    /// Whether every group of `other` is in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The groups of both.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl std::ops::BitOr for Groups {
    type Output = Self;

    fn bitor(self, other: Self) -> Self {
        self.union(other)
    }
}

/// The extensions that give a runtime `groups`, in the order they must be installed: put them
/// in [`RuntimeOptions::extensions`](runtime_core::RuntimeOptions::extensions) (beside the
/// host's own, in any place).
pub fn extensions(groups: Groups) -> Vec<Extension> {
    let mut groups = groups;
    if groups.contains(Groups::FETCH) {
        groups = groups
            | Groups::HEADERS
            | Groups::STREAMS
            | Groups::FILES
            | Groups::URL
            | Groups::ENCODING
            | Groups::CLONE;
    }
    if groups.contains(Groups::COMPRESSION) {
        groups = groups | Groups::STREAMS;
    }
    if groups.contains(Groups::STREAMS) {
        groups = groups | Groups::ABORT | Groups::ENCODING;
    }
    if groups.contains(Groups::ABORT) {
        groups = groups | Groups::EVENTS;
    }
    let mut out = vec![events::webidl_extension()];
    let chosen: [(Groups, fn() -> Extension); 16] = [
        (Groups::EVENTS, events::events_extension),
        (Groups::ABORT, events::abort_extension),
        (Groups::URL, url::extension),
        (Groups::ENCODING, encoding::extension),
        (Groups::BASE64, base64::extension),
        (Groups::CLONE, clone::extension),
        (Groups::CRYPTO, crypto::extension),
        (Groups::PERFORMANCE, performance::extension),
        (Groups::FILES, blob::extension),
        (Groups::HEADERS, headers::extension),
        (Groups::STREAMS, streams::extension),
        (Groups::STREAMS, streams::byte_extension),
        (Groups::STREAMS, streams::text_extension),
        (Groups::COMPRESSION, compression::extension),
        (Groups::FETCH, form_data::extension),
        (Groups::FETCH, fetch::extension),
    ];
    for (group, make) in chosen {
        if groups.contains(group) {
            out.push(make());
        }
    }
    // What two groups make together.
    if groups.contains(Groups::FILES | Groups::STREAMS) {
        out.push(blob::stream_extension());
    }
    out
}
