//! [`PendingFlow`]: one legacy round in flight, and the client's responses
//! fed back to it ([`Feed`]).
//!
//! Lifetime: a flow lives from `decide_legacy` until its last response, a
//! failure, its deadline (the application's timer calls `Engine::timeout`),
//! or `cancel`. It is a plain value the application owns; snodo keeps no
//! state elsewhere, so on disconnect the application simply drops it.

use std::fmt;

use serde_json::{Map, Value, json};

use super::Ctx;
use super::bridge::{failure, resume, timeout_failure};
use crate::call::Call;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, JsonError};
use crate::policy::Policy;
use crate::response::Response;
use crate::token::{Principal, Sealer};

/// The originating request, kept to rebuild its [`Call`].
pub(crate) struct Origin {
    pub id: Value,
    pub method: String,
    pub params: Map<String, Value>,
    pub meta: Map<String, Value>,
    pub principal: Principal,
    pub protocol_version: String,
    pub capabilities: Value,
    pub client_info: Option<Value>,
    pub binding: [u8; 32],
    pub strict_answers: bool,
    pub tag: String,
}

/// One server-to-client request of the round.
pub(crate) struct Leg {
    pub key: String,
    pub id: String,
    pub elicitation_id: Option<String>,
    pub answer: Option<Value>,
}

/// One legacy round in flight: the requests to send, and what is needed
/// to resume the handler when their answers are in. Holds the originating
/// request, the questions (pinned in a sealed token that never goes on the
/// wire), the answers so far, the round and the flow start. Bounded: at
/// most `max_input_responses` requests, answers totalling at most
/// `max_request_bytes`.
pub struct PendingFlow {
    origin: Origin,
    round: u32,
    flow_start: u64,
    token: String,
    deadline: u64,
    legs: Vec<Leg>,
    messages: Vec<Value>,
    answer_bytes: usize,
    ended: bool,
}

impl fmt::Debug for PendingFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingFlow")
            .field("id", &self.origin.id)
            .field("method", &self.origin.method)
            .field("round", &self.round)
            .field("deadline", &self.deadline)
            .field("requests", &self.request_ids())
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

/// What feeding a response (or a timeout) produced.
///
/// Deliberately exhaustive, like [`Bridge`](crate::Bridge): each variant is
/// something the server must do.
#[derive(Debug)]
pub enum Feed {
    /// Recorded; other requests of the round are still unanswered.
    Waiting,
    /// Every answer is in: run the handler with this call (round + 1, the
    /// answers as its `inputResponses`), then `decide_legacy` it.
    Resume(Box<Call>),
    /// The flow failed (a JSON-RPC error from the client, the deadline, too
    /// many answer bytes, rounds or flow age): send `response` on the
    /// originating request and the `cancellations`
    /// (`notifications/cancelled`) for requests still unanswered.
    Respond {
        /// The final response to the originating request.
        response: Response,
        /// `notifications/cancelled` messages to send, possibly none.
        cancellations: Vec<Value>,
    },
}

impl PendingFlow {
    pub(crate) fn new(
        origin: Origin,
        round: u32,
        flow_start: u64,
        token: String,
        deadline: u64,
    ) -> PendingFlow {
        PendingFlow {
            origin,
            round,
            flow_start,
            token,
            deadline,
            legs: Vec::new(),
            messages: Vec::new(),
            answer_bytes: 0,
            ended: false,
        }
    }

    pub(crate) fn push(&mut self, leg: Leg, message: Value) {
        self.legs.push(leg);
        self.messages.push(message);
    }

    /// Ends the flow and hands out what resuming needs.
    pub(crate) fn finish(&mut self) -> (Origin, String, Map<String, Value>) {
        self.ended = true;
        let answers = self.legs.iter_mut().filter_map(|l| Some((l.key.clone(), l.answer.take()?))).collect();
        // What stays readable after the end (id, method) is kept.
        let rest = Origin {
            id: self.origin.id.clone(),
            method: self.origin.method.clone(),
            params: Map::new(),
            meta: Map::new(),
            principal: self.origin.principal.clone(),
            protocol_version: String::new(),
            capabilities: Value::Null,
            client_info: None,
            binding: [0; 32],
            strict_answers: false,
            tag: String::new(),
        };
        let origin = std::mem::replace(&mut self.origin, rest);
        (origin, std::mem::take(&mut self.token), answers)
    }

