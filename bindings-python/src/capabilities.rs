//! What a client can receive: `missing_capabilities` and `filter_supported`.
//! The core reads `requests` (an object by key, else `ARGUMENT`).

use pyo3::prelude::*;

use crate::error::to_py_err;
use crate::json::{object_arg, to_py, to_value};

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
    let requests = to_value(requests)?;
    let caps = object_arg(capabilities, "capabilities")?;
    to_py(py, &snodo::filter_supported(&requests, &caps).map_err(|e| to_py_err(py, &e))?)
}
