//! Reading a request that may be an MRTR retry: `begin`, a function of
//! the [`Policy`], the token [`Sealer`] and the clock, into a [`Call`] for
//! the handler or a ready [`Response`].
//!
//!
//! It validates, in order: the JSON text (size, syntax, duplicate keys,
//! depth), the JSON-RPC request shape, the per-request `_meta` dialect
//! (`protocolVersion` and `clientCapabilities` required, version supported),
//! and on the three MRTR methods in the 2026-07-28 dialect the retry envelope
//! (`inputResponses`, `requestState`) and the token.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::call::Call;
use crate::error::Result;
use crate::json::{self, JsonError};
use crate::policy::Policy;
use crate::response::Response;
use crate::token::{self, Principal, Sealer};

mod shape;
use shape::{Envelope, check_shape};
pub(crate) use shape::{Shape, read_shape};

/// `_meta` key of the protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the (self-reported, informational) client info.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// What `begin` produced.
#[derive(Debug)]
pub enum Begin {
    /// A valid request for the handler.
    Call(Box<Call>),
    /// A ready error response: send it, do not run the handler.
    Respond(Response),
}

fn jsonrpc_error(id: Value, code: i64, message: &str, data: Option<Value>, http_status: u16) -> Response {
    Response::error(id, code, message, data, http_status)
}

fn invalid_params(id: Value, message: &str, http_status: u16) -> Begin {
    Begin::Respond(jsonrpc_error(id, -32602, message, None, http_status))
}

fn invalid_state(id: Value, reason: &str) -> Begin {
    Begin::Respond(jsonrpc_error(
        id,
        -32602,
        "Invalid or expired requestState",
        Some(json!({"reason": reason})),
        200,
    ))
}

/// Reads a request message that may be an MRTR retry (see the module
/// docs for the order of checks), at the time `now()` returns.
pub(crate) fn begin(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    bytes: &[u8],
    principal: &Principal,
) -> Result<Begin> {
    match Envelope::from_text(bytes, policy.max_request_bytes) {
        Ok(env) => begin_envelope(policy, sealer, now, env, principal),
        Err(e) => Ok(text_error(e)),
    }
}

/// The text rules every request shares, 2026 or legacy (size, syntax,
/// duplicate keys, depth): the parsed message, or the ready error.
pub(crate) fn parse_text(bytes: &[u8], max_bytes: usize) -> std::result::Result<Value, Begin> {
    json::parse(bytes, max_bytes).map_err(text_error)
}

/// The ready error for a request text the strict reader refused.
fn text_error(e: JsonError) -> Begin {
    match e {
        JsonError::Syntax(_) => Begin::Respond(jsonrpc_error(Value::Null, -32700, "Parse error", None, 400)),
        JsonError::TooLarge => invalid_params(Value::Null, "Request exceeds the size limit", 400),
        JsonError::TooDeep => invalid_params(Value::Null, "Request is nested too deeply", 400),
        JsonError::DuplicateKey(_) => invalid_params(Value::Null, "Request has a duplicate object key", 400),
    }
}

/// The ready error for a request nested deeper than the strict reader
/// allows.
pub(crate) fn too_deep() -> Begin {
    text_error(JsonError::TooDeep)
}

/// [`begin`] for an already parsed message: the same checks (a value
/// nested deeper than the text could be is refused as the text is), the
/// same binding.
pub(crate) fn begin_value(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    value: Value,
    principal: &Principal,
) -> Result<Begin> {
    if json::deeper_than(&value, json::MAX_DEPTH) {
        return Ok(too_deep());
    }
    begin_envelope(policy, sealer, now, Envelope::from_tree(value), principal)
}

