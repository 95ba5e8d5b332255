//! Issue 17: consume-once and remembered results. The native part is the
//! core's `MemoryStore` and the published Redis constants; the Redis stores
//! (redis-py) and the `run_once` loop live in `snodo_mrtr/once.py`, so one
//! loop drives every store and sleeps without holding the GIL.

use pyo3::prelude::*;
use snodo::{Claim, OnceStore};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::to_py_err;
use crate::json::{self, to_value};

/// Unix seconds now: the default `now` of the store calls, the same clock
/// the core's stores use when a server passes the engine's.
fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// `("won", None) | ("done", text) | ("pending", None)`, the Python shape
/// every store's `claim` returns.
pub fn claim_tuple(claim: Claim) -> (&'static str, Option<String>) {
    match claim {
        Claim::Won => ("won", None),
        Claim::Done(text) => ("done", Some(text)),
        Claim::Pending => ("pending", None),
    }
}

/// The core's in-memory store: one process, thread-safe, bounded, expiring.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct MemoryStore {
    inner: snodo::MemoryStore,
    max_entries: usize,
    lease_secs: u64,
}

#[pymethods]
impl MemoryStore {
    #[new]
    #[pyo3(signature = (*, max_entries=snodo::DEFAULT_ONCE_MAX_ENTRIES, lease_secs=snodo::DEFAULT_ONCE_LEASE_SECS))]
    fn new(py: Python<'_>, max_entries: usize, lease_secs: u64) -> PyResult<Self> {
        let inner = snodo::MemoryStore::with_limits(max_entries, Duration::from_secs(lease_secs))
            .map_err(|e| to_py_err(py, &e))?;
        Ok(MemoryStore { inner, max_entries, lease_secs })
    }

    // The store calls hold a mutex for a hash lookup (microseconds): they
    // keep the GIL, which is cheaper than releasing and taking it back.

    /// `True` the first time `token_id` is seen, `False` until `expires_at`.
    #[pyo3(signature = (token_id, expires_at, *, now=None))]
    fn consume(&self, py: Python<'_>, token_id: &str, expires_at: u64, now: Option<u64>) -> PyResult<bool> {
        self.inner.consume(token_id, expires_at, now.unwrap_or_else(unix_now)).map_err(|e| to_py_err(py, &e))
    }

    /// Claims the final round `(flow_id, digest)`.
    #[pyo3(signature = (flow_id, digest, expires_at, *, now=None))]
    fn claim(
        &self,
        py: Python<'_>,
        flow_id: &str,
        digest: &str,
        expires_at: u64,
        now: Option<u64>,
    ) -> PyResult<(&'static str, Option<String>)> {
        self.inner
            .claim(flow_id, digest, expires_at, now.unwrap_or_else(unix_now))
            .map(claim_tuple)
            .map_err(|e| to_py_err(py, &e))
    }

    /// Remembers `text` as the final response of a won claim.
    #[pyo3(signature = (flow_id, digest, text, expires_at, *, now=None))]
    fn complete(
        &self,
        py: Python<'_>,
        flow_id: &str,
        digest: &str,
        text: &str,
        expires_at: u64,
        now: Option<u64>,
    ) -> PyResult<()> {
        self.inner
            .complete(flow_id, digest, text, expires_at, now.unwrap_or_else(unix_now))
            .map_err(|e| to_py_err(py, &e))
    }

    /// Drops a won, still pending claim; with `token_id`, also gives back
    /// the token id the failed attempt consumed (in the same step).
    #[pyo3(signature = (flow_id, digest, token_id=None))]
    fn release(&self, py: Python<'_>, flow_id: &str, digest: &str, token_id: Option<&str>) -> PyResult<()> {
        self.inner.release(flow_id, digest, token_id).map_err(|e| to_py_err(py, &e))
    }

    /// Entries held (expired ones not yet swept included).
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("MemoryStore(max_entries={}, lease_secs={})", self.max_entries, self.lease_secs)
    }
}

