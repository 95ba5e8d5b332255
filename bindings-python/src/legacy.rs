//! The legacy bridge for 2025-era (`initialize`) sessions: `Session`, `PendingFlow`, `Feed`, and the engine's `begin_legacy`,
//! `decide_legacy`, `feed` and `timeout` (registered on `Engine` in
//! `engine.rs`, implemented here). Each is argument conversion plus one core
//! call; the rules live in `core/src/legacy` (see `docs/legacy.md`).

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use snodo::Bridge;

use crate::call::Call;
use crate::engine::begun_out;
use crate::error::to_py_err;
use crate::json::{self, is_text, json_arg, object_arg, text_bytes, to_py, to_value};
use crate::outcome::outcome_arg;
use crate::response::Response;

/// What a 2025-era session negotiated at `initialize`. Immutable.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug, Clone)]
pub struct Session {
    pub(crate) inner: snodo::Session,
}

/// Passing the id to the constructor is `Session(...).with_id(id)` in one
/// step: a server always has one (the `Mcp-Session-Id`, or any unique
/// string for a stdio connection).
fn with_id(py: Python<'_>, session: snodo::Session, id: Option<&str>) -> PyResult<Session> {
    let inner = match id {
        Some(id) => session.with_id(id).map_err(|e| to_py_err(py, &e))?,
        None => session,
    };
    Ok(Session { inner })
}

#[pymethods]
impl Session {
    /// A session that negotiated `protocol_version`, with the client's
    /// `capabilities` and optional `client_info` (dicts or JSON text),
    /// opened by `principal` (required, as at `begin`: the verified user of
    /// the `initialize`, or None for the explicit anonymous principal).
    #[new]
    #[pyo3(signature = (protocol_version, capabilities, client_info=None, *, principal, id=None))]
    fn new(
        py: Python<'_>,
        protocol_version: &str,
        capabilities: &Bound<'_, PyAny>,
        client_info: Option<&Bound<'_, PyAny>>,
        principal: Option<String>,
        id: Option<&str>,
    ) -> PyResult<Self> {
        let who = json::principal(py, principal)?;
        // Not `object_arg`: a non-object is the core's error, which names the field.
        let caps = json_arg(capabilities)?;
        let info = client_info.filter(|i| !i.is_none()).map(to_value).transpose()?;
        let session =
            snodo::Session::new(protocol_version, caps, info, &who).map_err(|e| to_py_err(py, &e))?;
        with_id(py, session, id)
    }

    /// A session from the client's `initialize` request (the whole message
    /// or its `params`), `negotiated` being the version the server answered
    /// (`Engine.legacy_version_for`), opened by `principal` (required).
    #[staticmethod]
    #[pyo3(signature = (initialize, negotiated, *, principal, id=None))]
    fn from_initialize(
        py: Python<'_>,
        initialize: &Bound<'_, PyAny>,
        negotiated: &str,
        principal: Option<String>,
        id: Option<&str>,
    ) -> PyResult<Self> {
        let who = json::principal(py, principal)?;
        let init = object_arg(initialize, "initialize")?;
        let session =
            snodo::Session::from_initialize(&init, negotiated, &who).map_err(|e| to_py_err(py, &e))?;
        with_id(py, session, id)
    }

