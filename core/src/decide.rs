//! Turning a handler's [`Outcome`] into the JSON-RPC [`Response`].
//!
//! `decide` is the last gate before the wire. It enforces placement
//! (`input_required` only on `tools/call`, `resources/read`, `prompts/get`
//! in the 2026-07-28 dialect), valid input requests and keys, the
//! at-least-one rule, capability admission (`-32021`), the error-code policy,
//! and it seals a fresh token and stamps `resultType`. A handler bug never
//! reaches the wire as a malformed result: it becomes `-32603` with a
//! [`Response::diagnostic`] for the server's log.

use serde_json::{Map, Value, json};

use crate::capabilities;
use crate::elicitation;
use crate::engine::Engine;
use crate::envelope::Call;
use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::token::SealInput;

/// What the handler decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A final result object (`resultType` is stamped `"complete"`).
    Complete(Value),
    /// Ask the client for input. `requests` are `(key, request)` pairs, each
    /// request built with the builders (or by hand: the same checks apply).
    /// `state` is carried, readable and sealed, to the retry. At least one of
    /// a non-empty `requests` or a `state` is required.
    InputRequired {
        /// The questions, by key.
        requests: Vec<(String, Value)>,
        /// Application state for the next round.
        state: Option<Value>,
    },
    /// A JSON-RPC error.
    Error {
        /// The code; codes the spec reserves or forbids become `-32603`.
        code: i64,
        /// A concise message.
        message: String,
        /// Optional data.
        data: Option<Value>,
    },
    /// A tool-level failure (`tools/call` only): a complete result with
    /// `isError: true` and the message as text content.
    ToolError(String),
    /// A raw result object, checked exactly like the typed outcomes
    /// (`resultType` absent or `"complete"` → complete; `"input_required"` →
    /// input required with its `inputRequests`).
    Raw(Value),
}

impl Outcome {
    /// Reads an outcome from its JSON spelling, used by the C ABI and
    /// available to every binding:
    ///
    /// * `{"type":"complete","result":{…}}`
    /// * `{"type":"input_required","inputRequests":{…},"state":…}` (both optional)
    /// * `{"type":"error","code":-32602,"message":"…","data":…}`
    /// * `{"type":"tool_error","message":"…"}`
    /// * `{"type":"raw","result":{…}}`
    pub fn from_value(value: Value) -> Result<Outcome> {
        let bad = |m: &str| Error::new(ErrorCode::Argument, format!("outcome: {m}"));
        let Value::Object(mut o) = value else { return Err(bad("must be an object")) };
        let kind = match o.remove("type") {
            Some(Value::String(t)) => t,
            _ => return Err(bad("`type` must be a string")),
        };
        match kind.as_str() {
            "complete" => {
                Ok(Outcome::Complete(o.remove("result").ok_or_else(|| bad("complete needs `result`"))?))
            }
            "raw" => Ok(Outcome::Raw(o.remove("result").ok_or_else(|| bad("raw needs `result`"))?)),
            "input_required" => {
                let requests = match o.remove("inputRequests") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Object(m)) => m.into_iter().collect(),
                    Some(_) => return Err(bad("`inputRequests` must be an object")),
                };
                let state = o.remove("state").filter(|s| !s.is_null());
                Ok(Outcome::InputRequired { requests, state })
            }
            "error" => {
                let code = o
                    .get("code")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad("error needs an integer `code`"))?;
                let message = match o.remove("message") {
                    Some(Value::String(m)) => m,
                    _ => return Err(bad("error needs a string `message`")),
                };
                Ok(Outcome::Error { code, message, data: o.remove("data") })
            }
            "tool_error" => match o.remove("message") {
                Some(Value::String(m)) => Ok(Outcome::ToolError(m)),
                _ => Err(bad("tool_error needs a string `message`")),
            },
            other => Err(bad(&format!("unknown type {other:?}"))),
        }
    }
}

/// A JSON-RPC response message ready for the wire, with the HTTP status a
/// Streamable HTTP server should use.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    body: Value,
    http_status: u16,
    diagnostic: Option<String>,
}

impl Response {
    pub(crate) fn result(id: Value, result: Value) -> Response {
        Response {
            body: json!({"jsonrpc": "2.0", "id": id, "result": result}),
            http_status: 200,
            diagnostic: None,
        }
    }

    pub(crate) fn error(
        id: Value,
        code: i64,
        message: &str,
        data: Option<Value>,
        http_status: u16,
    ) -> Response {
        let mut err = Map::new();
        err.insert("code".into(), json!(code));
        err.insert("message".into(), json!(message));
        if let Some(d) = data {
            err.insert("data".into(), d);
        }
        Response { body: envelope(id, "error", Value::Object(err)), http_status, diagnostic: None }
    }

