//! The task machine, sans IO: [`Engine::task_step`](crate::Engine::task_step)
//! turns a request or a handler run into one [`TaskStep`]: at most one store
//! command, and what to answer once its reply is back ([`TaskStep::finish`]).
//!
//! * A handler's [`Outcome::Task`] on a `tools/call` whose client declared
//!   the extension **starts** a task: the task is stored (`create`) before
//!   the `CreateTaskResult` leaves, and the first run of the handler as a
//!   task is handed back to run in the background. Any MRTR rounds before
//!   it were ordinary rounds; the `CreateTaskResult` carries no
//!   `requestState` and no `inputRequests`. Anywhere else (no declaration,
//!   another method, a 2025 session) the handler simply goes on in the
//!   request: the continuation is handed back at once, with the state, and
//!   its later questions are MRTR rounds. One handler runs either way.
//! * A **run** of the handler as a task ends the same way a request does:
//!   questions park the task (`park`) under keys minted for it (the
//!   handler's key and the run's number, never reused), anything else ends
//!   it (`finish`): a result is `completed` (a tool error too), a JSON-RPC
//!   error `failed`.
//! * `tasks/get`, `tasks/update` and `tasks/cancel` pass the gates in the
//!   order the extension and its conformance suite use: the extension
//!   declared on *this* request (`-32021`), a `taskId`, then the task of
//!   this principal (`-32602`, the same for one that never existed, expired
//!   or belongs to someone else). `tasks/update` takes answers only for
//!   outstanding keys; the last one hands back the next run, with the
//!   answers under the handler's own keys, pinned to the questions asked.
//! * A run with no outcome reads its own task (a `tasks/get` result): a
//!   long run asks it now and then whether it was cancelled.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::command::{Record, Reply, TaskCommand, TaskOp, read_reply, task_key, unexpected};
use super::{TASKS_EXTENSION, declares_tasks};
use crate::call::{Call, TaskLeg};
use crate::elicitation::{self, Question};
use crate::error::{Error, ErrorCode, Result};
use crate::response::{Outcome, Response, status_for};
use crate::token::Principal;

/// How long a task stays readable after its creation (`ttlMs`): one hour.
pub const DEFAULT_TASK_TTL_MS: u64 = 3_600_000;
/// The `pollIntervalMs` a task suggests.
pub const DEFAULT_TASK_POLL_MS: u64 = 1_000;
/// How many times in a row a handler may hand itself on ([`Outcome::Task`])
/// without asking or ending, before the run is ended as a handler bug.
pub const MAX_TASK_HOPS: u64 = 64;

/// What to answer and what to run once a step's command is done.
#[derive(Debug, Default)]
pub struct TaskDone {
    /// The response to send, if the step answers a request. On a handler
    /// run it is set only when the run's end could not be stored (for the
    /// server's log: nobody waits for it).
    pub response: Option<Response>,
    /// The next run of the handler, to run now (in the background for a
    /// task, in the request for an inline continuation), then to hand with
    /// its outcome to `task_step` again.
    pub leg: Option<Box<Call>>,
}

#[derive(Debug)]
enum Then {
    Done(TaskDone),
    Create { response: Response, leg: Box<Call> },
    Get { id: Value, task_id: String, caps: Value },
    Answer { id: Value, principal: Principal },
    Cancel { id: Value },
    Settle { id: Value },
}

/// One step of the task machine: run [`TaskStep::command`] on the task
/// store (if any), then hand its reply to [`TaskStep::finish`].
#[derive(Debug)]
pub struct TaskStep {
    command: Option<TaskCommand>,
    then: Then,
}

fn done(response: Option<Response>, leg: Option<Box<Call>>) -> TaskStep {
    TaskStep { command: None, then: Then::Done(TaskDone { response, leg }) }
}

fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Response {
    Response::error(id.clone(), code, message, data, status_for(code))
}

fn not_found(id: &Value) -> Response {
    error(id, -32602, "Task not found", None)
}

fn ack(id: &Value) -> Response {
    Response::result(id.clone(), json!({"resultType": "complete"}))
}

fn store_unavailable(id: &Value) -> Response {
    error(id, -32603, "task store unavailable", None)
        .with_diagnostic("task store unavailable: the command failed; nothing was changed by this request")
}

