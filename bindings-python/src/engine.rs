//! `Engine`: the configuration keywords, `begin`, `decide`, `seal` and
//! `open`, each one core call. The GIL is released around every piece of
//! work that does not touch Python objects (parsing, sealing, deciding).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyType};
use snodo::{Begin, Config, ErrorCode, Key};

use crate::call::Call;
use crate::error::{raise, to_py_err, token_err};
use crate::json::{self, is_text, json_arg, text_bytes, to_value};
use crate::legacy::{self, Feed, PendingFlow, Session};
use crate::outcome::outcome_arg;
use crate::question::question_arg;
use crate::response::Response;
use crate::tasks::TaskStep;
use crate::token::{Opened, binding32};

/// The MRTR engine: immutable and safe to share between threads.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Engine {
    pub(crate) inner: snodo::Engine,
    /// Kept for `repr` only: ids and limits, never key bytes.
    summary: String,
}

/// The ring `Engine.from_env` read, passed to the constructor in place of
/// `keys`, so that both take exactly the same keywords. Not exported.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
struct EnvKeys(Vec<Key>);

fn keys_arg(py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Vec<Key>> {
    let bad = |why: String| raise(py, ErrorCode::Config, why);
    if let Ok(ring) = keys.cast::<EnvKeys>() {
        return Ok(ring.get().0.clone());
    }
    let pairs: Vec<Bound<'_, PyAny>> = if let Ok(d) = keys.cast::<PyDict>() {
        d.items().try_iter()?.collect::<PyResult<_>>()?
    } else if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
        return Err(bad("keys: give a list of (id, bytes) pairs or a dict {id: bytes}".into()));
    } else {
        keys.try_iter()?.collect::<PyResult<_>>()?
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (i, pair) in pairs.iter().enumerate() {
        let Ok((id, secret)) = pair.extract::<(String, Bound<'_, PyAny>)>() else {
            return Err(bad(format!("keys[{i}]: must be an (id: str, secret: bytes) pair")));
        };
        // bytes or bytearray only: a str secret is almost always a hex or
        // base64 spelling the caller forgot to decode.
        if secret.is_instance_of::<PyString>() {
            return Err(bad(format!("keys[{i}]: the secret must be bytes, not str (decode it first)")));
        }
        let Ok(bytes) = secret.extract::<Vec<u8>>() else {
            return Err(bad(format!("keys[{i}]: the secret must be bytes")));
        };
        out.push(Key::new(id, bytes).map_err(|e| to_py_err(py, &e))?);
    }
    Ok(out)
}

