//! `Engine`, `Call`, `Answer`, `Response` and `Opened`: thin wrappers over
//! the core types. The GIL is released around every piece of work that does
//! not touch Python objects (parsing, token sealing and opening, deciding).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyType};
use serde_json::Value;
use snodo::{Begin, Config, ErrorCode, Key, Outcome};

use crate::convert::{self, object_arg, text_bytes, to_py, to_value};
use crate::errors::{raise, to_py_err, token_err};

/// The MRTR engine: immutable and safe to share between threads.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Engine {
    inner: snodo::Engine,
    /// Kept for `repr` only: ids and limits, never key bytes.
    summary: String,
}

fn keys_arg(py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Vec<Key>> {
    let pairs: Vec<Bound<'_, PyAny>> = if let Ok(d) = keys.cast::<PyDict>() {
        d.items().try_iter()?.collect::<PyResult<_>>()?
    } else if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
        return Err(raise(
            py,
            ErrorCode::Config,
            "keys: give a list of (id, bytes) pairs or a dict {id: bytes}",
        ));
    } else {
        keys.try_iter()?.collect::<PyResult<_>>()?
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (i, pair) in pairs.iter().enumerate() {
        let Ok((id, secret)) = pair.extract::<(String, Bound<'_, PyAny>)>() else {
            return Err(raise(
                py,
                ErrorCode::Config,
                format!("keys[{i}]: must be an (id: str, secret: bytes) pair"),
            ));
        };
        // bytes or bytearray only: a str secret is almost always a hex or
        // base64 spelling the caller forgot to decode.
        if secret.is_instance_of::<PyString>() {
            return Err(raise(
                py,
                ErrorCode::Config,
                format!("keys[{i}]: the secret must be bytes, not str (decode it first)"),
            ));
        }
        let Ok(bytes) = secret.extract::<Vec<u8>>() else {
            return Err(raise(py, ErrorCode::Config, format!("keys[{i}]: the secret must be bytes")));
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
        max_request_bytes=None, max_input_responses=None, supported_versions=None, clock_skew_secs=None,
        server_info=None, now=None))]
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
        supported_versions: Option<Vec<String>>,
        clock_skew_secs: Option<u64>,
        server_info: Option<&Bound<'_, PyAny>>,
        now: Option<u64>,
    ) -> PyResult<Self> {
        let keys = keys_arg(py, keys)?;
        let mut c = Config::new(keys.clone());
        // Every numeric limit through the core's one schema (snake_case).
        let limits = [
            ("ttl_secs", ttl_secs),
            ("max_rounds", max_rounds),
            ("max_flow_age_secs", max_flow_age_secs),
            ("max_token_bytes", max_token_bytes),
            ("max_request_bytes", max_request_bytes),
            ("max_input_responses", max_input_responses),
            ("clock_skew_secs", clock_skew_secs),
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
        if let Some(t) = now {
            c = c.fixed_time(t);
        }
        let summary = summary(&keys, &c);
        let inner = snodo::Engine::new(c).map_err(|e| to_py_err(py, &e))?;
        Ok(Engine { inner, summary })
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
        let who = snodo::Principal::from_option(principal.as_deref()).map_err(|e| to_py_err(py, &e))?;
        let begun = if request.is_instance_of::<PyString>() || request.is_instance_of::<PyBytes>() {
            let bytes = text_bytes(request)?;
            py.detach(|| self.inner.begin(&bytes, &who))
        } else if request.is_instance_of::<PyDict>() {
            let value = to_value(request)?;
            py.detach(|| self.inner.begin_value(value, &who))
        } else {
            let what = convert::type_name(request);
            return Err(raise(
                py,
                ErrorCode::Argument,
                format!("request: expected str, bytes or dict, got {what}"),
            ));
        };
        match begun.map_err(|e| to_py_err(py, &e))? {
            Begin::Call(call) => Ok(Py::new(py, Call { inner: *call })?.into_any()),
            Begin::Respond(r) => Ok(Py::new(py, Response { inner: r })?.into_any()),
        }
    }

    /// Turns the handler's outcome (see `complete`, `input_required`, ...,
    /// or a dict in the JSON spelling) into the response to send.
    fn decide(
        &self,
        py: Python<'_>,
        call: &Bound<'_, Call>,
        outcome: &Bound<'_, PyAny>,
    ) -> PyResult<Response> {
        let outcome = Outcome::from_value(object_arg(outcome, "outcome")?).map_err(|e| to_py_err(py, &e))?;
        let call = call.get();
        let inner = py.detach(|| self.inner.decide(&call.inner, outcome)).map_err(|e| to_py_err(py, &e))?;
        Ok(Response { inner })
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
        let who = convert::principal(py, principal)?;
        let binding = binding32(py, binding)?;
        let mut qs: Vec<(String, Value)> = Vec::new();
        if let Some(q) = questions {
            for (k, v) in q.iter() {
                qs.push((k.extract()?, to_value(&v)?));
            }
        }
        let state = match state {
            Some(s) if !s.is_none() => Some(to_value(s)?),
            _ => None,
        };
        let mut input = self.inner.seal_input(&who, &binding);
        input.round = round.unwrap_or(input.round);
        input.flow_start = flow_start.unwrap_or(input.flow_start);
        input.questions = &qs;
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
        let who = convert::principal(py, principal)?;
        let binding = binding32(py, binding)?;
        match py.detach(|| self.inner.open(token, &who, &binding)) {
            Ok(o) => Ok(Opened { inner: o }),
            Err(e) => Err(token_err(py, e)),
        }
    }

    fn __repr__(&self) -> String {
        self.summary.clone()
    }
}

