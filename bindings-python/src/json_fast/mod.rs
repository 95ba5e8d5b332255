//! Fast paths of the Python <-> JSON conversions (issue 16), each checked
//! against the reference implementation in `json.rs` by
//! `tests/test_json_paths.py` (random values: same canonical bytes, same
//! tokens, same objects back, same errors). By concept:
//!
//! * writing, Python → JSON: [`to_value`] (`to_value.rs`, a `Value` for
//!   the core's tree APIs) and [`state_text`] (`text.rs`, canonical text
//!   straight from the objects, for sealing state), both spelling floats
//!   as `float.__repr__` without a Python call (`float.rs`);
//! * reading, JSON → Python: [`text_to_py`] (`read.rs`, an opened token's
//!   canonical state text straight into objects).
//!
//! Each hands anything it does not do exactly as the reference to the
//! reference (a node, or the whole value), so results and error messages
//! are the reference's by construction.

mod float;
mod memo;
mod read;
mod text;
mod to_value;

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::json;
pub use memo::{_memo_canonical_of, dict_value};
pub use read::text_to_py;
pub use text::state_text;
pub use to_value::to_value;

/// Distinct keys remembered per conversion or per text: a few, scanned
/// linearly (cheaper than hashing for the handful of field names a state's
/// records repeat), and bounded, so many distinct keys cost no more than
/// without the cache.
const KEY_CACHE: usize = 24;

/// Test hook (`tests/test_json_paths.py`): the canonical text of `obj`
/// through the fast conversion or the reference one.
#[pyfunction]
#[pyo3(signature = (obj, reference=false))]
pub fn _canonical_of(obj: &Bound<'_, PyAny>, reference: bool) -> PyResult<String> {
    let value = if reference { json::to_value_reference(obj)? } else { to_value(obj)? };
    String::from_utf8(snodo::internal::json::canonical(&value))
        .map_err(|_| crate::error::raise(obj.py(), snodo::ErrorCode::Json, "canonical form is not UTF-8"))
}

/// Test hook: JSON text to Python objects through the fast reader (a
/// one-item list, or `None` when it defers) or the reference (`Value`
/// then `to_py`, also in a one-item list).
#[pyfunction]
#[pyo3(signature = (text, reference=false))]
pub fn _from_text<'py>(py: Python<'py>, text: &str, reference: bool) -> PyResult<Option<Bound<'py, PyList>>> {
    let value = if reference {
        Some(json::to_py(py, &json::parse_text(py, text.as_bytes())?)?)
    } else {
        text_to_py(py, text)?
    };
    value.map(|v| PyList::new(py, [v])).transpose()
}

/// Test hook: the canonical text of `obj` through the text writer (the seal
/// side of state), or `None` when it gives up and the reference decides.
#[pyfunction]
pub fn _state_text_of(obj: &Bound<'_, PyAny>) -> Option<String> {
    state_text(obj).map(|t| t.as_str().to_owned())
}
