//! Issue 16, seventh pass: the conversions of the small dicts a handler
//! passes again every round (its questions, in `call.response(key, Q)`)
//! remembered, so a repeat costs a structural compare instead of a walk
//! that copies every string out of Python and builds a `Value` tree.
//!
//! Safety of the memo under mutation: an entry holds its own deep copy
//! (the snapshot) of the dict as it was converted, never the caller's
//! object, so a caller who mutates its dict between calls simply misses.
//! Only trees of exact built-in types (dict with str keys, list, tuple,
//! str, int, float, bool, None) are remembered or compared: on those
//! neither the copy, the compare nor the conversion can run Python code, so
//! the snapshot is exactly what was converted. Compares are strict: same
//! exact type at every node, dict keys in the same order, floats by bit
//! pattern (so `1`, `1.0` and `True`, or `0.0` and `-0.0`, never match).
//! Anything else goes the ordinary way, which also words every error.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

use crate::json::MAX_DEPTH;

/// Entries kept: a handler asks a few distinct questions, and a miss
/// compares against every entry.
const ENTRIES: usize = 4;
/// Nodes a remembered dict may have: questions are small; big values
/// would cost memory and a compare as long as the walk they save.
const MAX_NODES: usize = 256;
/// Hits minus misses, bounded: at zero the memo stands aside (a caller
/// whose dicts never repeat, say a question built anew with a different
/// message each time, would otherwise pay the compares and the copy on
/// every call), and looks again on one call in `RETRY`.
const MAX_CREDIT: i32 = 16;
const RETRY: u32 = 64;

struct Entry {
    snapshot: Py<PyDict>,
    value: Arc<Value>,
}

struct Memo {
    /// Oldest first.
    entries: Vec<Entry>,
    credit: i32,
    skipped: u32,
}

/// Process-wide (a `static` is never dropped, so no Python object is
/// released without the GIL). Every use holds the GIL and runs no Python
/// code while locked; `try_lock` makes any contention (or a poisoned lock)
/// a miss, never a wait.
static MEMO: Mutex<Memo> = Mutex::new(Memo { entries: Vec::new(), credit: 4, skipped: 0 });

/// The `Value` of an exact dict, remembered; `Ok(None)` when `obj` is not
/// one the memo takes (the caller converts it the ordinary way).
pub fn dict_value(obj: &Bound<'_, PyAny>) -> PyResult<Option<Arc<Value>>> {
    let Ok(dict) = obj.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    {
        let Ok(mut memo) = MEMO.try_lock() else {
            return Ok(None);
        };
        if memo.credit <= 0 {
            memo.skipped = memo.skipped.wrapping_add(1);
            if memo.skipped % RETRY != 0 {
                return Ok(None);
            }
        }
        // Newest first: the question of the current round.
        for entry in memo.entries.iter().rev() {
            if same(dict.as_any(), entry.snapshot.bind(obj.py()).as_any(), 0)? {
                let value = entry.value.clone();
                memo.credit = (memo.credit + 1).min(MAX_CREDIT);
                return Ok(Some(value));
            }
        }
        memo.credit = (memo.credit - 1).max(0);
    }
    // A miss: copy first (this fails, running no Python code, on anything
    // but exact built-in types), then convert the unchanged dict.
    let mut budget = MAX_NODES;
    let Some(snapshot) = copy(dict.as_any(), 0, &mut budget)? else {
        return Ok(None);
    };
    let value = Arc::new(super::to_value(obj)?);
    let Ok(snapshot) = snapshot.cast_into_exact::<PyDict>() else {
        return Ok(None);
    };
    let evicted = match MEMO.try_lock() {
        Ok(mut memo) => {
            let entry = Entry { snapshot: snapshot.unbind(), value: value.clone() };
            memo.entries.push(entry);
            // Oldest out: a handler's current questions stay.
            if memo.entries.len() > ENTRIES { Some(memo.entries.remove(0)) } else { None }
        }
        Err(_) => None,
    };
    drop(evicted); // outside the lock
    Ok(Some(value))
}