    /// The JSON-RPC requests to send to the client, in key order of the
    /// outcome: each with a string id `snodo-<flow>-<round>-<n>`.
    pub fn requests(&self) -> &[Value] {
        &self.messages
    }
    /// The ids of this round's requests.
    pub fn request_ids(&self) -> Vec<&str> {
        self.legs.iter().map(|l| l.id.as_str()).collect()
    }
    /// Whether a response with JSON-RPC id `id` would be accepted now
    /// (a request of this flow, still unanswered, flow not ended): lets an
    /// application route a response among its flows.
    pub fn awaits(&self, id: &Value) -> bool {
        !self.ended && id.as_str().is_some_and(|s| self.legs.iter().any(|l| l.id == s && l.answer.is_none()))
    }
    /// The ids still unanswered (empty once the flow ended).
    pub fn outstanding(&self) -> Vec<&str> {
        if self.ended {
            return Vec::new();
        }
        self.legs.iter().filter(|l| l.answer.is_none()).map(|l| l.id.as_str()).collect()
    }
    /// `(key, elicitationId)` of every URL elicitation of this round, for
    /// `Session::elicitation_complete` once the out-of-band step is done.
    pub fn elicitation_ids(&self) -> Vec<(&str, &str)> {
        self.legs.iter().filter_map(|l| Some((l.key.as_str(), l.elicitation_id.as_deref()?))).collect()
    }
    /// Unix seconds after which the round's answers are no longer accepted
    /// (the engine's token lifetime, as on the 2026 path): set a timer and
    /// call `Engine::timeout` when it fires.
    pub fn deadline(&self) -> u64 {
        self.deadline
    }
    /// The round that asked (the resumed call has round + 1).
    pub fn round(&self) -> u32 {
        self.round
    }
    /// Unix seconds when the flow began.
    pub fn flow_start(&self) -> u64 {
        self.flow_start
    }
    /// The originating request's JSON-RPC id (the response goes there).
    pub fn id(&self) -> &Value {
        &self.origin.id
    }
    /// The originating request's method.
    pub fn method(&self) -> &str {
        &self.origin.method
    }
    /// Whether the flow ended (resumed, failed, timed out or cancelled).
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// The client cancelled the originating request (or the application
    /// abandons it): ends the flow and returns the `notifications/cancelled`
    /// for the requests still unanswered. No response is sent for a
    /// cancelled request. Empty when the flow already ended.
    pub fn cancel(&mut self, reason: Option<&str>) -> Vec<Value> {
        let out = self.cancellations(reason, None);
        self.ended = true;
        out
    }

    fn cancellations(&self, reason: Option<&str>, except: Option<&str>) -> Vec<Value> {
        self.outstanding()
            .into_iter()
            .filter(|id| Some(*id) != except)
            .map(|id| {
                let mut params = Map::new();
                params.insert("requestId".into(), json!(id));
                if let Some(r) = reason {
                    params.insert("reason".into(), json!(r));
                }
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
            })
            .collect()
    }

    fn fail(&mut self, response: Response, except: Option<&str>, reason: &str) -> Feed {
        let cancellations = self.cancellations(Some(reason), except);
        self.ended = true;
        Feed::Respond { response, cancellations }
    }
}

fn refuse(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Argument, format!("legacy response: {}", message.into()))
}

/// Feeds the client's response (text as received) to `pending`.
pub(crate) fn feed(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    pending: &mut PendingFlow,
    bytes: &[u8],
    principal: &Principal,
) -> Result<Feed> {
    let value = json::parse(bytes, policy.max_request_bytes).map_err(|e| {
        Error::new(
            ErrorCode::Json,
            match e {
                JsonError::Syntax(_) => "legacy response: not valid JSON".to_owned(),
                JsonError::TooLarge => "legacy response: exceeds the size limit".to_owned(),
                JsonError::TooDeep => "legacy response: nested too deeply".to_owned(),
                JsonError::DuplicateKey(_) => "legacy response: duplicate object key".to_owned(),
            },
        )
    })?;
    feed_value(policy, sealer, now, pending, value, principal)
}

