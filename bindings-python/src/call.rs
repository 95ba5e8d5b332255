//! `Call`: one request as the handler reads it; every reader is one core call.

use pyo3::prelude::*;
use serde_json::Value;

use crate::answer::Answer;
use crate::json::{text_to_py, to_py};
use crate::question::question_arg;

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
    /// The request came through `begin_legacy` (a 2025-era session).
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
    /// The flow id of the opened token (the same on every round
    /// of a flow); `None` on a first round.
    #[getter]
    fn flow_id(&self) -> Option<&str> {
        self.inner.flow_id()
    }
    /// The random id of the opened token; `None` on a first round.
    #[getter]
    fn token_id(&self) -> Option<&str> {
        self.inner.token_id()
    }
    /// When the opened token expires (Unix seconds); `None` on a
    /// first round.
    #[getter]
    fn token_expires_at(&self) -> Option<u64> {
        self.inner.token_expires_at()
    }
    /// base64url SHA-256 of the canonical `inputResponses`
    /// (`{}` when absent): with `flow_id`, the key of a remembered result.
    #[getter]
    fn answers_digest(&self) -> String {
        self.inner.answers_digest()
    }
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.state_text().map(|s| text_to_py(py, s)).transpose()
    }
    /// The task this run of the handler belongs to (`None` in a request).
    #[getter]
    fn task_id(&self) -> Option<&str> {
        self.inner.task_id()
    }
    #[getter]
    fn asked_keys(&self) -> Vec<String> {
        self.inner.asked_keys().into_iter().map(str::to_owned).collect()
    }

    /// The answer to input request `key`, which this handler asks as
    /// `question` (a `Question`, or a request dict the core makes one).
    fn response(&self, py: Python<'_>, key: &str, question: &Bound<'_, PyAny>) -> PyResult<Answer> {
        let question = question_arg(question)?;
        Ok(Answer { inner: py.detach(|| self.inner.response(key, &question)) })
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