    /// The same session with the transport's id (1 to 128 printable ASCII bytes).
    fn with_id(&self, py: Python<'_>, id: &str) -> PyResult<Session> {
        with_id(py, self.inner.clone(), Some(id))
    }

    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }
    #[getter]
    fn protocol_version(&self) -> &str {
        self.inner.protocol_version()
    }
    /// The capabilities declared at `initialize`, as given.
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.client_capabilities())
    }
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.client_info().map(|v| to_py(py, v)).transpose()
    }
    /// The principal that opened the session (None: anonymous).
    #[getter]
    fn principal(&self) -> Option<&str> {
        self.inner.principal().name()
    }
    /// None when `principal` opened the session, else the refusal to send
    /// (HTTP 404, `-32001` "Session not found", as for a session that does
    /// not exist). Run it on every message routed to the session: calls,
    /// answers, notifications, GET and DELETE.
    #[pyo3(signature = (principal))]
    fn check_principal(&self, py: Python<'_>, principal: Option<String>) -> PyResult<Option<Response>> {
        let who = json::principal(py, principal)?;
        Ok(self.inner.check_principal(&who).map(|inner| Response { inner }))
    }
    /// The declared capabilities minus what the revision lacks.
    #[getter]
    fn usable_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.usable_capabilities())
    }
    /// The `notifications/elicitation/complete` message for a URL elicitation.
    fn elicitation_complete<'py>(
        &self,
        py: Python<'py>,
        elicitation_id: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.inner.elicitation_complete(elicitation_id).map_err(|e| to_py_err(py, &e))?;
        to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        // Client info may name a person's software; the id and version suffice.
        format!("Session(id={:?}, protocol_version={:?})", self.inner.id(), self.inner.protocol_version())
    }
}

/// One legacy round in flight. Feeding mutates it, so it sits behind a
/// mutex: two transport threads feeding the same flow are serialised, never
/// a Python-level "already borrowed" error.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct PendingFlow {
    inner: Mutex<snodo::PendingFlow>,
}

impl PendingFlow {
    fn lock(&self) -> MutexGuard<'_, snodo::PendingFlow> {
        // A panic while held cannot leave the flow half-updated in a way
        // the core has not already guarded (each feed validates first), so a
        // poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl PendingFlow {
    /// The JSON-RPC requests to send to the client (a new list of dicts).
    #[getter]
    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.lock().requests().to_vec()))
    }
    #[getter]
    fn request_ids(&self) -> Vec<String> {
        self.lock().request_ids().into_iter().map(str::to_owned).collect()
    }
    /// Whether a response with JSON-RPC id `id` would be accepted now.
    fn awaits(&self, id: &Bound<'_, PyAny>) -> PyResult<bool> {
        let id = to_value(id)?;
        Ok(self.lock().awaits(&id))
    }
    #[getter]
    fn outstanding(&self) -> Vec<String> {
        self.lock().outstanding().into_iter().map(str::to_owned).collect()
    }
    /// `{key: elicitationId}` for every URL elicitation of this round.
    #[getter]
    fn elicitation_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.lock().elicitation_ids() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }
    #[getter]
    fn deadline(&self) -> u64 {
        self.lock().deadline()
    }
    #[getter]
    fn round(&self) -> u32 {
        self.lock().round()
    }
    #[getter]
    fn flow_start(&self) -> u64 {
        self.lock().flow_start()
    }
    /// The originating request's JSON-RPC id.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.lock().id())
    }
    #[getter]
    fn method(&self) -> String {
        self.lock().method().to_owned()
    }
    #[getter]
    fn is_ended(&self) -> bool {
        self.lock().is_ended()
    }
    /// Ends the flow; returns the `notifications/cancelled` to send.
    #[pyo3(signature = (reason=None))]
    fn cancel<'py>(&self, py: Python<'py>, reason: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        let out = self.lock().cancel(reason);
        to_py(py, &Value::Array(out))
    }

    fn __repr__(&self) -> String {
        let p = self.lock();
        format!(
            "PendingFlow(method={:?}, round={}, outstanding={})",
            p.method(),
            p.round(),
            p.outstanding().len()
        )
    }
}

/// What feeding a client response (or a timeout) produced: `kind` is
/// `"waiting"`, `"resume"` (run the handler with `call`) or `"respond"`
/// (send `response`, then `cancellations`).
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Feed {
    kind: &'static str,
    call: Option<Py<Call>>,
    response: Option<Py<Response>>,
    cancellations: Vec<Value>,
}

