//! Python objects <-> `serde_json::Value`, and `canonicalize`.
//!
//! Python → JSON follows `json.dumps` exactly: `int` is written with
//! `int.__repr__` (so it stays exact at any size) and `float` with
//! `float.__repr__` (the shortest text that round-trips, e.g. `1.0`, `1e+16`).
//! `bool` is a boolean, never a number. Non-finite floats, non-string dict
//! keys and other types are refused with `JsonError`. A [`RawJson`] value
//! embeds exact JSON text anywhere (how `1.0` vs `1e0` survives a dict).
//!
//! JSON → Python: integers become `int`, other numbers `float` (so a
//! `1e400` becomes `inf`: use `Response.to_json()` for the exact text).
//!
//! The functions here are the reference; `json_fast` holds the fast paths
//! that the bindings use for state (issue 16) and that must equal them.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::{IntoPyObjectExt, intern};
use serde_json::{Map, Number, Value};

use crate::error::{self, raise};
use snodo::ErrorCode;

/// Deepest nesting accepted from Python objects, the same bound the core
/// applies to JSON text (and a guard against self-referencing containers).
pub(crate) const MAX_DEPTH: usize = snodo::MAX_DEPTH;

/// Exact JSON text, usable wherever snodo takes a JSON value.
///
/// `RawJSON("1.0")` stays `1.0` (a plain `1.0` float would too, but `1e2`
/// would not: Python spells that float `100.0`). Parsing is strict (no
/// duplicate keys, bounded depth) and happens at construction.
#[pyclass(frozen, name = "RawJSON", module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct RawJson {
    text: String,
    pub(crate) value: Value,
}

#[pymethods]
impl RawJson {
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = text_bytes(text)?;
        let value = parse_text(py, &bytes)?;
        let text = String::from_utf8(bytes.to_vec())
            .map_err(|_| raise(py, ErrorCode::Json, "RawJSON: text is not UTF-8"))?;
        Ok(RawJson { text, value })
    }

    /// The JSON text exactly as given.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("RawJSON({:?})", self.text)
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<RawJson>().is_ok_and(|o| o.get().text == self.text)
    }

    fn __hash__(&self) -> u64 {
        // Python requires equal objects to hash equal; the text decides equality.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text.hash(&mut h);
        h.finish()
    }
}

/// The bytes of a `str`, `bytes` or `bytearray` argument: a `bytes` object
/// used in place (issue 16: a large request is not copied on its way to the
/// core), a `str` as its own UTF-8 (`PyUnicode_AsUTF8AndSize`, in the
/// stable ABI since 3.10: an ASCII `str` lends its characters, any other
/// the UTF-8 copy it keeps for its lifetime; no `bytes` object made and
/// freed per request). A `str` with a lone surrogate has no UTF-8 and
/// raises `UnicodeEncodeError`, as encoding it would.
pub fn text_bytes<'a, 'py>(obj: &'a Bound<'py, PyAny>) -> PyResult<TextBytes<'a, 'py>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(TextBytes::Str(s.to_str()?));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(TextBytes::Bytes(b.clone()));
    }
    if obj.is_instance_of::<pyo3::types::PyByteArray>() {
        return Ok(TextBytes::Owned(obj.extract::<Vec<u8>>()?));
    }
    Err(raise(obj.py(), ErrorCode::Argument, format!("expected str or bytes, got {}", type_name(obj))))
}

