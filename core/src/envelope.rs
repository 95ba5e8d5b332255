//! Reading a request that may be an MRTR retry: `begin`, and the [`Call`] a
//! handler reads.
//!
//! `begin` validates, in order: the JSON text (size, syntax, duplicate keys,
//! depth), the JSON-RPC request shape, the per-request `_meta` dialect
//! (`protocolVersion` and `clientCapabilities` required, version supported),
//! and on the three MRTR methods in the 2026-07-28 dialect the retry envelope
//! (`inputResponses`, `requestState`) and the token.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::answer::Answer;
use crate::decide::Response;
use crate::elicitation;
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, JsonError};
pub use crate::token::Principal;
use crate::token::{self, Opened};

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

/// One request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Call {
    pub(crate) id: Value,
    pub(crate) method: String,
    pub(crate) params: Map<String, Value>,
    pub(crate) principal: Principal,
    pub(crate) protocol_version: String,
    pub(crate) mrtr: bool,
    pub(crate) capabilities: Value,
    pub(crate) client_info: Option<Value>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) round: u32,
    pub(crate) flow_start: u64,
    pub(crate) binding: [u8; 32],
    pub(crate) opened: Option<Opened>,
    /// The token's state, parsed on first read (parsing costs more than
    /// opening the token, and many handlers never read it).
    pub(crate) state_cache: OnceLock<Option<Value>>,
    pub(crate) responses: Map<String, Value>,
    /// Set by the first `decide`: one request gets one response. Shared by
    /// clones, because a clone is the same request (same id, same token).
    pub(crate) decided: Arc<AtomicBool>,
    /// Issue 13: the engine's `strict_answers` (answers without a token ignored).
    pub(crate) strict_answers: bool,
    /// Issue 14 hook: `Some(flow tag)` on a call that arrived on a 2025-era
    /// session (`Engine::begin_legacy`); the tag names the legacy bridge's
    /// outgoing request ids. `None` on every 2026 call.
    pub(crate) legacy_tag: Option<String>,
}

