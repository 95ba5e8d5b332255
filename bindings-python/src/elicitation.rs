//! Input-request builders: form and URL elicitation (with and without the
//! core's safety lint), and the deprecated sampling and roots requests.

use pyo3::exceptions::PyDeprecationWarning;
use pyo3::prelude::*;

use crate::error::to_py_err;
use crate::json::{object_arg, to_py};

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

/// `elicit_form` without the secret-field and URL-in-message heuristics:
/// for a field the lint misreads (docs/policies.md). The schema checks stay.
#[pyfunction]
pub fn elicit_form_without_lint<'py>(
    py: Python<'py>,
    message: &str,
    schema: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let schema = object_arg(schema, "schema")?;
    let request = snodo::elicit_form_without_lint(message, &schema).map_err(|e| to_py_err(py, &e))?;
    to_py(py, &request)
}

/// `elicit_url` without the credential/PII query-parameter heuristic.
#[pyfunction]
pub fn elicit_url_without_lint<'py>(
    py: Python<'py>,
    message: &str,
    url: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let request = snodo::elicit_url_without_lint(message, url).map_err(|e| to_py_err(py, &e))?;
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
