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

use crate::call::Call;
use crate::capabilities;
use crate::elicitation::{self, Question};
use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::policy::Policy;
use crate::response::{Outcome, Response};
use crate::token::{SealInput, Sealer};

/// The message of a second `decide`, in every language.
pub const ALREADY_DECIDED_MESSAGE: &str = "call: already decided";

/// Turns the handler's `outcome` for `call` into the response, sealing any
/// token at the time `now()` returns. A call is decided once: a second
/// `decide` of it (or of a clone) is [`ErrorCode::AlreadyDecided`]. Only a
/// produced response marks the call; a binding that fails to read its
/// outcome argument (`ARGUMENT`) never reaches here.
pub(crate) fn decide(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    call: &Call,
    outcome: Outcome,
) -> Result<Response> {
    mark_decided(call)?;
    Ok(respond(policy, sealer, now, call, outcome))
}

/// Marks `call` decided, or [`ErrorCode::AlreadyDecided`] if it (or a clone)
/// already was. Shared with the legacy bridge, whose `decide_legacy` is the
/// other way to decide a call.
pub(crate) fn mark_decided(call: &Call) -> Result<()> {
    if call.decided.swap(true, std::sync::atomic::Ordering::AcqRel) {
        return Err(Error::new(ErrorCode::AlreadyDecided, ALREADY_DECIDED_MESSAGE));
    }
    Ok(())
}

/// The response for an already marked call (the legacy bridge decides
/// every outcome but a legacy `input_required` through here).
pub(crate) fn respond(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    call: &Call,
    outcome: Outcome,
) -> Response {
    decide_once(&Ctx { policy, sealer, now }, call, outcome)
}

/// What the steps below read: the policy, the sealer and the clock.
struct Ctx<'a> {
    policy: &'a Policy,
    sealer: &'a Sealer,
    now: &'a dyn Fn() -> u64,
}

fn decide_once(ctx: &Ctx<'_>, call: &Call, outcome: Outcome) -> Response {
    match outcome {
        Outcome::Complete(result) | Outcome::Raw(result) => raw(ctx, call, result),
        Outcome::InputRequired { requests, state } => input_required(ctx, call, requests, state, None),
        Outcome::Error { code, message, data } => {
            let id = call.id.clone();
            // Code and data per the spec's error-code rules.
            let (code, data) = match crate::error_policy::check_error(
                code,
                data,
                &ctx.policy.versions,
                &call.protocol_version,
            ) {
                Ok(checked) => checked,
                Err(why) => return Response::internal(id, why),
            };
            let message = if message.is_empty() { "Server error".to_owned() } else { message };
            Response::error(id, code, &message, data, crate::response::status_for(code))
        }
        Outcome::Task { .. } => Response::internal(
            call.id.clone(),
            "a task outcome is answered by Engine::task_step, which stores the task".into(),
        ),
        Outcome::ToolError(message) => {
            if call.method != "tools/call" {
                return Response::internal(
                    call.id.clone(),
                    format!("a tool error is only valid on tools/call, not {}", call.method),
                );
            }
            let result = json!({"content": [{"type": "text", "text": message}], "isError": true});
            complete(ctx, call, result)
        }
    }
}

fn raw(ctx: &Ctx<'_>, call: &Call, result: Value) -> Response {
    let Value::Object(mut obj) = result else {
        return Response::internal(call.id.clone(), "a result must be a JSON object".into());
    };
    match obj.get("resultType") {
        None => complete(ctx, call, Value::Object(obj)),
        Some(Value::String(t)) if t == "complete" => complete(ctx, call, Value::Object(obj)),
        Some(Value::String(t)) if t == "input_required" => {
            let questions = placement(call)
                .and_then(|()| raw_input_requests(&mut obj).map_err(str::to_owned))
                .and_then(questions_of);
            let requests = match questions {
                Ok(requests) => requests,
                Err(why) => return Response::internal(call.id.clone(), why),
            };
            // Everything else (cache hints included) is dropped; _meta is kept.
            let meta = obj.remove("_meta").filter(Value::is_object);
            input_required(ctx, call, requests, None, meta)
        }
        // The Tasks extension's CreateTaskResult.
        Some(Value::String(t)) if t == "task" => task(ctx, call, obj),
        Some(other) => {
            Response::internal(call.id.clone(), format!("unsupported resultType {}", json::to_wire(other)))
        }
    }
}