impl Call {
    /// The JSON-RPC id, exactly as received (string or number; `0` is valid).
    pub fn id(&self) -> &Value {
        &self.id
    }
    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }
    /// The salient params: everything but `_meta`, `inputResponses` and
    /// `requestState`. This is exactly what the token binds.
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }
    /// `params.name` (tools/call, prompts/get), if a string.
    pub fn name(&self) -> Option<&str> {
        self.params.get("name").and_then(Value::as_str)
    }
    /// `params.uri` (resources/read), if a string.
    pub fn uri(&self) -> Option<&str> {
        self.params.get("uri").and_then(Value::as_str)
    }
    /// `params.arguments`, if present.
    pub fn arguments(&self) -> Option<&Value> {
        self.params.get("arguments")
    }
    /// The principal the application passed to `begin`.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }
    /// The request's protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }
    /// Whether input_required may be answered: one of the three MRTR methods
    /// in the 2026-07-28 dialect or later.
    pub fn mrtr_allowed(&self) -> bool {
        self.mrtr && crate::MRTR_METHODS.contains(&self.method.as_str())
    }
    /// Whether the request arrived on a 2025-era session (issue 14,
    /// `Engine::begin_legacy`): decide it with `Engine::decide_legacy`.
    pub fn is_legacy(&self) -> bool {
        self.legacy_tag.is_some()
    }
    /// This request's client capabilities (never an earlier request's).
    pub fn client_capabilities(&self) -> &Value {
        &self.capabilities
    }
    /// The self-reported client info, if sent. Informational only: never
    /// use it for security decisions.
    pub fn client_info(&self) -> Option<&Value> {
        self.client_info.as_ref()
    }
    /// The rest of the request's `_meta` (for example `progressToken`),
    /// without the protocol version, client capabilities and client info
    /// that snodo reads itself. snodo makes no decision on these keys.
    pub fn meta(&self) -> &Map<String, Value> {
        &self.meta
    }
    /// 1 for a first call, n+1 for a retry of round n.
    pub fn round(&self) -> u32 {
        self.round
    }
    /// Whether this request carried a valid token.
    pub fn is_retry(&self) -> bool {
        self.opened.is_some()
    }
    /// Unix seconds when the flow began (this request's time on round 1).
    pub fn flow_start(&self) -> u64 {
        self.flow_start
    }
    /// The application state carried by the token, if any.
    pub fn state(&self) -> Option<&Value> {
        self.state_cache.get_or_init(|| self.opened.as_ref().and_then(Opened::state)).as_ref()
    }
    /// The keys asked in the previous round (empty on round 1).
    pub fn asked_keys(&self) -> Vec<&str> {
        self.opened
            .as_ref()
            .map(|o| o.question_digests.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The answer to input request `key`, which the handler would ask as
    /// `request`. On a call with a verified token it counts only if that
    /// exact request was asked under that key in the previous round (its
    /// digest is pinned in the token); otherwise it is [`Answer::Missing`]
    /// and the handler simply asks again. On a call *without* a token
    /// (issue 13) an answer sent under `key` counts for `request`, unless the
    /// engine is configured with `strict_answers`. Either way accepted
    /// content is validated against the request's schema.
    pub fn response(&self, key: &str, request: &Value) -> Answer {
        match &self.opened {
            Some(opened) => {
                let Some(pinned) = opened.question_digests.get(key) else { return Answer::Missing };
                if *pinned != token::question_digest(request) {
                    // Issue 13: an answer to a question that changed since
                    // sealing is its own state, not silently missing.
                    return if self.responses.contains_key(key) { Answer::Changed } else { Answer::Missing };
                }
            }
            // No token: nothing pins the question, so the handler's own
            // question is the one answered (the client answers what it
            // likes in any case; pinning guards only against an answer to a
            // *different* question across rounds). Strict mode ignores it.
            // tasks/update never has a token: strict mode does not apply.
            None if self.strict_answers && self.method != crate::tasks::TASKS_UPDATE => {
                return Answer::Missing;
            }
            None => {}
        }
        let Some(answer) = self.responses.get(key) else { return Answer::Missing };
        match elicitation::validate_input_request(request) {
            Ok(kind) => elicitation::read_answer(request, kind, answer),
            // The question itself is invalid: decide would never have sent it.
            Err(e) => Answer::Invalid(format!("request: {}", e.message())),
        }
    }

    /// Every entry of the request's `inputResponses`, exactly as received
    /// and unvalidated (issue 13): for logging, or for handlers that need
    /// to see keys they did not ask. Prefer [`Call::response`], which
    /// validates. Empty when the request had none or its method ignores them.
    pub fn input_responses(&self) -> &Map<String, Value> {
        &self.responses
    }

    /// The raw answer for `key`, without pinning the question: only for keys
    /// asked in the previous round, and the handler validates it itself. For
    /// handlers that cannot rebuild the same request each round.
    pub fn raw_response(&self, key: &str) -> Option<&Value> {
        let opened = self.opened.as_ref()?;
        if !opened.question_digests.contains_key(key) {
            return None;
        }
        self.responses.get(key)
    }
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

pub(crate) fn begin(engine: &Engine, bytes: &[u8], principal: &Principal) -> Result<Begin> {
    let value = match json::parse(bytes, engine.max_request_bytes) {
        Ok(v) => v,
        Err(JsonError::Syntax(_)) => {
            return Ok(Begin::Respond(jsonrpc_error(Value::Null, -32700, "Parse error", None, 400)));
        }
        Err(JsonError::TooLarge) => {
            return Ok(invalid_params(Value::Null, "Request exceeds the size limit", 400));
        }
        Err(JsonError::TooDeep) => {
            return Ok(invalid_params(Value::Null, "Request is nested too deeply", 400));
        }
        Err(JsonError::DuplicateKey(_)) => {
            return Ok(invalid_params(Value::Null, "Request has a duplicate object key", 400));
        }
    };
    begin_value(engine, value, principal)
}

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => json::number_is_integer(n) && n.as_f64().is_some(),
        _ => false,
    }
}

