//! Python value → canonical JSON text directly (issue 16, the seal side of
//! state): no `serde_json::Value` tree, so no map, string or number
//! allocation per node; the text goes to the core as a `snodo::StateText`
//! (`Engine::seal_text`, `Outcome::InputRequiredText`).
//!
//! The text is written as docs/canonical-json.md says: members in byte
//! order of their keys, no whitespace, strings escaped only where they must
//! be, an `int` as its decimal digits and a `float` as `float.__repr__`
//! (`float.rs`), which is already canonical (lowercase `e`, signed
//! exponent). A node that is not an exact built-in type (a subclass, a
//! `RawJSON`, an int beyond 64 bits) is converted by the reference
//! `json::to_value_at` and written by the core's canonical writer, so its
//! bytes are the reference's by construction.
//!
//! Errors are not worded here: anything the reference would refuse (a
//! non-finite float, a non-str key, a lone surrogate, depth, a cycle, a
//! foreign type) makes the writer give up (`None`), and the caller runs the
//! reference path, which raises its own error for the first bad node in
//! the dict's order. The writer visits members in key order, not in the
//! dict's order, so only the reference may say which error comes first.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use std::sync::atomic::{AtomicUsize, Ordering};

use super::KEY_CACHE;
use super::float::float_repr;
use crate::json::{self, MAX_DEPTH};

/// The canonical state text of `obj`, or `None` when the reference path
/// must decide (the module docs say when). Python errors met on the way
/// (an unencodable `str`) are dropped: the reference path raises them.
pub fn state_text(obj: &Bound<'_, PyAny>) -> Option<snodo::StateText> {
    let text = canonical_text(obj)?;
    // Handed over without the core canonicalising it again (a fifth of a
    // 4 KiB seal), which is sound because this writer's text is exactly
    // canonical by construction:
    // * strings are UTF-8 from `PyUnicode_AsUTF8AndSize` (a lone surrogate
    //   makes it give up) written by the core's own canonical string writer
    //   (`snodo::write_canonical_string`);
    // * dict keys are exact `str`s, hence distinct, written in byte order;
    // * an exact `int` within 64 bits is its decimal digits, an exact finite
    //   `float` is `float.__repr__` (`float.rs`), the canonical spelling;
    // * nesting stops at the reference's `MAX_DEPTH` (the reference node
    //   path refuses deeper, and the writer then gives up);
    // * every other node is the core's own canonical writer's bytes.
    // The size cap is still checked (`None` above it: the reference path
    // decides). `tests/test_json_paths.py` holds the text to the
    // reference's canonical bytes and the tokens to the reference's for
    // random and hostile values.
    // (`from_utf8` is a fast scan, and keeps the writer's "always UTF-8"
    // a checked fact rather than an assumption.)
    String::from_utf8(text).ok().and_then(snodo::internal::json::trusted_state_text)
}

/// The length of the last text [`canonical_text`] wrote (a size hint only).
static LAST_TEXT_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The canonical text of `obj` (UTF-8 bytes), or `None` (see [`state_text`]).
pub fn canonical_text(obj: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    // Sized for the last text written (an application seals states of
    // about one size): no growth and copy on the way to a few KiB. Capped
    // at 64 KiB, below glibc's default mmap threshold (128 KiB), so one
    // huge state does not make the next small one map and unmap pages;
    // a larger text grows from there in a few doublings.
    let hint = LAST_TEXT_BYTES.load(Ordering::Relaxed).clamp(256, 64 << 10);
    // Eighth pass: the scratch buffers start at sizes a state's keys and
    // floats fit in, so they are not grown (a realloc and copy each time
    // they fill: a fifth of a 256 B state's walk).
    let mut w = Writer {
        out: Vec::with_capacity(hint + hint / 8),
        // `float.__repr__` is at most 24 characters (`-1.7976931348623157e+308`).
        float: String::with_capacity(24),
        keys: Vec::new(),
        key_bytes: String::with_capacity(KEY_BYTES),
        spare: Vec::new(),
        spare_keys: Vec::new(),
        shapes: Vec::new(),
    };
    match w.value(obj, 0, false) {
        Ok(true) => {
            LAST_TEXT_BYTES.store(w.out.len(), Ordering::Relaxed);
            Some(w.out)
        }
        Ok(false) | Err(_) => None,
    }
}