fn binding32(py: Python<'_>, b: &[u8]) -> PyResult<[u8; 32]> {
    b.try_into()
        .map_err(|_| raise(py, ErrorCode::Argument, "binding: must be the 32 bytes of binding_digest()"))
}

/// One request as the handler sees it.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Call {
    pub(crate) inner: snodo::Call,
}

#[pymethods]
impl Call {
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.id())
    }
    #[getter]
    fn method(&self) -> &str {
        self.inner.method()
    }
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.inner.params().clone()))
    }
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name()
    }
    #[getter]
    fn uri(&self) -> Option<&str> {
        self.inner.uri()
    }
    #[getter]
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.arguments().map(|a| to_py(py, a)).transpose()
    }
    #[getter]
    fn principal(&self) -> Option<&str> {
        self.inner.principal().name()
    }
    #[getter]
    fn protocol_version(&self) -> &str {
        self.inner.protocol_version()
    }
    #[getter]
    fn mrtr_allowed(&self) -> bool {
        self.inner.mrtr_allowed()
    }
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.client_capabilities())
    }
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.client_info().map(|a| to_py(py, a)).transpose()
    }
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.inner.meta().clone()))
    }
    #[getter]
    fn round(&self) -> u32 {
        self.inner.round()
    }
    #[getter]
    fn is_retry(&self) -> bool {
        self.inner.is_retry()
    }
    #[getter]
    fn flow_start(&self) -> u64 {
        self.inner.flow_start()
    }
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.state().map(|a| to_py(py, a)).transpose()
    }
    #[getter]
    fn asked_keys(&self) -> Vec<String> {
        self.inner.asked_keys().into_iter().map(str::to_owned).collect()
    }

    /// The answer to input request `key`, which this handler asks as `request`.
    fn response(&self, py: Python<'_>, key: &str, request: &Bound<'_, PyAny>) -> PyResult<Answer> {
        let request = object_arg(request, "request")?;
        let inner = py.detach(|| self.inner.response(key, &request));
        Ok(Answer { inner })
    }

    /// The raw answer for `key` (only for keys asked in the previous round),
    /// unvalidated; `None` if there is none.
    fn raw_response<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.raw_response(key).map(|a| to_py(py, a)).transpose()
    }

    fn __repr__(&self) -> String {
        // The principal is personal data: never in a repr.
        format!("Call(method={:?}, round={})", self.inner.method(), self.inner.round())
    }
}

/// The client's answer to one input request.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Answer {
    inner: snodo::Answer,
}

