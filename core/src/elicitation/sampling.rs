//! The `sampling/createMessage` parameter checks (deprecated in
//! 2026-07-28, still validated like the rest).

use std::collections::HashSet;

use serde_json::Value;

use crate::error::{Error, ErrorCode};
use crate::json;

pub(crate) const SAMPLING_PARAMS: &[&str] = &[
    "messages",
    "modelPreferences",
    "systemPrompt",
    "includeContext",
    "temperature",
    "maxTokens",
    "stopSequences",
    "metadata",
    "tools",
    "toolChoice",
    "_meta",
];
pub(crate) const MESSAGE_KEYS: &[&str] = &["role", "content", "_meta"];
pub(crate) const MODEL_PREFERENCE_KEYS: &[&str] =
    &["hints", "costPriority", "speedPriority", "intelligencePriority"];

pub(crate) fn check_sampling(params: &Value) -> crate::Result<()> {
    sampling_problem(params).map_err(|m| Error::new(ErrorCode::Sampling, m))
}

pub(crate) fn sampling_problem(params: &Value) -> Result<(), String> {
    let Value::Object(p) = params else {
        return Err("params: must be an object".to_owned());
    };
    if let Some(k) = p.keys().find(|k| !SAMPLING_PARAMS.contains(&k.as_str())) {
        return Err(format!("params.{k}: not a sampling/createMessage parameter"));
    }
    check_messages(p.get("messages"))?;
    match p.get("maxTokens") {
        Some(Value::Number(n))
            if json::number_is_integer(n) && json::number_f64(n).is_some_and(|f| f >= 1.0) => {}
        Some(_) => return Err("params.maxTokens: must be a positive integer".to_owned()),
        None => return Err("params.maxTokens: required".to_owned()),
    }
    let wrong = |key: &str, what: &str| Err(format!("params.{key}: must be {what}"));
    if p.get("systemPrompt").is_some_and(|v| !v.is_string()) {
        return wrong("systemPrompt", "a string");
    }
    if p.get("temperature").is_some_and(|v| !matches!(v, Value::Number(n) if json::number_f64(n).is_some())) {
        return wrong("temperature", "a number");
    }
    if p.get("stopSequences").is_some_and(|v| !v.as_array().is_some_and(|a| a.iter().all(Value::is_string))) {
        return wrong("stopSequences", "an array of strings");
    }
    for key in ["metadata", "_meta"] {
        if p.get(key).is_some_and(|v| !v.is_object()) {
            return wrong(key, "an object");
        }
    }
    if p.get("includeContext")
        .is_some_and(|v| !matches!(v.as_str(), Some("none" | "thisServer" | "allServers")))
    {
        return wrong("includeContext", "\"none\", \"thisServer\" or \"allServers\"");
    }
    if let Some(prefs) = p.get("modelPreferences") {
        check_model_preferences(prefs)?;
    }
    if let Some(tools) = p.get("tools") {
        let Value::Array(tools) = tools else {
            return wrong("tools", "an array");
        };
        for (i, tool) in tools.iter().enumerate() {
            let Value::Object(t) = tool else {
                return Err(format!("params.tools[{i}]: must be an object"));
            };
            if !matches!(t.get("name"), Some(Value::String(_))) {
                return Err(format!("params.tools[{i}].name: required, a string"));
            }
            if !matches!(t.get("inputSchema"), Some(Value::Object(_))) {
                return Err(format!("params.tools[{i}].inputSchema: required, an object"));
            }
        }
    }
    if let Some(choice) = p.get("toolChoice") {
        let Value::Object(c) = choice else {
            return wrong("toolChoice", "an object");
        };
        if let Some(k) = c.keys().find(|k| *k != "mode") {
            return Err(format!("params.toolChoice.{k}: not allowed"));
        }
        if c.get("mode").is_some_and(|m| !matches!(m.as_str(), Some("auto" | "required" | "none"))) {
            return wrong("toolChoice.mode", "\"auto\", \"required\" or \"none\"");
        }
    }
    Ok(())
}

pub(crate) fn check_model_preferences(prefs: &Value) -> Result<(), String> {
    let Value::Object(m) = prefs else {
        return Err("params.modelPreferences: must be an object".to_owned());
    };
    if let Some(k) = m.keys().find(|k| !MODEL_PREFERENCE_KEYS.contains(&k.as_str())) {
        return Err(format!("params.modelPreferences.{k}: not allowed"));
    }
    for key in ["costPriority", "speedPriority", "intelligencePriority"] {
        if let Some(v) = m.get(key) {
            let in_range = matches!(v, Value::Number(n)
                if json::number_f64(n).is_some_and(|f| (0.0..=1.0).contains(&f)));
            if !in_range {
                return Err(format!("params.modelPreferences.{key}: must be a number in 0..=1"));
            }
        }
    }
    if let Some(hints) = m.get("hints") {
        let ok = hints.as_array().is_some_and(|hs| {
            hs.iter().all(|h| h.as_object().is_some_and(|o| o.get("name").is_none_or(Value::is_string)))
        });
        if !ok {
            return Err(
                "params.modelPreferences.hints: must be an array of objects (name a string)".to_owned()
            );
        }
    }
    Ok(())
}

