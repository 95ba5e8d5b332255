//! Builders for input requests, their validation, and reading the answers.
//!
//! An input request is the `{method, params}` object a server puts under a
//! key of `inputRequests` in an `input_required` result. Builders refuse
//! anything a conforming client could not act on, and
//! [`validate_input_request`] applies exactly the same checks to a request a
//! handler built by hand. [`read_answer`] reads the client's answer to one
//! request and checks it against the question that was asked.
//!
//! Sampling and roots are deprecated in 2026-07-28 but still part of the
//! protocol, so they are built and validated like the rest.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::answer::Answer;
use crate::error::{Error, ErrorCode};
use crate::{json, schema};

/// Longest URL accepted. Browsers and proxies start truncating or refusing
/// around here, and a user must be able to read the whole URL before
/// consenting.
const MAX_URL_BYTES: usize = 8192;

/// Longest input-request key, in bytes of UTF-8.
const MAX_KEY_BYTES: usize = 64;

/// Builds a form-mode `elicitation/create` request.
///
/// `message` must not be empty (or whitespace only): [`ErrorCode::InputRequest`].
/// `schema` must pass [`schema::validate_form_schema`]: [`ErrorCode::Schema`].
/// The result always carries `"mode":"form"`, although the spec lets form
/// mode omit it, so that clients never have to guess.
pub fn elicit_form(message: &str, schema: &Value) -> crate::Result<Value> {
    let request = elicit_form_without_lint(message, schema)?;
    // Issue 13: the safety heuristics (secrets by form, clickable URLs).
    if let Some(why) = crate::elicitation_lint::form_problem(message, schema) {
        return Err(Error::new(ErrorCode::Schema, why));
    }
    Ok(request)
}

/// [`elicit_form`] without the safety heuristics of `elicitation_lint`
/// (fields that look like secrets, URLs in the form): the explicit opt-out
/// for a false positive. The spec's rules still hold; the application owns
/// them for this request.
pub fn elicit_form_without_lint(message: &str, schema: &Value) -> crate::Result<Value> {
    check_message(message, "message")?;
    schema::validate_form_schema(schema)?;
    Ok(json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema},
    }))
}

/// Builds a URL-mode `elicitation/create` request.
///
/// `message` must not be empty ([`ErrorCode::InputRequest`]); `url` must pass
/// the crate's URL checks ([`ErrorCode::Url`]). No `elicitationId` is emitted: it
/// was removed in 2026-07-28, and a server that needs to correlate the
/// out-of-band flow keeps its own identifier in the sealed state.
pub fn elicit_url(message: &str, url: &str) -> crate::Result<Value> {
    let request = elicit_url_without_lint(message, url)?;
    // Issue 13: no credentials or personal data in the URL's query/fragment.
    if let Some(why) = crate::elicitation_lint::url_problem(url) {
        return Err(Error::new(ErrorCode::Url, why));
    }
    Ok(request)
}

/// [`elicit_url`] without the credential/PII heuristic of
/// `elicitation_lint`: the explicit opt-out for a false positive.
pub fn elicit_url_without_lint(message: &str, url: &str) -> crate::Result<Value> {
    check_message(message, "message")?;
    validate_url(url)?;
    Ok(json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": message, "url": url},
    }))
}

/// Checks a URL for URL-mode elicitation ([`ErrorCode::Url`] on failure).
///
/// Accepted: `http` or `https` (any case), `//` and a non-empty host (a
/// hostname, an IPv4 address, or a bracketed IPv6 address), an optional port
/// in 1..=65535, then a path, query and fragment made only of characters a
/// URI may contain (non-ASCII text is allowed; browsers percent-encode it).
/// Refused: other schemes (`javascript:`, `data:`, `file:`), userinfo
/// (`user:pass@`, which both leaks credentials and disguises the real host),
/// control characters, whitespace, backslashes (browsers read `\` as `/`,
/// which lets a URL look like it goes elsewhere), and more than 8192 bytes.
///
/// `http` is allowed because the spec only says HTTPS SHOULD be used outside
/// development; an application that wants HTTPS only checks the scheme itself.
pub fn validate_url(url: &str) -> crate::Result<()> {
    url_problem(url).map_or(Ok(()), |why| Err(Error::new(ErrorCode::Url, format!("url: {why}"))))
}

fn url_problem(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("must not be empty");
    }
    if url.len() > MAX_URL_BYTES {
        return Some("longer than 8192 bytes");
    }
    if url.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if url.chars().any(char::is_whitespace) {
        return Some("contains whitespace");
    }
    if url.contains('\\') {
        return Some("contains a backslash");
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return Some("has no scheme");
    };
    if !(scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")) {
        return Some("scheme must be http or https");
    }
    let Some(after) = rest.strip_prefix("//") else {
        return Some("must have an authority (scheme://host)");
    };
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, tail) = after.split_at(end);
    if authority.contains('@') {
        return Some("must not contain userinfo (user@ or user:password@)");
    }
    if let Some(why) = authority_problem(authority) {
        return Some(why);
    }
    tail_problem(tail)
}

