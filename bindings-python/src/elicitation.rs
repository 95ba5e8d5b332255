//! Input-request builders: form and URL elicitation (with and without the
//! core's safety lint), and the deprecated sampling and roots requests.
//! Each returns a `Question`.

use pyo3::exceptions::PyDeprecationWarning;
use pyo3::prelude::*;

use crate::json::object_arg;
use crate::question::{Question, made};

/// A form elicitation request (`elicitation/create`, `"mode": "form"`).
#[pyfunction]
pub fn elicit_form(py: Python<'_>, message: &str, schema: &Bound<'_, PyAny>) -> PyResult<Question> {
    made(py, snodo::elicit_form(message, &object_arg(schema, "schema")?))
}

/// A URL elicitation request (`"mode": "url"`).
#[pyfunction]
pub fn elicit_url(py: Python<'_>, message: &str, url: &str) -> PyResult<Question> {
    made(py, snodo::elicit_url(message, url))
}

/// `elicit_form` without the secret-field and URL-in-message heuristics:
/// for a field the lint misreads (docs/policies.md). The schema checks stay.
#[pyfunction]
pub fn elicit_form_without_lint(
    py: Python<'_>,
    message: &str,
    schema: &Bound<'_, PyAny>,
) -> PyResult<Question> {
    made(py, snodo::elicit_form_without_lint(message, &object_arg(schema, "schema")?))
}

/// `elicit_url` without the credential/PII query-parameter heuristic.
#[pyfunction]
pub fn elicit_url_without_lint(py: Python<'_>, message: &str, url: &str) -> PyResult<Question> {
    made(py, snodo::elicit_url_without_lint(message, url))
}

fn deprecated(py: Python<'_>, message: &std::ffi::CStr) -> PyResult<()> {
    // stacklevel 1 names the caller's line (there is no Python wrapper).
    PyErr::warn(py, &py.get_type::<PyDeprecationWarning>(), message, 1)
}

/// A (deprecated) `sampling/createMessage` request.
#[pyfunction]
pub fn sampling(py: Python<'_>, params: &Bound<'_, PyAny>) -> PyResult<Question> {
    deprecated(py, c"sampling is deprecated in MCP 2026-07-28; prefer elicitation")?;
    #[allow(deprecated)]
    made(py, snodo::sampling(&object_arg(params, "params")?))
}

/// A (deprecated) `roots/list` request.
#[pyfunction]
pub fn list_roots(py: Python<'_>) -> PyResult<Question> {
    deprecated(py, c"roots are deprecated in MCP 2026-07-28")?;
    #[allow(deprecated)]
    Ok(Question { inner: snodo::list_roots() })
}