/// Who may see a task: the SHA-256 of the principal's name (never the name
/// itself in the store), or of a fixed text for the anonymous principal.
fn who(principal: &Principal) -> String {
    let mut h = Sha256::new();
    match principal.name() {
        Some(name) => {
            h.update(b"snodo task principal\0");
            h.update(name.as_bytes());
        }
        None => h.update(b"snodo task anonymous"),
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Unix seconds as ISO 8601 UTC (`2026-12-07T13:05:00Z`).
pub(crate) fn iso(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

fn random_id() -> Result<String> {
    use base64::Engine as _;
    let mut bytes = [0u8; 18];
    getrandom::fill(&mut bytes).map_err(|_| Error::new(ErrorCode::Store, "task id: no randomness"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

fn text(value: &Value) -> String {
    crate::json::to_wire(value)
}

/// A run of the handler: `call` as it was asked, reading `state` and the
/// `answers` (handler key → answer) pinned to `pins`.
fn leg_call(call: &Call, task: TaskLeg, responses: Map<String, Value>) -> Box<Call> {
    let mut leg = Box::new(call.clone());
    leg.decided = std::sync::Arc::default();
    leg.responses = responses;
    leg.task = Some(Box::new(task));
    leg
}

fn state_leg(task_id: Option<String>, leg: u64, state: Option<Value>) -> TaskLeg {
    let state_text = state.as_ref().map(text);
    TaskLeg { task_id, leg, state, state_text, pins: Default::default(), hops: 0 }
}

/// The shared context of every step: what `decide` needs.
pub(crate) struct Ctx<'a> {
    pub(crate) policy: &'a crate::policy::Policy,
    pub(crate) sealer: &'a crate::token::Sealer,
    pub(crate) now: &'a dyn Fn() -> u64,
}

impl Ctx<'_> {
    fn respond(&self, call: &Call, outcome: Outcome) -> Result<Response> {
        crate::decide::mark_decided(call)?;
        Ok(crate::decide::respond(self.policy, self.sealer, self.now, call, outcome))
    }
}

/// `Engine::task_step`.
pub(crate) fn step(ctx: &Ctx<'_>, call: &Call, outcome: Option<Outcome>) -> Result<TaskStep> {
    if call.method.starts_with("tasks/") && call.task.is_none() {
        return Ok(request(ctx, call));
    }
    let leg = call.task.as_deref().filter(|t| t.task_id.is_some());
    let Some(outcome) = outcome else {
        // A run without an outcome reads its own task: a long run polls it
        // to learn whether it was cancelled (cancellation is cooperative).
        if let Some(TaskLeg { task_id: Some(task_id), .. }) = leg {
            let then =
                Then::Get { id: call.id.clone(), task_id: task_id.clone(), caps: call.capabilities.clone() };
            let command =
                TaskCommand { op: TaskOp::Get, key: task_key(task_id), args: vec![who(&call.principal)] };
            return Ok(TaskStep { command: Some(command), then });
        }
        return Err(Error::new(ErrorCode::Argument, "task_step: a request needs the handler's outcome"));
    };
    match call.task.as_deref() {
        Some(leg @ TaskLeg { task_id: Some(_), .. }) => settle(ctx, call, leg, outcome),
        _ => start(ctx, call, outcome),
    }
}

/// A handler's outcome in a request (or an inline continuation of one).
fn start(ctx: &Ctx<'_>, call: &Call, outcome: Outcome) -> Result<TaskStep> {
    let Outcome::Task { state } = outcome else {
        // Not handed on: the request's answer, as decide gives it.
        return Ok(done(Some(ctx.respond(call, outcome)?), None));
    };
    let as_task =
        call.method == "tools/call" && call.mrtr && call.legacy_tag.is_none() && call.task.is_none();
    if !as_task || !declares_tasks(&call.capabilities) {
        return Ok(match continuation(call, state) {
            Ok(mut next) => {
                // Still this request: decided once, by whichever run ends it.
                next.decided = call.decided.clone();
                done(None, Some(next))
            }
            Err(why) => done(
                Some(ctx.respond(call, Outcome::Error { code: -32603, message: why, data: None })?),
                None,
            ),
        });
    }
    let task_id = random_id()?;
    let now = (ctx.now)();
    let (created, ttl, poll) = (iso(now), DEFAULT_TASK_TTL_MS, DEFAULT_TASK_POLL_MS);
    let task = json!({"resultType": "task", "taskId": task_id, "status": "working", "createdAt": created,
        "lastUpdatedAt": created, "ttlMs": ttl, "pollIntervalMs": poll});
    let response = ctx.respond(call, Outcome::Raw(task))?;
    if response.is_error() {
        return Ok(done(Some(response), None));
    }
    let mut asked = json!({"method": call.method, "params": call.params, "protocolVersion": call.protocol_version,
        "capabilities": call.capabilities});
    if let (Some(info), Some(o)) = (&call.client_info, asked.as_object_mut()) {
        o.insert("clientInfo".into(), info.clone());
    }
    let expire_at = now.saturating_mul(1000).saturating_add(ttl);
    let mut args = vec![expire_at.to_string()];
    let mut fields = vec![
        ("v", "1".to_owned()),
        ("id", task_id.clone()),
        ("who", who(&call.principal)),
        ("status", "working".into()),
        ("created", created.clone()),
        ("updated", created),
        ("ttl", ttl.to_string()),
        ("poll", poll.to_string()),
        ("leg", "0".into()),
        ("call", text(&asked)),
    ];
    if let Some(s) = &state {
        fields.push(("state", text(s)));
    }
    for (k, v) in fields {
        args.push(k.to_owned());
        args.push(v);
    }
    let leg = leg_call(call, state_leg(Some(task_id.clone()), 0, state), Map::new());
    let command = TaskCommand { op: TaskOp::Create, key: task_key(&task_id), args };
    Ok(TaskStep { command: Some(command), then: Then::Create { response, leg } })
}

/// The same request going on with `state`, no task involved (a client
/// without the extension, another method, a 2025 session): the next run
/// reads `state` and no answers. `Err` once the handler handed itself on
/// [`MAX_TASK_HOPS`] times in a row.
pub(crate) fn continuation(call: &Call, state: Option<Value>) -> std::result::Result<Box<Call>, String> {
    let hops = call.task.as_ref().map_or(0, |t| t.hops) + 1;
    if hops > MAX_TASK_HOPS {
        return Err(format!("the handler handed itself on {MAX_TASK_HOPS} times without asking or ending"));
    }
    let mut leg = state_leg(None, 0, state);
    leg.hops = hops;
    Ok(leg_call(call, leg, Map::new()))
}

/// `tasks/get`, `tasks/update`, `tasks/cancel` (and the removed methods).
fn request(ctx: &Ctx<'_>, call: &Call) -> TaskStep {
    let id = &call.id;
    let op = match call.method.as_str() {
        "tasks/get" => TaskOp::Get,
        "tasks/update" => TaskOp::Answer,
        "tasks/cancel" => TaskOp::Cancel,
        // tasks/result and tasks/list do not exist in this revision.
        _ => return done(Some(error(id, -32601, "Method not found", None)), None),
    };
    if !declares_tasks(&call.capabilities) {
        let data = json!({"requiredCapabilities": super::task_required_capabilities()});
        let message =
            format!("{} needs the extension {TASKS_EXTENSION} declared on the request", call.method);
        return done(Some(error(id, -32021, &message, Some(data))), None);
    }
    let task_id = match call.params.get("taskId") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        _ => {
            return done(
                Some(error(id, -32602, "Invalid params: taskId must be a non-empty string", None)),
                None,
            );
        }
    };
    let updated = iso((ctx.now)());
    let mut args = vec![who(&call.principal)];
    let then = match op {
        TaskOp::Get => {
            Then::Get { id: id.clone(), task_id: task_id.clone(), caps: call.capabilities.clone() }
        }
        TaskOp::Answer => {
            args.push(updated);
            for (k, v) in &call.responses {
                args.push(k.clone());
                args.push(text(v));
            }
            Then::Answer { id: id.clone(), principal: call.principal.clone() }
        }
        _ => {
            args.push(updated);
            Then::Cancel { id: id.clone() }
        }
    };
    TaskStep { command: Some(TaskCommand { op, key: task_key(&task_id), args }), then }
}

/// The key a question asked under `key` in run `leg` goes out under: unique
/// over the task's life (the run's number after the last `@`), within the
/// 64 bytes a key may have.
fn mint(key: &str, leg: u64, index: usize) -> String {
    let minted = format!("{key}@{leg}");
    if minted.len() <= 64 { minted } else { format!("{leg}.{index}") }
}

/// A run's outcome: park, finish, or go on.
fn settle(ctx: &Ctx<'_>, call: &Call, leg: &TaskLeg, outcome: Outcome) -> Result<TaskStep> {
    let task_id = leg.task_id.clone().unwrap_or_default();
    let key = task_key(&task_id);
    let id = Value::String(task_id.clone());
    let updated = iso((ctx.now)());
    let finish = |status: &str, outcome: Value| TaskStep {
        command: Some(TaskCommand {
            op: TaskOp::Finish,
            key: key.clone(),
            args: vec![leg.leg.to_string(), updated.clone(), status.to_owned(), text(&outcome)],
        }),
        then: Then::Settle { id: id.clone() },
    };
    let fail = |code: i64, message: String, data: Option<Value>| {
        let mut error = json!({"code": code, "message": message});
        if let (Some(d), Some(o)) = (data, error.as_object_mut()) {
            o.insert("data".into(), d);
        }
        finish("failed", json!({"error": error}))
    };
    let outcome = match outcome {
        Outcome::Raw(Value::Object(mut obj))
            if obj.get("resultType").and_then(Value::as_str) == Some("input_required") =>
        {
            match crate::decide::raw_input_requests(&mut obj)
                .map_err(str::to_owned)
                .and_then(crate::decide::questions_of)
            {
                Ok(requests) => Outcome::InputRequired { requests, state: None },
                Err(why) => return Ok(fail(-32603, format!("invalid input requests: {why}"), None)),
            }
        }
        other => other,
    };
    match outcome {
        Outcome::Task { state } => {
            let hops = leg.hops + 1;
            if hops > MAX_TASK_HOPS {
                let why =
                    format!("the handler handed itself on {MAX_TASK_HOPS} times without asking or ending");
                return Ok(fail(-32603, why, None));
            }
            let mut next = state_leg(leg.task_id.clone(), leg.leg, state);
            next.hops = hops;
            Ok(done(None, Some(leg_call(call, next, Map::new()))))
        }
        Outcome::InputRequired { requests, state } => {
            if requests.is_empty() {
                return Ok(fail(-32603, "a task run asked for input without asking anything".into(), None));
            }
            // The client learns of the questions on tasks/get; it must be
            // able to answer them by the capabilities it created the task with.
            let missing =
                crate::capabilities::missing_of(requests.iter().map(|(_, q)| q.value()), &call.capabilities);
            if missing.as_object().is_some_and(|m| !m.is_empty()) {
                let data = json!({"requiredCapabilities": missing});
                return Ok(fail(-32021, "Missing required client capability".into(), Some(data)));
            }
            let next = leg.leg.saturating_add(1);
            let mut args =
                vec![leg.leg.to_string(), updated.clone(), state.as_ref().map(text).unwrap_or_default()];
            for (i, (k, q)) in requests.iter().enumerate() {
                if let Err(e) = elicitation::validate_key(k) {
                    return Ok(fail(-32603, format!("input request key: {}", e.message()), None));
                }
                args.push(mint(k, next, i));
                args.push(text(&json!({"key": k, "request": q.value()})));
            }
            Ok(TaskStep {
                command: Some(TaskCommand { op: TaskOp::Park, key: key.clone(), args }),
                then: Then::Settle { id: id.clone() },
            })
        }
        other => {
            let response = ctx.respond(call, other)?;
            let mut body = response.into_body();
            let end = body.as_object_mut().map(|b| (b.remove("result"), b.remove("error")));
            Ok(match end {
                Some((Some(result), _)) => finish("completed", json!({"result": result})),
                Some((None, Some(error))) => finish("failed", json!({"error": error})),
                _ => fail(-32603, "the run ended without a result".into(), None),
            })
        }
    }
}

impl TaskStep {
    /// The store command to run, if the step needs one.
    pub fn command(&self) -> Option<&TaskCommand> {
        self.command.as_ref()
    }

    /// Reads the reply of [`TaskStep::command`] (`None` when there was no
    /// command, or when the store failed: the step then answers `-32603`
    /// "task store unavailable" and hands back no run). `Err` only for a
    /// reply the script cannot give ([`ErrorCode::Store`]).
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
    match super::check_task_input_requests(&task, caps) {
        Ok(()) => {}
        Err(super::TaskInputCheck::MissingCapabilities(missing)) => {
            let data = json!({"requiredCapabilities": missing});
            return Ok(error(id, -32021, "Missing required client capability", Some(data)));
        }
        Err(super::TaskInputCheck::Invalid(why)) => {
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