/// One sampling message, as far as tool pairing needs it.
pub(crate) struct Message<'a> {
    assistant: bool,
    /// `id`s of `tool_use` blocks.
    tool_uses: Vec<&'a str>,
    /// `toolUseId`s of `tool_result` blocks.
    tool_results: Vec<&'a str>,
}

pub(crate) fn check_messages(messages: Option<&Value>) -> Result<(), String> {
    let list = match messages {
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(Value::Array(_)) => return Err("params.messages: must not be empty".to_owned()),
        Some(_) => return Err("params.messages: must be an array".to_owned()),
        None => return Err("params.messages: required".to_owned()),
    };
    let mut parsed = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        parsed.push(check_message_entry(m, &format!("params.messages[{i}]"))?);
    }
    // Tool pairing (sampling spec): an assistant turn's tool_use blocks must
    // all be answered by the next message, a user turn of tool_result blocks
    // only; and every tool_result must answer a tool_use of the turn before.
    for (i, m) in parsed.iter().enumerate() {
        if !m.tool_results.is_empty() {
            let asked = match i.checked_sub(1).and_then(|j| parsed.get(j)) {
                Some(prev) if prev.assistant => prev.tool_uses.as_slice(),
                _ => &[],
            };
            if let Some(id) = m.tool_results.iter().find(|id| !asked.contains(id)) {
                return Err(format!(
                    "params.messages[{i}]: tool_result {id:?} answers no tool_use of the preceding assistant message"
                ));
            }
        }
        // Every tool_use must be answered by the very next message; a
        // conversation ending on an assistant tool_use has no tool_result
        // for it, which the sampling spec forbids.
        let answered: &[&str] = parsed.get(i + 1).map(|n| n.tool_results.as_slice()).unwrap_or(&[]);
        if let Some(id) = m.tool_uses.iter().find(|id| !answered.contains(id)) {
            return Err(format!(
                "params.messages[{i}]: tool_use {id:?} is not answered by a tool_result in the next message"
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_message_entry<'a>(m: &'a Value, path: &str) -> Result<Message<'a>, String> {
    let Value::Object(m) = m else {
        return Err(format!("{path}: must be an object"));
    };
    if let Some(k) = m.keys().find(|k| !MESSAGE_KEYS.contains(&k.as_str())) {
        return Err(format!("{path}.{k}: not allowed in a sampling message"));
    }
    let assistant = match m.get("role").and_then(Value::as_str) {
        Some("assistant") => true,
        Some("user") => false,
        _ => return Err(format!("{path}.role: must be \"user\" or \"assistant\"")),
    };
    if m.get("_meta").is_some_and(|v| !v.is_object()) {
        return Err(format!("{path}._meta: must be an object"));
    }
    let blocks: Vec<&Value> = match m.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        Some(_) => return Err(format!("{path}.content: must be an object or an array of objects")),
        None => return Err(format!("{path}.content: required")),
    };
    let mut out = Message { assistant, tool_uses: Vec::new(), tool_results: Vec::new() };
    let mut other_blocks = false;
    let mut seen = HashSet::new();
    for (i, block) in blocks.into_iter().enumerate() {
        let at = format!("{path}.content[{i}]");
        let Value::Object(b) = block else {
            return Err(format!("{at}: must be an object"));
        };
        let field_is = |key: &str, ok: fn(&Value) -> bool| b.get(key).is_some_and(ok);
        let need = |key: &str, ok: fn(&Value) -> bool, what: &str| {
            if field_is(key, ok) { Ok(()) } else { Err(format!("{at}.{key}: required, {what}")) }
        };
        match b.get("type").and_then(Value::as_str) {
            Some("text") => need("text", Value::is_string, "a string")?,
            Some("image" | "audio") => {
                need("data", Value::is_string, "a string")?;
                need("mimeType", Value::is_string, "a string")?;
            }
            Some("tool_use") => {
                if !assistant {
                    return Err(format!("{at}: tool_use blocks belong in assistant messages"));
                }
                need("name", Value::is_string, "a string")?;
                need("input", Value::is_object, "an object")?;
                let Some(id) = b.get("id").and_then(Value::as_str) else {
                    return Err(format!("{at}.id: required, a string"));
                };
                if !seen.insert(id) {
                    return Err(format!("{at}.id: duplicate tool_use id {id:?}"));
                }
                out.tool_uses.push(id);
            }
            Some("tool_result") => {
                if assistant {
                    return Err(format!("{at}: tool_result blocks belong in user messages"));
                }
                if b.get("content").is_some_and(|c| !c.is_array()) {
                    return Err(format!("{at}.content: must be an array"));
                }
                let Some(id) = b.get("toolUseId").and_then(Value::as_str) else {
                    return Err(format!("{at}.toolUseId: required, a string"));
                };
                if !seen.insert(id) {
                    return Err(format!("{at}.toolUseId: duplicate tool_result for {id:?}"));
                }
                out.tool_results.push(id);
            }
            _ => {
                return Err(format!("{at}.type: must be text, image, audio, tool_use or tool_result"));
            }
        }
        if !matches!(b.get("type").and_then(Value::as_str), Some("tool_result")) {
            other_blocks = true;
        }
    }
    if !out.tool_results.is_empty() && other_blocks {
        return Err(format!(
            "{path}: a user message with tool_result blocks must contain only tool_result blocks"
        ));
    }
    Ok(out)
}