fn authority_problem(authority: &str) -> Option<&'static str> {
    let (host_ok, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let Some((v6, after)) = bracketed.split_once(']') else {
            return Some("unclosed IPv6 host");
        };
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(p) => Some(p),
                None => return Some("unexpected text after the IPv6 host"),
            },
        };
        (v6.parse::<std::net::Ipv6Addr>().is_ok(), port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        if host.is_empty() {
            return Some("has no host");
        }
        (is_host_name(host), port)
    };
    if !host_ok {
        return Some("host is not a valid host name or IP address");
    }
    match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
            let value =
                p.bytes().fold(0u64, |acc, b| acc.saturating_mul(10).saturating_add(u64::from(b - b'0')));
            (!(1..=65535).contains(&value)).then_some("port must be in 1..=65535")
        }
        Some(_) => Some("port must be digits in 1..=65535"),
    }
}

/// Dot-separated labels of letters (any script: IDN hosts are legitimate),
/// digits, `-` and `_`; an empty label is allowed only as a trailing dot.
fn is_host_name(host: &str) -> bool {
    let trimmed = host.strip_suffix('.').unwrap_or(host);
    !trimmed.is_empty()
        && trimmed.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
}

/// Path, query and fragment: RFC 3986 characters, valid `%` escapes, at most
/// one `#`. Non-ASCII characters pass (the IRI form users actually see).
fn tail_problem(tail: &str) -> Option<&'static str> {
    if tail.matches('#').count() > 1 {
        return Some("more than one '#'");
    }
    let bytes = tail.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(i + 1) && hex(i + 2)) {
                return Some("'%' not followed by two hex digits");
            }
        } else if b.is_ascii() && !(b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?#".contains(&b)) {
            return Some("contains a character not allowed in a URL");
        }
    }
    None
}

/// Builds a (deprecated) `sampling/createMessage` request from its params.
///
/// [`ErrorCode::Sampling`] if `params` is not a well-formed
/// `CreateMessageRequestParams`; see [`validate_input_request`].
#[deprecated(note = "sampling is deprecated in MCP 2026-07-28; prefer elicitation")]
pub fn sampling(params: &Value) -> crate::Result<Value> {
    check_sampling(params)?;
    Ok(json!({"method": "sampling/createMessage", "params": params}))
}

/// Builds a (deprecated) `roots/list` request.
#[deprecated(note = "roots are deprecated in MCP 2026-07-28")]
pub fn list_roots() -> Value {
    json!({"method": "roots/list"})
}

/// The kind of an input request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// Form-mode `elicitation/create`.
    Form,
    /// URL-mode `elicitation/create`.
    Url,
    /// `sampling/createMessage` (deprecated).
    Sampling,
    /// `roots/list` (deprecated).
    Roots,
}

const FORM_PARAMS: &[&str] = &["mode", "message", "requestedSchema", "_meta"];
const URL_PARAMS: &[&str] = &["mode", "message", "url", "_meta"];

/// Validates a complete input request object, as a handler might build it by
/// hand, with exactly the checks the builders apply.
///
/// The object has `method` and optional `params` only: input requests are not
/// JSON-RPC messages, so `id` and `jsonrpc` are refused. Envelope problems
/// are [`ErrorCode::InputRequest`]; a bad schema, URL or sampling payload is
/// [`ErrorCode::Schema`], [`ErrorCode::Url`] or [`ErrorCode::Sampling`].
pub fn validate_input_request(request: &Value) -> crate::Result<RequestKind> {
    let envelope = |m: String| Error::new(ErrorCode::InputRequest, m);
    let Value::Object(req) = request else {
        return Err(envelope("input request: must be an object".to_owned()));
    };
    if let Some(k) = req.keys().find(|k| *k != "method" && *k != "params") {
        return Err(envelope(format!(
            "input request: key {k:?} is not allowed (an input request has only method and params)"
        )));
    }
    let method = match req.get("method") {
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return Err(envelope("method: must be a string".to_owned())),
        None => return Err(envelope("method: required".to_owned())),
    };
    let params = match req.get("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        // Shape errors inside sampling params are the sampling checker's,
        // so the builder and this validator report the same code.
        Some(other) if method == "sampling/createMessage" => {
            return check_sampling(other).map(|()| RequestKind::Sampling);
        }
        Some(_) => return Err(envelope("params: must be an object".to_owned())),
    };
    if method != "sampling/createMessage"
        && params.and_then(|p| p.get("_meta")).is_some_and(|m| !m.is_object())
    {
        return Err(envelope("params._meta: must be an object".to_owned()));
    }
    match method {
        "elicitation/create" => {
            let Some(p) = params else {
                return Err(envelope("params: required for elicitation/create".to_owned()));
            };
            let kind = match p.get("mode") {
                None => RequestKind::Form,
                Some(Value::String(m)) if m == "form" => RequestKind::Form,
                Some(Value::String(m)) if m == "url" => RequestKind::Url,
                Some(_) => return Err(envelope("params.mode: must be \"form\" or \"url\"".to_owned())),
            };
            if kind == RequestKind::Url && p.contains_key("elicitationId") {
                return Err(envelope(
                    "params.elicitationId: removed in 2026-07-28; keep correlation ids in the sealed state"
                        .to_owned(),
                ));
            }
            let allowed = if kind == RequestKind::Form { FORM_PARAMS } else { URL_PARAMS };
            if let Some(k) = p.keys().find(|k| !allowed.contains(&k.as_str())) {
                return Err(envelope(format!(
                    "params.{k}: not allowed in a {} elicitation",
                    mode_name(kind)
                )));
            }
            match p.get("message") {
                Some(Value::String(m)) => check_message(m, "params.message")?,
                _ => return Err(envelope("params.message: required, a non-empty string".to_owned())),
            }
            if kind == RequestKind::Form {
                let Some(schema) = p.get("requestedSchema") else {
                    return Err(envelope("params.requestedSchema: required for form mode".to_owned()));
                };
                schema::validate_form_schema(schema)?;
            } else {
                let Some(Value::String(url)) = p.get("url") else {
                    return Err(envelope("params.url: required for url mode, a string".to_owned()));
                };
                validate_url(url)?;
            }
            Ok(kind)
        }
        "sampling/createMessage" => match req.get("params") {
            Some(p) => check_sampling(p).map(|()| RequestKind::Sampling),
            None => Err(envelope("params: required for sampling/createMessage".to_owned())),
        },
        "roots/list" => {
            if let Some(k) = params.and_then(|p| p.keys().find(|k| *k != "_meta")) {
                return Err(envelope(format!("params.{k}: roots/list takes no parameters")));
            }
            Ok(RequestKind::Roots)
        }
        other => Err(envelope(format!(
            "method: {other:?} is not an input request (elicitation/create, sampling/createMessage or roots/list)"
        ))),
    }
}