#[pymethods]
impl Feed {
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }
    #[getter]
    fn call(&self, py: Python<'_>) -> Option<Py<Call>> {
        self.call.as_ref().map(|c| c.clone_ref(py))
    }
    #[getter]
    fn response(&self, py: Python<'_>) -> Option<Py<Response>> {
        self.response.as_ref().map(|r| r.clone_ref(py))
    }
    #[getter]
    fn cancellations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Array(self.cancellations.clone()))
    }
    fn __repr__(&self) -> String {
        format!("Feed(kind={:?})", self.kind)
    }
}

fn feed_out(py: Python<'_>, f: snodo::Feed) -> PyResult<Feed> {
    let (kind, call, response, cancellations) = match f {
        snodo::Feed::Waiting => ("waiting", None, None, Vec::new()),
        snodo::Feed::Resume(c) => ("resume", Some(Py::new(py, Call { inner: *c })?), None, Vec::new()),
        snodo::Feed::Respond { response, cancellations } => {
            ("respond", None, Some(Py::new(py, Response { inner: response })?), cancellations)
        }
    };
    Ok(Feed { kind, call, response, cancellations })
}

/// The answer to a message naming a session id the server does not know:
/// HTTP 404, `-32001`, the same bytes as `Session.check_principal`'s
/// refusal, so that the two cannot be told apart.
#[pyfunction]
pub fn unknown_session() -> Response {
    Response { inner: snodo::unknown_session() }
}

pub(crate) fn begin_legacy(
    engine: &snodo::Engine,
    py: Python<'_>,
    request: &Bound<'_, PyAny>,
    session: &Session,
    principal: Option<String>,
) -> PyResult<Py<PyAny>> {
    let who = json::principal(py, principal)?;
    let s = &session.inner;
    let begun = if is_text(request) {
        let bytes = text_bytes(request)?;
        py.detach(|| engine.begin_legacy(&bytes, s, &who))
    } else if request.is_instance_of::<PyDict>() {
        let value = to_value(request)?;
        py.detach(|| engine.begin_legacy_value(value, s, &who))
    } else {
        return Err(json::not_a_message("request", request));
    };
    begun_out(py, begun.map_err(|e| to_py_err(py, &e))?)
}

pub(crate) fn decide_legacy(
    engine: &snodo::Engine,
    py: Python<'_>,
    call: &Bound<'_, Call>,
    outcome: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let outcome = outcome_arg(outcome)?;
    let call = call.get();
    let bridged = py.detach(|| engine.decide_legacy(&call.inner, outcome)).map_err(|e| to_py_err(py, &e))?;
    Ok(match bridged {
        Bridge::Respond(r) => Py::new(py, Response { inner: r })?.into_any(),
        Bridge::Send(p) => Py::new(py, PendingFlow { inner: Mutex::new(*p) })?.into_any(),
        Bridge::Resume(c) => Py::new(py, Call { inner: *c })?.into_any(),
    })
}

pub(crate) fn feed(
    engine: &snodo::Engine,
    py: Python<'_>,
    pending: &PendingFlow,
    response: &Bound<'_, PyAny>,
    principal: Option<String>,
) -> PyResult<Feed> {
    let who = json::principal(py, principal)?;
    let fed = if is_text(response) {
        let bytes = text_bytes(response)?;
        py.detach(|| engine.feed(&mut pending.lock(), &bytes, &who))
    } else if response.is_instance_of::<PyDict>() {
        let value = to_value(response)?;
        py.detach(|| engine.feed_value(&mut pending.lock(), value, &who))
    } else {
        return Err(json::not_a_message("response", response));
    };
    feed_out(py, fed.map_err(|e| to_py_err(py, &e))?)
}

pub(crate) fn timeout(engine: &snodo::Engine, py: Python<'_>, pending: &PendingFlow) -> PyResult<Feed> {
    let fed = engine.timeout(&mut pending.lock()).map_err(|e| to_py_err(py, &e))?;
    feed_out(py, fed)
}