/// The response's id and its result (`Ok`) or error object (`Err`), or why
/// it is not a JSON-RPC response.
fn read_response(value: Value) -> Result<(String, std::result::Result<Value, Value>)> {
    let Value::Object(mut msg) = value else { return Err(refuse("must be a JSON object")) };
    if msg.contains_key("method") {
        return Err(refuse("a request or notification, not a response"));
    }
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(refuse("jsonrpc must be \"2.0\""));
    }
    let id = match msg.remove("id") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(refuse(format!("id {} is not a request of this flow", json::to_wire(&other))));
        }
        None => return Err(refuse("no id")),
    };
    match (msg.remove("result"), msg.remove("error")) {
        (Some(r @ Value::Object(_)), None) => Ok((id, Ok(r))),
        (Some(_), None) => Err(refuse("result must be an object")),
        (None, Some(e)) => {
            let ok = e.get("code").is_some_and(|c| c.as_i64().is_some())
                && e.get("message").is_some_and(Value::is_string);
            if ok {
                Ok((id, Err(e)))
            } else {
                Err(refuse("error needs an integer code and a string message"))
            }
        }
        (Some(_), Some(_)) => Err(refuse("has both result and error")),
        (None, None) => Err(refuse("has neither result nor error")),
    }
}

/// [`feed`] for an already parsed response.
pub(crate) fn feed_value(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    pending: &mut PendingFlow,
    value: Value,
    principal: &Principal,
) -> Result<Feed> {
    let ctx = Ctx { policy, sealer, now };
    // Only the principal the question was asked of answers it.
    if pending.origin.principal != *principal {
        return Err(refuse("from another principal than the flow's"));
    }
    let (id, outcome) = read_response(value)?;
    if pending.ended {
        return Err(refuse(format!("id {id:?} arrived after the flow ended")));
    }
    let Some(index) = pending.legs.iter().position(|l| l.id == id) else {
        return Err(refuse(format!("id {id:?} is not a request of this flow")));
    };
    if pending.legs.get(index).is_some_and(|l| l.answer.is_some()) {
        return Err(refuse(format!("id {id:?} was already answered")));
    }
    let origin_id = pending.origin.id.clone();
    let method = pending.origin.method.clone();
    let now = now();
    if now >= pending.deadline {
        return Ok(pending.fail(timeout_failure(&origin_id, &method), Some(&id), "timeout"));
    }
    let result = match outcome {
        Ok(result) => result,
        Err(error) => {
            // No MRTR slot holds an error: the flow fails, as the TS SDK's
            // shim does, rather than re-asking up to the round cap.
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            let leg_method = pending
                .messages
                .get(index)
                .and_then(|m| m.get("method"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let text = format!("The client could not answer {leg_method}: {message} ({code})");
            return Ok(pending.fail(
                failure(&origin_id, &method, "client_error", &text),
                Some(&id),
                "client_error",
            ));
        }
    };
    let size = json::to_wire(&result).len();
    if pending.answer_bytes.saturating_add(size) > policy.max_request_bytes {
        let text = "The client's answers exceed the size limit";
        return Ok(pending.fail(failure(&origin_id, &method, "too_large", text), Some(&id), "too_large"));
    }
    // `index` is a position in `legs` (found above; legs are never removed).
    let Some(leg) = pending.legs.get_mut(index) else {
        return Err(refuse(format!("id {id:?} is not a request of this flow")));
    };
    leg.answer = Some(result);
    pending.answer_bytes += size;
    if pending.legs.iter().any(|l| l.answer.is_none()) {
        return Ok(Feed::Waiting);
    }
    Ok(match resume(&ctx, pending, now) {
        Ok(call) => Feed::Resume(call),
        Err(response) => Feed::Respond { response, cancellations: Vec::new() },
    })
}

/// The application's timer for `pending` fired.
pub(crate) fn timeout(pending: &mut PendingFlow) -> Result<Feed> {
    if pending.ended {
        return Err(refuse("timeout after the flow ended"));
    }
    let response = timeout_failure(&pending.origin.id, &pending.origin.method);
    Ok(pending.fail(response, None, "timeout"))
}
