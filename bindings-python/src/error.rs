//! Raising snodo's misuse errors as Python exceptions.
//!
//! The exception classes are defined in Python (`snodo_mrtr/errors.py`)
//! because they inherit from two bases (`SnodoError` plus `ValueError` or
//! `TypeError`), which PyO3's `create_exception!` cannot express. The
//! package registers them here, by code number, when it is imported.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use snodo::{ErrorCode, TokenReason};

/// `{code number: exception class}`, set once by `snodo_mrtr.errors`.
static CLASSES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// Called by `snodo_mrtr.errors` at import with `{code: class}`.
#[pyfunction]
pub fn _register_errors(py: Python<'_>, classes: Bound<'_, PyDict>) -> PyResult<()> {
    // A second registration (a reload) keeps the first: the classes users
    // already caught against must stay the ones raised.
    let _ = CLASSES.set(py, classes.unbind());
    Ok(())
}

/// Raises code `code` with `message`.
pub fn raise(py: Python<'_>, code: ErrorCode, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let class = CLASSES.get(py).and_then(|d| d.bind(py).get_item(code.number()).ok().flatten());
    match class {
        Some(cls) => match cls.call1((message,)) {
            Ok(exc) => PyErr::from_value(exc),
            Err(e) => e,
        },
        // Only when the native module is used without its package.
        None => PyValueError::new_err(format!("{}: {message}", code.name())),
    }
}

/// Converts a core error.
pub fn to_py_err(py: Python<'_>, e: &snodo::Error) -> PyErr {
    raise(py, e.code(), e.message())
}

/// A token that failed to open: `TokenError` with `.reason` set.
pub fn token_err(py: Python<'_>, e: snodo::TokenError) -> PyErr {
    // The message is the core's, the same text in every language.
    let reason = e.reason;
    let err = raise(py, ErrorCode::Token, e.to_string());
    // Best effort: if the attribute cannot be set, the message still names it.
    let _ = err.value(py).setattr("reason", reason.name());
    err
}

/// `ERROR_CODES`: `(number, name, description)` for every core code, in order.
pub fn error_codes(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyTuple>>> {
    ErrorCode::ALL
        .iter()
        .map(|c| {
            PyTuple::new(
                py,
                [
                    c.number().into_pyobject(py)?.into_any(),
                    c.name().into_pyobject(py)?.into_any(),
                    c.description().into_pyobject(py)?.into_any(),
                ],
            )
        })
        .collect()
}

/// `TOKEN_REASONS`: every `data.reason` word, in order.
pub fn token_reasons() -> Vec<&'static str> {
    TokenReason::ALL.iter().map(|r| r.name()).collect()
}