/// The bytes of a text argument (see [`text_bytes`]). A `bytes` object and
/// a `str` are immutable (and a `str`'s UTF-8, once made, lives as long as
/// it does), so their bytes may be read with the GIL released while the
/// caller holds the object.
pub enum TextBytes<'a, 'py> {
    Bytes(Bound<'py, PyBytes>),
    /// A `str`'s UTF-8, lent by the `str` the caller holds.
    Str(&'a str),
    /// A `bytearray`'s bytes, copied: it can change while the GIL is free.
    Owned(Vec<u8>),
}

impl std::ops::Deref for TextBytes<'_, '_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            TextBytes::Bytes(b) => b.as_bytes(),
            TextBytes::Str(s) => s.as_bytes(),
            TextBytes::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for TextBytes<'_, '_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Parses JSON text with the core's one argument reader, raising `JsonError`.
pub fn parse_text(py: Python<'_>, bytes: &[u8]) -> PyResult<Value> {
    snodo::parse_json(bytes, "value").map_err(|e| error::to_py_err(py, &e))
}

/// A JSON argument that may be given as text (`str`/`bytes`, parsed
/// exactly) or as a Python value. Only for arguments that must be JSON
/// objects, where a bare string could never be meant as a JSON string.
pub fn object_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let value = if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        parse_text(obj.py(), &text_bytes(obj)?)?
    } else {
        to_value(obj)?
    };
    if !value.is_object() {
        return Err(raise(obj.py(), ErrorCode::Argument, format!("{what}: must be a JSON object")));
    }
    Ok(value)
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// Converts a Python value to JSON (see the module docs for the rules),
/// through the fast path of `json_fast` (issue 16).
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    crate::json_fast::to_value(obj)
}

/// The reference conversion: what `json_fast::to_value` must equal, result
/// and error alike (tests/test_json_paths.py checks it on random values).
pub fn to_value_reference(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_at(obj, 0)
}

fn number(py: Python<'_>, text: &str) -> PyResult<Value> {
    text.parse::<Number>()
        .map(Value::Number)
        .map_err(|_| raise(py, ErrorCode::Json, format!("{text} is not a JSON number")))
}

pub(crate) fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: True is an int in Python, but a boolean in JSON.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        // Exact at any size, and not the str() of an IntEnum.
        let text: String =
            py.get_type::<PyInt>().getattr(intern!(py, "__repr__"))?.call1((obj,))?.extract()?;
        return number(py, &text);
    }
    if obj.is_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        if !f.is_finite() {
            return Err(raise(py, ErrorCode::Json, format!("{f} is not a JSON number")));
        }
        // An exact float's repr() is float.__repr__ (one C call); only a
        // subclass, which may override __repr__, needs the explicit lookup.
        let text: String = if obj.is_exact_instance_of::<PyFloat>() {
            obj.repr()?.to_cow()?.into_owned()
        } else {
            py.get_type::<PyFloat>().getattr(intern!(py, "__repr__"))?.call1((obj,))?.extract()?
        };
        return number(py, &text);
    }
    if let Ok(raw) = obj.cast::<RawJson>() {
        return Ok(raw.get().value.clone());
    }
    if depth >= MAX_DEPTH {
        return Err(raise(py, ErrorCode::Json, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        // Members first, values after: converting a value may run Python
        // code (a list subclass's `__iter__`) that changes this dict, and
        // PyO3's dict iterator panics on a change under it.
        let members: Vec<_> = d.iter().collect();
        for (k, v) in members {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(raise(
                    py,
                    ErrorCode::Json,
                    format!("object keys must be str, got {}", type_name(&k)),
                ));
            };
            map.insert(key.to_cow()?.into_owned(), to_value_at(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(to_value_at(&item?, depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    Err(raise(py, ErrorCode::Json, format!("a {} is not a JSON value", type_name(obj))))
}

/// Converts JSON to a Python value (see the module docs for numbers).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::String(s) => s.into_bound_py_any(py),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                return i.into_bound_py_any(py);
            }
            if let Some(u) = n.as_u64() {
                return u.into_bound_py_any(py);
            }
            let text = n.to_string();
            if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                // An integer beyond 64 bits: Python's int is exact.
                return py.get_type::<PyInt>().call1((text,));
            }
            let f: f64 = text.parse().unwrap_or(f64::NAN);
            f.into_bound_py_any(py)
        }
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// `None` → anonymous, a `str` → that user (an empty name is a misuse error,
/// raised by the core where it checks it).
pub fn principal(py: Python<'_>, name: Option<String>) -> PyResult<snodo::Principal> {
    snodo::Principal::from_option(name.as_deref()).map_err(|e| error::to_py_err(py, &e))
}

/// The canonical form of a JSON text (docs/canonical-json.md).
#[pyfunction]
pub fn canonicalize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = text_bytes(text)?;
    let bytes: &[u8] = &text;
    py.detach(|| snodo::canonicalize(bytes)).map_err(|e| error::to_py_err(py, &e))
}
