//! Sealed continuation tokens: the `requestState` snodo issues and opens.
//!
//! `requestState` is attacker-controlled input (MCP 2026-07-28, MRTR). A token
//! is HMAC-SHA256 over a compact, versioned payload. It is *readable*, not
//! encrypted: never put secrets in application state. The exact bytes are in
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

mod binding;
#[cfg(test)]
mod fast_tests;
mod keys;
mod payload;
mod principal;
mod reason;
mod seal;
#[cfg(test)]
mod tests;

use hmac::Hmac;
use sha2::Sha256;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// The only token format version this build issues and accepts.
pub const FORMAT_VERSION: u64 = 1;
pub(crate) const PREFIX: &str = "v1";

pub use binding::*;
pub use keys::*;
pub use payload::*;
pub use principal::*;
pub use reason::*;
pub(crate) use seal::*;
