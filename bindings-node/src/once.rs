//! At most once (issue 17): the core's `MemoryStore` as a JS class, the
//! key spelling and the Redis values/scripts as exports. `runOnce` and the
//! node-redis `RedisStore` are JavaScript (`once.js`, `snodo-mrtr/once`):
//! the Redis client and the effect are async JS, and they reach the core
//! only through these exports, so every language writes the same keys and
//! runs the same script bytes.

use std::time::Duration;

use crate::error::{Result, core, error};
use snodo::{ErrorCode, OnceStore};

// napi-rs exports constant expressions; these are the core's constants
// themselves (a test below and the Node tests compare them anyway).

/// The default Redis key prefix (`snodo:once:`).
#[napi]
pub const DEFAULT_ONCE_PREFIX: &str = snodo::DEFAULT_ONCE_PREFIX;
/// The key part of a consumed token id: `<prefix>token:<tokenId>`.
#[napi]
pub const ONCE_TOKEN_KEY_PART: &str = snodo::ONCE_TOKEN_KEY_PART;
/// The key part of a remembered result: `<prefix>result:<flowId>:<digest>`.
#[napi]
pub const ONCE_RESULT_KEY_PART: &str = snodo::ONCE_RESULT_KEY_PART;
/// The value of a consumed token id's key.
#[napi]
pub const ONCE_CONSUMED: &str = snodo::ONCE_CONSUMED;
/// The value of a claimed, still running, result key.
#[napi]
pub const ONCE_PENDING: &str = snodo::ONCE_PENDING;
/// The prefix of a completed result value (the result text follows).
#[napi]
pub const ONCE_DONE_PREFIX: &str = snodo::ONCE_DONE_PREFIX;
/// What the claim script returns to the winner.
#[napi]
pub const ONCE_WON: &str = snodo::ONCE_WON;
/// The claim Lua script, byte for byte the core's.
#[napi]
pub const ONCE_CLAIM_SCRIPT: &str = snodo::ONCE_CLAIM_SCRIPT;
/// The complete Lua script, byte for byte the core's.
#[napi]
pub const ONCE_COMPLETE_SCRIPT: &str = snodo::ONCE_COMPLETE_SCRIPT;
/// The release Lua script, byte for byte the core's.
#[napi]
pub const ONCE_RELEASE_SCRIPT: &str = snodo::ONCE_RELEASE_SCRIPT;
/// The message of the `TOKEN` error `runOnce` throws for a replayed token.
#[napi]
pub const ONCE_REPLAYED_MESSAGE: &str = snodo::ONCE_REPLAYED_MESSAGE;
/// The default lease of a won claim, in seconds.
#[napi]
pub const DEFAULT_ONCE_LEASE_SECS: u32 = snodo::DEFAULT_ONCE_LEASE_SECS as u32;
/// The default bound of a `MemoryStore`, in entries.
#[napi]
pub const DEFAULT_ONCE_MAX_ENTRIES: u32 = snodo::DEFAULT_ONCE_MAX_ENTRIES as u32;
/// The engine's default clock skew, in seconds (what `runOnce` adds to a
/// token's expiry unless given `expiresAt`).
#[napi]
pub const DEFAULT_CLOCK_SKEW_SECS: u32 = snodo::DEFAULT_CLOCK_SKEW_SECS as u32;

/// The consume-once key of a token id: `<prefix>token:<tokenId>` (ids and
/// prefix checked as every language checks them).
#[napi(catch_unwind)]
pub fn once_token_key(prefix: String, token_id: String) -> Result<String> {
    snodo::once_token_key(&prefix, &token_id).map_err(core)
}

/// The remembered-result key of a final round:
/// `<prefix>result:<flowId>:<digest>`.
#[napi(catch_unwind)]
pub fn once_result_key(prefix: String, flow_id: String, digest: String) -> Result<String> {
    snodo::once_result_key(&prefix, &flow_id, &digest).map_err(core)
}

/// `new MemoryStore(options)`: the bounds of the in-memory store.
#[napi(object)]
#[derive(Debug, Default)]
pub struct MemoryStoreOptions {
    /// Live entries kept at most (token ids and results together; default
    /// 100 000). When full of live entries, calls fail with `STORE`.
    pub max_entries: Option<f64>,
    /// How long a won claim is held before another caller may win it, in
    /// whole seconds (default 30).
    pub lease_secs: Option<f64>,
}

/// What `claim` found.
#[napi(object)]
#[derive(Debug)]
pub struct ClaimResult {
    /// `won`: run the effect, then `complete` (or `release`); `done`: the
    /// remembered result text is in `text`; `pending`: another caller holds
    /// the claim, ask again later.
    #[napi(ts_type = "'won' | 'done' | 'pending'")]
    pub status: String,
    /// For `done`: the remembered result text.
    pub text: Option<String>,
}

