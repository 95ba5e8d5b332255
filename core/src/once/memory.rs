//! The in-memory store: the default for one process. Thread-safe (one
//! mutex; the critical sections are a hash lookup), bounded and expiring by
//! the `now` its callers pass.

use super::keys::{once_result_key, once_token_key};
use super::{Claim, OnceStore, ttl_secs};
use crate::error::{Error, ErrorCode, Result};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The default bound of a [`MemoryStore`], in entries (token ids plus
/// remembered results together).
pub const DEFAULT_ONCE_MAX_ENTRIES: usize = 100_000;

/// The default lease of a won claim: a claim whose holder has not completed
/// or released it after this long may be won by another caller.
pub const DEFAULT_ONCE_LEASE_SECS: u64 = 30;

#[derive(Debug)]
enum Entry {
    /// A consumed token id, kept until the second given.
    Consumed { until: u64 },
    /// A won claim, held until `lease_until`.
    Pending { lease_until: u64 },
    /// A remembered final response, kept until `until`.
    Done { text: String, until: u64 },
}

impl Entry {
    fn live(&self, now: u64) -> bool {
        match self {
            Entry::Consumed { until } | Entry::Done { until, .. } => *until > now,
            Entry::Pending { lease_until } => *lease_until > now,
        }
    }
}

/// The in-memory [`OnceStore`] for one process.
///
/// Bounded: at most `max_entries` live entries. When it is full, expired
/// entries are swept; if it is still full the call fails with
/// [`ErrorCode::Store`] "store full" rather than forget a live entry,
/// because forgetting a consumed id or a remembered result would silently
/// allow a second effect (fail closed). Size the bound for the peak number
/// of flows finishing within one token lifetime.
#[derive(Debug)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, Entry>>,
    max_entries: usize,
    lease_secs: u64,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// A store with [`DEFAULT_ONCE_MAX_ENTRIES`] and
    /// [`DEFAULT_ONCE_LEASE_SECS`].
    pub fn new() -> Self {
        MemoryStore {
            entries: Mutex::new(HashMap::new()),
            max_entries: DEFAULT_ONCE_MAX_ENTRIES,
            lease_secs: DEFAULT_ONCE_LEASE_SECS,
        }
    }

    /// A store holding at most `max_entries` live entries (≥ 1) whose
    /// claims lapse after `lease` (whole seconds, ≥ 1 s).
    pub fn with_limits(max_entries: usize, lease: Duration) -> Result<Self> {
        if max_entries == 0 {
            return Err(Error::new(ErrorCode::Config, "once store: max_entries must be at least 1"));
        }
        if lease.as_secs() == 0 {
            return Err(Error::new(ErrorCode::Config, "once store: the lease must be at least 1 second"));
        }
        Ok(MemoryStore { entries: Mutex::new(HashMap::new()), max_entries, lease_secs: lease.as_secs() })
    }

    /// The number of entries held, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the store holds no entry at all.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The lock, even if a thread panicked while holding it: every update
    /// is a single map operation, so the map is never left half-written.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Makes room for one new entry: sweeps expired entries when full, and
    /// refuses if every entry is still live.
    fn make_room(&self, map: &mut HashMap<String, Entry>, now: u64) -> Result<()> {
        if map.len() < self.max_entries {
            return Ok(());
        }
        map.retain(|_, e| e.live(now));
        if map.len() < self.max_entries {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::Store,
            format!(
                "once store: store full ({} live entries); refusing rather than forgetting a live one",
                self.max_entries
            ),
        ))
    }
}

impl OnceStore for MemoryStore {
    fn consume(&self, token_id: &str, expires_at: u64, now: u64) -> Result<bool> {
        let key = once_token_key("", token_id)?;
        let mut map = self.lock();
        if map.get(&key).is_some_and(|e| e.live(now)) {
            return Ok(false);
        }
        map.remove(&key);
        self.make_room(&mut map, now)?;
        map.insert(key, Entry::Consumed { until: now.saturating_add(ttl_secs(expires_at, now)) });
        Ok(true)
    }

    fn claim(&self, flow_id: &str, digest: &str, _expires_at: u64, now: u64) -> Result<Claim> {
        let key = once_result_key("", flow_id, digest)?;
        let mut map = self.lock();
        match map.get(&key) {
            Some(Entry::Done { text, until }) if *until > now => return Ok(Claim::Done(text.clone())),
            Some(Entry::Pending { lease_until }) if *lease_until > now => return Ok(Claim::Pending),
            // Absent, expired, or a lapsed lease: this caller may win.
            _ => {}
        }
        map.remove(&key);
        self.make_room(&mut map, now)?;
        map.insert(key, Entry::Pending { lease_until: now.saturating_add(self.lease_secs) });
        Ok(Claim::Won)
    }

    fn complete(&self, flow_id: &str, digest: &str, response: &str, expires_at: u64, now: u64) -> Result<()> {
        let key = once_result_key("", flow_id, digest)?;
        let mut map = self.lock();
        if let Some(Entry::Done { until, .. }) = map.get(&key)
            && *until > now
        {
            return Ok(());
        }
        if !map.contains_key(&key) {
            self.make_room(&mut map, now)?;
        }
        let until = now.saturating_add(ttl_secs(expires_at, now));
        map.insert(key, Entry::Done { text: response.to_owned(), until });
        Ok(())
    }

    fn release(&self, flow_id: &str, digest: &str, token_id: Option<&str>) -> Result<()> {
        let key = once_result_key("", flow_id, digest)?;
        // Checked before the lock, so a bad token id changes nothing.
        let token_key = token_id.map(|id| once_token_key("", id)).transpose()?;
        let mut map = self.lock();
        if matches!(map.get(&key), Some(Entry::Pending { .. })) {
            map.remove(&key);
            if let Some(token_key) = token_key {
                map.remove(&token_key);
            }
        }
        Ok(())
    }
}
