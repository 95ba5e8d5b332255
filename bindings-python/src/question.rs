//! `Question`: an input request as an immutable value (`snodo::Question`),
//! what the builders return and what `Call.response`, `input_required` and
//! `Engine.seal` take.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::to_py_err;
use crate::json::{is_text, text_bytes, to_py, to_value};

/// An input request, validated once, with its canonical JSON text and
/// digest computed once. Build it once (at start-up) and pass the same
/// value every round. Equal to another question with the same canonical
/// form; hashable.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Question {
    pub(crate) inner: snodo::Question,
}

#[pymethods]
impl Question {
    /// A question from a request written by hand: a dict, or JSON text
    /// (read exactly), validated as the builders validate theirs.
    #[new]
    fn new(request: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Question { inner: question_arg(request)? })
    }

    /// The request as a dict (a new one on every access).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.value())
    }

    /// `"form"`, `"url"`, `"sampling"` or `"roots"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind().name()
    }

    /// SHA-256 of the canonical text: what a token pins for this question.
    #[getter]
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.digest())
    }

    /// The canonical JSON text, which is also compact JSON for the wire.
    fn to_json(&self) -> &str {
        self.inner.to_json()
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }

    fn __hash__(&self) -> u64 {
        // Equal questions have the same digest.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.digest().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("Question({})", self.inner.to_json())
    }
}

/// A question argument: a `Question` as it is, a dict or JSON text made
/// one by the core (`INPUT_REQUEST`, `SCHEMA`, ... when it is not valid).
pub fn question_arg(obj: &Bound<'_, PyAny>) -> PyResult<snodo::Question> {
    if let Ok(q) = obj.cast::<Question>() {
        return Ok(q.get().inner.clone());
    }
    let made = if is_text(obj) {
        snodo::Question::from_json(text_bytes(obj)?)
    } else {
        snodo::Question::from_value(to_value(obj)?)
    };
    made.map_err(|e| to_py_err(obj.py(), &e))
}

/// Wraps a builder's result.
pub fn made(py: Python<'_>, built: snodo::Result<snodo::Question>) -> PyResult<Question> {
    built.map(|inner| Question { inner }).map_err(|e| to_py_err(py, &e))
}