struct Writer<'py> {
    /// Always UTF-8: `bytes` from `utf8` and ASCII put together.
    out: Vec<u8>,
    /// Scratch for one float's text, reused.
    float: String,
    /// Key `str` objects met in records of a list, by identity, with their
    /// text: a list of records repeats the same key objects (`json.loads`
    /// and literals share them), and reading a `str`'s text is a call into
    /// Python, which a hit saves. The
    /// `Bound` keeps each key alive, so its address is not reused while the
    /// walk lasts.
    keys: Vec<(Bound<'py, PyString>, Span)>,
    /// The UTF-8 of every key read in this walk, back to back (`Span`s
    /// index it): sorting and writing a dict's keys read plain slices,
    /// with no call into Python per comparison. A `String`, so a key is
    /// a `&str` for the core's string writer with no UTF-8 check.
    key_bytes: String,
    /// Member lists of finished dicts, kept for the next dict (no
    /// allocation per dict).
    spare: Vec<Members<'py>>,
    /// Sorted key lists likewise.
    spare_keys: Vec<Vec<(Span, usize)>>,
    /// Key shapes of records met in lists (see [`Shape`]).
    shapes: Vec<Shape<'py>>,
}

/// A record's key shape: its key objects in the dict's order, and its
/// members' `"key":` text, escaped, in canonical order. A list of records
/// repeats one shape with the same key objects (`json.loads` and literals
/// share them), so a record that has them is written with no key read,
/// sort or escape. The `Bound`s keep the keys alive, so their identity
/// means the same text for the whole walk.
struct Shape<'py> {
    keys: Vec<Bound<'py, PyAny>>,
    /// For each member in canonical order: its index in the dict's order
    /// and where its `"key":` is in `text`.
    order: Vec<(usize, usize, usize)>,
    text: Vec<u8>,
}

/// Shapes remembered per walk (records of a state have one or a few).
const SHAPES: usize = 8;

/// Room for the key text of a walk from the start (a state's field names).
const KEY_BYTES: usize = 256;

/// Room for a dict's members from the start (records have a handful).
const MEMBERS: usize = 8;

/// Where a key's UTF-8 is in `Writer::key_bytes`.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

/// A dict's members, as read: key and value.
type Members<'py> = Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>;

/// `Ok(false)`: give up, the reference decides.
type Wrote = PyResult<bool>;

impl<'py> Writer<'py> {
    fn key(&mut self, key: &Bound<'py, PyString>, in_list: bool) -> PyResult<Span> {
        if in_list && let Some((_, span)) = self.keys.iter().find(|(k, _)| k.is(key)) {
            return Ok(*span);
        }
        let start = self.key_bytes.len();
        // The `str`'s own UTF-8, lent (`PyUnicode_AsUTF8AndSize`). A
        // process-wide table of key texts by address paid under 3.9,
        // where reading a `str`'s text made a `bytes` object; under the
        // 3.10 stable ABI it made no difference to the instruction count
        // of a seal or a round, and kept its keys alive for good.
        self.key_bytes.push_str(key.to_str()?);
        let span = Span { start, end: self.key_bytes.len() };
        if in_list && self.keys.len() < KEY_CACHE {
            self.keys.reserve_exact(KEY_CACHE);
            self.keys.push((key.clone(), span));
        }
        Ok(span)
    }

    fn key_text(&self, span: Span) -> &str {
        self.key_bytes.get(span.start..span.end).unwrap_or_default()
    }

