//! The Redis store (feature `redis`): one Redis shared by every process of a
//! fleet, through the `redis` crate's synchronous API. Consume-once is
//! `SET <key> 1 NX PX <ttl>`; claim, complete and release are the small Lua
//! scripts of `scripts.rs`, byte for byte the ones Python and Node run.

use super::keys::{DEFAULT_ONCE_PREFIX, check_once_prefix, once_result_key, once_token_key};
use super::memory::DEFAULT_ONCE_LEASE_SECS;
use super::scripts::{
    ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_CONSUMED, ONCE_DONE_PREFIX, ONCE_PENDING,
    ONCE_RELEASE_SCRIPT, ONCE_WON,
};
use super::{Claim, OnceStore, ttl_secs};
use crate::error::{Error, ErrorCode, Result};
use std::sync::Mutex;
use std::time::Duration;

/// The default connect, read and write timeout of a [`RedisStore`], in
/// milliseconds: a store that does not answer in time is an error, never a
/// hang.
pub const DEFAULT_REDIS_TIMEOUT_MS: u64 = 2_000;

/// Idle connections kept for reuse; more callers at once open more.
const POOL_IDLE: usize = 16;

/// The Redis [`OnceStore`] for a fleet: every process points at the same
/// Redis with the same key prefix.
///
/// Connections are opened on demand with the timeout, kept in a small idle
/// pool, and dropped after any error (the next call reconnects, so service
/// resumes by itself when Redis returns). Thread-safe.
pub struct RedisStore {
    client: redis::Client,
    prefix: String,
    lease_ms: u64,
    timeout: Duration,
    idle: Mutex<Vec<redis::Connection>>,
    claim: redis::Script,
    complete: redis::Script,
    release: redis::Script,
}

impl std::fmt::Debug for RedisStore {
    // The URL may carry a password: not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("lease_ms", &self.lease_ms)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn store_error(what: &str, e: &redis::RedisError) -> Error {
    // The error's kind and detail, never the URL (it may hold a password).
    Error::new(ErrorCode::Store, format!("once store: redis {what} failed: {e}"))
}

impl RedisStore {
    /// A store for the Redis at `url` (`redis://host:port/db`), with
    /// [`DEFAULT_ONCE_PREFIX`], a lease of [`DEFAULT_ONCE_LEASE_SECS`] and
    /// [`DEFAULT_REDIS_TIMEOUT_MS`]. Nothing is connected yet: an
    /// unreachable Redis is an error on the first call, not here.
    pub fn new(url: &str) -> Result<Self> {
        let client = redis::Client::open(url)
            .map_err(|_| Error::new(ErrorCode::Config, "once store: the Redis URL is not valid"))?;
        Ok(RedisStore {
            client,
            prefix: DEFAULT_ONCE_PREFIX.to_owned(),
            lease_ms: DEFAULT_ONCE_LEASE_SECS * 1000,
            timeout: Duration::from_millis(DEFAULT_REDIS_TIMEOUT_MS),
            idle: Mutex::new(Vec::new()),
            claim: redis::Script::new(ONCE_CLAIM_SCRIPT),
            complete: redis::Script::new(ONCE_COMPLETE_SCRIPT),
            release: redis::Script::new(ONCE_RELEASE_SCRIPT),
        })
    }

    /// The same store with another key prefix (printable ASCII, ≤ 128 bytes).
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self> {
        check_once_prefix(prefix)?;
        self.prefix = prefix.to_owned();
        Ok(self)
    }

    /// The same store with another lease for won claims (≥ 1 ms).
    pub fn with_lease(mut self, lease: Duration) -> Result<Self> {
        let ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX);
        if ms == 0 {
            return Err(Error::new(ErrorCode::Config, "once store: the lease must be at least 1 ms"));
        }
        self.lease_ms = ms;
        Ok(self)
    }

    /// The same store with another connect/read/write timeout (≥ 1 ms).
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::new(ErrorCode::Config, "once store: the timeout must be at least 1 ms"));
        }
        self.timeout = timeout;
        Ok(self)
    }

    /// The key prefix in use.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Runs `f` on a pooled connection (or a new one); the connection goes
    /// back to the pool only if `f` succeeded.
    fn with_connection<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T> {
        let pooled = self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        let mut con = match pooled {
            Some(con) => con,
            None => {
                let con = self
                    .client
                    .get_connection_with_timeout(self.timeout)
                    .map_err(|e| store_error("connect", &e))?;
                con.set_read_timeout(Some(self.timeout)).map_err(|e| store_error("connect", &e))?;
                con.set_write_timeout(Some(self.timeout)).map_err(|e| store_error("connect", &e))?;
                con
            }
        };
        let value = f(&mut con).map_err(|e| store_error("command", &e))?;
        let mut idle = self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if idle.len() < POOL_IDLE {
            idle.push(con);
        }
        Ok(value)
    }
}

impl OnceStore for RedisStore {
    fn consume(&self, token_id: &str, expires_at: u64, now: u64) -> Result<bool> {
        let key = once_token_key(&self.prefix, token_id)?;
        let ttl_ms = ttl_secs(expires_at, now).saturating_mul(1000);
        // SET NX answers OK when it set the key and nil when it existed.
        let set: Option<String> = self.with_connection(|con| {
            redis::cmd("SET").arg(&key).arg(ONCE_CONSUMED).arg("NX").arg("PX").arg(ttl_ms).query(con)
        })?;
        Ok(set.is_some())
    }

    fn claim(&self, flow_id: &str, digest: &str, _expires_at: u64, _now: u64) -> Result<Claim> {
        let key = once_result_key(&self.prefix, flow_id, digest)?;
        let value: Option<String> =
            self.with_connection(|con| self.claim.key(&key).arg(self.lease_ms).invoke(con))?;
        match value.as_deref() {
            Some(ONCE_WON) => Ok(Claim::Won),
            Some(ONCE_PENDING) => Ok(Claim::Pending),
            Some(v) => match v.strip_prefix(ONCE_DONE_PREFIX) {
                Some(text) => Ok(Claim::Done(text.to_owned())),
                // Not a value snodo writes: someone else uses these keys.
                None => Err(Error::new(
                    ErrorCode::Store,
                    "once store: a result key holds a value snodo does not write (is the prefix shared with another application?)",
                )),
            },
            // Unreachable inside one atomic script; treated as "ask again".
            None => Ok(Claim::Pending),
        }
    }

    fn complete(&self, flow_id: &str, digest: &str, response: &str, expires_at: u64, now: u64) -> Result<()> {
        let key = once_result_key(&self.prefix, flow_id, digest)?;
        let ttl_ms = ttl_secs(expires_at, now).saturating_mul(1000);
        let _stored: i64 =
            self.with_connection(|con| self.complete.key(&key).arg(response).arg(ttl_ms).invoke(con))?;
        Ok(())
    }

    fn release(&self, flow_id: &str, digest: &str, token_id: Option<&str>) -> Result<()> {
        let key = once_result_key(&self.prefix, flow_id, digest)?;
        let token_key = token_id.map(|id| once_token_key(&self.prefix, id)).transpose()?;
        let _deleted: i64 = self.with_connection(|con| {
            let mut call = self.release.key(&key);
            if let Some(token_key) = &token_key {
                call.key(token_key);
            }
            call.invoke(con)
        })?;
        Ok(())
    }
}