/// The input requests of a raw `input_required` result (taken out of
/// `obj`), for `decide` and the legacy bridge alike: the result may not
/// carry its own `requestState` (only snodo seals one), and
/// `inputRequests`, when present, is an object. The `Err` is the
/// diagnostic of the `-32603`.
pub(crate) fn raw_input_requests(obj: &mut Map<String, Value>) -> Result<Vec<(String, Value)>, &'static str> {
    if obj.contains_key("requestState") {
        return Err(
            "a raw input_required result may not carry its own requestState; pass state to InputRequired and snodo seals it",
        );
    }
    match obj.remove("inputRequests") {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => Ok(m.into_iter().collect()),
        Some(_) => Err("inputRequests must be an object"),
    }
}

/// A `CreateTaskResult` (Tasks extension): only on `tools/call` in
/// the 2026-07-28 dialect, only to a client declaring the extension on this
/// request (else `-32021` naming it), and only a well-formed task.
fn task(ctx: &Ctx<'_>, call: &Call, mut obj: Map<String, Value>) -> Response {
    let id = call.id.clone();
    if !call.mrtr || !crate::tasks::TASK_METHODS.contains(&call.method.as_ref()) {
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
    stamp_server_info(ctx, &mut obj);
    Response::result(id, Value::Object(obj))
}

fn stamp_server_info(ctx: &Ctx<'_>, obj: &mut Map<String, Value>) {
    let Some(info) = &ctx.policy.server_info else { return };
    let meta = obj.entry("_meta").or_insert_with(|| json!({}));
    if let Value::Object(m) = meta {
        m.entry("io.modelcontextprotocol/serverInfo").or_insert_with(|| info.clone());
    }
}

fn complete(ctx: &Ctx<'_>, call: &Call, result: Value) -> Response {
    let Value::Object(mut obj) = result else {
        return Response::internal(call.id.clone(), "a result must be a JSON object".into());
    };
    match obj.get("resultType") {
        None => {
            obj.insert("resultType".into(), json!("complete"));
        }
        Some(Value::String(t)) if t == "complete" => {}
        Some(_) => return raw(ctx, call, Value::Object(obj)),
    }
    // The final result is checked against the 2026-07-28 schema
    // for its method before it can reach the wire.
    if let Err(why) = crate::result_check::check_result(&call.method, &obj, call.mrtr) {
        return Response::internal(call.id.clone(), format!("invalid {} result: {why}", call.method));
    }
    // A 2025-era client does not know `resultType` (the legacy
    // wire never carries 2026 vocabulary).
    if call.legacy_tag.is_some() {
        obj.remove("resultType");
    }
    stamp_server_info(ctx, &mut obj);
    Response::result(call.id.clone(), Value::Object(obj))
}

/// The input requests of a raw `input_required` result as questions, in
/// their order: each key valid and unique, each request valid. The `Err`
/// is the diagnostic of the `-32603`.
pub(crate) fn questions_of(
    requests: Vec<(String, Value)>,
) -> std::result::Result<Vec<(String, Question)>, String> {
    let mut questions: Vec<(String, Question)> = Vec::with_capacity(requests.len());
    for (key, request) in requests {
        key_problem(&questions, &key)?;
        match Question::from_value(request) {
            Ok(q) => questions.push((key, q)),
            Err(e) => return Err(format!("inputRequests[{key:?}]: {e}")),
        }
    }
    Ok(questions)
}

/// Why `key` cannot be the next key after `before`: invalid, or taken.
fn key_problem(before: &[(String, Question)], key: &str) -> std::result::Result<(), String> {
    if let Err(e) = elicitation::validate_key(key) {
        return Err(format!("inputRequests key: {}", e.message()));
    }
    if before.iter().any(|(k, _)| k == key) {
        return Err(format!("inputRequests: duplicate key {key:?}"));
    }
    Ok(())
}

/// The questions of an `input_required` outcome, checked: keys valid and
/// unique, at least one question or a state. The `Err` is the diagnostic
/// of the `-32603`. Shared with the legacy bridge, which asks the same
/// questions over another wire.
pub(crate) fn check_questions(
    requests: &[(String, Question)],
    has_state: bool,
) -> std::result::Result<(), String> {
    for (i, (key, _)) in requests.iter().enumerate() {
        key_problem(requests.get(..i).unwrap_or_default(), key)?;
    }
    if requests.is_empty() && !has_state {
        return Err("input_required needs at least one input request or a state".into());
    }
    Ok(())
}

/// Where `input_required` may be answered: the three MRTR methods in the
/// 2026-07-28 dialect. The `Err` is the diagnostic of the `-32603`.
fn placement(call: &Call) -> std::result::Result<(), String> {
    if !call.mrtr {
        // Say where a legacy call's input_required belongs.
        let hint = if call.legacy_tag.is_some() { " (use decide_legacy on a legacy call)" } else { "" };
        return Err(format!(
            "input_required needs protocol 2026-07-28; this request uses {}{hint}",
            call.protocol_version
        ));
    }
    if !crate::MRTR_METHODS.contains(&call.method.as_str()) {
        return Err(format!("input_required is not allowed on {}", call.method));
    }
    Ok(())
}

fn input_required(
    ctx: &Ctx<'_>,
    call: &Call,
    requests: Vec<(String, Question)>,
    state: Option<Value>,
    meta: Option<Value>,
) -> Response {
    let id = call.id.clone();
    if let Err(why) = placement(call).and_then(|()| check_questions(&requests, state.is_some())) {
        return Response::internal(id, why);
    }
    if let Some(response) = admit(&id, &requests, &call.capabilities) {
        return response;
    }
    let input = SealInput {
        principal: &call.principal,
        binding: &call.binding,
        round: call.round,
        flow_start: call.flow_start,
        questions: &requests,
        state: state.as_ref(),
    };
    // A retry continues the flow of the token it opened.
    let flow = call.opened.as_ref().map(|o| o.flow_id_bytes());
    let token = match ctx.sealer.seal_in_flow((ctx.now)(), &input, flow) {
        Ok(t) => t,
        Err(e) => return Response::internal(id, e.to_string()),
    };
    // Server info goes into `_meta` as `stamp_server_info` puts it there.
    let meta = match (&ctx.policy.server_info, meta) {
        (None, meta) => meta,
        (Some(_), meta) => {
            let mut holder = Map::new();
            if let Some(m) = meta {
                holder.insert("_meta".into(), m);
            }
            stamp_server_info(ctx, &mut holder);
            holder.remove("_meta")
        }
    };
    Response::input_required(id, requests, token, meta)
}

/// Capability admission: the `-32021` naming what `capabilities` lacks to
/// receive `requests` (HTTP 400), or `None` when the client can receive
/// them all.
pub(crate) fn admit(id: &Value, requests: &[(String, Question)], capabilities: &Value) -> Option<Response> {
    // The usual case, a client that can receive every request, without
    // building the (then empty) object of what is missing: that object is
    // empty exactly when every need of every request is satisfied.
    if requests.iter().all(|(_, r)| capabilities::can_receive(r.value(), capabilities)) {
        return None;
    }
    let missing = capabilities::missing_of(requests.iter().map(|(_, r)| r.value()), capabilities);
    if missing.as_object().is_some_and(|m| !m.is_empty()) {
        return Some(Response::error(
            id.clone(),
            -32021,
            "Missing required client capability",
            Some(json!({"requiredCapabilities": missing})),
            400,
        ));
    }
    None
}
