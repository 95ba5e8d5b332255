//! At most once per flow: the core's sans-IO once machine (`OnceRun`), the
//! commands it hands out and the steps it answers, the core's in-memory
//! store, and the published scripts and constants. The drivers
//! (`run_once`, `run_once_async`, `check_once`) and the redis-py stores are
//! Python (`snodo_mrtr/once.py`): they run each command on a store and feed
//! the reply back here, so the protocol's rules exist once, in the core,
//! and a waiting driver sleeps in Python without holding the GIL.

use std::time::Duration;

use pyo3::prelude::*;
use snodo::{ErrorCode, OnceStore};

use crate::call::Call;
use crate::error::{raise, to_py_err};
use crate::json::{self, to_value};

/// A core error of the once machine. The machine's one `TOKEN` error is
/// the replay (the flow completed with other answers): it gets `.reason`
/// `"replayed"`, the word a server puts in `data.reason`.
fn once_err(py: Python<'_>, e: &snodo::Error) -> PyErr {
    let err = to_py_err(py, e);
    if e.code() == ErrorCode::Token {
        // Best effort: if the attribute cannot be set, the message still says it.
        let _ = err.value(py).setattr("reason", "replayed");
    }
    err
}

/// Seconds as a `Duration`, refusing what is not a finite number ≥ 0.
fn seconds(py: Python<'_>, code: ErrorCode, what: &str, secs: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(secs)
        .map_err(|_| raise(py, code, format!("once: {what} must be a finite number of seconds >= 0")))
}

/// One store step the machine asks for: run `script` with
/// `KEYS = [key]` and `ARGV = args`, and feed the reply text back.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug, Clone)]
pub struct OnceCommand {
    pub(crate) inner: snodo::OnceCommand,
}

#[pymethods]
impl OnceCommand {
    /// `"claim"`, `"complete"`, `"release"`, `"extend"` or `"lookup"`.
    #[getter]
    fn op(&self) -> &'static str {
        self.inner.op().name()
    }
    /// The flow's key (`KEYS[1]`): `<prefix>flow:{<flow_id>}`.
    #[getter]
    fn key(&self) -> &str {
        self.inner.key()
    }
    /// The Lua script, byte for byte the core's.
    #[getter]
    fn script(&self) -> &'static str {
        self.inner.script()
    }
    /// The script's `ARGV`, as text.
    #[getter]
    fn args(&self) -> Vec<String> {
        self.inner.args()
    }
    /// The random owner id of the run that sent it (empty for a lookup).
    #[getter]
    fn owner(&self) -> &str {
        self.inner.owner()
    }

    fn __repr__(&self) -> String {
        // Not the args: a completion carries the result text.
        format!("OnceCommand(op={:?}, key={:?})", self.inner.op().name(), self.inner.key())
    }
}

/// What an effect is handed: the claim's fencing number and the command
/// that extends its lease.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug, Clone)]
pub struct OnceTicket {
    inner: snodo::OnceTicket,
}

#[pymethods]
impl OnceTicket {
    /// The claim's fencing number: greater than every earlier claim's of
    /// the flow.
    #[getter]
    fn fence(&self) -> u64 {
        self.inner.fence()
    }
    /// The owner-checked lease extension, to run on the store.
    #[getter]
    fn extend_command(&self) -> OnceCommand {
        OnceCommand { inner: self.inner.extend_command().clone() }
    }
    /// Whether the extension's reply says it held (`False`: the claim is
    /// no longer this run's; stop, and do not write).
    fn extended(&self, py: Python<'_>, reply: &str) -> PyResult<bool> {
        self.inner.extended(reply).map_err(|e| once_err(py, &e))
    }

    fn __repr__(&self) -> String {
        format!("OnceTicket(fence={})", self.inner.fence())
    }
}

/// What the caller does next: `kind` is `"command"` (run `command`, feed
/// its reply), `"sleep"` (pause `seconds`, then `resume`), `"effect"` (run
/// the effect with `ticket`), `"done"` (the final result `text`),
/// `"released"` (re-raise the effect's error) or `"open"` (a lookup found
/// nothing remembered).
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct OnceStep {
    inner: snodo::OnceStep,
}

#[pymethods]
impl OnceStep {
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            snodo::OnceStep::Command(_) => "command",
            snodo::OnceStep::Sleep(_) => "sleep",
            snodo::OnceStep::Effect(_) => "effect",
            snodo::OnceStep::Done(_) => "done",
            snodo::OnceStep::Released => "released",
            snodo::OnceStep::Open => "open",
        }
    }
    /// The command to run (kind `"command"`), else `None`.
    #[getter]
    fn command(&self) -> Option<OnceCommand> {
        let snodo::OnceStep::Command(c) = &self.inner else { return None };
        Some(OnceCommand { inner: c.clone() })
    }
    /// The pause, in seconds (kind `"sleep"`), else `None`.
    #[getter]
    fn seconds(&self) -> Option<f64> {
        let snodo::OnceStep::Sleep(d) = &self.inner else { return None };
        Some(d.as_secs_f64())
    }
    /// The effect's ticket (kind `"effect"`), else `None`.
    #[getter]
    fn ticket(&self) -> Option<OnceTicket> {
        let snodo::OnceStep::Effect(t) = &self.inner else { return None };
        Some(OnceTicket { inner: t.clone() })
    }
    /// The final result text (kind `"done"`), else `None`.
    #[getter]
    fn text(&self) -> Option<&str> {
        let snodo::OnceStep::Done(t) = &self.inner else { return None };
        Some(t)
    }

    fn __repr__(&self) -> String {
        format!("OnceStep(kind={:?})", self.kind())
    }
}