    /// `in_list`: `obj` is an element of a list or tuple (records repeat
    /// the same keys there; elsewhere the cache would only cost).
    fn value(&mut self, obj: &Bound<'py, PyAny>, depth: usize, in_list: bool) -> Wrote {
        if let Ok(s) = obj.cast_exact::<PyString>() {
            // The `str`'s own UTF-8 (`PyUnicode_AsUTF8AndSize`, in the
            // stable ABI since 3.10; it refuses a lone surrogate), lent:
            // no `bytes` object made and freed per string, no UTF-8 check.
            snodo::write_canonical_string(&mut self.out, s.to_str()?);
            return Ok(true);
        }
        if obj.is_none() {
            self.out.extend_from_slice(b"null");
            return Ok(true);
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            self.out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
            return Ok(true);
        }
        if obj.is_exact_instance_of::<PyInt>() {
            if let Ok(i) = obj.extract::<i64>() {
                write_i64(&mut self.out, i);
                return Ok(true);
            }
        } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
            let f = f.value();
            if !f.is_finite() {
                return Ok(false);
            }
            self.float.clear();
            float_repr(f, &mut self.float);
            self.out.extend_from_slice(self.float.as_bytes());
            return Ok(true);
        } else if depth < MAX_DEPTH {
            if let Ok(d) = obj.cast_exact::<PyDict>() {
                return self.dict(obj, d, depth, in_list);
            }
            if let Ok(l) = obj.cast_exact::<PyList>() {
                return self.items(l.iter(), depth);
            }
            if let Ok(t) = obj.cast_exact::<PyTuple>() {
                return self.items(t.iter(), depth);
            }
        }
        self.reference(obj, depth)
    }

    fn dict(
        &mut self,
        obj: &Bound<'py, PyAny>,
        d: &Bound<'py, PyDict>,
        depth: usize,
        in_list: bool,
    ) -> Wrote {
        // Members first, then conversion (a value's conversion may run
        // Python code that changes the dict).
        let mut members = self.spare.pop().unwrap_or_default();
        members.clear();
        members.reserve(d.len().max(MEMBERS));
        members.extend(d.iter());
        let wrote = self.members(obj, &members, depth, in_list);
        self.spare.push(members);
        wrote
    }

    fn members(
        &mut self,
        obj: &Bound<'py, PyAny>,
        members: &Members<'py>,
        depth: usize,
        in_list: bool,
    ) -> Wrote {
        let shape = match in_list.then(|| self.shape_of(members)).flatten() {
            Some(shape) => shape,
            None => {
                let mut keys = self.spare_keys.pop().unwrap_or_default();
                keys.clear();
                keys.reserve(members.len().max(MEMBERS));
                for (i, (k, _)) in members.iter().enumerate() {
                    let Ok(key) = k.cast_exact::<PyString>() else {
                        // A non-str key (an error) or a str subclass: the
                        // reference reads the whole dict.
                        self.spare_keys.push(keys);
                        return self.reference(obj, depth);
                    };
                    keys.push((self.key(key, in_list)?, i));
                }
                // Canonical order is byte order of the UTF-8 keys, which
                // `str`'s order is; a dict's keys are distinct, so the order
                // is total.
                if !keys.windows(2).all(|w| matches!(w, [a, b] if self.key_text(a.0) < self.key_text(b.0))) {
                    keys.sort_unstable_by(|a, b| self.key_text(a.0).cmp(self.key_text(b.0)));
                }
                let shape = if in_list && self.shapes.len() < SHAPES {
                    Some(self.new_shape(members, &keys))
                } else {
                    None
                };
                let Some(shape) = shape else {
                    let wrote = self.write_sorted(members, &keys, depth);
                    self.spare_keys.push(keys);
                    return wrote;
                };
                self.spare_keys.push(keys);
                shape
            }
        };
        // A record of a known shape: each member's `"key":` is copied from
        // the shape, already escaped and in canonical order.
        self.out.push(b'{');
        for at in 0.. {
            let Some(&(i, start, end)) = self.shapes.get(shape).and_then(|s| s.order.get(at)) else {
                break;
            };
            if at > 0 {
                self.out.push(b',');
            }
            let text = self.shapes.get(shape).and_then(|s| s.text.get(start..end)).unwrap_or_default();
            self.out.extend_from_slice(text);
            let Some((_, value)) = members.get(i) else {
                return Ok(false);
            };
            if !self.value(value, depth + 1, false)? {
                return Ok(false);
            }
        }
        self.out.push(b'}');
        Ok(true)
    }

    /// A dict's members in the canonical order `keys` gives (key text and
    /// the member's index in the dict's order).
    fn write_sorted(&mut self, members: &Members<'py>, keys: &[(Span, usize)], depth: usize) -> Wrote {
        self.out.push(b'{');
        for (at, &(key, i)) in keys.iter().enumerate() {
            if at > 0 {
                self.out.push(b',');
            }
            let key = self.key_bytes.get(key.start..key.end).unwrap_or_default();
            snodo::write_canonical_string(&mut self.out, key);
            self.out.push(b':');
            let Some((_, value)) = members.get(i) else {
                return Ok(false);
            };
            if !self.value(value, depth + 1, false)? {
                return Ok(false);
            }
        }
        self.out.push(b'}');
        Ok(true)
    }

    /// The known shape whose keys are `members`' key objects, in order.
    fn shape_of(&self, members: &Members<'py>) -> Option<usize> {
        self.shapes.iter().position(|s| {
            s.keys.len() == members.len() && s.keys.iter().zip(members).all(|(a, (b, _))| a.is(b))
        })
    }

    /// Remembers the shape of a record whose keys (exact `str`s) are in
    /// `keys`, sorted; its index.
    fn new_shape(&mut self, members: &Members<'py>, keys: &[(Span, usize)]) -> usize {
        let text_len = keys.iter().map(|(k, _)| k.end - k.start + 3).sum();
        let mut shape = Shape {
            keys: members.iter().map(|(k, _)| k.clone()).collect(),
            order: Vec::with_capacity(keys.len()),
            // Room for each `"key":` unescaped (escapes may still grow it).
            text: Vec::with_capacity(text_len),
        };
        for &(key, i) in keys {
            let start = shape.text.len();
            snodo::write_canonical_string(&mut shape.text, self.key_text(key));
            shape.text.push(b':');
            shape.order.push((i, start, shape.text.len()));
        }
        self.shapes.push(shape);
        self.shapes.len() - 1
    }

    fn items(&mut self, items: impl Iterator<Item = Bound<'py, PyAny>>, depth: usize) -> Wrote {
        self.out.push(b'[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            // Thirteenth pass: the first element is written as a lone
            // record is; from the second on, keys are cached and shapes
            // kept. Keeping a shape (its key objects, order and text) cost
            // more than it saved in a list of one record (a 256 B state's
            // `items`), while a list of many pays one more plain record.
            if !self.value(&item, depth + 1, i > 0)? {
                return Ok(false);
            }
        }
        self.out.push(b']');
        Ok(true)
    }

    /// A node the reference converts (the module docs say which), written
    /// by the core's canonical writer; its refusal makes the writer give up.
    fn reference(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Wrote {
        let Ok(value) = json::to_value_at(obj, depth) else {
            return Ok(false);
        };
        // A `RawJSON`'s value comes back from the reference unchecked for
        // depth, and the core takes this text without checking it again
        // (`trusted_state_text`): nested past the bound where it sits, give
        // up, so the reference seal refuses it with its own error.
        if depth + levels(&value) > MAX_DEPTH {
            return Ok(false);
        }
        self.out.extend_from_slice(&snodo::internal::json::canonical(&value));
        Ok(true)
    }
}

/// The levels of arrays and objects in `value` (a scalar: 0). The
/// recursion is bounded: a `RawJSON`'s text was parsed with serde_json's
/// own nesting limit.
fn levels(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(levels).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(levels).max().unwrap_or(0),
        _ => 0,
    }
}

/// The decimal digits of `i`, as `int.__repr__` and the canonical form
/// write them (`itoa`: no `fmt` machinery per integer).
fn write_i64(out: &mut Vec<u8>, i: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
}