fn begin_envelope(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    env: Envelope,
    principal: &Principal,
) -> Result<Begin> {
    let shape = match check_shape(env, "a response, not a request")? {
        Ok(shape) => shape,
        Err(respond) => return Ok(respond),
    };
    let Shape { id, method, params, mut meta, input_responses, request_state } = shape;
    // The 2026-07-28 dialect: every request carries its own _meta.
    let version = match shape::version(&mut meta) {
        Ok(v) => v,
        Err(message) => return Ok(invalid_params(id, message, 400)),
    };
    // The version is checked before anything else in _meta, so a client on
    // an unknown version always learns which versions to use (-32022 with
    // supported/requested), even if its other _meta fields follow a
    // different revision's rules.
    if !policy.versions.contains(&version) {
        return Ok(Begin::Respond(jsonrpc_error(
            id,
            -32022,
            "Unsupported protocol version",
            Some(json!({"supported": policy.versions, "requested": version})),
            400,
        )));
    }
    let capabilities = match shape::capabilities(&mut meta) {
        Ok(c) => c,
        Err(message) => return Ok(invalid_params(id, &message, 400)),
    };
    // Informational only; a malformed optional field is ignored, not fatal.
    let client_info = meta.remove(META_CLIENT_INFO).filter(Value::is_object);

    let mrtr = version.as_str() >= crate::MRTR_VERSION;
    let mut call = Box::new(Call {
        id,
        method,
        params,
        principal: principal.clone(),
        protocol_version: version,
        mrtr,
        capabilities,
        client_info,
        meta,
        round: 1,
        flow_start: now(),
        binding: [0; 32],
        opened: None,
        state_cache: OnceLock::new(),
        responses: Map::new(),
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: policy.strict_answers,
        legacy_tag: None,
        task: None,
    });
    let now = call.flow_start;
    if call.mrtr && call.method == crate::tasks::TASKS_UPDATE {
        // tasks/update carries answers to a task's input requests; the
        // envelope is read as on a retry (no token: the task's unique keys
        // pin the questions), so Call::response reaches them.
        return match read_input_responses(policy, &call.id, input_responses) {
            Ok(entries) => {
                call.responses = entries;
                Ok(Begin::Call(call))
            }
            Err(respond) => Ok(respond),
        };
    }
    if !call.mrtr_allowed() {
        // inputResponses / requestState mean nothing here: never honoured.
        return Ok(Begin::Call(call));
    }
    // Within the depth bound: the text or the value was checked.
    let Some(binding) = token::binding_digest_map(&call.method, &call.params) else {
        return Ok(too_deep());
    };
    // The configured audience, if any, is bound into every token.
    call.binding = crate::audience::audience_binding(&binding, policy.audience.as_deref());
    finish_retry(policy, sealer, call, input_responses, request_state, now)
}

/// The `inputResponses` envelope: absent, or an object of at most
/// `max_input_responses` objects; anything else is the ready `-32602`.
fn read_input_responses(
    policy: &Policy,
    id: &Value,
    input_responses: Option<Value>,
) -> std::result::Result<Map<String, Value>, Begin> {
    match input_responses {
        None => Ok(Map::new()),
        Some(Value::Object(entries)) => {
            if entries.len() > policy.max_input_responses {
                return Err(invalid_params(
                    id.clone(),
                    "Invalid params: too many inputResponses entries",
                    200,
                ));
            }
            if let Some((k, _)) = entries.iter().find(|(_, v)| !v.is_object()) {
                let msg = format!(
                    "Invalid params: inputResponses[{}] must be an object",
                    json::to_wire(&Value::String(k.clone()))
                );
                return Err(invalid_params(id.clone(), &msg, 200));
            }
            Ok(entries)
        }
        Some(_) => Err(invalid_params(id.clone(), "Invalid params: inputResponses must be an object", 200)),
    }
}

fn finish_retry(
    policy: &Policy,
    sealer: &Sealer,
    mut call: Box<Call>,
    input_responses: Option<Value>,
    request_state: Option<Value>,
    now: u64,
) -> Result<Begin> {
    match read_input_responses(policy, &call.id, input_responses) {
        Ok(entries) => call.responses = entries,
        Err(respond) => return Ok(respond),
    }
    match request_state {
        None => {}
        Some(Value::String(s)) if !s.is_empty() => {
            match sealer.open(now, &s, &call.principal, &call.binding) {
                Ok(opened) => {
                    call.round = opened.round.saturating_add(1);
                    call.flow_start = opened.flow_start;
                    call.opened = Some(opened);
                }
                Err(e) => return Ok(invalid_state(call.id.clone(), e.reason.name())),
            }
        }
        Some(_) => return Ok(invalid_state(call.id.clone(), "malformed")),
    }
    Ok(Begin::Call(call))
}

#[cfg(test)]
mod tests;