fn step(py: Python<'_>, result: snodo::Result<snodo::OnceStep>) -> PyResult<OnceStep> {
    result.map(|inner| OnceStep { inner }).map_err(|e| once_err(py, &e))
}

/// One run of the once protocol for one final round (or, with
/// `lookup=True`, one look at what is remembered for the flow). Not shared
/// between threads: one run per request.
#[pyclass(module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct OnceRun {
    inner: snodo::OnceRun,
}

#[pymethods]
impl OnceRun {
    /// A run for `call` (a retry: it opened a token) on a store with key
    /// `prefix` and a lease of `lease_ms`; a pending claim of another
    /// caller is waited for up to `wait_secs` in all.
    #[new]
    #[pyo3(signature = (call, prefix, lease_ms, *, wait_secs=35.0, lookup=false))]
    fn new(
        py: Python<'_>,
        call: PyRef<'_, Call>,
        prefix: &str,
        lease_ms: u64,
        wait_secs: f64,
        lookup: bool,
    ) -> PyResult<Self> {
        let settings = snodo::OnceSettings::new(prefix, Duration::from_millis(lease_ms))
            .map_err(|e| to_py_err(py, &e))?;
        let inner = if lookup {
            snodo::OnceRun::lookup(&call.inner, &settings)
        } else {
            let wait = seconds(py, ErrorCode::Argument, "wait", wait_secs)?;
            snodo::OnceRun::new(&call.inner, &settings, &snodo::OnceOptions { wait, ..Default::default() })
        };
        inner.map(|inner| OnceRun { inner }).map_err(|e| to_py_err(py, &e))
    }

    /// The first step: the claim (or the lookup).
    fn start(&mut self, py: Python<'_>) -> PyResult<OnceStep> {
        step(py, self.inner.start())
    }
    /// The reply to the last command. Raises `TokenError` (`.reason`
    /// `"replayed"`: the flow completed with other answers) or
    /// `StoreError` (still running after the wait, the claim taken over
    /// before completing, a reply snodo does not write).
    fn feed(&mut self, py: Python<'_>, reply: &str) -> PyResult<OnceStep> {
        step(py, self.inner.feed(reply))
    }
    /// After a `"sleep"`: claim again.
    fn resume(&mut self, py: Python<'_>) -> PyResult<OnceStep> {
        step(py, self.inner.resume())
    }
    /// After `"effect"`: the effect's result text, to remember.
    fn effect_done(&mut self, py: Python<'_>, text: String) -> PyResult<OnceStep> {
        step(py, self.inner.effect_done(text))
    }
    /// After `"effect"`: the effect failed before doing anything; its claim
    /// is released.
    fn effect_failed(&mut self, py: Python<'_>) -> PyResult<OnceStep> {
        step(py, self.inner.effect_failed())
    }
    /// The fencing number this run won (0 before it won).
    #[getter]
    fn fence(&self) -> u64 {
        self.inner.fence()
    }

    fn __repr__(&self) -> String {
        format!("OnceRun(fence={})", self.inner.fence())
    }
}

/// The core's in-memory store: one process, thread-safe, bounded in
/// bytes with a share per principal, expiring.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct MemoryStore {
    inner: snodo::MemoryStore,
    max_bytes: usize,
    max_bytes_per_principal: usize,
}

#[pymethods]
impl MemoryStore {
    /// `max_bytes_per_principal` defaults to a quarter of `max_bytes` (at
    /// least 1 KiB), the core's default share.
    #[new]
    #[pyo3(signature = (*, max_bytes=snodo::DEFAULT_ONCE_MAX_BYTES, max_bytes_per_principal=None, lease_secs=snodo::DEFAULT_ONCE_LEASE_SECS as f64))]
    fn new(
        py: Python<'_>,
        max_bytes: usize,
        max_bytes_per_principal: Option<usize>,
        lease_secs: f64,
    ) -> PyResult<Self> {
        let share = max_bytes_per_principal.unwrap_or_else(|| (max_bytes / 4).max(1024));
        let lease = seconds(py, ErrorCode::Config, "lease_secs", lease_secs)?;
        let inner =
            snodo::MemoryStore::with_limits(max_bytes, share, lease).map_err(|e| to_py_err(py, &e))?;
        Ok(MemoryStore { inner, max_bytes, max_bytes_per_principal: share })
    }