/// Checks a key prefix as the core does (`ConfigError` if not usable), so a
/// Python Redis store refuses what the Rust one refuses.
#[pyfunction]
pub fn check_once_prefix(py: Python<'_>, prefix: &str) -> PyResult<()> {
    snodo::check_once_prefix(prefix).map_err(|e| to_py_err(py, &e))
}

/// `<prefix>token:<token_id>`, ids checked as the core checks them.
#[pyfunction]
pub fn once_token_key(py: Python<'_>, prefix: &str, token_id: &str) -> PyResult<String> {
    snodo::once_token_key(prefix, token_id).map_err(|e| to_py_err(py, &e))
}

/// `<prefix>result:<flow_id>:<digest>`, ids checked as the core checks them.
#[pyfunction]
pub fn once_result_key(py: Python<'_>, prefix: &str, flow_id: &str, digest: &str) -> PyResult<String> {
    snodo::once_result_key(prefix, flow_id, digest).map_err(|e| to_py_err(py, &e))
}

/// The canonical JSON text a result is remembered as (`RawJSON` kept exact).
#[pyfunction]
pub fn _once_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let value = to_value(obj)?;
    String::from_utf8(snodo::internal::json::canonical(&value))
        .map_err(|_| crate::error::raise(obj.py(), snodo::ErrorCode::Json, "canonical form is not UTF-8"))
}

/// A remembered result text read back into Python values.
#[pyfunction]
pub fn _once_parse<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    json::to_py(py, &json::parse_text(py, text.as_bytes())?)
}

/// Adds the class, the functions and the `ONCE_*` constants.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MemoryStore>()?;
    m.add_function(wrap_pyfunction!(check_once_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(once_token_key, m)?)?;
    m.add_function(wrap_pyfunction!(once_result_key, m)?)?;
    m.add_function(wrap_pyfunction!(_once_text, m)?)?;
    m.add_function(wrap_pyfunction!(_once_parse, m)?)?;
    m.add("DEFAULT_ONCE_PREFIX", snodo::DEFAULT_ONCE_PREFIX)?;
    m.add("ONCE_TOKEN_KEY_PART", snodo::ONCE_TOKEN_KEY_PART)?;
    m.add("ONCE_RESULT_KEY_PART", snodo::ONCE_RESULT_KEY_PART)?;
    m.add("ONCE_CONSUMED", snodo::ONCE_CONSUMED)?;
    m.add("ONCE_PENDING", snodo::ONCE_PENDING)?;
    m.add("ONCE_DONE_PREFIX", snodo::ONCE_DONE_PREFIX)?;
    m.add("ONCE_WON", snodo::ONCE_WON)?;
    m.add("ONCE_CLAIM_SCRIPT", snodo::ONCE_CLAIM_SCRIPT)?;
    m.add("ONCE_COMPLETE_SCRIPT", snodo::ONCE_COMPLETE_SCRIPT)?;
    m.add("ONCE_RELEASE_SCRIPT", snodo::ONCE_RELEASE_SCRIPT)?;
    m.add("ONCE_REPLAYED_MESSAGE", snodo::ONCE_REPLAYED_MESSAGE)?;
    m.add("DEFAULT_ONCE_LEASE_SECS", snodo::DEFAULT_ONCE_LEASE_SECS)?;
    m.add("DEFAULT_ONCE_MAX_ENTRIES", snodo::DEFAULT_ONCE_MAX_ENTRIES)?;
    m.add("DEFAULT_CLOCK_SKEW_SECS", snodo::DEFAULT_CLOCK_SKEW_SECS)?;
    // The core's constant lives behind its `redis` feature, which this
    // crate does not build (redis-py talks to Redis): the same value.
    m.add("DEFAULT_REDIS_TIMEOUT_MS", 2_000u64)?;
    Ok(())
}