    pub(crate) fn internal(id: Value, why: String) -> Response {
        let mut r = Response::error(id, -32603, "Internal error", None, 200);
        r.diagnostic = Some(why);
        r
    }

    /// Issue 14 hook: the legacy bridge answers on a 2025 session, whose
    /// transport carries every JSON-RPC error in a 200 body.
    pub(crate) fn with_status(mut self, http_status: u16) -> Response {
        self.http_status = http_status;
        self
    }

    /// The whole JSON-RPC message.
    pub fn body(&self) -> &Value {
        &self.body
    }
    /// The message as compact JSON text.
    pub fn to_json(&self) -> String {
        json::to_wire(&self.body)
    }
    /// Consumes the response into its message.
    pub fn into_body(self) -> Value {
        self.body
    }
    /// The HTTP status for Streamable HTTP: 400 for `-32700`, `-32600`,
    /// `-32020`, `-32021`, `-32022` and `_meta`-level `-32602`; 404 for
    /// `-32601`; 200 otherwise.
    pub fn http_status(&self) -> u16 {
        self.http_status
    }
    /// Why snodo replaced the handler's outcome with `-32603`, for the
    /// server's log. Never sent on the wire.
    pub fn diagnostic(&self) -> Option<&str> {
        self.diagnostic.as_deref()
    }
    /// Whether this is an error response.
    pub fn is_error(&self) -> bool {
        self.body.get("error").is_some()
    }
}

/// `{"jsonrpc":"2.0","id":…,<kind>:…}`, built without the `json!` macro's
/// intermediate values (this is on every response's path).
fn envelope(id: Value, kind: &str, payload: Value) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".to_owned(), Value::String("2.0".to_owned()));
    m.insert("id".to_owned(), id);
    m.insert(kind.to_owned(), payload);
    Value::Object(m)
}

fn status_for(code: i64) -> u16 {
    match code {
        -32700 | -32600 | -32020 | -32021 | -32022 => 400,
        -32601 => 404,
        _ => 200,
    }
}

pub(crate) fn decide(engine: &Engine, call: &Call, outcome: Outcome) -> Response {
    let id = call.id.clone();
    match outcome {
        Outcome::Complete(result) | Outcome::Raw(result) => raw(engine, call, result),
        Outcome::InputRequired { requests, state } => input_required(engine, call, requests, state, None),
        Outcome::Error { code, message, data } => {
            // Issue 13: code and data per the spec's error-code rules.
            let (code, data) = match crate::error_policy::check_error(
                code,
                data,
                &engine.versions,
                &call.protocol_version,
            ) {
                Ok(checked) => checked,
                Err(why) => return Response::internal(id, why),
            };
            let message = if message.is_empty() { "Server error".to_owned() } else { message };
            Response::error(id, code, &message, data, status_for(code))
        }
        Outcome::ToolError(message) => {
            if call.method != "tools/call" {
                return Response::internal(
                    id,
                    format!("a tool error is only valid on tools/call, not {}", call.method),
                );
            }
            let result = json!({"content": [{"type": "text", "text": message}], "isError": true});
            complete(engine, call, result)
        }
    }
}

fn raw(engine: &Engine, call: &Call, result: Value) -> Response {
    let Value::Object(mut obj) = result else {
        return Response::internal(call.id.clone(), "a result must be a JSON object".into());
    };
    match obj.get("resultType") {
        None => complete(engine, call, Value::Object(obj)),
        Some(Value::String(t)) if t == "complete" => complete(engine, call, Value::Object(obj)),
        Some(Value::String(t)) if t == "input_required" => {
            if obj.contains_key("requestState") {
                return Response::internal(
                    call.id.clone(),
                    "a raw input_required result may not carry its own requestState; pass state to InputRequired and snodo seals it".into(),
                );
            }
            let requests = match obj.remove("inputRequests") {
                None => Vec::new(),
                Some(Value::Object(m)) => m.into_iter().collect(),
                Some(_) => {
                    return Response::internal(call.id.clone(), "inputRequests must be an object".into());
                }
            };
            // Everything else (cache hints included) is dropped; _meta is kept.
            let meta = obj.remove("_meta").filter(Value::is_object);
            input_required(engine, call, requests, None, meta)
        }
        // Issue 13: the Tasks extension's CreateTaskResult.
        Some(Value::String(t)) if t == "task" => task(engine, call, obj),
        Some(other) => {
            Response::internal(call.id.clone(), format!("unsupported resultType {}", json::to_wire(other)))
        }
    }
}