fn summary(keys: &[Key], c: &Config) -> String {
    let ids: Vec<String> = keys.iter().map(|k| format!("{:?}", k.id())).collect();
    format!(
        "Engine(key_ids=[{}], ttl_secs={}, max_rounds={}, supported_versions={:?})",
        ids.join(", "),
        c.ttl_secs,
        c.max_rounds,
        c.supported_versions
    )
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (keys, *, ttl_secs=None, max_rounds=None, max_flow_age_secs=None, max_token_bytes=None,
        max_request_bytes=None, max_input_responses=None, clock_skew_secs=None, supported_versions=None,
        server_info=None, strict_answers=None, audience=None, fixed_time=None, legacy_versions=None,
        token_version=None, min_token_version=None, test_random_seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        ttl_secs: Option<u64>,
        max_rounds: Option<u64>,
        max_flow_age_secs: Option<u64>,
        max_token_bytes: Option<u64>,
        max_request_bytes: Option<u64>,
        max_input_responses: Option<u64>,
        clock_skew_secs: Option<u64>,
        supported_versions: Option<Vec<String>>,
        server_info: Option<&Bound<'_, PyAny>>,
        strict_answers: Option<bool>,
        audience: Option<String>,
        fixed_time: Option<u64>,
        legacy_versions: Option<Vec<String>>,
        token_version: Option<u64>,
        min_token_version: Option<u64>,
        test_random_seed: Option<u64>,
    ) -> PyResult<Self> {
        let keys = keys_arg(py, keys)?;
        let mut c = Config::new(keys.clone());
        // Every numeric limit goes through the core's one table (snake_case
        // names are the Python keywords); ranges and messages are the core's.
        // Adding a limit: one keyword above and one entry here.
        let limits = [
            ("ttl_secs", ttl_secs),
            ("max_rounds", max_rounds),
            ("max_flow_age_secs", max_flow_age_secs),
            ("max_token_bytes", max_token_bytes),
            ("max_request_bytes", max_request_bytes),
            ("max_input_responses", max_input_responses),
            ("clock_skew_secs", clock_skew_secs),
            ("token_version", token_version),
            ("min_token_version", min_token_version),
        ];
        for (name, value) in limits {
            if let Some(v) = value {
                c.set_limit(name, v).map_err(|e| to_py_err(py, &e))?;
            }
        }
        if let Some(v) = supported_versions {
            c.supported_versions = v;
        }
        if let Some(info) = server_info.filter(|i| !i.is_none()) {
            c.server_info = Some(to_value(info)?);
        }
        if let Some(strict) = strict_answers {
            c.strict_answers = strict;
        }
        c.audience = audience;
        if let Some(v) = legacy_versions {
            c.legacy_versions = v;
        }
        let c = test_knobs(py, c, fixed_time, test_random_seed)?;
        let summary = summary(&keys, &c);
        let inner = snodo::Engine::new(c).map_err(|e| to_py_err(py, &e))?;
        Ok(Engine { inner, summary })
    }

    /// An engine with the key ring of `SNODO_KEYS` (the core's loader: its
    /// `ConfigError` names a bad entry) and the constructor's keywords, all
    /// but `keys`.
    #[classmethod]
    #[pyo3(signature = (**options))]
    fn from_env<'py>(
        cls: &Bound<'py, PyType>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        if let Some(options) = options
            && options.contains("keys")?
        {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "Engine.from_env() reads the keys from SNODO_KEYS: pass the other keywords only",
            ));
        }
        let ring = Config::from_env().map_err(|e| to_py_err(py, &e))?.keys;
        cls.call((EnvKeys(ring),), options)
    }

    /// An engine with one random key that lives as long as the process.
    /// Development and single-process use only.
    #[classmethod]
    fn development(_cls: &Bound<'_, PyType>, py: Python<'_>) -> PyResult<Self> {
        let inner = snodo::Engine::development().map_err(|e| to_py_err(py, &e))?;
        let summary = "Engine(key_ids=[\"dev\"], development=True)".to_owned();
        Ok(Engine { inner, summary })
    }

    /// The engine's clock, Unix seconds.
    fn now(&self) -> u64 {
        self.inner.now()
    }

    /// Reads a JSON-RPC request (text, bytes or dict) that may be an MRTR
    /// retry. Returns a `Call` for the handler or a ready `Response`.
    // The principal is required (pass None for anonymous): omitting it is a
    // TypeError, as in every language.
    #[pyo3(signature = (request, principal))]
    fn begin(
        &self,
        py: Python<'_>,
        request: &Bound<'_, PyAny>,
        principal: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let who = json::principal(py, principal)?;
        let begun = if is_text(request) {
            let bytes = text_bytes(request)?;
            py.detach(|| self.inner.begin(&bytes, &who))
        } else if request.is_instance_of::<PyDict>() {
            let value = to_value(request)?;
            py.detach(|| self.inner.begin_value(value, &who))
        } else {
            return Err(json::not_a_message("request", request));
        };
        begun_out(py, begun.map_err(|e| to_py_err(py, &e))?)
    }

    /// `begin` for a request an SDK has already parsed: the JSON-RPC `id`,
    /// the `method` and the `params` as received (a dict with `_meta`,
    /// `inputResponses` and `requestState` left in; `None` for no params;
    /// or JSON text, read exactly). Same checks, binding and token as
    /// `begin` on the bytes.
    #[pyo3(signature = (id, method, params, principal))]
    fn begin_parts(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        method: &str,
        params: &Bound<'_, PyAny>,
        principal: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let who = json::principal(py, principal)?;
        let (id, params) = (to_value(id)?, json_arg(params)?);
        let begun =
            py.detach(|| self.inner.begin_parts(id, method, params, &who)).map_err(|e| to_py_err(py, &e))?;
        begun_out(py, begun)
    }

    /// Turns the handler's outcome (see `complete`, `input_required`, ...,
    /// or a dict in the JSON spelling) into the response to send.
    fn decide(
        &self,
        py: Python<'_>,
        call: &Bound<'_, Call>,
        outcome: &Bound<'_, PyAny>,
    ) -> PyResult<Response> {
        let outcome = outcome_arg(outcome)?;
        let call = &call.get().inner;
        let inner = py.detach(|| self.inner.decide(call, outcome)).map_err(|e| to_py_err(py, &e))?;
        Ok(Response { inner })
    }

    /// The task machine's step for a `tasks/*` request (no `outcome`) or
    /// for the handler's outcome on a request or on a run as a task.
    #[pyo3(signature = (call, outcome=None))]
    fn task_step(
        &self,
        py: Python<'_>,
        call: &Bound<'_, Call>,
        outcome: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<TaskStep> {
        let outcome = outcome.filter(|o| !o.is_none()).map(outcome_arg).transpose()?;
        let call = &call.get().inner;
        let step = py.detach(|| self.inner.task_step(call, outcome)).map_err(|e| to_py_err(py, &e))?;
        Ok(TaskStep(std::sync::Mutex::new(Some(step))))
    }

    /// Low-level: seals a continuation token at the engine's time.
    /// Omitted fields take the core's defaults (`Engine::seal_input`): round 1,
    /// the flow starting now, no questions, no state.
    #[pyo3(signature = (*, principal, binding, round=None, flow_start=None, questions=None, state=None))]
    #[allow(clippy::too_many_arguments)]
    fn seal(
        &self,
        py: Python<'_>,
        principal: Option<String>,
        binding: &[u8],
        round: Option<u32>,
        flow_start: Option<u64>,
        questions: Option<&Bound<'_, PyDict>>,
        state: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let who = json::principal(py, principal)?;
        let binding = binding32(py, binding)?;
        let mut asked = Vec::new();
        if let Some(q) = questions {
            // Members first (a value's conversion may run Python code that
            // changes the dict; PyO3's dict iterator panics on that).
            let members: Vec<_> = q.iter().collect();
            for (k, v) in members {
                asked.push((k.extract()?, question_arg(&v)?));
            }
        }
        let state = state.filter(|s| !s.is_none()).map(to_value).transpose()?;
        let mut input = self.inner.seal_input(&who, &binding);
        input.round = round.unwrap_or(input.round);
        input.flow_start = flow_start.unwrap_or(input.flow_start);
        input.questions = &asked;
        input.state = state.as_ref();
        py.detach(|| self.inner.seal(&input)).map_err(|e| to_py_err(py, &e))
    }

    /// Low-level: opens a token for `principal` and the request `binding`
    /// at the engine's time. Raises `TokenError` (with `.reason`) on failure.
    #[pyo3(signature = (token, *, principal, binding))]
    fn open(
        &self,
        py: Python<'_>,
        token: &str,
        principal: Option<String>,
        binding: &[u8],
    ) -> PyResult<Opened> {
        let who = json::principal(py, principal)?;
        let binding = binding32(py, binding)?;
        match py.detach(|| self.inner.open(token, &who, &binding)) {
            Ok(o) => Ok(Opened { inner: o }),
            Err(e) => Err(token_err(py, e)),
        }
    }

    /// Reads a request that arrived on a 2025-era `session`.
    /// Returns the same `Call` a 2026 request gives (`mrtr_allowed` False,
    /// `is_legacy` True) or a ready `Response`.
    #[pyo3(signature = (request, session, principal))]
    fn begin_legacy(
        &self,
        py: Python<'_>,
        request: &Bound<'_, PyAny>,
        session: &Bound<'_, Session>,
        principal: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        legacy::begin_legacy(&self.inner, py, request, session.get(), principal)
    }

    /// Decides a legacy call: a `Response` to send, a `PendingFlow` whose
    /// `requests` go to the client, or a `Call` to run the handler again.
    fn decide_legacy(
        &self,
        py: Python<'_>,
        call: &Bound<'_, Call>,
        outcome: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        legacy::decide_legacy(&self.inner, py, call, outcome)
    }

    /// Feeds a client response (text, bytes or dict), sent by `principal`,
    /// to its pending flow. The principal is required (None for anonymous):
    /// an answer from another principal than the flow's is refused.
    #[pyo3(signature = (pending, response, principal))]
    fn feed(
        &self,
        py: Python<'_>,
        pending: &Bound<'_, PendingFlow>,
        response: &Bound<'_, PyAny>,
        principal: Option<String>,
    ) -> PyResult<Feed> {
        legacy::feed(&self.inner, py, pending.get(), response, principal)
    }

    /// The flow's deadline passed: fails it (a `Feed` of kind "respond").
    fn timeout(&self, py: Python<'_>, pending: &Bound<'_, PendingFlow>) -> PyResult<Feed> {
        legacy::timeout(&self.inner, py, pending.get())
    }

    /// The version to answer `initialize` with, or None when legacy
    /// sessions are disabled.
    fn legacy_version_for(&self, requested: &str) -> Option<String> {
        self.inner.legacy_version_for(requested).map(str::to_owned)
    }

    fn __repr__(&self) -> String {
        self.summary.clone()
    }
}

