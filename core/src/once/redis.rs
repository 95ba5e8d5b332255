//! The Redis store (feature `redis`): one Redis, or one Redis Cluster,
//! shared by every process of a fleet, through the `redis` crate's
//! synchronous API. Each command is one of the Lua scripts of
//! `scripts.rs` on one key, byte for byte what Python, Node and C send.
//!
//! Before its first command the store reads `maxmemory-policy` (on every
//! master of a cluster) and refuses an evicting one. With
//! [`RedisStore::with_replicas`] each script is followed, on the same
//! connection, by `WAIT`, and a write fewer replicas acknowledged is a
//! store error.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo};
use redis::{ConnectionLike, Value};

use super::OnceStore;
use super::command::{OnceCommand, OnceOp};
use super::keys::DEFAULT_ONCE_PREFIX;
use super::machine::{DEFAULT_ONCE_LEASE_SECS, OnceSettings};
use super::scripts::{
    ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT, ONCE_RELEASE_SCRIPT,
    check_once_eviction_policy,
};
use crate::error::{Error, ErrorCode, Result};

/// The default connect, read and write timeout of a [`RedisStore`], in
/// milliseconds: a store that does not answer in time is an error, never a
/// hang.
pub const DEFAULT_REDIS_TIMEOUT_MS: u64 = 2_000;

/// Idle connections kept for reuse; more callers at once open more.
const POOL_IDLE: usize = 16;

enum Backend {
    Single { client: redis::Client, idle: Mutex<Vec<redis::Connection>> },
    Cluster { urls: Vec<String>, idle: Mutex<Vec<ClusterConnection>> },
}

/// The Redis [`OnceStore`] for a fleet: every process points at the same
/// Redis (or Redis Cluster) with the same key prefix.
///
/// Connections are opened on demand with the timeout, kept in a small idle
/// pool, and dropped after any error (the next call reconnects, so service
/// resumes by itself when Redis returns). Thread-safe.
pub struct RedisStore {
    backend: Backend,
    settings: OnceSettings,
    timeout: Duration,
    replicas: Option<(u32, Duration)>,
    allow_evicting: bool,
    /// Set once `maxmemory-policy` was read and accepted (or warned about).
    policy_checked: Mutex<bool>,
    scripts: [redis::Script; 5],
}

impl std::fmt::Debug for RedisStore {
    // The URL may carry a password: not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("cluster", &matches!(self.backend, Backend::Cluster { .. }))
            .field("settings", &self.settings)
            .field("timeout", &self.timeout)
            .field("replicas", &self.replicas)
            .finish_non_exhaustive()
    }
}

fn store_error(what: &str, e: &redis::RedisError) -> Error {
    // The error's kind and detail, never the URL (it may hold a password).
    Error::new(ErrorCode::Store, format!("once store: redis {what} failed: {e}"))
}

fn invalid_url() -> Error {
    Error::new(ErrorCode::Config, "once store: the Redis URL is not valid")
}

impl RedisStore {
    fn with_backend(backend: Backend) -> RedisStore {
        RedisStore {
            backend,
            settings: OnceSettings {
                prefix: DEFAULT_ONCE_PREFIX.to_owned(),
                lease_ms: DEFAULT_ONCE_LEASE_SECS * 1000,
            },
            timeout: Duration::from_millis(DEFAULT_REDIS_TIMEOUT_MS),
            replicas: None,
            allow_evicting: false,
            policy_checked: Mutex::new(false),
            scripts: [
                redis::Script::new(ONCE_CLAIM_SCRIPT),
                redis::Script::new(ONCE_COMPLETE_SCRIPT),
                redis::Script::new(ONCE_RELEASE_SCRIPT),
                redis::Script::new(ONCE_EXTEND_SCRIPT),
                redis::Script::new(ONCE_LOOKUP_SCRIPT),
            ],
        }
    }

    /// A store for the Redis at `url` (`redis://host:port/db`), with
    /// [`DEFAULT_ONCE_PREFIX`], a lease of [`DEFAULT_ONCE_LEASE_SECS`] and
    /// [`DEFAULT_REDIS_TIMEOUT_MS`]. Nothing is connected yet: an
    /// unreachable Redis is an error on the first call, not here.
    pub fn new(url: &str) -> Result<Self> {
        let client = redis::Client::open(url).map_err(|_| invalid_url())?;
        Ok(RedisStore::with_backend(Backend::Single { client, idle: Mutex::new(Vec::new()) }))
    }

