//! Fast paths of the Python <-> JSON conversions (issue 16), each checked
//! against the reference implementation in `json.rs` by
//! `tests/test_json_paths.py` (random values: same canonical bytes, same
//! objects back, same errors).
//!
//! * [`to_value`]: a Python value → `serde_json::Value` without a Python
//!   call per float (`float.__repr__` is reproduced in Rust from the
//!   shortest round-trip digits) and with the exact built-in types
//!   dispatched by one pointer compare each. Anything else (a subclass, a
//!   `RawJSON`, an int beyond 64 bits, and every error) is handed, at that
//!   node, to the reference `json::to_value_at`, so results and error
//!   messages are the reference's by construction.
//! * [`text_to_py`]: canonical JSON text → Python objects directly, with
//!   no `Value` tree in between and each distinct key string made once per
//!   text. It returns `None` on anything it does not read exactly as the
//!   reference would (malformed text, keys repeated or out of byte order,
//!   deep nesting): the
//!   caller then takes the reference path, which decides.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use crate::json::{self, MAX_DEPTH};

/// Converts a Python value to JSON: same result and same errors as
/// `json::to_value_reference` (the module docs say how).
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Walker { keys: Vec::new() }.value(obj, 0, false)
}

/// Distinct keys remembered per conversion or per text: a few, scanned
/// linearly (cheaper than hashing for the handful of field names a state's
/// records repeat), and bounded, so many distinct keys cost no more than
/// without the cache.
const KEY_CACHE: usize = 24;

struct Walker<'py> {
    /// Key `str` objects seen in this walk, by identity, with their text
    /// from the second sighting on (a key seen once costs no copy). The
    /// `Bound` keeps each one alive, so its address cannot be reused by
    /// another object while the walk lasts. (`json.loads` and literals
    /// share key objects; under the stable ABI for 3.9 every conversion of a
    /// `str` costs a temporary `bytes` object, which a hit saves.)
    keys: Vec<(Bound<'py, PyString>, Option<String>)>,
}

