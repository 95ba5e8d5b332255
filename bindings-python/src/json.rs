//! Python values <-> JSON, `RawJSON` and `canonicalize`.
//!
//! Python → JSON ([`to_value`]) follows `json.dumps`: `int` written by
//! `int.__repr__` (exact at any size), `float` by `float.__repr__` (the
//! shortest text that round-trips: `1.0`, `1e+16`, `1e-05`), `bool` a
//! boolean and never a number. Non-finite floats, non-`str` dict keys,
//! nesting past [`snodo::MAX_DEPTH`] (so a container holding itself) and
//! other types raise `JsonError`. A [`RawJson`] is its exact text, and a
//! [`Question`] its request. A small walker rather than `pythonize`'s
//! `depythonize`, which spells `1e-05` as `0.00001` (another canonical form,
//! so other tokens and digests than `json.dumps` text gives), knows no
//! `RawJSON`, and recurses without a bound (a list holding itself crashes
//! the process).
//!
//! JSON → Python ([`to_py`], [`text_to_py`]) is jiter's Python parser over
//! the JSON text: an integer becomes an `int` at any size, any other number
//! a `float` (`Response.to_json()` has the exact text). A value the core
//! holds as text (a token's state) is parsed from that text directly; a
//! tree is written out with serde_json first.

use std::borrow::Cow;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use snodo::ErrorCode;

use crate::error::{raise, to_py_err};
use crate::question::Question;

/// Exact JSON text, usable wherever snodo takes a JSON value.
///
/// `RawJSON("1.0")` stays `1.0` (a plain `1.0` float would too, but `1e2`
/// would not: Python spells that float `100.0`). Read strictly (no
/// duplicate keys, bounded depth) when it is made.
#[pyclass(frozen, name = "RawJSON", module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct RawJson {
    text: String,
    value: Value,
}

#[pymethods]
impl RawJson {
    #[new]
    fn new(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = text_bytes(text)?;
        let value = parse_text(text.py(), &bytes)?;
        // Read as JSON, so UTF-8.
        let text = String::from_utf8_lossy(&bytes).into_owned();
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
        // Equal objects hash equal: the text decides both.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text.hash(&mut h);
        h.finish()
    }
}

/// The bytes of a `str` (its UTF-8), `bytes` or `bytearray` argument; a
/// `str` or `bytes` lent in place (both are immutable). A `str` with a lone
/// surrogate has no UTF-8 and raises `UnicodeEncodeError`, as encoding it
/// would.
pub fn text_bytes<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Cow::Borrowed(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if obj.is_instance_of::<PyByteArray>() {
        return Ok(Cow::Owned(obj.extract()?));
    }
    Err(raise(obj.py(), ErrorCode::Argument, format!("expected str or bytes, got {}", type_name(obj))))
}

/// Whether `obj` is JSON text (`str` or `bytes`) rather than a value.
pub fn is_text(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>()
}

/// Reads JSON text with the core's strict reader, raising `JsonError`.
pub fn parse_text(py: Python<'_>, bytes: &[u8]) -> PyResult<Value> {
    snodo::parse_json(bytes, "value").map_err(|e| to_py_err(py, &e))
}

/// A JSON argument given as text (`str`/`bytes`, read exactly) or as a
/// Python value.
pub fn json_arg(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if is_text(obj) { parse_text(obj.py(), &text_bytes(obj)?) } else { to_value(obj) }
}

/// [`json_arg`] for arguments that must be JSON objects, where a bare
/// string could never be meant as a JSON string.
pub fn object_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let value = json_arg(obj)?;
    if !value.is_object() {
        return Err(raise(obj.py(), ErrorCode::Argument, format!("{what}: must be a JSON object")));
    }
    Ok(value)
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// The `ArgumentError` for a message `what` that is not JSON text or a dict.
pub fn not_a_message(what: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    let why = format!("{what}: expected str, bytes or dict, got {}", type_name(obj));
    raise(obj.py(), ErrorCode::Argument, why)
}

