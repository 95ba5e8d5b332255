//! `decide_legacy`: an `input_required` outcome on a legacy call becomes the
//! server-to-client requests of one round plus a [`PendingFlow`]; every
//! other outcome is decided as on the 2026 path.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use super::Ctx;
use super::pending::{Leg, Origin, PendingFlow};
use crate::call::Call;
use crate::decide;
use crate::elicitation::{Question, RequestKind};
use crate::error::Result;
use crate::policy::Policy;
use crate::response::{Outcome, Response};
use crate::token::{Opened, SealInput, Sealer, TokenReason};

/// What [`Engine::decide_legacy`](crate::Engine::decide_legacy) produced.
///
/// Deliberately exhaustive, like [`Begin`](crate::Begin) and
/// [`Feed`](crate::Feed): each variant is something the server must do, so
/// a new one must fail to compile in every server, not fall into a
/// catch-all arm that does nothing. ([`Answer`](crate::Answer) and
/// [`Outcome`](crate::Outcome) are `#[non_exhaustive]`: asking again is the
/// right default for an answer kind a handler does not know.)
#[derive(Debug)]
pub enum Bridge {
    /// The final response to the originating request: send it.
    Respond(Response),
    /// Send [`PendingFlow::requests`] on the session, keep the flow, and
    /// feed each client response to it with `Engine::feed`.
    Send(Box<PendingFlow>),
    /// A round with state but nothing to ask: run the handler again with
    /// this call (pace it; the round cap bounds the loop).
    Resume(Box<Call>),
}

/// Why a bridged flow failed without reaching the handler again. The
/// name is the `data.reason` of the `-32603` (non-tool methods).
pub(crate) fn failure(origin_id: &Value, method: &str, reason: &str, text: &str) -> Response {
    if method == "tools/call" {
        // A tool-level failure the model can read, like a tool error.
        let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
        return Response::result(origin_id.clone(), result);
    }
    Response::error(origin_id.clone(), -32603, text, Some(json!({"reason": reason})), 200)
}

pub(crate) fn token_failure(origin_id: &Value, method: &str, reason: TokenReason) -> Response {
    match reason {
        TokenReason::Rounds => rounds_failure(origin_id, method),
        TokenReason::Expired => timeout_failure(origin_id, method),
        TokenReason::FlowAge => {
            failure(origin_id, method, "flow_age", "The request's flow is too old to continue")
        }
        _ => Response::internal(origin_id.clone(), format!("legacy flow token: {}", reason.name())),
    }
}

pub(crate) fn rounds_failure(origin_id: &Value, method: &str) -> Response {
    failure(
        origin_id,
        method,
        "rounds",
        "The request needed more rounds of client input than the server allows",
    )
}

pub(crate) fn timeout_failure(origin_id: &Value, method: &str) -> Response {
    failure(origin_id, method, "timeout", "The client did not answer the server's request in time")
}

/// Decides a call from `begin_legacy`: an `input_required` outcome becomes
/// the round's requests and a [`PendingFlow`]; any other outcome, and any
/// outcome on a 2026 call, is decided by `decide`'s code. A call is decided
/// once, whichever way (`ALREADY_DECIDED`).
pub(crate) fn decide_legacy(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    call: &Call,
    outcome: Outcome,
) -> Result<Bridge> {
    decide::mark_decided(call)?;
    let ctx = Ctx { policy, sealer, now };
    Ok(bridge(&ctx, call, outcome))
}

fn bridge(ctx: &Ctx<'_>, call: &Call, outcome: Outcome) -> Bridge {
    let Some(tag) = call.legacy_tag.as_deref() else {
        return Bridge::Respond(decide::respond(ctx.policy, ctx.sealer, ctx.now, call, outcome));
    };
    match outcome {
        Outcome::InputRequired { requests, state } => ask(ctx, call, tag, requests, state),
        // Run as a task: a 2025 session has no tasks, so the handler goes
        // on at once, in this request, reading the state.
        Outcome::Task { state } => match crate::task_machine::continuation(call, state) {
            Ok(next) => Bridge::Resume(next),
            Err(why) => Bridge::Respond(Response::internal(call.id.clone(), why).with_status(200)),
        },
        Outcome::Raw(Value::Object(mut obj))
            if obj.get("resultType").and_then(Value::as_str) == Some("input_required") =>
        {
            let questions = placement(call)
                .and_then(|()| decide::raw_input_requests(&mut obj).map_err(str::to_owned))
                .and_then(decide::questions_of);
            match questions {
                Ok(requests) => ask(ctx, call, tag, requests, None),
                Err(why) => Bridge::Respond(Response::internal(call.id.clone(), why)),
            }
        }
        // The 2025 transport carries every JSON-RPC answer in a 200 body.
        other => {
            Bridge::Respond(decide::respond(ctx.policy, ctx.sealer, ctx.now, call, other).with_status(200))
        }
    }
}

/// The legacy wire request for one input request (legacy-era.md §5.2):
/// the same method and params, `mode` only where the revision knows it,
/// and a minted `elicitationId` for URL mode.
fn leg_message(leg_id: &str, request: &Value, kind: RequestKind, revision: &str) -> Value {
    let method = request.get("method").cloned().unwrap_or(Value::Null);
    let mut params = match request.get("params") {
        Some(Value::Object(p)) => p.clone(),
        _ => Map::new(),
    };
    match kind {
        RequestKind::Form if revision < "2025-11-25" => {
            // 2025-06-18 has no `mode` field.
            params.remove("mode");
        }
        RequestKind::Form => {
            params.insert("mode".into(), json!("form"));
        }
        RequestKind::Url => {
            params.insert("elicitationId".into(), json!(leg_id));
        }
        _ => {}
    }
    let mut msg = Map::new();
    msg.insert("jsonrpc".into(), json!("2.0"));
    msg.insert("id".into(), json!(leg_id));
    msg.insert("method".into(), method);
    if !params.is_empty() || request.get("params").is_some() {
        msg.insert("params".into(), Value::Object(params));
    }
    Value::Object(msg)
}