#[pymethods]
impl Answer {
    /// `missing`, `accepted`, `declined`, `cancelled` or `invalid`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    /// The accepted content (`None` unless accepted; `None` too for URL mode).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.inner {
            snodo::Answer::Accepted(v) => to_py(py, v).map(Some),
            _ => Ok(None),
        }
    }
    /// Why the answer is invalid (`None` unless invalid).
    #[getter]
    fn reason(&self) -> Option<&str> {
        match &self.inner {
            snodo::Answer::Invalid(r) => Some(r),
            _ => None,
        }
    }
    #[getter]
    fn is_missing(&self) -> bool {
        matches!(self.inner, snodo::Answer::Missing)
    }
    #[getter]
    fn is_accepted(&self) -> bool {
        matches!(self.inner, snodo::Answer::Accepted(_))
    }
    #[getter]
    fn is_declined(&self) -> bool {
        matches!(self.inner, snodo::Answer::Declined)
    }
    #[getter]
    fn is_cancelled(&self) -> bool {
        matches!(self.inner, snodo::Answer::Cancelled)
    }
    #[getter]
    fn is_invalid(&self) -> bool {
        matches!(self.inner, snodo::Answer::Invalid(_))
    }
    /// `{"kind": ..., "value": ...}` (value for accepted), `{"kind": "invalid", "reason": ...}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("kind", self.inner.kind())?;
        match &self.inner {
            snodo::Answer::Accepted(v) => d.set_item("value", to_py(py, v)?)?,
            snodo::Answer::Invalid(r) => d.set_item("reason", r)?,
            _ => {}
        }
        Ok(d)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Answer>().is_ok_and(|o| o.get().inner == self.inner)
    }
    fn __repr__(&self) -> String {
        format!("Answer(kind={:?})", self.inner.kind())
    }
}

/// A JSON-RPC response message ready for the wire, plus its HTTP status.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Response {
    inner: snodo::Response,
}

#[pymethods]
impl Response {
    /// The whole JSON-RPC message, as a dict (a new one on every access).
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.body())
    }
    /// The HTTP status a Streamable HTTP server should answer with.
    #[getter]
    fn http_status(&self) -> u16 {
        self.inner.http_status()
    }
    /// Why snodo replaced the handler's outcome with -32603 (log it; never send it).
    #[getter]
    fn diagnostic(&self) -> Option<&str> {
        self.inner.diagnostic()
    }
    #[getter]
    fn is_error(&self) -> bool {
        self.inner.is_error()
    }
    /// The message as compact JSON text, numbers exactly as they were given.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }
    /// The message as a dict (the same as `body`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.body())
    }
    fn __repr__(&self) -> String {
        let kind = if self.inner.is_error() { "error" } else { "result" };
        format!("Response(http_status={}, {kind})", self.inner.http_status())
    }
}

/// What an opened token says (low-level `Engine.open`).
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Opened {
    inner: snodo::Opened,
}

#[pymethods]
impl Opened {
    #[getter]
    fn key_id(&self) -> &str {
        &self.inner.key_id
    }
    #[getter]
    fn issued_at(&self) -> u64 {
        self.inner.issued_at
    }
    #[getter]
    fn expires_at(&self) -> u64 {
        self.inner.expires_at
    }
    #[getter]
    fn flow_start(&self) -> u64 {
        self.inner.flow_start
    }
    #[getter]
    fn round(&self) -> u32 {
        self.inner.round
    }
    #[getter]
    fn question_keys(&self) -> Vec<String> {
        self.inner.question_keys().into_iter().map(str::to_owned).collect()
    }
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.state().as_ref().map(|s| to_py(py, s)).transpose()
    }
    /// Every field above, by its snake_case name.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("key_id", self.key_id())?;
        d.set_item("issued_at", self.issued_at())?;
        d.set_item("expires_at", self.expires_at())?;
        d.set_item("flow_start", self.flow_start())?;
        d.set_item("round", self.round())?;
        d.set_item("question_keys", self.question_keys())?;
        d.set_item("state", self.state(py)?)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!("Opened(key_id={:?}, round={})", self.inner.key_id, self.inner.round)
    }
}