    /// A store for the Redis Cluster reachable at any of `urls` (seed nodes;
    /// the client discovers the rest). Every script touches one key, so
    /// each runs on the master of the flow's slot.
    pub fn cluster(urls: &[&str]) -> Result<Self> {
        if urls.is_empty() {
            return Err(invalid_url());
        }
        let urls: Vec<String> = urls.iter().map(|u| (*u).to_owned()).collect();
        // Built here only to refuse a bad URL now; connections build their own.
        ClusterClient::new(urls.clone()).map_err(|_| invalid_url())?;
        Ok(RedisStore::with_backend(Backend::Cluster { urls, idle: Mutex::new(Vec::new()) }))
    }

    /// The same store with another key prefix (printable ASCII without
    /// spaces or braces, ≤ 128 bytes).
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self> {
        self.settings = OnceSettings::new(prefix, Duration::from_millis(self.settings.lease_ms))?;
        Ok(self)
    }

    /// The same store with another lease for won claims (≥ 1 ms).
    pub fn with_lease(mut self, lease: Duration) -> Result<Self> {
        self.settings = OnceSettings::new(&self.settings.prefix, lease)?;
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

    /// The same store, waiting after each script until `replicas` replicas
    /// acknowledged its writes (`WAIT replicas timeout`, on the connection
    /// that wrote), and failing with [`ErrorCode::Store`] when fewer did: a
    /// claim is then not run on, a completion is reported as not kept.
    /// Single Redis only (a master with replicas, e.g. under Sentinel): on
    /// a cluster the store is [`ErrorCode::Config`]. `WAIT` narrows the
    /// window of a failover losing a write; it is not a consensus (see
    /// docs/once.md).
    pub fn with_replicas(mut self, replicas: u32, timeout: Duration) -> Result<Self> {
        if matches!(self.backend, Backend::Cluster { .. }) {
            return Err(Error::new(
                ErrorCode::Config,
                "once store: waiting for replicas is offered on a single Redis endpoint, not on a cluster",
            ));
        }
        if replicas == 0 || timeout.is_zero() {
            return Err(Error::new(
                ErrorCode::Config,
                "once store: replicas and their timeout must be at least 1",
            ));
        }
        self.replicas = Some((replicas, timeout));
        Ok(self)
    }

    /// The same store, accepting a Redis whose `maxmemory-policy` may evict
    /// keys (or cannot be read) with a warning on standard error instead of
    /// refusing it. Only for a Redis you have verified yourself.
    pub fn allow_evicting_policy(mut self) -> Self {
        self.allow_evicting = true;
        self
    }

    /// Reads `maxmemory-policy` now (every master of a cluster) and returns
    /// it; an evicting or unreadable policy is an [`ErrorCode::Store`]
    /// error unless [`RedisStore::allow_evicting_policy`] was set. Runs by
    /// itself before the first command; call it at start-up to fail early.
    pub fn check(&self) -> Result<Vec<String>> {
        let policies = self.read_policies();
        let verdict = policies
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|ps| ps.iter().try_for_each(|p| check_once_eviction_policy(p)));
        match verdict {
            Ok(()) => {}
            Err(e) if self.allow_evicting => {
                eprintln!("snodo: WARNING: {} (allowed by allow_evicting_policy)", e.message());
            }
            Err(e) => return Err(e),
        }
        *self.policy_checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        Ok(policies.unwrap_or_default())
    }

    fn read_policies(&self) -> Result<Vec<String>> {
        let mut get = redis::cmd("CONFIG");
        get.arg("GET").arg("maxmemory-policy");
        let read = |v: Value| -> Result<String> {
            let pairs: HashMap<String, String> = redis::from_redis_value(v).map_err(|e| {
                Error::new(ErrorCode::Store, format!("once store: unexpected CONFIG GET reply: {e}"))
            })?;
            pairs.get("maxmemory-policy").cloned().ok_or_else(|| {
                Error::new(ErrorCode::Store, "once store: redis did not report its maxmemory-policy")
            })
        };
        match &self.backend {
            Backend::Single { .. } => {
                let value = self.with_single(|con| get.query::<Value>(con))?;
                Ok(vec![read(value)?])
            }
            Backend::Cluster { .. } => {
                let routing = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                let value = self.with_cluster(|con| con.route_command(&get, routing))?;
                let Value::Map(nodes) = value else {
                    return Err(Error::new(ErrorCode::Store, "once store: unexpected CONFIG GET reply"));
                };
                nodes.into_iter().map(|(_, v)| read(v)).collect()
            }
        }
    }

    fn script(&self, op: OnceOp) -> &redis::Script {
        let [claim, complete, release, extend, lookup] = &self.scripts;
        match op {
            OnceOp::Claim => claim,
            OnceOp::Complete => complete,
            OnceOp::Release => release,
            OnceOp::Extend => extend,
            OnceOp::Lookup => lookup,
        }
    }

