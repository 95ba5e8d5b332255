//! Turning a handler's [`Outcome`] into the JSON-RPC [`Response`].
//!
//! `decide` is the last gate before the wire. It enforces placement
//! (`input_required` only on `tools/call`, `resources/read`, `prompts/get`
//! in the 2026-07-28 dialect), valid input requests and keys, the
//! at-least-one rule, capability admission (`-32021`), the error-code policy,
//! and it seals a fresh token and stamps `resultType`. A handler bug never
//! reaches the wire as a malformed result: it becomes `-32603` with a
//! [`Response::diagnostic`] for the server's log.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use crate::call::Call;
use crate::capabilities;
use crate::elicitation;
use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::policy::Policy;
use crate::response::{Outcome, Question, Response};
use crate::token::{SealParts, Sealer};

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
    // The id is cloned where a response is made, not here for every
    // outcome (a number's text is a heap `String`; sixth pass).
    match outcome {
        Outcome::Complete(result) | Outcome::Raw(result) => raw(ctx, call, result),
        Outcome::InputRequired { requests, state } => {
            input_required(ctx, call, requests, Ask::Value(state), None)
        }
        Outcome::InputRequiredText { requests, state } => {
            input_required(ctx, call, requests, Ask::Text(state), None)
        }
        Outcome::InputRequiredShared { requests, state } => {
            let state = state.map_or(Ask::Value(None), Ask::Text);
            input_required(ctx, call, requests, state, None)
        }
        Outcome::Error { code, message, data } => {
            let id = call.id.clone();
            // Issue 13: code and data per the spec's error-code rules.
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
            let requests = match raw_input_requests(&mut obj) {
                Ok(requests) => requests,
                Err(why) => return Response::internal(call.id.clone(), why.into()),
            };
            // Everything else (cache hints included) is dropped; _meta is kept.
            let meta = obj.remove("_meta").filter(Value::is_object);
            input_required(ctx, call, requests, Ask::Value(None), meta)
        }
        // Issue 13: the Tasks extension's CreateTaskResult.
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

/// A `CreateTaskResult` (Tasks extension, issue 13): only on `tools/call` in
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
    // Issue 13: the final result is checked against the 2026-07-28 schema
    // for its method before it can reach the wire.
    if let Err(why) = crate::result_check::check_result(&call.method, &obj, call.mrtr) {
        return Response::internal(call.id.clone(), format!("invalid {} result: {why}", call.method));
    }
    // Issue 14: a 2025-era client does not know `resultType` (the legacy
    // wire never carries 2026 vocabulary).
    if call.legacy_tag.is_some() {
        obj.remove("resultType");
    }
    stamp_server_info(ctx, &mut obj);
    Response::result(call.id.clone(), Value::Object(obj))
}

/// The state an input_required outcome carries: a tree, or (issue 16)
/// canonical text sealed as it is.
enum Ask {
    Value(Option<Value>),
    Text(json::StateText),
}