/// A `CreateTaskResult` (Tasks extension, issue 13): only on `tools/call` in
/// the 2026-07-28 dialect, only to a client declaring the extension on this
/// request (else `-32021` naming it), and only a well-formed task.
fn task(engine: &Engine, call: &Call, mut obj: Map<String, Value>) -> Response {
    let id = call.id.clone();
    if !call.mrtr || !crate::tasks::TASK_METHODS.contains(&call.method.as_str()) {
        return Response::internal(
            id,
            format!("a task result is not allowed on {} ({})", call.method, call.protocol_version),
        );
    }
    if !crate::tasks::declares_tasks(&call.capabilities) {
        let data = json!({"requiredCapabilities": crate::tasks::task_required_capabilities()});
        return Response::error(id, -32021, "Missing required client capability", Some(data), 400);
    }
    if let Err(why) = crate::tasks::check_create_task_result(&obj) {
        return Response::internal(id, format!("invalid task result: {why}"));
    }
    stamp_server_info(engine, &mut obj);
    Response::result(id, Value::Object(obj))
}

fn stamp_server_info(engine: &Engine, obj: &mut Map<String, Value>) {
    let Some(info) = &engine.server_info else { return };
    let meta = obj.entry("_meta").or_insert_with(|| json!({}));
    if let Value::Object(m) = meta {
        m.entry("io.modelcontextprotocol/serverInfo").or_insert_with(|| info.clone());
    }
}

fn complete(engine: &Engine, call: &Call, result: Value) -> Response {
    let Value::Object(mut obj) = result else {
        return Response::internal(call.id.clone(), "a result must be a JSON object".into());
    };
    match obj.get("resultType") {
        None => {
            obj.insert("resultType".into(), json!("complete"));
        }
        Some(Value::String(t)) if t == "complete" => {}
        Some(_) => return raw(engine, call, Value::Object(obj)),
    }
    // Issue 13: the final result is checked against the 2026-07-28 schema
    // for its method before it can reach the wire.
    if let Err(why) = crate::result_check::check_result(&call.method, &obj, call.mrtr) {
        return Response::internal(call.id.clone(), format!("invalid {} result: {why}", call.method));
    }
    // Issue 14 hook: a 2025-era client does not know `resultType` (the
    // legacy wire never carries 2026 vocabulary).
    if call.legacy_tag.is_some() {
        obj.remove("resultType");
    }
    stamp_server_info(engine, &mut obj);
    Response::result(call.id.clone(), Value::Object(obj))
}

fn input_required(
    engine: &Engine,
    call: &Call,
    requests: Vec<(String, Value)>,
    state: Option<Value>,
    meta: Option<Value>,
) -> Response {
    let id = call.id.clone();
    if !call.mrtr {
        // Issue 14 hook: say where a legacy call's input_required belongs.
        let hint = if call.legacy_tag.is_some() { " (use decide_legacy on a legacy call)" } else { "" };
        return Response::internal(
            id,
            format!(
                "input_required needs protocol 2026-07-28; this request uses {}{hint}",
                call.protocol_version
            ),
        );
    }
    if !crate::MRTR_METHODS.contains(&call.method.as_str()) {
        return Response::internal(id, format!("input_required is not allowed on {}", call.method));
    }
    let mut seen: Vec<&str> = Vec::with_capacity(requests.len());
    for (key, request) in &requests {
        if let Err(e) = elicitation::validate_key(key) {
            return Response::internal(id, format!("inputRequests key: {}", e.message()));
        }
        if seen.contains(&key.as_str()) {
            return Response::internal(id, format!("inputRequests: duplicate key {key:?}"));
        }
        seen.push(key);
        if let Err(e) = elicitation::validate_input_request(request) {
            return Response::internal(id, format!("inputRequests[{key:?}]: {e}"));
        }
    }
    if requests.is_empty() && state.is_none() {
        return Response::internal(id, "input_required needs at least one input request or a state".into());
    }
    let missing = capabilities::missing_of(requests.iter().map(|(_, r)| r), &call.capabilities);
    if missing.as_object().is_some_and(|m| !m.is_empty()) {
        return Response::error(
            id,
            -32021,
            "Missing required client capability",
            Some(json!({"requiredCapabilities": missing})),
            400,
        );
    }
    let input = SealInput {
        principal: &call.principal,
        binding: &call.binding,
        round: call.round,
        flow_start: call.flow_start,
        questions: &requests,
        state: state.as_ref(),
    };
    let token = match engine.seal_at(engine.now(), &input) {
        Ok(t) => t,
        Err(e) => return Response::internal(id, e.to_string()),
    };
    let mut result = Map::new();
    result.insert("resultType".into(), json!("input_required"));
    if !requests.is_empty() {
        result.insert("inputRequests".into(), Value::Object(requests.into_iter().collect()));
    }
    result.insert("requestState".into(), Value::String(token));
    if let Some(m) = meta {
        result.insert("_meta".into(), m);
    }
    stamp_server_info(engine, &mut result);
    Response::result(id, Value::Object(result))
}
