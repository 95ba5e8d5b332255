//! The in-memory store: one process. It runs the machine's commands with
//! the same meaning as the Redis scripts (`scripts.rs`), on one map under
//! one mutex, and answers the same reply text.
//!
//! Bounded in bytes, with a share per principal, and expiring through an
//! index ordered by expiry: each call drops only the records whose time has
//! come, never scans the map.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::OnceStore;
use super::command::{OnceCommand, OnceOp};
use super::keys::DEFAULT_ONCE_PREFIX;
use super::machine::{DEFAULT_ONCE_LEASE_SECS, OnceSettings};
use crate::error::{Error, ErrorCode, Result};

/// The default byte budget of a [`MemoryStore`]: 64 MiB of records.
pub const DEFAULT_ONCE_MAX_BYTES: usize = 64 << 20;

/// The default share of one principal: a quarter of the budget.
pub const DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL: usize = DEFAULT_ONCE_MAX_BYTES / 4;

/// What a record costs besides its strings: the map entry, the expiry index
/// entry (which holds a second copy of the key) and the numbers.
const RECORD_OVERHEAD: usize = 160;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Done,
    Free,
}

#[derive(Debug)]
struct Record {
    state: State,
    fence: u64,
    owner: String,
    digest: String,
    lease_until: u64,
    text: String,
    expires_at: u64,
    principal: String,
}

impl Record {
    fn size(&self, key: &str) -> usize {
        RECORD_OVERHEAD
            + key.len()
            + self.owner.len()
            + self.digest.len()
            + self.text.len()
            + self.principal.len()
    }
}

#[derive(Debug, Default)]
struct Inner {
    records: HashMap<String, Record>,
    by_expiry: BTreeSet<(u64, String)>,
    bytes: usize,
    by_principal: HashMap<String, usize>,
}

impl Inner {
    /// Drops every record whose expiry has passed (Redis: live while
    /// `now <= expires_at`), oldest first, stopping at the first live one.
    fn expire(&mut self, now: u64) {
        while let Some((at, key)) = self.by_expiry.first().cloned() {
            if at >= now {
                break;
            }
            self.by_expiry.remove(&(at, key.clone()));
            if let Some(record) = self.records.remove(&key) {
                self.forget(&key, &record);
            }
        }
    }

    fn forget(&mut self, key: &str, record: &Record) {
        let size = record.size(key);
        self.bytes = self.bytes.saturating_sub(size);
        if let Some(used) = self.by_principal.get_mut(&record.principal) {
            *used = used.saturating_sub(size);
            if *used == 0 {
                self.by_principal.remove(&record.principal);
            }
        }
    }

    fn account(&mut self, key: &str, record: &Record) {
        let size = record.size(key);
        self.bytes = self.bytes.saturating_add(size);
        let used = self.by_principal.entry(record.principal.clone()).or_default();
        *used = used.saturating_add(size);
    }

    /// Replaces `key`'s record (accounting and expiry index follow).
    fn put(&mut self, key: &str, record: Record) {
        if let Some(old) = self.records.remove(key) {
            self.by_expiry.remove(&(old.expires_at, key.to_owned()));
            self.forget(key, &old);
        }
        self.account(key, &record);
        self.by_expiry.insert((record.expires_at, key.to_owned()));
        self.records.insert(key.to_owned(), record);
    }
}