impl<'py> Walker<'py> {
    fn key(&mut self, key: &Bound<'py, PyString>) -> PyResult<String> {
        match self.keys.iter_mut().find(|(k, _)| k.is(key)) {
            Some((_, Some(text))) => Ok(text.clone()),
            Some((_, slot)) => {
                let text = key.to_cow()?.into_owned();
                *slot = Some(text.clone());
                Ok(text)
            }
            None => {
                if self.keys.len() < KEY_CACHE {
                    self.keys.push((key.clone(), None));
                }
                Ok(key.to_cow()?.into_owned())
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
                let mut map = Map::new();
                for (k, v) in d.iter() {
                    let Ok(key) = k.cast_exact::<PyString>() else {
                        // A non-str key (or a str subclass): the reference
                        // decides, and words the error, for the whole dict.
                        return json::to_value_at(obj, depth);
                    };
                    let key = if in_list { self.key(key)? } else { key.to_cow()?.into_owned() };
                    map.insert(key, self.value(&v, depth + 1, false)?);
                }
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

/// Appends `float.__repr__(f)` for a finite `f`: the shortest digits that
/// round-trip (Rust's `{:e}` gives the same digits as CPython's `repr`),
/// spelled as CPython does: positional with at least one fractional digit
/// (`1.0`, `0.0001`) when the decimal exponent is in -4..16, else
/// `d.ddde+XX` with a signed exponent of at least two digits (`1e+16`,
/// `1.5e-05`).
pub fn float_repr(f: f64, out: &mut String) {
    use std::fmt::Write as _;
    let mut sci = Buf { bytes: [0; 40], len: 0 };
    // `{:e}` of an f64 is at most 25 bytes: the write cannot overflow.
    let _ = write!(sci, "{f:e}");
    let sci = std::str::from_utf8(sci.bytes.get(..sci.len).unwrap_or_default()).unwrap_or_default();
    let (negative, body) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digit_buf = [b'0'; 24];
    let mut n = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if let Some(slot) = digit_buf.get_mut(n) {
            *slot = b;
            n += 1;
        }
    }
    let digits = std::str::from_utf8(digit_buf.get(..n.max(1)).unwrap_or_default()).unwrap_or("0");
    // The value is 0.DIGITS × 10^point.
    let point = exp + 1;
    if negative {
        out.push('-');
    }
    if (-3..=16).contains(&point) {
        if point <= 0 {
            out.push_str("0.");
            for _ in 0..-point {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let point = point as usize;
            if point < digits.len() {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            } else {
                out.push_str(digits);
                for _ in digits.len()..point {
                    out.push('0');
                }
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    }
}

/// A fixed buffer for one formatted float (no heap allocation).
struct Buf {
    bytes: [u8; 40],
    len: usize,
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Reads JSON text into Python objects; `None` when the reference path
/// must decide (see the module docs).
pub fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut reader = Reader { py, text: text.as_bytes(), pos: 0, keys: Vec::new() };
    let Some(value) = reader.value(0)? else {
        return Ok(None);
    };
    reader.skip_ws();
    Ok((reader.pos == reader.text.len()).then_some(value))
}

/// A recursive reader over strict JSON (RFC 8259). `Ok(None)` means
/// "not read here", never a wrong value.
struct Reader<'py, 't> {
    py: Python<'py>,
    text: &'t [u8],
    pos: usize,
    /// Key strings without escapes, made once per text (a state's list of
    /// records repeats the same few keys).
    keys: Vec<(&'t [u8], Bound<'py, PyString>)>,
}

type Read<'py> = PyResult<Option<Bound<'py, PyAny>>>;

impl<'py, 't> Reader<'py, 't> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, word: &[u8]) -> bool {
        if self.text.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            return true;
        }
        false
    }

    fn value(&mut self, depth: usize) -> Read<'py> {
        self.skip_ws();
        let py = self.py;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => match self.string()? {
                Some(Text::Borrowed(b)) => match std::str::from_utf8(b) {
                    Ok(s) => Ok(Some(PyString::new(py, s).into_any())),
                    Err(_) => Ok(None),
                },
                Some(Text::Owned(s)) => Ok(Some(PyString::new(py, &s).into_any())),
                None => Ok(None),
            },
            Some(b't') if self.eat(b"true") => Ok(Some(PyBool::new(py, true).to_owned().into_any())),
            Some(b'f') if self.eat(b"false") => Ok(Some(PyBool::new(py, false).to_owned().into_any())),
            Some(b'n') if self.eat(b"null") => Ok(Some(py.None().into_bound(py))),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Ok(None),
        }
    }

    fn object(&mut self, depth: usize) -> Read<'py> {
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        self.pos += 1;
        let dict = PyDict::new(self.py);
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Some(dict.into_any()));
        }
        // The reference builds a sorted map, so its dict has the keys in
        // byte order; canonical text has them so already. Keys out of order
        // (or repeated, which the reference refuses) make this reader defer.
        let mut prev: Option<Text<'t>> = None;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Ok(None);
            }
            let Some(text) = self.string()? else {
                return Ok(None);
            };
            if prev.as_ref().is_some_and(|p| p.bytes() >= text.bytes()) {
                return Ok(None);
            }
            let key = match &text {
                Text::Borrowed(b) => match self.keys.iter().find(|(t, _)| t == b) {
                    Some((_, k)) => k.clone(),
                    None => {
                        let Ok(s) = std::str::from_utf8(b) else {
                            return Ok(None);
                        };
                        let k = PyString::new(self.py, s);
                        if self.keys.len() < KEY_CACHE {
                            self.keys.push((b, k.clone()));
                        }
                        k
                    }
                },
                Text::Owned(s) => PyString::new(self.py, s),
            };
            prev = Some(text);
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Ok(None);
            }
            self.pos += 1;
            let Some(value) = self.value(depth + 1)? else {
                return Ok(None);
            };
            dict.set_item(key, value)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Some(dict.into_any()));
                }
                _ => return Ok(None),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Read<'py> {
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        self.pos += 1;
        let list = PyList::empty(self.py);
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Some(list.into_any()));
        }
        loop {
            let Some(item) = self.value(depth + 1)? else {
                return Ok(None);
            };
            list.append(item)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Some(list.into_any()));
                }
                _ => return Ok(None),
            }
        }
    }

    /// A string at `pos` (on its opening quote): its bytes as written when
    /// there is no escape, else the decoded text.
    fn string(&mut self) -> PyResult<Option<Text<'t>>> {
        let text = self.text;
        let start = self.pos + 1;
        let mut i = start;
        loop {
            match text.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Some(Text::Borrowed(&text[start..i])));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return Ok(None),
                Some(_) => i += 1,
                None => return Ok(None),
            }
        }
        let Ok(head) = std::str::from_utf8(&text[start..i]) else {
            return Ok(None);
        };
        let mut out = String::from(head);
        loop {
            match text.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Some(Text::Owned(out)));
                }
                Some(b'\\') => {
                    let c = match text.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let Some(hi) = hex4(text, i + 2) else {
                                return Ok(None);
                            };
                            i += 6;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                // A high surrogate needs its low half next.
                                let (Some(b'\\'), Some(b'u')) = (text.get(i), text.get(i + 1)) else {
                                    return Ok(None);
                                };
                                let Some(lo) = hex4(text, i + 2).filter(|lo| (0xDC00..0xE000).contains(lo))
                                else {
                                    return Ok(None);
                                };
                                i += 6;
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            let Some(c) = char::from_u32(code) else {
                                return Ok(None);
                            };
                            out.push(c);
                            continue;
                        }
                        _ => return Ok(None),
                    };
                    out.push(c);
                    i += 2;
                }
                Some(&b) if b < 0x20 => return Ok(None),
                Some(_) => {
                    // Copy the run up to the next quote or escape.
                    let run_start = i;
                    while let Some(&b) = text.get(i) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        i += 1;
                    }
                    let Ok(run) = std::str::from_utf8(&text[run_start..i]) else {
                        return Ok(None);
                    };
                    out.push_str(run);
                }
                None => return Ok(None),
            }
        }
    }

    /// A number, as the reference turns it into Python: an integer literal
    /// becomes an exact `int`, anything else a `float` (`1e400` is `inf`).
    fn number(&mut self) -> Read<'py> {
        let text = self.text;
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while let Some(b'0'..=b'9') = text.get(*i) {
                *i += 1;
            }
            *i - from
        };
        if text.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        let n = digits(&mut i);
        // JSON: at least one digit, and no leading zero before more digits.
        if n == 0 || (n > 1 && text.get(int_start) == Some(&b'0')) {
            return Ok(None);
        }
        let mut integer = true;
        if text.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Ok(None);
            }
            integer = false;
        }
        if let Some(b'e' | b'E') = text.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = text.get(i) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Ok(None);
            }
            integer = false;
        }
        self.pos = i;
        let Ok(lexeme) = std::str::from_utf8(&text[start..i]) else {
            return Ok(None);
        };
        let py = self.py;
        if integer {
            if let Ok(v) = lexeme.parse::<i64>() {
                return Ok(Some(v.into_bound_py_any(py)?));
            }
            // Beyond 64 bits: Python's int is exact.
            return Ok(Some(py.get_type::<PyInt>().call1((lexeme,))?));
        }
        match lexeme.parse::<f64>() {
            Ok(f) => Ok(Some(PyFloat::new(py, f).into_any())),
            Err(_) => Ok(None),
        }
    }
}

enum Text<'t> {
    Borrowed(&'t [u8]),
    Owned(String),
}

impl Text<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Text::Borrowed(b) => b,
            Text::Owned(s) => s.as_bytes(),
        }
    }
}

fn hex4(text: &[u8], at: usize) -> Option<u32> {
    let quad = text.get(at..at + 4)?;
    let s = std::str::from_utf8(quad).ok()?;
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

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
