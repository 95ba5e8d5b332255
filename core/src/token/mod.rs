//! Sealed continuation tokens: the `requestState` snodo issues and opens.
//!
//! `requestState` is attacker-controlled input (MCP 2026-07-28, MRTR). A v1
//! token is HMAC-SHA256 over a compact, versioned payload: *readable*, not
//! encrypted. A v2 token (`v2.rs`) carries the same payload
//! encrypted with XChaCha20-Poly1305. The exact bytes are in
//! `docs/token-format.md`:
//!
//! ```text
//! token   = "v1." kid "." b64url(payload) "." b64url(HMAC-SHA256(key[kid], "v1." kid "." b64url(payload)))
//! payload = canonical JSON {"b","exp","fs","iat","p","q","r","s"?,"v"}
//! ```
//!
//! Opening checks, in order and each before any more expensive step: size,
//! shape and version, key id, MAC (constant time), payload syntax, clock,
//! flow age, rounds, principal, request binding. Every failure has a reason
//! ([`TokenReason`]) and nothing of the token is ever echoed.

mod b64;
mod binding;
mod ct;
mod ids;
mod keys;
mod payload;
mod principal;
mod reason;
mod seal;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_v2;
mod v2;

use hmac::Hmac;
use sha2::Sha256;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// The signed token format version (the default). Version 2 (encrypted)
/// is sealed when the engine's `token_version` is 2; both always open.
pub const FORMAT_VERSION: u64 = 1;
/// The confidential (AEAD) token format version.
pub const FORMAT_VERSION_V2: u64 = 2;
pub(crate) const PREFIX: &str = "v1";

pub use binding::*;
pub(crate) use ids::*;
pub use keys::*;
pub use payload::*;
pub use principal::*;
pub use reason::*;
pub(crate) use seal::*;
pub(crate) use v2::*;
