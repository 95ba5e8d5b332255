//! Free functions: input-request builders, capability helpers, and the
//! canonical-JSON and binding primitives used by the vectors.

use pyo3::exceptions::PyDeprecationWarning;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::convert::{object_arg, text_bytes, to_py, to_value};
use crate::errors::to_py_err;

/// A form elicitation request (`elicitation/create`, `"mode": "form"`).
#[pyfunction]
pub fn elicit_form<'py>(
    py: Python<'py>,
    message: &str,
    schema: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let schema = object_arg(schema, "schema")?;
    let request = snodo::elicit_form(message, &schema).map_err(|e| to_py_err(py, &e))?;
    to_py(py, &request)
}

/// A URL elicitation request (`"mode": "url"`).
#[pyfunction]
pub fn elicit_url<'py>(py: Python<'py>, message: &str, url: &str) -> PyResult<Bound<'py, PyAny>> {
    let request = snodo::elicit_url(message, url).map_err(|e| to_py_err(py, &e))?;
    to_py(py, &request)
}

fn deprecated(py: Python<'_>, message: &std::ffi::CStr) -> PyResult<()> {
    // stacklevel 2 would point into the package wrapper; 1 names this call.
    PyErr::warn(py, &py.get_type::<PyDeprecationWarning>(), message, 1)
}

/// A (deprecated) `sampling/createMessage` request.
#[pyfunction]
pub fn sampling<'py>(py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    deprecated(py, c"sampling is deprecated in MCP 2026-07-28; prefer elicitation")?;
    let params = object_arg(params, "params")?;
    #[allow(deprecated)]
    let request = snodo::sampling(&params).map_err(|e| to_py_err(py, &e))?;
    to_py(py, &request)
}

/// A (deprecated) `roots/list` request.
#[pyfunction]
pub fn list_roots(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    deprecated(py, c"roots are deprecated in MCP 2026-07-28")?;
    #[allow(deprecated)]
    let request = snodo::list_roots();
    to_py(py, &request)
}

/// The capabilities the client must add to receive every request, shaped
/// like `ClientCapabilities`; `{}` when all can be sent.
#[pyfunction]
pub fn missing_capabilities<'py>(
    py: Python<'py>,
    requests: &Bound<'py, PyAny>,
    capabilities: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let requests = to_value(requests)?;
    let caps = object_arg(capabilities, "capabilities")?;
    to_py(py, &snodo::missing_capabilities(&requests, &caps).map_err(|e| to_py_err(py, &e))?)
}

/// Keeps, in order, only the requests the client can receive.
#[pyfunction]
pub fn filter_supported<'py>(
    py: Python<'py>,
    requests: &Bound<'py, PyAny>,
    capabilities: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    // The core reads the requests: an object (dict) by key, else ARGUMENT.
    let requests = to_value(requests)?;
    let caps = object_arg(capabilities, "capabilities")?;
    to_py(py, &snodo::filter_supported(&requests, &caps).map_err(|e| to_py_err(py, &e))?)
}

/// The canonical form of a JSON text (docs/canonical-json.md).
#[pyfunction]
pub fn canonicalize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = text_bytes(text)?;
    py.detach(|| snodo::canonicalize(&bytes)).map_err(|e| to_py_err(py, &e))
}

/// The 32-byte request binding of `method` and `params` (JSON text or dict).
#[pyfunction]
pub fn binding_digest<'py>(
    py: Python<'py>,
    method: &str,
    params: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let digest = if params.is_instance_of::<PyString>() || params.is_instance_of::<PyBytes>() {
        snodo::binding_digest_text(method, text_bytes(params)?)
    } else {
        snodo::binding_digest(method, &to_value(params)?)
    };
    let digest = digest.map_err(|e| to_py_err(py, &e))?;
    Ok(PyBytes::new(py, &digest))
}