fn mode_name(kind: RequestKind) -> &'static str {
    if kind == RequestKind::Url { "url-mode" } else { "form-mode" }
}

/// Checks an input-request key: non-empty, at most 64 bytes of UTF-8, no
/// control characters, not whitespace only ([`ErrorCode::InputRequest`]).
pub fn validate_key(key: &str) -> crate::Result<()> {
    let bad = |m: &str| Err(Error::new(ErrorCode::InputRequest, format!("key: {m}")));
    if key.is_empty() {
        return bad("must not be empty");
    }
    if key.len() > MAX_KEY_BYTES {
        return bad("longer than 64 bytes");
    }
    if key.chars().any(char::is_control) {
        return bad("contains a control character");
    }
    if key.chars().all(char::is_whitespace) {
        return bad("must not be whitespace only");
    }
    Ok(())
}

fn check_message(message: &str, path: &str) -> crate::Result<()> {
    // A blank prompt gives the user nothing to consent to.
    if message.trim().is_empty() {
        return Err(Error::new(ErrorCode::InputRequest, format!("{path}: must be a non-empty string")));
    }
    Ok(())
}

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

fn read_elicit_result(request: &Value, kind: RequestKind, a: &Map<String, Value>) -> Result<Answer, String> {
    match a.get("action") {
        Some(Value::String(s)) if s == "decline" => Ok(Answer::Declined),
        Some(Value::String(s)) if s == "cancel" => Ok(Answer::Cancelled),
        Some(Value::String(s)) if s == "accept" => {
            if kind == RequestKind::Url {
                return Ok(Answer::Accepted(Value::Null));
            }
            let Some(schema) = request.pointer("/params/requestedSchema") else {
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

fn read_sampling_result(a: &Map<String, Value>) -> Result<(), String> {
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

fn read_roots_result(a: &Map<String, Value>) -> Result<Answer, String> {
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

const SAMPLING_PARAMS: &[&str] = &[
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
const MESSAGE_KEYS: &[&str] = &["role", "content", "_meta"];
const MODEL_PREFERENCE_KEYS: &[&str] = &["hints", "costPriority", "speedPriority", "intelligencePriority"];

fn check_sampling(params: &Value) -> crate::Result<()> {
    sampling_problem(params).map_err(|m| Error::new(ErrorCode::Sampling, m))
}

fn sampling_problem(params: &Value) -> Result<(), String> {
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

fn check_model_preferences(prefs: &Value) -> Result<(), String> {
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
struct Message<'a> {
    assistant: bool,
    /// `id`s of `tool_use` blocks.
    tool_uses: Vec<&'a str>,
    /// `toolUseId`s of `tool_result` blocks.
    tool_results: Vec<&'a str>,
}

fn check_messages(messages: Option<&Value>) -> Result<(), String> {
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
        // for it, which the sampling spec forbids (issue 13).
        let answered: &[&str] = parsed.get(i + 1).map(|n| n.tool_results.as_slice()).unwrap_or(&[]);
        if let Some(id) = m.tool_uses.iter().find(|id| !answered.contains(id)) {
            return Err(format!(
                "params.messages[{i}]: tool_use {id:?} is not answered by a tool_result in the next message"
            ));
        }
    }
    Ok(())
}

fn check_message_entry<'a>(m: &'a Value, path: &str) -> Result<Message<'a>, String> {
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

#[cfg(test)]
mod tests;
