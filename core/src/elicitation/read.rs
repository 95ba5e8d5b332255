//! Reading the client's answer to one input request.

use serde_json::{Map, Value};

use crate::answer::Answer;
use crate::schema;

use super::*;

/// Reads the client's answer to `request` (which passed
/// [`validate_input_request`] with `kind`). `answer` is one entry of
/// `params.inputResponses`: the bare result object.
///
/// * Form: `action` decides; `accept` content (absent means `{}`) is checked
///   with [`schema::validate_content`] and returned without unknown
///   properties. Content sent with `decline`/`cancel` is ignored.
/// * URL: `accept` gives `Accepted(null)`, which means the user *consented*
///   to open the URL, not that the out-of-band step finished.
/// * Sampling: a `CreateMessageResult`, returned whole.
/// * Roots: a `ListRootsResult`, returned as the array of roots.
///
/// Extra top-level keys (`_meta`, `resultType`, ...) are ignored throughout.
pub fn read_answer(request: &Value, kind: RequestKind, answer: &Value) -> Answer {
    let Value::Object(a) = answer else {
        return Answer::Invalid("answer: must be an object".to_owned());
    };
    let outcome = match kind {
        RequestKind::Form | RequestKind::Url => read_elicit_result(request, kind, a),
        RequestKind::Sampling => read_sampling_result(a).map(|()| Answer::Accepted(answer.clone())),
        RequestKind::Roots => read_roots_result(a),
    };
    outcome.unwrap_or_else(Answer::Invalid)
}

pub(crate) fn read_elicit_result(
    request: &Value,
    kind: RequestKind,
    a: &Map<String, Value>,
) -> Result<Answer, String> {
    match a.get("action") {
        Some(Value::String(s)) if s == "decline" => Ok(Answer::Declined),
        Some(Value::String(s)) if s == "cancel" => Ok(Answer::Cancelled),
        Some(Value::String(s)) if s == "accept" => {
            if kind == RequestKind::Url {
                return Ok(Answer::Accepted(Value::Null));
            }
            // Two lookups, not `Value::pointer`, which copies each step of
            // its path into a new string on every call.
            let Some(schema) = request.get("params").and_then(|p| p.get("requestedSchema")) else {
                return Err("request: has no params.requestedSchema".to_owned());
            };
            let empty = Value::Object(Map::new());
            let content = a.get("content").unwrap_or(&empty);
            schema::validate_content(schema, content).map(|m| Answer::Accepted(Value::Object(m)))
        }
        Some(_) => Err("action: must be \"accept\", \"decline\" or \"cancel\"".to_owned()),
        None => Err("action: required".to_owned()),
    }
}

pub(crate) fn read_sampling_result(a: &Map<String, Value>) -> Result<(), String> {
    if a.contains_key("action") {
        return Err("answer: an elicitation result, but a sampling result was asked for".to_owned());
    }
    match a.get("role") {
        Some(Value::String(r)) if r == "assistant" || r == "user" => {}
        _ => return Err("role: must be \"assistant\" or \"user\"".to_owned()),
    }
    if !matches!(a.get("model"), Some(Value::String(_))) {
        return Err("model: required, a string".to_owned());
    }
    if a.get("stopReason").is_some_and(|v| !v.is_string()) {
        return Err("stopReason: must be a string".to_owned());
    }
    let blocks: Vec<&Value> = match a.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block) => vec![block],
        None => return Err("content: required".to_owned()),
    };
    for (i, block) in blocks.into_iter().enumerate() {
        let has_type = block.as_object().is_some_and(|o| matches!(o.get("type"), Some(Value::String(_))));
        if !has_type {
            return Err(format!("content[{i}]: must be an object with a string type"));
        }
    }
    Ok(())
}

pub(crate) fn read_roots_result(a: &Map<String, Value>) -> Result<Answer, String> {
    let Some(Value::Array(roots)) = a.get("roots") else {
        return Err("roots: required, an array".to_owned());
    };
    for (i, root) in roots.iter().enumerate() {
        let Value::Object(r) = root else {
            return Err(format!("roots[{i}]: must be an object"));
        };
        match r.get("uri") {
            Some(Value::String(u)) if u.starts_with("file://") => {}
            _ => return Err(format!("roots[{i}].uri: must be a file:// URI")),
        }
        if r.get("name").is_some_and(|n| !n.is_string()) {
            return Err(format!("roots[{i}].name: must be a string"));
        }
    }
    Ok(Answer::Accepted(Value::Array(roots.clone())))
}

// ---------------------------------------------------------------------------
// Sampling (deprecated) request validation.
