//! `Response`: a JSON-RPC message ready for the wire, plus its HTTP status.

use pyo3::prelude::*;

use crate::json::to_py;

/// A JSON-RPC response message ready for the wire, plus its HTTP status.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Response {
    pub(crate) inner: snodo::Response,
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
