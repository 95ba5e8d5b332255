//! At most once across a fleet (issue 17): consume-once of a token id and
//! remembered final responses, behind one synchronous store trait.
//!
//! Two concepts, one trait ([`OnceStore`]):
//!
//! 1. **consume-once**: [`OnceStore::consume`] is `true` the first time a
//!    token id is seen and `false` afterwards until the id's expiry. The
//!    spec leaves single use of a `requestState` to the server (MRTR: "MUST
//!    enforce that invariant server-side"); this is that server side.
//! 2. **remembered results**: keyed by (flow id, answers digest). The first
//!    [`OnceStore::claim`] wins and runs the effect, later ones get the
//!    remembered final response ([`Claim::Done`]) or learn that a winner is
//!    still running ([`Claim::Pending`]). [`run_once`] is the loop a server
//!    calls; the losers of a race return the winner's exact response text.
//!
//! Ids, digests and times are plain values (`&str`, Unix seconds), so the
//! stores do not depend on the token layer. Everything fails closed: a store
//! error is an [`Err`] with [`ErrorCode::Store`], never a second effect.
//! `docs/once.md` is the user's guide; the Redis keys, values and Lua
//! scripts are the `ONCE_*` constants, shared byte for byte with Python and
//! Node.

mod keys;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod run;
mod scripts;
#[cfg(test)]
mod tests;

pub use keys::*;
pub use memory::*;
#[cfg(feature = "redis")]
pub use redis::*;
pub use run::*;
pub use scripts::*;

use crate::error::Result;

/// What a [`OnceStore::claim`] found for a (flow id, answers digest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The caller holds the claim: run the effect, then
    /// [`OnceStore::complete`] (or [`OnceStore::release`] if nothing
    /// happened at all).
    Won,
    /// The effect already ran: this is its remembered final response text.
    /// Return it instead of running the effect again.
    Done(String),
    /// Another caller holds the claim and is running the effect now; ask
    /// again later ([`run_once`] polls). A claim whose holder crashed turns
    /// into a new [`Claim::Won`] once its lease lapses.
    Pending,
}

/// A consume-once and remembered-results store, shared by every thread of a
/// server (and, for `RedisStore` (feature `redis`), by every process of a
/// fleet).
///
/// Times are Unix seconds. `expires_at` is the last second the entry must be
/// kept: pass the token's expiry plus the engine's clock skew, the last
/// instant at which a retry with that token can still be accepted. Entries
/// are kept at least one second. Every error is
/// [`ErrorCode::Store`](crate::ErrorCode::Store) (store unreachable, store
/// full, ...) or [`ErrorCode::Argument`](crate::ErrorCode::Argument) (an id
/// that is not a valid key part); on an error nothing was recorded that a
/// caller may rely on, and the caller must not run the effect.
pub trait OnceStore: Send + Sync {
    /// `true` the first time `token_id` is seen, `false` on every later call
    /// until `expires_at`.
    fn consume(&self, token_id: &str, expires_at: u64, now: u64) -> Result<bool>;

    /// Claims the effect of the final round (`flow_id`, `digest`): see
    /// [`Claim`]. A won claim is a pending marker held for the store's lease.
    fn claim(&self, flow_id: &str, digest: &str, expires_at: u64, now: u64) -> Result<Claim>;

    /// Stores the final response of a won claim, remembered until
    /// `expires_at`. If a response is already remembered (a lease lapsed and
    /// another caller completed first), the first one stays.
    fn complete(&self, flow_id: &str, digest: &str, response: &str, expires_at: u64, now: u64) -> Result<()>;

    /// Drops a won claim whose effect failed before doing anything, so the
    /// next caller may run it. Only when nothing happened: an effect that
    /// did something, even half, completes with its error response instead.
    /// A claim that is no longer pending (completed, or lapsed and taken by
    /// another caller) is left alone.
    ///
    /// `token_id`: the token id this attempt consumed after winning the
    /// claim, given back in the same atomic step (deleted only if the claim
    /// was still pending), so the client's retry of the same final round
    /// runs the effect instead of being refused as a replay. `None` when
    /// the attempt consumed nothing, and always `None` on the replay path:
    /// that token id belongs to the attempt that consumed it first.
    fn release(&self, flow_id: &str, digest: &str, token_id: Option<&str>) -> Result<()>;
}

/// Seconds an entry is kept from `now` to `expires_at`, at least one.
pub(crate) fn ttl_secs(expires_at: u64, now: u64) -> u64 {
    expires_at.saturating_sub(now).max(1)
}