/// The in-memory [`OnceStore`] for one process. Thread-safe.
///
/// Bounded: a claim that would create a record past `max_bytes`, or past
/// `max_bytes_per_principal` for the flow's principal, fails with
/// [`ErrorCode::Store`] rather than forget a live record, because
/// forgetting one would silently allow a second effect (fail closed). A
/// completion is never refused for space (the claim it completes is
/// already counted; its result text may take the store past the budget
/// until it expires). Size the budget for the flows finishing within one
/// flow lifetime.
#[derive(Debug)]
pub struct MemoryStore {
    settings: OnceSettings,
    max_bytes: usize,
    max_bytes_per_principal: usize,
    inner: Mutex<Inner>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl MemoryStore {
    /// A store with [`DEFAULT_ONCE_MAX_BYTES`],
    /// [`DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL`] and
    /// [`DEFAULT_ONCE_LEASE_SECS`].
    pub fn new() -> Self {
        MemoryStore {
            settings: OnceSettings {
                prefix: DEFAULT_ONCE_PREFIX.to_owned(),
                lease_ms: DEFAULT_ONCE_LEASE_SECS * 1000,
            },
            max_bytes: DEFAULT_ONCE_MAX_BYTES,
            max_bytes_per_principal: DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// A store holding at most `max_bytes` of records (≥ 1 KiB), at most
    /// `max_bytes_per_principal` of them for one principal (1 KiB to
    /// `max_bytes`), whose claims lapse after `lease` (≥ 1 ms).
    pub fn with_limits(max_bytes: usize, max_bytes_per_principal: usize, lease: Duration) -> Result<Self> {
        if max_bytes < 1024 {
            return Err(Error::new(ErrorCode::Config, "once store: max_bytes must be at least 1024"));
        }
        if !(1024..=max_bytes).contains(&max_bytes_per_principal) {
            return Err(Error::new(
                ErrorCode::Config,
                "once store: max_bytes_per_principal must be between 1024 and max_bytes",
            ));
        }
        Ok(MemoryStore {
            settings: OnceSettings::new(DEFAULT_ONCE_PREFIX, lease)?,
            max_bytes,
            max_bytes_per_principal,
            inner: Mutex::new(Inner::default()),
        })
    }

    /// The number of records held (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.lock().records.len()
    }

    /// Whether the store holds no record.
    pub fn is_empty(&self) -> bool {
        self.lock().records.is_empty()
    }

    /// The bytes the records take, as the budget counts them.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// The lock, even if a thread panicked while holding it: every command
    /// validates before it changes anything and each change is one `put`,
    /// so the map is never left half-written.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `command` as of `now_ms` (Unix milliseconds): the store's own
    /// clock is the system's, and a server whose engine runs on a fixed
    /// clock (tests) passes that one here.
    pub fn execute_at(&self, command: &OnceCommand, now_ms: u64) -> Result<String> {
        let mut inner = self.lock();
        inner.expire(now_ms);
        let key = command.key.as_str();
        let keep = |floor: u64| command.keep_until_ms.max(floor);
        let owned = |r: &Record| r.state == State::Pending && r.owner == command.owner;
        let reply = match command.op {
            OnceOp::Claim => {
                match inner.records.get(key) {
                    Some(r) if r.state == State::Done => {
                        return Ok(format!("done {} {} {}", r.fence, r.digest, r.text));
                    }
                    Some(r) if r.state == State::Pending && r.lease_until > now_ms => {
                        return Ok(format!("pending {}", r.fence));
                    }
                    Some(_) => {}
                    None => self.make_room(&inner, command)?,
                }
                let fence = inner.records.get(key).map_or(0, |r| r.fence) + 1;
                let lease_until = now_ms.saturating_add(command.lease_ms);
                let principal =
                    inner.records.get(key).map_or_else(|| command.principal.clone(), |r| r.principal.clone());
                inner.put(
                    key,
                    Record {
                        state: State::Pending,
                        fence,
                        owner: command.owner.clone(),
                        digest: command.digest.clone(),
                        lease_until,
                        text: String::new(),
                        expires_at: keep(lease_until),
                        principal,
                    },
                );
                format!("won {fence}")
            }
            OnceOp::Complete => match inner.records.get(key) {
                Some(r) if owned(r) => {
                    let r = Record {
                        state: State::Done,
                        owner: String::new(),
                        digest: r.digest.clone(),
                        lease_until: 0,
                        text: command.text.clone(),
                        expires_at: keep(now_ms.saturating_add(command.lease_ms)),
                        principal: r.principal.clone(),
                        ..*r
                    };
                    inner.put(key, r);
                    "completed".to_owned()
                }
                _ => "lost".to_owned(),
            },
            OnceOp::Release => match inner.records.get(key) {
                Some(r) if owned(r) => {
                    let r = Record {
                        state: State::Free,
                        owner: String::new(),
                        digest: String::new(),
                        lease_until: 0,
                        text: String::new(),
                        principal: r.principal.clone(),
                        ..*r
                    };
                    inner.put(key, r);
                    "released".to_owned()
                }
                _ => "lost".to_owned(),
            },
            OnceOp::Extend => match inner.records.get(key) {
                Some(r) if owned(r) => {
                    let lease_until = now_ms.saturating_add(command.lease_ms);
                    let fence = r.fence;
                    let r = Record {
                        lease_until,
                        expires_at: keep(lease_until),
                        owner: r.owner.clone(),
                        digest: r.digest.clone(),
                        text: r.text.clone(),
                        principal: r.principal.clone(),
                        ..*r
                    };
                    inner.put(key, r);
                    format!("extended {fence}")
                }
                _ => "lost".to_owned(),
            },
            OnceOp::Lookup => match inner.records.get(key) {
                None => "none".to_owned(),
                Some(r) if r.state == State::Done => format!("done {} {} {}", r.fence, r.digest, r.text),
                Some(r) if r.state == State::Pending && r.lease_until > now_ms => {
                    format!("pending {}", r.fence)
                }
                Some(r) => format!("free {}", r.fence),
            },
        };
        Ok(reply)
    }

    /// Refuses a new record past the budget or the principal's share.
    fn make_room(&self, inner: &Inner, command: &OnceCommand) -> Result<()> {
        let size = RECORD_OVERHEAD
            + command.key.len()
            + command.owner.len()
            + command.digest.len()
            + command.principal.len();
        if inner.bytes.saturating_add(size) > self.max_bytes {
            return Err(Error::new(
                ErrorCode::Store,
                format!(
                    "once store: store full ({} of {} bytes of live records); refusing rather than forgetting a live one",
                    inner.bytes, self.max_bytes
                ),
            ));
        }
        let used = inner.by_principal.get(&command.principal).copied().unwrap_or(0);
        if used.saturating_add(size) > self.max_bytes_per_principal {
            return Err(Error::new(
                ErrorCode::Store,
                format!(
                    "once store: this principal's share is full ({used} of {} bytes of live records)",
                    self.max_bytes_per_principal
                ),
            ));
        }
        Ok(())
    }
}

impl OnceStore for MemoryStore {
    fn settings(&self) -> &OnceSettings {
        &self.settings
    }

    fn execute(&self, command: &OnceCommand) -> Result<String> {
        self.execute_at(command, unix_ms())
    }
}
