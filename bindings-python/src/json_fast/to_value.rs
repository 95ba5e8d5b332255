//! Python value → `serde_json::Value` without a Python call per float
//! (`float.__repr__` is reproduced in Rust, `float.rs`) and with the exact
//! built-in types dispatched by one pointer compare each. Anything else (a
//! subclass, a `RawJSON`, an int beyond 64 bits, and every error) is handed,
//! at that node, to the reference `json::to_value_at`, so results and error
//! messages are the reference's by construction.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use super::KEY_CACHE;
use super::float::float_repr;
use crate::json::{self, MAX_DEPTH};

/// Converts a Python value to JSON: same result and same errors as
/// `json::to_value_reference` (the module docs say how).
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Walker { keys: Vec::new(), spare: Vec::new() }.value(obj, 0, false)
}

/// A dict's members, read before any of its values is converted.
type Members<'py> = Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>;

struct Walker<'py> {
    /// Key `str` objects seen in this walk, by identity, with their text
    /// from the second sighting on (a key seen once costs no copy). The
    /// `Bound` keeps each one alive, so its address cannot be reused by
    /// another object while the walk lasts. (`json.loads` and literals
    /// share key objects; reading a `str`'s text is a call into Python,
    /// which a hit saves.)
    keys: Vec<(Bound<'py, PyString>, Option<String>)>,
    /// Member lists of finished dicts, kept for the next dict (no
    /// allocation per dict).
    spare: Vec<Members<'py>>,
}

impl<'py> Walker<'py> {
    fn key(&mut self, key: &Bound<'py, PyString>) -> PyResult<String> {
        match self.keys.iter_mut().find(|(k, _)| k.is(key)) {
            Some((_, Some(text))) => Ok(text.clone()),
            Some((_, slot)) => {
                let text = key_text(key)?;
                *slot = Some(text.clone());
                Ok(text)
            }
            None => {
                if self.keys.len() < KEY_CACHE {
                    self.keys.push((key.clone(), None));
                }
                key_text(key)
            }
        }
    }

    /// `in_list`: `obj` is an element of a list or tuple, where records
    /// repeat the same keys; elsewhere keys are mostly distinct and the
    /// cache would only cost.
    fn value(&mut self, obj: &Bound<'py, PyAny>, depth: usize, in_list: bool) -> PyResult<Value> {
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return Ok(Value::String(s.to_cow()?.into_owned()));
        }
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if obj.is_exact_instance_of::<PyInt>() {
            if let Ok(i) = obj.extract::<i64>() {
                return Ok(Value::Number(i.into()));
            }
        } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
            if let Some(n) = float_number(f.value()) {
                return Ok(Value::Number(n));
            }
        } else if depth < MAX_DEPTH {
            if let Ok(d) = obj.cast_exact::<PyDict>() {
                // Members first, values after: converting a value may run
                // Python code (a subclass's `__iter__`, through the
                // reference) that changes this dict, and PyO3's dict
                // iterator panics on a change under it.
                let mut members = self.spare.pop().unwrap_or_default();
                members.clear();
                for (k, v) in d.iter() {
                    let Ok(key) = k.cast_into_exact::<PyString>() else {
                        // A non-str key (or a str subclass): the reference
                        // decides, and words the error, for the whole dict.
                        return json::to_value_at(obj, depth);
                    };
                    members.push((key, v));
                }
                let mut map = Map::new();
                for (key, v) in &members {
                    let key = if in_list { self.key(key)? } else { key_text(key)? };
                    map.insert(key, self.value(v, depth + 1, false)?);
                }
                members.clear();
                self.spare.push(members);
                return Ok(Value::Object(map));
            }
            if let Ok(l) = obj.cast_exact::<PyList>() {
                let mut items = Vec::with_capacity(l.len());
                for item in l.iter() {
                    items.push(self.value(&item, depth + 1, true)?);
                }
                return Ok(Value::Array(items));
            }
            if let Ok(t) = obj.cast_exact::<PyTuple>() {
                let mut items = Vec::with_capacity(t.len());
                for item in t.iter() {
                    items.push(self.value(&item, depth + 1, true)?);
                }
                return Ok(Value::Array(items));
            }
        }
        json::to_value_at(obj, depth)
    }
}

/// The JSON number for a finite float, spelled as `float.__repr__` does;
/// `None` (the reference decides) for a non-finite one.
fn float_number(f: f64) -> Option<Number> {
    if !f.is_finite() {
        return None;
    }
    let mut text = String::with_capacity(24);
    float_repr(f, &mut text);
    // serde_json's own spelling (ryu) usually agrees with Python's (`129.5`,
    // `0.001`), and taking it skips a parse; where it does not (`1e+16` vs
    // `1e16`), the exact text is parsed.
    match Number::from_f64(f) {
        Some(n) if n.as_str() == text => Some(n),
        _ => text.parse::<Number>().ok(),
    }
}

/// The text of a dict key: the `str`'s own UTF-8 (`PyUnicode_AsUTF8AndSize`,
/// no `bytes` object), copied.
fn key_text(key: &Bound<'_, PyString>) -> PyResult<String> {
    Ok(key.to_str()?.to_owned())
}
