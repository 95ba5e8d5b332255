//! Issue 14: serving 2025-era (`initialize`) sessions through the same
//! handlers, sans-IO (`docs/legacy.md`).
//!
//! * `session.rs`: [`Session`], what `initialize` negotiated.
//! * `mod.rs` (here): `begin_legacy`, a legacy request into a [`Call`].
//! * `bridge.rs`: `decide_legacy` ([`Bridge`]): an `input_required`
//!   outcome becomes server-to-client requests and a [`PendingFlow`].
//! * `pending.rs`: [`PendingFlow`], the client's responses fed back
//!   ([`Feed`]), timeout and cancellation.
//!
//! This module reads no engine internals beyond the crate-visible
//! limits, clock and seal/open, so the core's re-layering can move it whole.

mod bridge;
mod pending;
mod session;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::decide::Response;
use crate::engine::Engine;
use crate::envelope::{Begin, Call};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, JsonError};
use crate::token::{self, Principal};

pub use bridge::Bridge;
pub(crate) use bridge::decide_legacy;
pub use pending::{Feed, PendingFlow};
pub(crate) use pending::{feed, feed_value, timeout};
pub use session::{MAX_SESSION_ID_BYTES, Session, usable_capabilities};

/// The prefix of every request id the bridge sends: a client's own ids
/// live in the other direction anyway, and the prefix keeps them apart in
/// an application's routing table too.
pub const LEGACY_ID_PREFIX: &str = "snodo-";

fn respond(id: Value, code: i64, message: &str, data: Option<Value>) -> Begin {
    Begin::Respond(Response::error(id, code, message, data, 400))
}

pub(crate) fn begin_legacy(
    engine: &Engine,
    bytes: &[u8],
    session: &Session,
    principal: &Principal,
) -> Result<Begin> {
    // Same text rules as `begin` (size, syntax, duplicate keys, depth).
    let value = match json::parse(bytes, engine.max_request_bytes) {
        Ok(v) => v,
        Err(JsonError::Syntax(_)) => return Ok(respond(Value::Null, -32700, "Parse error", None)),
        Err(JsonError::TooLarge) => {
            return Ok(respond(Value::Null, -32602, "Request exceeds the size limit", None));
        }
        Err(JsonError::TooDeep) => {
            return Ok(respond(Value::Null, -32602, "Request is nested too deeply", None));
        }
        Err(JsonError::DuplicateKey(_)) => {
            return Ok(respond(Value::Null, -32602, "Request has a duplicate object key", None));
        }
    };
    begin_legacy_value(engine, value, session, principal)
}

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => json::number_is_integer(n) && n.as_f64().is_some(),
        _ => false,
    }
}

/// The flow tag in the bridge's request ids: a digest of the session id,
/// the originating request id, its binding and the flow start. Unique per
/// flow (a client never reuses a request id within a session, and the
/// session id separates sessions), identical in every language, and
/// computed from nothing secret.
fn flow_tag(session: &Session, id: &Value, binding: &[u8; 32], flow_start: u64) -> String {
    let mut h = Sha256::new();
    h.update(b"snodo-legacy-flow\0");
    h.update(session.id().as_bytes());
    h.update(b"\0");
    h.update(json::to_wire(id).as_bytes());
    h.update(b"\0");
    h.update(flow_start.to_string().as_bytes());
    h.update(b"\0");
    h.update(binding);
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn begin_legacy_value(
    engine: &Engine,
    value: Value,
    session: &Session,
    principal: &Principal,
) -> Result<Begin> {
    let Value::Object(mut msg) = value else {
        return Ok(respond(Value::Null, -32600, "Invalid Request", None));
    };
    let has_method = msg.contains_key("method");
    let Some(id) = msg.remove("id") else {
        return Err(Error::new(
            ErrorCode::NotARequest,
            if has_method {
                "a notification (no id): send no response"
            } else {
                "not a request (no id, no method)"
            },
        ));
    };
    if !has_method && (msg.contains_key("result") || msg.contains_key("error")) {
        return Err(Error::new(
            ErrorCode::NotARequest,
            "a response, not a request (feed it to its PendingFlow)",
        ));
    }
    if !valid_id(&id) {
        return Ok(respond(Value::Null, -32600, "Invalid Request: bad id", None));
    }
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Ok(respond(id, -32600, "Invalid Request: jsonrpc must be \"2.0\"", None));
    }
    let method = match msg.remove("method") {
        Some(Value::String(m)) if !m.is_empty() => m,
        _ => return Ok(respond(id, -32600, "Invalid Request: method must be a string", None)),
    };
    let mut params = match msg.remove("params") {
        Some(Value::Object(p)) => p,
        None => Map::new(),
        Some(_) => return Ok(respond(id, -32602, "Invalid params: params must be an object", None)),
    };
    let meta = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        None => Map::new(),
        Some(_) => return Ok(respond(id, -32602, "Invalid params: _meta must be an object", None)),
    };
    // The 2025 spec's answer to a version the server cannot serve is
    // -32602 with supported/requested (-32022 is 2026 vocabulary).
    let version = session.protocol_version();
    if !engine.legacy_versions.iter().any(|v| v == version) {
        return Ok(respond(
            id,
            -32602,
            "Unsupported protocol version",
            Some(json!({"supported": engine.legacy_versions, "requested": version})),
        ));
    }
    // MRTR fields mean nothing on the legacy wire: dropped, never honoured
    // (as on a 2026 request to a method without MRTR).
    params.remove("inputResponses");
    params.remove("requestState");
    let binding = crate::audience::audience_binding(
        &token::binding_digest_map(&method, &params),
        engine.audience.as_deref(),
    );
    let flow_start = engine.now();
    let tag = flow_tag(session, &id, &binding, flow_start);
    Ok(Begin::Call(Box::new(Call {
        id,
        method,
        params,
        principal: principal.clone(),
        protocol_version: version.to_owned(),
        mrtr: false,
        capabilities: session.usable_capabilities(),
        client_info: session.client_info().cloned(),
        meta,
        round: 1,
        flow_start,
        binding,
        opened: None,
        state_cache: OnceLock::new(),
        responses: Map::new(),
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: engine.strict_answers,
        legacy_tag: Some(tag),
    })))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, deprecated)]
mod tests;