pub(crate) fn begin_value(engine: &Engine, value: Value, principal: &Principal) -> Result<Begin> {
    let Value::Object(mut msg) = value else {
        return Ok(Begin::Respond(jsonrpc_error(Value::Null, -32600, "Invalid Request", None, 400)));
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
        return Err(Error::new(ErrorCode::NotARequest, "a response, not a request"));
    }
    if !valid_id(&id) {
        return Ok(Begin::Respond(jsonrpc_error(Value::Null, -32600, "Invalid Request: bad id", None, 400)));
    }
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Ok(Begin::Respond(jsonrpc_error(
            id,
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
            None,
            400,
        )));
    }
    let method = match msg.remove("method") {
        Some(Value::String(m)) if !m.is_empty() => m,
        _ => {
            return Ok(Begin::Respond(jsonrpc_error(
                id,
                -32600,
                "Invalid Request: method must be a string",
                None,
                400,
            )));
        }
    };
    let mut params = match msg.remove("params") {
        Some(Value::Object(p)) => p,
        None => Map::new(),
        Some(_) => return Ok(invalid_params(id, "Invalid params: params must be an object", 400)),
    };

    // The 2026-07-28 dialect: every request carries its own _meta.
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        None => Map::new(),
        Some(_) => return Ok(invalid_params(id, "Invalid params: _meta must be an object", 400)),
    };
    let version = match meta.remove(META_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v,
        None => {
            return Ok(invalid_params(
                id,
                "Missing required _meta field io.modelcontextprotocol/protocolVersion",
                400,
            ));
        }
        Some(_) => {
            return Ok(invalid_params(
                id,
                "Invalid _meta field io.modelcontextprotocol/protocolVersion: must be a string",
                400,
            ));
        }
    };
    // Issue 13: the version is checked before anything else in _meta, so a
    // client on an unknown version always learns which versions to use
    // (-32022 with supported/requested), even if its other _meta fields
    // follow a different revision's rules.
    if !engine.versions.iter().any(|v| v == &version) {
        return Ok(Begin::Respond(jsonrpc_error(
            id,
            -32022,
            "Unsupported protocol version",
            Some(json!({"supported": engine.versions, "requested": version})),
            400,
        )));
    }
    let capabilities = match meta.remove(META_CLIENT_CAPABILITIES) {
        Some(c @ Value::Object(_)) => c,
        None => {
            return Ok(invalid_params(
                id,
                "Missing required _meta field io.modelcontextprotocol/clientCapabilities",
                400,
            ));
        }
        Some(_) => {
            return Ok(invalid_params(
                id,
                "Invalid _meta field io.modelcontextprotocol/clientCapabilities: must be an object",
                400,
            ));
        }
    };
    for cap in ["elicitation", "sampling", "roots"] {
        if capabilities.get(cap).is_some_and(|c| !c.is_object()) {
            return Ok(invalid_params(
                id,
                &format!("Invalid clientCapabilities.{cap}: must be an object"),
                400,
            ));
        }
    }
    // Informational only; a malformed optional field is ignored, not fatal.
    let client_info = meta.remove(META_CLIENT_INFO).filter(Value::is_object);

    let mrtr = version.as_str() >= crate::MRTR_VERSION;
    let input_responses = params.remove("inputResponses");
    let request_state = params.remove("requestState");
    let call = Call {
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
        flow_start: engine.now(),
        binding: [0; 32],
        opened: None,
        state_cache: OnceLock::new(),
        responses: Map::new(),
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: engine.strict_answers,
        legacy_tag: None,
    };
    let now = call.flow_start;
    if call.mrtr && call.method == crate::tasks::TASKS_UPDATE {
        // Issue 13: tasks/update carries answers to a task's input requests;
        // the envelope is read as on a retry (no token: the task's unique
        // keys pin the questions), so Call::response reaches them.
        let mut call = Box::new(call);
        return match read_input_responses(engine, &call.id, input_responses) {
            Ok(entries) => {
                call.responses = entries;
                Ok(Begin::Call(call))
            }
            Err(respond) => Ok(respond),
        };
    }
    if !call.mrtr_allowed() {
        // inputResponses / requestState mean nothing here: never honoured.
        return Ok(Begin::Call(Box::new(call)));
    }
    let mut call = Box::new(call);
    call.binding = token::binding_digest_map(&call.method, &call.params);
    // Issue 13: the configured audience, if any, is bound into every token.
    call.binding = crate::audience::audience_binding(&call.binding, engine.audience.as_deref());
    finish_retry(engine, call, input_responses, request_state, now)
}

/// The `inputResponses` envelope: absent, or an object of at most
/// `max_input_responses` objects; anything else is the ready `-32602`.
fn read_input_responses(
    engine: &Engine,
    id: &Value,
    input_responses: Option<Value>,
) -> std::result::Result<Map<String, Value>, Begin> {
    match input_responses {
        None => Ok(Map::new()),
        Some(Value::Object(entries)) => {
            if entries.len() > engine.max_input_responses {
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
    engine: &Engine,
    mut call: Box<Call>,
    input_responses: Option<Value>,
    request_state: Option<Value>,
    now: u64,
) -> Result<Begin> {
    match read_input_responses(engine, &call.id, input_responses) {
        Ok(entries) => call.responses = entries,
        Err(respond) => return Ok(respond),
    }
    match request_state {
        None => {}
        Some(Value::String(s)) if !s.is_empty() => {
            match engine.open_at(now, &s, &call.principal, &call.binding) {
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
