//! `decide`'s outcome dict read straight into a `snodo::Outcome` (issue 16,
//! eighth pass).
//!
//! The reference reading converts the whole dict into a `Value` object and
//! hands it to `Outcome::from_value`, which takes the members out again by
//! name: a map, a key string per member and a walk of every value, for a
//! dict whose shape the helpers (`input_required`, `complete`) fix. Here
//! the members are looked up by name in the dict itself:
//!
//! * `input_required`: each question through the memo (`json_fast::memo`,
//!   a handler asks the same ones every round) and handed to `decide` as
//!   the remembered tree itself, shared, not copied (thirteenth pass,
//!   `Outcome::InputRequiredShared`); the state as canonical text (no
//!   `Value` tree);
//! * `complete`: the result converted alone.
//!
//! Anything else (another kind, a member `from_value` does not read, any
//! value the conversions give up on or refuse) is `None`, and the caller
//! reads the outcome the reference way, which also words every error; the
//! outcomes made here are the reference's by construction, and
//! `tests/test_outcome.py` holds the responses and tokens of the two
//! readings to each other on random outcomes, valid and not.

use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use snodo::Outcome;

use crate::json::to_value;

/// The outcome `obj` spells, read member by member; `None`: read it the
/// reference way (`object_arg`, then `Outcome::from_value`).
pub fn fast(obj: &Bound<'_, PyAny>) -> Option<Outcome> {
    let py = obj.py();
    let dict = obj.cast_exact::<PyDict>().ok()?;
    let kind = dict.get_item(intern!(py, "type")).ok()??;
    let kind = kind.cast_exact::<PyString>().ok()?;
    if named(kind, intern!(py, "input_required")) {
        let requests = dict.get_item(intern!(py, "inputRequests")).ok()?;
        let state = dict.get_item(intern!(py, "state")).ok()?;
        // Any other member: the reference converts it too (and may refuse it).
        if dict.len() != 1 + usize::from(requests.is_some()) + usize::from(state.is_some()) {
            return None;
        }
        let requests = match requests.filter(|r| !r.is_none()) {
            None => Requests::Owned(Vec::new()),
            Some(r) => requests_of(&r)?,
        };
        // `from_value` reads a `null` state as none: `None`, and a
        // `RawJSON("null")`, whose canonical text is `null`.
        let state = match state.filter(|s| !s.is_none()) {
            None => None,
            Some(s) => Some(crate::json_fast::state_text(&s)?).filter(|t| !t.is_null()),
        };
        return Some(match (requests, state) {
            (Requests::Shared(requests), state) => Outcome::InputRequiredShared { requests, state },
            (Requests::Owned(requests), Some(state)) => Outcome::InputRequiredText { requests, state },
            (Requests::Owned(requests), None) => Outcome::InputRequired { requests, state: None },
        });
    }
    if named(kind, intern!(py, "complete")) {
        let result = dict.get_item(intern!(py, "result")).ok()??;
        if dict.len() != 2 {
            return None;
        }
        return Some(Outcome::Complete(to_value(&result).ok()?));
    }
    None
}

/// `kind` (an exact `str`) is `name`: the helpers' literals are interned,
/// as `intern!` is, so most often the very same object.
fn named(kind: &Bound<'_, PyString>, name: &Bound<'_, PyString>) -> bool {
    kind.is(name) || kind.as_any().eq(name).unwrap_or(false)
}

/// An `inputRequests` value's `(key, request)` list: each request the
/// memo's tree, shared, or (when the memo does not take one of them) all
/// converted.
enum Requests {
    Shared(Vec<(String, Arc<Value>)>),
    Owned(Vec<(String, Value)>),
}

/// The `(key, request)` list of an `inputRequests` value, in the order
/// `from_value` makes it (the keys' byte order, which also decides which
/// bad question `decide` names first); `None` for anything but an object.
fn requests_of(requests: &Bound<'_, PyAny>) -> Option<Requests> {
    if let Ok(dict) = requests.cast_exact::<PyDict>() {
        // Members first: a conversion below runs no Python code on the
        // exact types the memo takes, but the list is the dict as it was.
        let members: Vec<_> = dict.iter().collect();
        let mut shared = Vec::with_capacity(members.len());
        for (k, v) in &members {
            let Ok(key) = k.cast_exact::<PyString>() else { break };
            let (Ok(key), Ok(Some(tree))) = (key.to_str(), crate::json_fast::dict_value(v)) else { break };
            shared.push((key.to_owned(), tree));
        }
        if shared.len() == members.len() {
            // A dict's keys are distinct: the order is total.
            shared.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            return Some(Requests::Shared(shared));
        }
    }
    match to_value(requests).ok()? {
        Value::Object(m) => Some(Requests::Owned(m.into_iter().collect())),
        _ => None,
    }
}
