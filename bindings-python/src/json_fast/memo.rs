//! Issue 16, seventh pass: the conversions of the small dicts a handler
//! passes again every round (its questions, in `call.response(key, Q)`)
//! remembered, so a repeat costs a structural compare instead of a walk
//! that copies every string out of Python and builds a `Value` tree.
//!
//! Safety of the memo under mutation: an entry holds its own record (the
//! snapshot) of the dict as it was converted, never the caller's
//! containers, so a caller who mutates its dict between calls simply
//! misses. Only trees of exact built-in types (dict with str keys, list,
//! tuple, str, int, float, bool, None) are remembered or compared: on those
//! neither the copy, the compare nor the conversion can run Python code, so
//! the snapshot is exactly what was converted. Compares are strict: same
//! exact type at every node, dict keys in the same order, floats by bit
//! pattern (so `1`, `1.0` and `True`, or `0.0` and `-0.0`, never match).
//! Anything else goes the ordinary way, which also words every error.
//!
//! Thirteenth pass: the snapshot is a Rust tree ([`Snap`]) holding the
//! caller's immutable leaves and keys (`str`, `int`, by reference), no
//! longer a Python copy of every container; a compare walks the caller's
//! dict alone (one Python iteration per container, not two), and an
//! unchanged leaf or key is the very object kept.

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
    snapshot: Snap,
    value: Arc<Value>,
}

/// A converted tree as it was: containers as Rust lists, leaves as the
/// objects themselves (immutable, so holding them is holding their value).
enum Snap {
    /// An exact dict: its exact-`str` keys and values, in the dict's order.
    Dict(Vec<(Py<PyString>, Snap)>),
    List(Vec<Snap>),
    Tuple(Vec<Snap>),
    /// An exact `str` or `int`: the object, compared by identity, then by
    /// value (exact types on both sides: no Python code runs).
    Str(Py<PyString>),
    Int(Py<PyInt>),
    /// An exact `float`, by its bits.
    Float(u64),
    Bool(bool),
    None,
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
            if same(dict.as_any(), &entry.snapshot, 0)? {
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
    if !matches!(snapshot, Snap::Dict(_)) {
        return Ok(None);
    }
    let evicted = match MEMO.try_lock() {
        Ok(mut memo) => {
            let entry = Entry { snapshot, value: value.clone() };
            memo.entries.push(entry);
            // Oldest out: a handler's current questions stay.
            if memo.entries.len() > ENTRIES { Some(memo.entries.remove(0)) } else { None }
        }
        Err(_) => None,
    };
    drop(evicted); // outside the lock
    Ok(Some(value))
}

/// The snapshot of a tree of exact built-in types (leaves and keys
/// shared), or `None` for anything else, too deep or over `budget` nodes.
fn copy(obj: &Bound<'_, PyAny>, depth: usize, budget: &mut usize) -> PyResult<Option<Snap>> {
    if *budget == 0 || depth >= MAX_DEPTH {
        return Ok(None);
    }
    *budget -= 1;
    if obj.is_none() {
        return Ok(Some(Snap::None));
    }
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(Some(Snap::Str(s.clone().unbind())));
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Ok(Some(Snap::Bool(b.is_true())));
    }
    if let Ok(i) = obj.cast_exact::<PyInt>() {
        return Ok(Some(Snap::Int(i.clone().unbind())));
    }
    if let Ok(f) = obj.cast_exact::<PyFloat>() {
        return Ok(Some(Snap::Float(f.value().to_bits())));
    }
    if let Ok(d) = obj.cast_exact::<PyDict>() {
        let mut members = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(k) = k.cast_into_exact::<PyString>() else {
                return Ok(None);
            };
            let Some(v) = copy(&v, depth + 1, budget)? else {
                return Ok(None);
            };
            members.push((k.unbind(), v));
        }
        return Ok(Some(Snap::Dict(members)));
    }
    if let Ok(l) = obj.cast_exact::<PyList>() {
        return Ok(items(l.iter(), depth, budget)?.map(Snap::List));
    }
    if let Ok(t) = obj.cast_exact::<PyTuple>() {
        return Ok(items(t.iter(), depth, budget)?.map(Snap::Tuple));
    }
    Ok(None)
}

/// The snapshots of a sequence's items, or `None` (see [`copy`]).
fn items<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
    budget: &mut usize,
) -> PyResult<Option<Vec<Snap>>> {
    let mut out = Vec::new();
    for v in items {
        let Some(v) = copy(&v, depth + 1, budget)? else {
            return Ok(None);
        };
        out.push(v);
    }
    Ok(Some(out))
}

/// The items of a sequence of one exact type (given with its length)
/// are pairwise [`same`] as the snapshot's.
fn same_items<'py>(
    (len, items): (usize, impl Iterator<Item = Bound<'py, PyAny>>),
    snap: &[Snap],
    depth: usize,
) -> PyResult<bool> {
    if len != snap.len() {
        return Ok(false);
    }
    for (v, s) in items.zip(snap) {
        if !same(&v, s, depth + 1)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `obj` has exactly the shape and values recorded in `snap` (a `copy`
/// result): same exact type at every node, same keys in the same order,
/// equal strings and ints, floats with the same bits.
fn same(obj: &Bound<'_, PyAny>, snap: &Snap, depth: usize) -> PyResult<bool> {
    if depth >= MAX_DEPTH {
        return Ok(false);
    }
    match snap {
        Snap::Dict(members) => {
            let Ok(d) = obj.cast_exact::<PyDict>() else { return Ok(false) };
            if d.len() != members.len() {
                return Ok(false);
            }
            for ((k, v), (sk, sv)) in d.iter().zip(members) {
                let sk = sk.bind(obj.py());
                // An unchanged key is the very object kept; an equal `str`
                // in its place matches too (exact `str`s: no Python code).
                if !(k.is(sk) || (k.is_exact_instance_of::<PyString>() && k.eq(sk)?)) {
                    return Ok(false);
                }
                if !same(&v, sv, depth + 1)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Snap::List(items) => match obj.cast_exact::<PyList>() {
            Ok(l) => same_items((l.len(), l.iter()), items, depth),
            Err(_) => Ok(false),
        },
        Snap::Tuple(items) => match obj.cast_exact::<PyTuple>() {
            Ok(t) => same_items((t.len(), t.iter()), items, depth),
            Err(_) => Ok(false),
        },
        Snap::Str(s) => {
            let s = s.bind(obj.py());
            Ok(obj.is(s) || (obj.is_exact_instance_of::<PyString>() && obj.eq(s)?))
        }
        Snap::Int(i) => {
            let i = i.bind(obj.py());
            Ok(obj.is(i) || (obj.is_exact_instance_of::<PyInt>() && obj.eq(i)?))
        }
        Snap::Float(bits) => Ok(obj.cast_exact::<PyFloat>().is_ok_and(|f| f.value().to_bits() == *bits)),
        Snap::Bool(b) => Ok(obj.cast_exact::<PyBool>().is_ok_and(|o| o.is_true() == *b)),
        Snap::None => Ok(obj.is_none()),
    }
}

/// Test hook (`tests/test_json_paths.py`): the canonical text of `obj`
/// through the memo (`None` when the memo does not take it).
#[pyfunction]
pub fn _memo_canonical_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    Ok(dict_value(obj)?.and_then(|v| String::from_utf8(snodo::internal::json::canonical(&v)).ok()))
}
