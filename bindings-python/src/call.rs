//! `Call`: one request as the handler reads it; every reader is one core call.

use pyo3::prelude::*;
use serde_json::Value;

use crate::answer::Answer;
use crate::json::{object_arg, to_py};

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
    /// Issue 14: the request came through `begin_legacy` (a 2025-era session).
    #[getter]
    fn is_legacy(&self) -> bool {
        self.inner.is_legacy()
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
    /// Issue 17: the flow id of the opened token (the same on every round
    /// of a flow); `None` on a first round.
    #[getter]
    fn flow_id(&self) -> Option<&str> {
        self.inner.flow_id()
    }
    /// Issue 17: the random id of the opened token;
    /// `None` on a first round.
    #[getter]
    fn token_id(&self) -> Option<&str> {
        self.inner.token_id()
    }
    /// Issue 17: when the opened token expires (Unix seconds); `None` on a
    /// first round.
    #[getter]
    fn token_expires_at(&self) -> Option<u64> {
        self.inner.token_expires_at()
    }
    /// Issue 17: base64url SHA-256 of the canonical `inputResponses`
    /// (`{}` when absent): with `flow_id`, the key of a remembered result.
    #[getter]
    fn answers_digest(&self) -> String {
        self.inner.answers_digest()
    }
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        // Issue 16: the token's canonical text straight into Python objects
        // (`Call::state_text`), as `Opened.state` does; the reference (the
        // core's `Value`, then converted) only when the fast reader defers.
        if let Some(text) = self.inner.state_text()
            && let Some(value) = crate::json_fast::text_to_py(py, text)?
        {
            return Ok(Some(value));
        }
        self.inner.state().map(|a| to_py(py, a)).transpose()
    }
    #[getter]
    fn asked_keys(&self) -> Vec<String> {
        self.inner.asked_keys().into_iter().map(str::to_owned).collect()
    }

    /// The answer to input request `key`, which this handler asks as `request`.
    fn response(&self, py: Python<'_>, key: &str, request: &Bound<'_, PyAny>) -> PyResult<Answer> {
        // Issue 16: a handler asks the same question every round; the memo
        // (`json_fast::memo`) turns a repeat into a compare.
        let request = match crate::json_fast::dict_value(request)? {
            Some(value) => value,
            None => std::sync::Arc::new(object_arg(request, "request")?),
        };
        let inner = py.detach(|| self.inner.response(key, &request));
        Ok(Answer { inner })
    }

    /// Every `inputResponses` entry the request carried, unvalidated
    /// (read-only; prefer `response`, which checks the answer).
    #[getter]
    fn input_responses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.inner.input_responses().clone()))
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