    /// The key prefix of every run on this store.
    #[getter]
    fn prefix(&self) -> &str {
        self.inner.settings().prefix()
    }
    /// The lease of a won claim, in milliseconds.
    #[getter]
    fn lease_ms(&self) -> u64 {
        self.inner.settings().lease_ms()
    }

    // A command holds the store's mutex for a map update (microseconds): it
    // keeps the GIL, which is cheaper than releasing and taking it back.

    /// Runs `command` and returns its reply text, as of `now_ms` (Unix
    /// milliseconds; default: the system clock).
    #[pyo3(signature = (command, *, now_ms=None))]
    fn execute(
        &self,
        py: Python<'_>,
        command: PyRef<'_, OnceCommand>,
        now_ms: Option<u64>,
    ) -> PyResult<String> {
        match now_ms {
            Some(now) => self.inner.execute_at(&command.inner, now),
            None => self.inner.execute(&command.inner),
        }
        .map_err(|e| to_py_err(py, &e))
    }

    /// Records held (expired ones not yet dropped included).
    fn __len__(&self) -> usize {
        self.inner.len()
    }
    /// The bytes the records take, as the budget counts them.
    #[getter]
    fn bytes(&self) -> usize {
        self.inner.bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "MemoryStore(max_bytes={}, max_bytes_per_principal={}, lease_ms={})",
            self.max_bytes,
            self.max_bytes_per_principal,
            self.inner.settings().lease_ms()
        )
    }
}

/// Checks a key prefix as the core does (`ConfigError` if not usable), so a
/// Python Redis store refuses what the Rust one refuses.
#[pyfunction]
pub fn check_once_prefix(py: Python<'_>, prefix: &str) -> PyResult<()> {
    snodo::check_once_prefix(prefix).map_err(|e| to_py_err(py, &e))
}

/// Checks a Redis `maxmemory-policy`: `None` for `noeviction`, else
/// `StoreError` saying why an evicting policy breaks at most once.
#[pyfunction]
pub fn check_once_eviction_policy(py: Python<'_>, policy: &str) -> PyResult<()> {
    snodo::check_once_eviction_policy(policy).map_err(|e| to_py_err(py, &e))
}

/// The canonical JSON text a result is remembered as (`RawJSON` kept exact).
#[pyfunction]
pub fn _once_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    snodo::canonicalize(snodo::to_wire(&to_value(obj)?)).map_err(|e| to_py_err(obj.py(), &e))
}

/// A remembered result text read back into Python values.
#[pyfunction]
pub fn _once_parse<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    json::to_py(py, &json::parse_text(py, text.as_bytes())?)
}

/// Adds the classes, the functions and the `ONCE_*` constants.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<OnceRun>()?;
    m.add_class::<OnceStep>()?;
    m.add_class::<OnceCommand>()?;
    m.add_class::<OnceTicket>()?;
    m.add_class::<MemoryStore>()?;
    m.add_function(wrap_pyfunction!(check_once_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(check_once_eviction_policy, m)?)?;
    m.add_function(wrap_pyfunction!(_once_text, m)?)?;
    m.add_function(wrap_pyfunction!(_once_parse, m)?)?;
    m.add("DEFAULT_ONCE_PREFIX", snodo::DEFAULT_ONCE_PREFIX)?;
    m.add("ONCE_FLOW_KEY_PART", snodo::ONCE_FLOW_KEY_PART)?;
    m.add("ONCE_CLAIM_SCRIPT", snodo::ONCE_CLAIM_SCRIPT)?;
    m.add("ONCE_COMPLETE_SCRIPT", snodo::ONCE_COMPLETE_SCRIPT)?;
    m.add("ONCE_RELEASE_SCRIPT", snodo::ONCE_RELEASE_SCRIPT)?;
    m.add("ONCE_EXTEND_SCRIPT", snodo::ONCE_EXTEND_SCRIPT)?;
    m.add("ONCE_LOOKUP_SCRIPT", snodo::ONCE_LOOKUP_SCRIPT)?;
    m.add("ONCE_SAFE_EVICTION_POLICY", snodo::ONCE_SAFE_EVICTION_POLICY)?;
    m.add("ONCE_REPLAYED_MESSAGE", snodo::ONCE_REPLAYED_MESSAGE)?;
    m.add("DEFAULT_ONCE_LEASE_SECS", snodo::DEFAULT_ONCE_LEASE_SECS)?;
    m.add("DEFAULT_ONCE_WAIT_SECS", snodo::OnceOptions::default().wait.as_secs_f64())?;
    m.add("DEFAULT_ONCE_MAX_BYTES", snodo::DEFAULT_ONCE_MAX_BYTES)?;
    m.add("DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL", snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL)?;
    m.add("DEFAULT_CLOCK_SKEW_SECS", snodo::DEFAULT_CLOCK_SKEW_SECS)?;
    // The core's constant lives behind its `redis` feature, which this
    // crate does not build (redis-py talks to Redis): the same value.
    m.add("DEFAULT_REDIS_TIMEOUT_MS", 2_000u64)?;
    Ok(())
}