/// A whole number in `1..=max`, or a `CONFIG` error naming it.
fn whole(what: &str, v: f64, max: f64) -> Result<u64> {
    if !v.is_finite() || v.fract() != 0.0 || !(1.0..=max).contains(&v) {
        return Err(error(
            ErrorCode::Config,
            format!("MemoryStore: {what} must be a whole number from 1 to {max}"),
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(v as u64)
}

/// Unix seconds: a whole, non-negative number, or an `ARGUMENT` error.
fn seconds(what: &str, v: f64) -> Result<u64> {
    // 2^53: beyond it a JS number is no longer a whole second.
    if !v.is_finite() || !(0.0..=9_007_199_254_740_991.0).contains(&v) {
        return Err(error(
            ErrorCode::Argument,
            format!("once store: {what} must be Unix seconds (a non-negative number)"),
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(v.floor() as u64)
}

/// `now` if given, else the system clock.
fn now_or_clock(now: Option<f64>) -> Result<u64> {
    match now {
        Some(v) => seconds("now", v),
        None => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)),
    }
}

/// The in-memory consume-once and remembered-results store of one process
/// (the core's `MemoryStore`): bounded, expiring, synchronous. Times are
/// Unix seconds; `now` defaults to the system clock (pass `engine.now()`
/// when the engine's clock is fixed).
#[napi]
#[derive(Debug)]
pub struct MemoryStore {
    inner: snodo::MemoryStore,
}

#[napi]
impl MemoryStore {
    /// A store with at most `maxEntries` live entries and a claim lease of
    /// `leaseSecs` (defaults 100 000 and 30).
    #[napi(constructor, catch_unwind)]
    pub fn new(options: Option<MemoryStoreOptions>) -> Result<Self> {
        let options = options.unwrap_or_default();
        let max_entries = match options.max_entries {
            Some(v) => whole("maxEntries", v, 4_294_967_295.0)?,
            None => snodo::DEFAULT_ONCE_MAX_ENTRIES as u64,
        };
        let lease = match options.lease_secs {
            Some(v) => whole("leaseSecs", v, 4_294_967_295.0)?,
            None => snodo::DEFAULT_ONCE_LEASE_SECS,
        };
        let max_entries = usize::try_from(max_entries)
            .map_err(|_| error(ErrorCode::Config, "MemoryStore: maxEntries too large"))?;
        let inner = snodo::MemoryStore::with_limits(max_entries, Duration::from_secs(lease)).map_err(core)?;
        Ok(MemoryStore { inner })
    }

    /// `true` the first time `tokenId` is seen, `false` until `expiresAt`.
    #[napi(catch_unwind)]
    pub fn consume(&self, token_id: String, expires_at: f64, now: Option<f64>) -> Result<bool> {
        let expires_at = seconds("expiresAt", expires_at)?;
        self.inner.consume(&token_id, expires_at, now_or_clock(now)?).map_err(core)
    }

    /// Claims the final round (`flowId`, `digest`): see `ClaimResult`.
    #[napi(catch_unwind)]
    pub fn claim(
        &self,
        flow_id: String,
        digest: String,
        expires_at: f64,
        now: Option<f64>,
    ) -> Result<ClaimResult> {
        let expires_at = seconds("expiresAt", expires_at)?;
        let claim = self.inner.claim(&flow_id, &digest, expires_at, now_or_clock(now)?).map_err(core)?;
        Ok(match claim {
            snodo::Claim::Won => ClaimResult { status: "won".to_owned(), text: None },
            snodo::Claim::Done(text) => ClaimResult { status: "done".to_owned(), text: Some(text) },
            snodo::Claim::Pending => ClaimResult { status: "pending".to_owned(), text: None },
        })
    }

    /// Remembers the result text of a won claim until `expiresAt` (the
    /// first completion stays).
    #[napi(catch_unwind)]
    pub fn complete(
        &self,
        flow_id: String,
        digest: String,
        text: String,
        expires_at: f64,
        now: Option<f64>,
    ) -> Result<()> {
        let expires_at = seconds("expiresAt", expires_at)?;
        self.inner.complete(&flow_id, &digest, &text, expires_at, now_or_clock(now)?).map_err(core)
    }

    /// Drops a won claim whose effect did nothing, so the next caller may
    /// run it (a completed claim is left alone). With `tokenId` (the token
    /// id this attempt consumed), gives it back in the same step, so the
    /// retry of the same final round is not refused as a replay.
    #[napi(catch_unwind)]
    pub fn release(&self, flow_id: String, digest: String, token_id: Option<String>) -> Result<()> {
        self.inner.release(&flow_id, &digest, token_id.as_deref()).map_err(core)
    }

    /// A short description (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        "MemoryStore".to_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    #[test]
    fn constants_are_the_cores() {
        assert_eq!(u64::from(super::DEFAULT_ONCE_LEASE_SECS), snodo::DEFAULT_ONCE_LEASE_SECS);
        assert_eq!(super::DEFAULT_ONCE_MAX_ENTRIES as usize, snodo::DEFAULT_ONCE_MAX_ENTRIES);
        assert_eq!(u64::from(super::DEFAULT_CLOCK_SKEW_SECS), snodo::DEFAULT_CLOCK_SKEW_SECS);
        assert_eq!(super::ONCE_CLAIM_SCRIPT, snodo::ONCE_CLAIM_SCRIPT);
    }
}
