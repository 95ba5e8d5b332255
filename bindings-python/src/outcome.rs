//! `decide`'s outcome argument: a dict in the JSON spelling the helpers
//! make (`complete(...)`, `input_required(...)`, ...) or JSON text.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use snodo::Outcome;

use crate::error::to_py_err;
use crate::json::{member_value, object_arg};
use crate::question::Question;

/// The outcome `obj` spells. An `input_required` whose requests are all
/// `Question`s (what handlers pass) hands those questions to the core as
/// they are; anything else is read by `Outcome::from_value`, where a
/// `Question` anywhere is its request and the core makes questions of the
/// requests written as JSON.
pub fn outcome_arg(obj: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    if let Some(outcome) = asked(obj)? {
        return Ok(outcome);
    }
    Outcome::from_value(object_arg(obj, "outcome")?).map_err(|e| to_py_err(obj.py(), &e))
}

/// `{"type": "input_required", "inputRequests": {key: Question, ...}, "state"?: ...}`
/// and nothing else, as the core's outcome; `None` for any other shape.
fn asked(obj: &Bound<'_, PyAny>) -> PyResult<Option<Outcome>> {
    let py = obj.py();
    let Ok(dict) = obj.cast::<PyDict>() else { return Ok(None) };
    let kind = dict.get_item(intern!(py, "type"))?;
    if !kind
        .is_some_and(|k| k.cast::<PyString>().is_ok_and(|k| k.to_str().is_ok_and(|k| k == "input_required")))
    {
        return Ok(None);
    }
    let state = dict.get_item(intern!(py, "state"))?;
    let Some(requests) = dict.get_item(intern!(py, "inputRequests"))? else { return Ok(None) };
    let Ok(requests) = requests.cast::<PyDict>() else { return Ok(None) };
    if requests.is_empty() || dict.len() != 2 + usize::from(state.is_some()) {
        return Ok(None);
    }
    let mut questions = Vec::with_capacity(requests.len());
    for (key, request) in requests.iter() {
        let (Ok(key), Ok(question)) = (key.extract::<String>(), request.cast::<Question>()) else {
            return Ok(None);
        };
        questions.push((key, question.get().inner.clone()));
    }
    // In key order, as `from_value` reads them from a JSON object: the
    // same key is named first when one is refused.
    questions.sort_by(|a, b| a.0.cmp(&b.0));
    // A member of the outcome, read as the outcome's JSON would read it (the
    // depth bound counts the outcome's level; `None` is no state).
    let state = state.filter(|s| !s.is_none()).map(|s| member_value(&s)).transpose()?;
    Ok(Some(Outcome::InputRequired { requests: questions, state }))
}