/// The test-only settings, in a build for the test suites (feature
/// `test-knobs`): a fixed clock and the seed of token ids and v2 nonces.
#[cfg(feature = "test-knobs")]
fn test_knobs(py: Python<'_>, mut c: Config, fixed_time: Option<u64>, seed: Option<u64>) -> PyResult<Config> {
    if let Some(v) = seed {
        c.set_limit("test_random_seed", v).map_err(|e| to_py_err(py, &e))?;
    }
    Ok(match fixed_time {
        Some(t) => c.fixed_time(t),
        None => c,
    })
}

/// Every installed build: the test-only settings do not exist, and naming
/// one is a configuration error rather than a silently ignored keyword (a
/// frozen clock or a predictable nonce must never reach production).
#[cfg(not(feature = "test-knobs"))]
fn test_knobs(py: Python<'_>, c: Config, fixed_time: Option<u64>, seed: Option<u64>) -> PyResult<Config> {
    let named = [("fixed_time", fixed_time.is_some()), ("test_random_seed", seed.is_some())];
    match named.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(raise(
            py,
            ErrorCode::Config,
            format!(
                "{name}: a test-only setting, absent from this build (snodo-mrtr has it only when built \
                 for its own test suites, with the cargo feature test-knobs)"
            ),
        )),
        None => Ok(c),
    }
}

pub(crate) fn begun_out(py: Python<'_>, begun: Begin) -> PyResult<Py<PyAny>> {
    Ok(match begun {
        Begin::Call(call) => Py::new(py, Call { inner: *call })?.into_any(),
        Begin::Respond(r) => Py::new(py, Response { inner: r })?.into_any(),
    })
}