/// A deep copy of a tree of exact built-in types (immutable leaves shared),
/// or `None` for anything else, too deep or over `budget` nodes.
fn copy<'py>(
    obj: &Bound<'py, PyAny>,
    depth: usize,
    budget: &mut usize,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if *budget == 0 || depth >= MAX_DEPTH {
        return Ok(None);
    }
    *budget -= 1;
    let py = obj.py();
    if obj.is_none()
        || obj.is_exact_instance_of::<PyString>()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>()
    {
        return Ok(Some(obj.clone()));
    }
    if let Ok(d) = obj.cast_exact::<PyDict>() {
        let out = PyDict::new(py);
        for (k, v) in d.iter() {
            if !k.is_exact_instance_of::<PyString>() {
                return Ok(None);
            }
            let Some(v) = copy(&v, depth + 1, budget)? else {
                return Ok(None);
            };
            out.set_item(k, v)?;
        }
        return Ok(Some(out.into_any()));
    }
    if let Ok(l) = obj.cast_exact::<PyList>() {
        let out = PyList::empty(py);
        for v in l.iter() {
            let Some(v) = copy(&v, depth + 1, budget)? else {
                return Ok(None);
            };
            out.append(v)?;
        }
        return Ok(Some(out.into_any()));
    }
    if let Ok(t) = obj.cast_exact::<PyTuple>() {
        let mut items = Vec::with_capacity(t.len());
        for v in t.iter() {
            let Some(v) = copy(&v, depth + 1, budget)? else {
                return Ok(None);
            };
            items.push(v);
        }
        return Ok(Some(PyTuple::new(py, items)?.into_any()));
    }
    Ok(None)
}

/// The items of two sequences of one exact type (each given with its
/// length) are pairwise [`same`].
fn same_items<'py>(
    (len_a, a): (usize, impl Iterator<Item = Bound<'py, PyAny>>),
    (len_b, b): (usize, impl Iterator<Item = Bound<'py, PyAny>>),
    depth: usize,
) -> PyResult<bool> {
    if len_a != len_b {
        return Ok(false);
    }
    for (va, vb) in a.zip(b) {
        if !same(&va, &vb, depth + 1)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `obj` has exactly the shape and values of `snap` (a `copy` result):
/// same exact type at every node, same keys in the same order, equal
/// strings and ints, floats with the same bits. `snap` holds only the
/// types `copy` takes, so equal type pointers mean `obj` does too.
fn same(obj: &Bound<'_, PyAny>, snap: &Bound<'_, PyAny>, depth: usize) -> PyResult<bool> {
    if depth >= MAX_DEPTH || obj.get_type_ptr() != snap.get_type_ptr() {
        return Ok(false);
    }
    if let (Ok(a), Ok(b)) = (obj.cast_exact::<PyDict>(), snap.cast_exact::<PyDict>()) {
        if a.len() != b.len() {
            return Ok(false);
        }
        for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
            if !(ka.is(&kb) || (ka.is_exact_instance_of::<PyString>() && ka.eq(&kb)?)) {
                return Ok(false);
            }
            if !same(&va, &vb, depth + 1)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    if let (Ok(a), Ok(b)) = (obj.cast_exact::<PyList>(), snap.cast_exact::<PyList>()) {
        return same_items((a.len(), a.iter()), (b.len(), b.iter()), depth);
    }
    if let (Ok(a), Ok(b)) = (obj.cast_exact::<PyTuple>(), snap.cast_exact::<PyTuple>()) {
        return same_items((a.len(), a.iter()), (b.len(), b.iter()), depth);
    }
    // A leaf: the snapshot shares the caller's immutable leaves, so an
    // unchanged one is the very same object.
    if obj.is(snap) {
        return Ok(true);
    }
    if obj.is_exact_instance_of::<PyString>() || obj.is_exact_instance_of::<PyInt>() {
        // Exact str or int on both sides: no Python code runs.
        return obj.eq(snap);
    }
    if let (Ok(a), Ok(b)) = (obj.cast_exact::<PyFloat>(), snap.cast_exact::<PyFloat>()) {
        return Ok(a.value().to_bits() == b.value().to_bits());
    }
    // Distinct bools (singletons) differ; None is a singleton too.
    Ok(false)
}

/// Test hook (`tests/test_json_paths.py`): the canonical text of `obj`
/// through the memo (`None` when the memo does not take it).
#[pyfunction]
pub fn _memo_canonical_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    Ok(dict_value(obj)?.and_then(|v| String::from_utf8(snodo::internal::json::canonical(&v)).ok()))
}
