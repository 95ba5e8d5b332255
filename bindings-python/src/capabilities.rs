//! What a client can receive: `missing_capabilities` and `filter_supported`.
//! The core reads `requests` (an object by key, else `ARGUMENT`); a
//! `Question` in it is its request.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

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

/// Keeps, in order, only the requests the client can receive: a dict of
/// the objects given (so `Question`s stay questions).
#[pyfunction]
pub fn filter_supported<'py>(
    py: Python<'py>,
    requests: &Bound<'py, PyAny>,
    capabilities: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let caps = object_arg(capabilities, "capabilities")?;
    let kept = snodo::filter_supported(&to_value(requests)?, &caps).map_err(|e| to_py_err(py, &e))?;
    let (Ok(given), Value::Object(kept)) = (requests.cast::<PyDict>(), &kept) else {
        return to_py(py, &kept);
    };
    let out = PyDict::new(py);
    for key in kept.keys() {
        if let Some(item) = given.get_item(key)? {
            out.set_item(key, item)?;
        }
    }
    Ok(out.into_any())
}
