//! `crypto` (`crypto.js`): random values from a user-space CSPRNG (`rand`'s thread RNG:
//! ChaCha, reseeded from the OS) and `subtle.digest` with RustCrypto's SHA families.

#![deny(unsafe_code)]

use rand::RngCore;
use runtime_core::op;
use runtime_core::v8;
use runtime_core::{Extension, GlobalScript};
use sha2::Digest;

/// `crypto.getRandomValues`: fills a view's bytes (the script checks its type and size).
#[op(fast)]
fn op_web_random_fill(#[buffer] bytes: &mut [u8]) {
    rand::rng().fill_bytes(bytes);
}

/// How many UUIDs one call makes (the script hands them out one by one).
const UUIDS_A_CALL: usize = 64;

/// `crypto.randomUUID`'s supply: [`UUIDS_A_CALL`] version 4 UUIDs, lowercase, one after the
/// other in one one-byte string (a call each would cost more than making one).
#[op]
fn op_web_random_uuids<'s>(scope: &mut v8::PinScope<'s, '_>) -> v8::Local<'s, v8::String> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut random = [0u8; 16 * UUIDS_A_CALL];
    rand::rng().fill_bytes(&mut random);
    let mut text = [b'-'; 36 * UUIDS_A_CALL];
    for (bytes, uuid) in random.chunks_exact_mut(16).zip(text.chunks_exact_mut(36)) {
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let mut at = 0;
        for (index, byte) in bytes.iter().enumerate() {
            if matches!(index, 4 | 6 | 8 | 10) {
                at += 1;
            }
            uuid[at] = HEX[usize::from(byte >> 4)];
            uuid[at + 1] = HEX[usize::from(byte & 0x0f)];
            at += 2;
        }
    }
    v8::String::new_from_one_byte(scope, &text, v8::NewStringType::Normal)
        .expect("the UUIDs fit in a string")
}

/// `crypto.subtle.digest`: `algorithm` is the script's index of SHA-1, SHA-256, SHA-384,
/// SHA-512.
#[op]
#[arraybuffer]
fn op_web_digest(algorithm: u32, #[anybuffer] data: &[u8]) -> Vec<u8> {
    match algorithm {
        0 => sha1::Sha1::digest(data).to_vec(),
        1 => sha2::Sha256::digest(data).to_vec(),
        2 => sha2::Sha384::digest(data).to_vec(),
        _ => sha2::Sha512::digest(data).to_vec(),
    }
}

/// `crypto`, `Crypto`, `SubtleCrypto`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_crypto")
        .internal_ops(&[
            op_web_random_fill::DECL,
            op_web_random_uuids::DECL,
            op_web_digest::DECL,
        ])
        .global(
            GlobalScript::new("ext:web/crypto.js", include_str!("crypto.js"))
                .typescript(include_str!("crypto.d.ts")),
        )
}