fn input_required<Q: Question>(
    ctx: &Ctx<'_>,
    call: &Call,
    requests: Vec<(String, Q)>,
    state: Ask,
    meta: Option<Value>,
) -> Response {
    let id = call.id.clone();
    if !call.mrtr {
        // Issue 14: say where a legacy call's input_required belongs.
        let hint = if call.legacy_tag.is_some() { " (use decide_legacy on a legacy call)" } else { "" };
        return Response::internal(
            id,
            format!(
                "input_required needs protocol 2026-07-28; this request uses {}{hint}",
                call.protocol_version
            ),
        );
    }
    if !crate::MRTR_METHODS.contains(&call.method.as_ref()) {
        return Response::internal(id, format!("input_required is not allowed on {}", call.method));
    }
    let has_state = match &state {
        Ask::Value(v) => v.is_some(),
        Ask::Text(_) => true,
    };
    // Issue 16: each question's digest, which the token carries anyway,
    // also says whether this thread has seen it pass validation (see
    // `elicitation::passed_before`). Questions nested past the bound get
    // none (seal refuses them); the bound is checked in the hashing walk.
    // One list of digests, used only when every question has one (the
    // second, `Option`-free list for `seal` is gone; sixth pass): when one
    // is too deep, seal fails, and no question counts as seen before.
    // Seventh pass: up to four digests on the stack (one allocation less
    // for the usual one or two questions), more in a `Vec`. Eighth pass: a
    // question this thread asked and passed before is digested from its
    // kept copy (`token::question_digest_asked`: the same digest,
    // without writing and hashing the question again).
    let mut within = true;
    let (mut on_stack, mut on_heap) = ([[0u8; 32]; 4], Vec::new());
    let digests: &mut [[u8; 32]] = match on_stack.get_mut(..requests.len()) {
        Some(few) => few,
        None => {
            on_heap.resize(requests.len(), [0; 32]);
            &mut on_heap
        }
    };
    for (slot, (_, r)) in digests.iter_mut().zip(&requests) {
        match crate::token::question_digest_asked(r.borrow(), &elicitation::passed_before) {
            Some(d) => *slot = d,
            None => within = false,
        }
    }
    let digests: &[[u8; 32]] = digests;
    let digest = |i: usize| if within { digests.get(i).copied() } else { None };
    let known = |i: usize| digest(i).is_some_and(|d| elicitation::passed_before(&d));
    let passed = &mut |i: usize, kind| {
        if let Some(d) = digest(i) {
            elicitation::remember_passed(d, kind);
        }
    };
    if let Err(response) = each_question(&id, &requests, has_state, &known, passed) {
        return response;
    }
    if let Some(response) = admit(&id, &requests, &call.capabilities) {
        return response;
    }
    let input = SealParts {
        principal: &call.principal,
        binding: &call.binding,
        round: call.round,
        flow_start: call.flow_start,
        questions: &requests,
        state: match &state {
            Ask::Value(v) => v.as_ref(),
            Ask::Text(_) => None,
        },
    };
    // Issue 17: a retry continues the flow of the token it opened.
    let flow = call.opened.as_ref().map(|o| o.flow_id_bytes());
    let text = match &state {
        Ask::Value(_) => None,
        Ask::Text(text) => Some(text),
    };
    let all = within.then_some(digests);
    let sealed = ctx.sealer.seal_with_digests((ctx.now)(), &input, flow, text, all);
    let token = match sealed {
        Ok(t) => t,
        Err(e) => return Response::internal(id, e.to_string()),
    };
    // Issue 16, seventh pass: the response keeps its parts and writes its
    // text from them (`Response::input_required`); keys are unique by now.
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

/// The input requests of an `input_required` outcome, checked (keys valid
/// and unique, each request valid, at least one request or a state): their
/// kinds, or the `-32603` for the server's log. Shared with the legacy
/// bridge, which asks the same questions over another wire.
pub(crate) fn check_questions<Q: Borrow<Value>>(
    id: &Value,
    requests: &[(String, Q)],
    has_state: bool,
) -> std::result::Result<Vec<elicitation::RequestKind>, Response> {
    let mut kinds = Vec::with_capacity(requests.len());
    each_question(id, requests, has_state, &|_| false, &mut |_, kind| kinds.push(kind))?;
    Ok(kinds)
}

/// [`check_questions`], handing each validated request's index and kind
/// to `kind` (`decide` needs no list of them). A request for which `known`
/// says it passed before is not validated again (its keys still are).
fn each_question<Q: Borrow<Value>>(
    id: &Value,
    requests: &[(String, Q)],
    has_state: bool,
    known: &dyn Fn(usize) -> bool,
    kind: &mut dyn FnMut(usize, elicitation::RequestKind),
) -> std::result::Result<(), Response> {
    let internal = |why: String| Err(Response::internal(id.clone(), why));
    for (i, (key, request)) in requests.iter().enumerate() {
        if let Err(e) = elicitation::validate_key(key) {
            return internal(format!("inputRequests key: {}", e.message()));
        }
        if requests.iter().take(i).any(|(k, _)| k == key) {
            return internal(format!("inputRequests: duplicate key {key:?}"));
        }
        if known(i) {
            continue;
        }
        match elicitation::validate_input_request(request.borrow()) {
            Ok(k) => kind(i, k),
            Err(e) => return internal(format!("inputRequests[{key:?}]: {e}")),
        }
    }
    if requests.is_empty() && !has_state {
        return internal("input_required needs at least one input request or a state".into());
    }
    Ok(())
}

/// Capability admission: the `-32021` naming what `capabilities` lacks to
/// receive `requests` (HTTP 400), or `None` when the client can receive
/// them all.
pub(crate) fn admit<Q: Borrow<Value>>(
    id: &Value,
    requests: &[(String, Q)],
    capabilities: &Value,
) -> Option<Response> {
    // The usual case, a client that can receive every request, without
    // building the (then empty) object of what is missing: that object is
    // empty exactly when every need of every request is satisfied.
    if requests.iter().all(|(_, r)| capabilities::can_receive(r.borrow(), capabilities)) {
        return None;
    }
    let missing = capabilities::missing_of(requests.iter().map(|(_, r)| r.borrow()), capabilities);
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