    fn connect_single(&self, client: &redis::Client) -> Result<redis::Connection> {
        let con = client.get_connection_with_timeout(self.timeout).map_err(|e| store_error("connect", &e))?;
        // WAIT blocks up to its own timeout before answering.
        let read = self.timeout + self.replicas.map_or(Duration::ZERO, |(_, t)| t);
        con.set_read_timeout(Some(read)).map_err(|e| store_error("connect", &e))?;
        con.set_write_timeout(Some(self.timeout)).map_err(|e| store_error("connect", &e))?;
        Ok(con)
    }

    /// Runs `f` on a pooled connection (or a new one); the connection goes
    /// back to the pool only if `f` succeeded.
    fn with_single<T>(&self, f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T> {
        let Backend::Single { client, idle } = &self.backend else {
            return Err(Error::new(ErrorCode::Store, "once store: not a single Redis"));
        };
        let pooled = idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        let mut con = match pooled {
            Some(con) => con,
            None => self.connect_single(client)?,
        };
        let value = f(&mut con).map_err(|e| store_error("command", &e))?;
        let mut idle = idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if idle.len() < POOL_IDLE {
            idle.push(con);
        }
        Ok(value)
    }

    fn with_cluster<T>(&self, f: impl FnOnce(&mut ClusterConnection) -> redis::RedisResult<T>) -> Result<T> {
        let Backend::Cluster { urls, idle } = &self.backend else {
            return Err(Error::new(ErrorCode::Store, "once store: not a cluster"));
        };
        let pooled = idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        let mut con = match pooled {
            Some(con) => con,
            None => ClusterClient::builder(urls.iter().map(String::as_str))
                .connection_timeout(self.timeout)
                .response_timeout(self.timeout)
                // One quick retry (a node restarted), not the default
                // backoff that would hold a request for seconds.
                .retries(1)
                .build()
                .and_then(|client| client.get_connection())
                .map_err(|e| store_error("connect", &e))?,
        };
        let value = f(&mut con).map_err(|e| store_error("command", &e))?;
        if con.is_open() {
            let mut idle = idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if idle.len() < POOL_IDLE {
                idle.push(con);
            }
        }
        Ok(value)
    }

    fn ensure_checked(&self) -> Result<()> {
        if *self.policy_checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) {
            return Ok(());
        }
        self.check().map(|_| ())
    }
}

impl OnceStore for RedisStore {
    fn settings(&self) -> &OnceSettings {
        &self.settings
    }

    fn execute(&self, command: &OnceCommand) -> Result<String> {
        self.eval(
            &format!("once store: {}", command.op().name()),
            self.script(command.op()),
            command.script(),
            command.key(),
            &command.args(),
        )
    }
}

/// The same Redis runs the task store's commands (`docs/tasks.md`): the
/// same connections, eviction-policy check and replica acknowledgement.
impl crate::TaskStore for RedisStore {
    fn execute(&self, command: &crate::TaskCommand) -> Result<String> {
        let script = redis::Script::new(command.script());
        self.eval(
            &format!("task store: {}", command.op().name()),
            &script,
            command.script(),
            command.key(),
            command.args(),
        )
    }
}

impl RedisStore {
    /// Runs one script on one key: `EVALSHA` (with `EVAL` on `NOSCRIPT`),
    /// or `EVAL` then `WAIT` when replicas must acknowledge.
    fn eval(
        &self,
        op: &str,
        script: &redis::Script,
        text: &str,
        key: &str,
        args: &[String],
    ) -> Result<String> {
        self.ensure_checked()?;
        match (&self.backend, self.replicas) {
            (Backend::Single { .. }, Some((replicas, timeout))) => {
                // EVAL (not EVALSHA: no NOSCRIPT retry inside a pipeline)
                // and WAIT on one connection: WAIT counts this
                // connection's writes.
                let wait_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
                let (reply, acked): (String, u64) = self.with_single(|con| {
                    redis::pipe()
                        .cmd("EVAL")
                        .arg(text)
                        .arg(1)
                        .arg(key)
                        .arg(args)
                        .cmd("WAIT")
                        .arg(replicas)
                        .arg(wait_ms)
                        .query(con)
                })?;
                if acked < u64::from(replicas) {
                    return Err(Error::new(
                        ErrorCode::Store,
                        format!(
                            "{op} reached {acked} of {replicas} replicas within {wait_ms} ms: not confirmed"
                        ),
                    ));
                }
                Ok(reply)
            }
            (Backend::Single { .. }, None) => self.with_single(|con| script.key(key).arg(args).invoke(con)),
            (Backend::Cluster { .. }, _) => self.with_cluster(|con| script.key(key).arg(args).invoke(con)),
        }
    }
}
