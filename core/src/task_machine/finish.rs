//! Reading a step's reply: the response to send and the next run.

use serde_json::{Map, Value, json};

use super::{TaskDone, TaskStep, Then, ack, error, leg_call, not_found, state_leg, store_unavailable};
use crate::call::Call;
use crate::elicitation::Question;
use crate::error::Result;
use crate::response::Response;
use crate::tasks::{
    Record, Reply, TaskCommand, TaskInputCheck, TaskOp, check_task_input_requests, read_reply, unexpected,
};
use crate::token::Principal;

impl TaskStep {
    /// The store command to run, if the step needs one.
    pub fn command(&self) -> Option<&TaskCommand> {
        self.command.as_ref()
    }

    /// Reads the reply of [`TaskStep::command`] (`None` when there was no
    /// command, or when the store failed: the step then answers `-32603`
    /// "task store unavailable" and hands back no run). `Err` only for a
    /// reply the script cannot give ([`ErrorCode::Store`](crate::ErrorCode::Store)).
    pub fn finish(self, reply: Option<&str>) -> Result<TaskDone> {
        let Some(command) = self.command else {
            return Ok(match self.then {
                Then::Done(d) => d,
                _ => TaskDone::default(),
            });
        };
        let Some(reply) = reply else {
            let id = match &self.then {
                Then::Get { id, .. }
                | Then::Answer { id, .. }
                | Then::Cancel { id }
                | Then::Settle { id } => id,
                Then::Create { response, .. } => response.body().get("id").unwrap_or(&Value::Null),
                Then::Done(_) => &Value::Null,
            };
            return Ok(TaskDone { response: Some(store_unavailable(id)), leg: None });
        };
        let op = command.op;
        let reply = read_reply(op, reply)?;
        Ok(match (self.then, reply) {
            (Then::Create { response, leg }, Reply::Word("created")) => {
                TaskDone { response: Some(response), leg: Some(leg) }
            }
            (Then::Get { id, .. } | Then::Answer { id, .. } | Then::Cancel { id }, Reply::Word("none")) => {
                TaskDone { response: Some(not_found(&id)), leg: None }
            }
            (Then::Get { id, task_id, caps }, Reply::Record(record)) => {
                TaskDone { response: Some(detailed(&id, &task_id, &record, &caps)?), leg: None }
            }
            (Then::Answer { id, .. }, Reply::Word(_)) | (Then::Cancel { id }, Reply::Word(_)) => {
                TaskDone { response: Some(ack(&id)), leg: None }
            }
            (Then::Answer { id, principal }, Reply::Record(record)) => {
                TaskDone { response: Some(ack(&id)), leg: Some(resume(&record, &principal)?) }
            }
            (Then::Settle { .. }, Reply::Word(_)) => TaskDone::default(),
            _ => return Err(unexpected(op)),
        })
    }
}

fn parse(record: &Record, field: &str) -> Result<Option<Value>> {
    record.get(field).map(|t| serde_json::from_str(t).map_err(|_| unexpected(TaskOp::Get))).transpose()
}

fn number(record: &Record, field: &str) -> Result<u64> {
    record.get(field).and_then(|t| t.parse().ok()).ok_or_else(|| unexpected(TaskOp::Get))
}

/// The outstanding input requests of a record: minted key → request.
fn outstanding(record: &Record) -> Result<Map<String, Value>> {
    let mut asks = Map::new();
    for (field, ask) in record.range("ask:".to_owned().."ask;".to_owned()) {
        let key = &field[4..];
        if !record.contains_key(&format!("ans:{key}")) {
            let ask: Value = serde_json::from_str(ask).map_err(|_| unexpected(TaskOp::Get))?;
            asks.insert(key.to_owned(), ask.get("request").cloned().ok_or_else(|| unexpected(TaskOp::Get))?);
        }
    }
    Ok(asks)
}

/// The `GetTaskResult` (`resultType: "complete"` and the `DetailedTask`).
fn detailed(id: &Value, task_id: &str, record: &Record, caps: &Value) -> Result<Response> {
    let status = record.get("status").cloned().unwrap_or_default();
    let mut task = json!({"taskId": task_id, "status": status,
        "createdAt": record.get("created"), "lastUpdatedAt": record.get("updated"),
        "ttlMs": number(record, "ttl")?, "pollIntervalMs": number(record, "poll")?});
    let Some(t) = task.as_object_mut() else { return Err(unexpected(TaskOp::Get)) };
    if status == "input_required" {
        t.insert("inputRequests".into(), Value::Object(outstanding(record)?));
    }
    if let Some(Value::Object(end)) = parse(record, "outcome")? {
        t.extend(end.into_iter().filter(|(k, _)| k == "result" || k == "error"));
    }
    // A waiting task's questions must be receivable by the client asking.
    match check_task_input_requests(&task, caps) {
        Ok(()) => {}
        Err(TaskInputCheck::MissingCapabilities(missing)) => {
            let data = json!({"requiredCapabilities": missing});
            return Ok(error(id, -32021, "Missing required client capability", Some(data)));
        }
        Err(TaskInputCheck::Invalid(why)) => {
            return Ok(Response::internal(id.clone(), format!("stored task is invalid: {why}")));
        }
    }
    if let Some(t) = task.as_object_mut() {
        t.insert("resultType".into(), json!("complete"));
    }
    Ok(Response::result(id.clone(), task))
}

/// The next run after the last answer: the creating call, the state, and
/// each answer under the handler's key, pinned to the question asked.
fn resume(record: &Record, principal: &Principal) -> Result<Box<Call>> {
    let bad = || unexpected(TaskOp::Answer);
    let asked = parse(record, "call")?.ok_or_else(bad)?;
    let str_of = |k: &str| asked.get(k).and_then(Value::as_str).map(str::to_owned).ok_or_else(bad);
    let mut responses = Map::new();
    let mut leg = state_leg(None, number(record, "leg")?, parse(record, "state")?);
    for (field, ask) in record.range("ask:".to_owned().."ask;".to_owned()) {
        let ask: Value = serde_json::from_str(ask).map_err(|_| bad())?;
        let (Some(key), Some(request)) = (ask.get("key").and_then(Value::as_str), ask.get("request")) else {
            return Err(bad());
        };
        let question = Question::from_value(request.clone()).map_err(|_| bad())?;
        leg.pins.insert(key.to_owned(), *question.digest());
        if let Some(answer) = parse(record, &format!("ans:{}", &field[4..]))? {
            responses.insert(key.to_owned(), answer);
        }
    }
    let task_id = record.get("id").cloned().ok_or_else(bad)?;
    leg.task_id = Some(task_id.clone());
    let call = Call {
        id: Value::String(task_id),
        method: str_of("method")?,
        params: asked.get("params").and_then(Value::as_object).cloned().ok_or_else(bad)?,
        principal: principal.clone(),
        protocol_version: str_of("protocolVersion")?,
        mrtr: true,
        capabilities: asked.get("capabilities").cloned().ok_or_else(bad)?,
        client_info: asked.get("clientInfo").cloned(),
        meta: Map::new(),
        round: 1,
        flow_start: 0,
        binding: [0; 32],
        opened: None,
        state_cache: std::sync::OnceLock::new(),
        responses: Map::new(),
        decided: std::sync::Arc::default(),
        strict_answers: false,
        legacy_tag: None,
        task: None,
    };
    Ok(leg_call(&call, leg, responses))
}