/// Where a legacy `input_required` may be answered: the three MRTR
/// methods. The `Err` is the diagnostic of the `-32603`.
fn placement(call: &Call) -> std::result::Result<(), String> {
    if !crate::MRTR_METHODS.contains(&call.method.as_str()) {
        return Err(format!("input_required is not allowed on {}", call.method));
    }
    Ok(())
}

fn ask(
    ctx: &Ctx<'_>,
    call: &Call,
    tag: &str,
    requests: Vec<(String, Question)>,
    state: Option<Value>,
) -> Bridge {
    let id = call.id.clone();
    let internal = |why: String| Bridge::Respond(Response::internal(id.clone(), why));
    if let Err(why) = placement(call).and_then(|()| decide::check_questions(&requests, state.is_some())) {
        return internal(why);
    }
    // Bounded: one round never has more pending requests than a 2026
    // retry could carry answers.
    if requests.len() > ctx.policy.max_input_responses {
        return internal(format!(
            "input_required asks {} requests; a legacy round sends at most {} (max_input_responses)",
            requests.len(),
            ctx.policy.max_input_responses
        ));
    }
    // Admission against what the session can receive (its revision
    // included), before anything goes on the wire: -32021 as on 2026.
    // (The 2025 transport carries it in a 200 body.)
    if let Some(response) = decide::admit(&id, &requests, &call.capabilities) {
        return Bridge::Respond(response.with_status(200));
    }
    // The round cap and flow age as the 2026 path applies them when the
    // retry's token is opened, checked before asking a question whose
    // answer could never be used.
    let now = (ctx.now)();
    if call.round >= ctx.sealer.limits.max_rounds {
        return Bridge::Respond(rounds_failure(&id, &call.method));
    }
    if now.saturating_sub(call.flow_start) > ctx.sealer.limits.max_flow_age {
        return Bridge::Respond(token_failure(&id, &call.method, TokenReason::FlowAge));
    }
    // The flow's memory is a sealed token exactly like a 2026 round's
    // (questions pinned, state, round, flow start), kept in the PendingFlow
    // and never sent: resuming opens it with the same checks.
    let input = SealInput {
        principal: &call.principal,
        binding: &call.binding,
        round: call.round,
        flow_start: call.flow_start,
        questions: &requests,
        state: state.as_ref(),
    };
    let flow = call.opened.as_ref().map(|o| o.flow_id_bytes());
    let token = match ctx.sealer.seal_in_flow(now, &input, flow) {
        Ok(t) => t,
        Err(e) => return internal(e.to_string()),
    };
    let origin = Origin {
        id: call.id.clone(),
        method: call.method.clone(),
        params: call.params.clone(),
        meta: call.meta.clone(),
        principal: call.principal.clone(),
        protocol_version: call.protocol_version.clone(),
        capabilities: call.capabilities.clone(),
        client_info: call.client_info.clone(),
        binding: call.binding,
        strict_answers: call.strict_answers,
        tag: tag.to_owned(),
    };
    let mut pending = PendingFlow::new(
        origin,
        call.round,
        call.flow_start,
        token,
        now.saturating_add(ctx.sealer.limits.ttl),
    );
    if requests.is_empty() {
        // requestState-only round: nothing to send, resume at once.
        return match resume(ctx, &mut pending, now) {
            Ok(call) => Bridge::Resume(call),
            Err(response) => Bridge::Respond(response),
        };
    }
    for (n, (key, question)) in requests.iter().enumerate() {
        let kind = question.kind();
        let leg_id = format!("{}{tag}-{}-{}", super::LEGACY_ID_PREFIX, call.round, n + 1);
        let message = leg_message(&leg_id, question.value(), kind, &call.protocol_version);
        let elicitation_id = (kind == RequestKind::Url).then(|| leg_id.clone());
        pending.push(Leg { key: key.clone(), id: leg_id, elicitation_id, answer: None }, message);
    }
    Bridge::Send(Box::new(pending))
}

/// All answers are in: open the flow's token (expiry, flow age, rounds,
/// principal and binding, as a 2026 retry) and build the call for the
/// handler's next round. Ends the flow either way.
pub(crate) fn resume(
    ctx: &Ctx<'_>,
    pending: &mut PendingFlow,
    now: u64,
) -> std::result::Result<Box<Call>, Response> {
    let (origin, token, answers) = pending.finish();
    let opened: Opened = match ctx.sealer.open(now, &token, &origin.principal, &origin.binding) {
        Ok(o) => o,
        Err(e) => return Err(token_failure(&origin.id, &origin.method, e.reason)),
    };
    Ok(Box::new(Call {
        id: origin.id,
        method: origin.method,
        params: origin.params,
        principal: origin.principal,
        protocol_version: origin.protocol_version,
        mrtr: false,
        capabilities: origin.capabilities,
        client_info: origin.client_info,
        meta: origin.meta,
        round: opened.round.saturating_add(1),
        flow_start: opened.flow_start,
        binding: origin.binding,
        opened: Some(opened),
        state_cache: OnceLock::new(),
        responses: answers,
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: origin.strict_answers,
        legacy_tag: Some(origin.tag),
        task: None,
    }))
}
