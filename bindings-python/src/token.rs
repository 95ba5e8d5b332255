//! `Opened` (what `Engine.open` read from a token) and `binding_digest`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::Value;
use snodo::ErrorCode;

use crate::error::{raise, to_py_err};
use crate::json::{is_text, text_bytes, text_to_py, to_py, to_value};

/// What an opened token says (low-level `Engine.open`).
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct Opened {
    pub(crate) inner: snodo::Opened,
}

#[pymethods]
impl Opened {
    #[getter]
    fn key_id(&self) -> &str {
        &self.inner.key_id
    }
    #[getter]
    fn issued_at(&self) -> u64 {
        self.inner.issued_at
    }
    #[getter]
    fn expires_at(&self) -> u64 {
        self.inner.expires_at
    }
    #[getter]
    fn flow_start(&self) -> u64 {
        self.inner.flow_start
    }
    #[getter]
    fn round(&self) -> u32 {
        self.inner.round
    }
    #[getter]
    fn question_keys(&self) -> Vec<String> {
        self.inner.question_keys().into_iter().map(str::to_owned).collect()
    }
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.state_json().map(|s| text_to_py(py, s)).transpose()
    }
    /// The token's random id (base64url, 22 characters).
    #[getter]
    fn token_id(&self) -> &str {
        self.inner.token_id()
    }
    /// The id of the token's flow, kept across its rounds.
    #[getter]
    fn flow_id(&self) -> &str {
        self.inner.flow_id()
    }
    /// Every field above, by its snake_case name: the core's one shape
    /// (`Opened::to_json`) with each camelCase name spelled in snake_case.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if let Value::Object(fields) = self.inner.to_json() {
            for (name, value) in &fields {
                d.set_item(snake_case(name), to_py(py, value)?)?;
            }
        }
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!("Opened(key_id={:?}, round={})", self.inner.key_id, self.inner.round)
    }
}

/// `keyId` → `key_id`: Python's spelling of the core's field names.
fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The 32 bytes of a request binding.
pub fn binding32(py: Python<'_>, b: &[u8]) -> PyResult<[u8; 32]> {
    b.try_into()
        .map_err(|_| raise(py, ErrorCode::Argument, "binding: must be the 32 bytes of binding_digest()"))
}

/// The 32-byte request binding of `method` and `params` (JSON text or dict).
#[pyfunction]
pub fn binding_digest<'py>(
    py: Python<'py>,
    method: &str,
    params: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let digest = if is_text(params) {
        snodo::binding_digest_text(method, text_bytes(params)?)
    } else {
        snodo::binding_digest(method, &to_value(params)?)
    };
    let digest = digest.map_err(|e| to_py_err(py, &e))?;
    Ok(PyBytes::new(py, &digest))
}