/// A Python value as JSON (the module docs give the rules).
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_at(obj, 0)
}

/// [`to_value`] of a value that sits as a member of a JSON object (the
/// depth bound counts the object's level, as reading the object would).
pub fn member_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_at(obj, 1)
}

fn number(py: Python<'_>, text: &str) -> PyResult<Value> {
    text.parse::<Number>()
        .map(Value::Number)
        .map_err(|_| raise(py, ErrorCode::Json, format!("{text} is not a JSON number")))
}

fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    // bool before int: True is an int in Python, a boolean in JSON.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    // The core's depth bound, which also stops a container holding itself.
    let nested = || {
        if depth < snodo::MAX_DEPTH {
            return Ok(depth + 1);
        }
        // The words of the strict reader for JSON text (`parse_text`), so a
        // value and its text are refused alike.
        Err(raise(py, ErrorCode::Json, format!("value: JSON nested deeper than {} levels", snodo::MAX_DEPTH)))
    };
    if let Ok(d) = obj.cast::<PyDict>() {
        let depth = nested()?;
        // Members first, values after: converting a value may run Python
        // code (a list subclass's `__iter__`) that changes this dict, and
        // PyO3's dict iterator panics on a change under it.
        let members: Vec<_> = d.iter().collect();
        let mut map = Map::new();
        for (k, v) in members {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(raise(
                    py,
                    ErrorCode::Json,
                    format!("object keys must be str, got {}", type_name(&k)),
                ));
            };
            map.insert(key.to_str()?.to_owned(), to_value_at(&v, depth)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let depth = nested()?;
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(to_value_at(&item?, depth)?);
        }
        return Ok(Value::Array(items));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        // int's own repr: exact at any size, and not the str() of an IntEnum.
        let text = py.get_type::<PyInt>().getattr(intern!(py, "__repr__"))?.call1((obj,))?;
        return number(py, text.cast::<PyString>()?.to_str()?);
    }
    if obj.is_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        if !f.is_finite() {
            return Err(raise(py, ErrorCode::Json, format!("{f} is not a JSON number")));
        }
        // float's own repr (a subclass may override `__repr__`).
        let text = if obj.is_exact_instance_of::<PyFloat>() {
            obj.repr()?
        } else {
            py.get_type::<PyFloat>().getattr(intern!(py, "__repr__"))?.call1((obj,))?.cast_into()?
        };
        return number(py, text.to_str()?);
    }
    if let Ok(raw) = obj.cast::<RawJson>() {
        return Ok(raw.get().value.clone());
    }
    if let Ok(q) = obj.cast::<Question>() {
        return Ok(q.get().inner.value().clone());
    }
    Err(raise(py, ErrorCode::Json, format!("a {} is not a JSON value", type_name(obj))))
}

/// JSON as a Python value (the module docs give the rules for numbers).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    text_to_py(py, &snodo::to_wire(value))
}

/// JSON text the core wrote (so valid, within the depth bound and without
/// duplicate keys) as a Python value.
pub fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let parser = jiter::PythonParse {
        allow_inf_nan: false,
        // No string cache: it would be a process-wide cache of user data.
        cache_mode: jiter::StringCacheMode::None,
        partial_mode: jiter::PartialMode::Off,
        catch_duplicate_keys: false,
        float_mode: jiter::FloatMode::Float,
    };
    parser
        .python_parse(py, text.as_bytes())
        .map_err(|e| raise(py, ErrorCode::Json, e.description(text.as_bytes())))
}

/// `None` → anonymous, a `str` → that user (an empty name is the core's
/// misuse error).
pub fn principal(py: Python<'_>, name: Option<String>) -> PyResult<snodo::Principal> {
    snodo::Principal::from_option(name.as_deref()).map_err(|e| to_py_err(py, &e))
}

/// The canonical form of a JSON text (docs/canonical-json.md).
#[pyfunction]
pub fn canonicalize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = text_bytes(text)?;
    py.detach(|| snodo::canonicalize(&bytes)).map_err(|e| to_py_err(py, &e))
}
