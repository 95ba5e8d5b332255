//! `Answer`: the core's answer kinds, read as attributes.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::json::to_py;

/// The client's answer to one input request.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Answer {
    pub(crate) inner: snodo::Answer,
}

#[pymethods]
impl Answer {
    /// `missing`, `accepted`, `declined`, `cancelled`, `invalid` or `changed` (the core's word).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    /// The accepted content (`None` unless accepted; `None` too for URL mode).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.inner {
            snodo::Answer::Accepted(v) => to_py(py, v).map(Some),
            _ => Ok(None),
        }
    }
    /// Why the answer is invalid (`None` unless invalid).
    #[getter]
    fn reason(&self) -> Option<&str> {
        match &self.inner {
            snodo::Answer::Invalid(r) => Some(r),
            _ => None,
        }
    }
    #[getter]
    fn is_missing(&self) -> bool {
        matches!(self.inner, snodo::Answer::Missing)
    }
    #[getter]
    fn is_accepted(&self) -> bool {
        matches!(self.inner, snodo::Answer::Accepted(_))
    }
    #[getter]
    fn is_declined(&self) -> bool {
        matches!(self.inner, snodo::Answer::Declined)
    }
    #[getter]
    fn is_cancelled(&self) -> bool {
        matches!(self.inner, snodo::Answer::Cancelled)
    }
    #[getter]
    fn is_invalid(&self) -> bool {
        matches!(self.inner, snodo::Answer::Invalid(_))
    }
    #[getter]
    fn is_changed(&self) -> bool {
        matches!(self.inner, snodo::Answer::Changed)
    }
    /// `{"kind": ..., "value": ...}` (value for accepted), `{"kind": "invalid", "reason": ...}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("kind", self.inner.kind())?;
        match &self.inner {
            snodo::Answer::Accepted(v) => d.set_item("value", to_py(py, v)?)?,
            snodo::Answer::Invalid(r) => d.set_item("reason", r)?,
            _ => {}
        }
        Ok(d)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Answer>().is_ok_and(|o| o.get().inner == self.inner)
    }
    fn __repr__(&self) -> String {
        format!("Answer(kind={:?})", self.inner.kind())
    }
}
