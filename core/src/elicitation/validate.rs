//! [`validate_input_request`]: the checks every input request passes,
//! built or hand-written, and the key rules.

use serde_json::Value;

use crate::error::{Error, ErrorCode};
use crate::schema;

use super::*;

/// Longest input-request key, in bytes of UTF-8.
pub(crate) const MAX_KEY_BYTES: usize = 64;

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

impl RequestKind {
    /// The kind as a stable lowercase word, as the bindings spell it:
    /// `form`, `url`, `sampling` or `roots`.
    pub fn name(self) -> &'static str {
        match self {
            RequestKind::Form => "form",
            RequestKind::Url => "url",
            RequestKind::Sampling => "sampling",
            RequestKind::Roots => "roots",
        }
    }
}

pub(crate) const FORM_PARAMS: &[&str] = &["mode", "message", "requestedSchema", "_meta"];
pub(crate) const URL_PARAMS: &[&str] = &["mode", "message", "url", "_meta"];

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

pub(crate) fn mode_name(kind: RequestKind) -> &'static str {
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

pub(crate) fn check_message(message: &str, path: &str) -> crate::Result<()> {
    // A blank prompt gives the user nothing to consent to.
    if message.trim().is_empty() {
        return Err(Error::new(ErrorCode::InputRequest, format!("{path}: must be a non-empty string")));
    }
    Ok(())
}
