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
//!
//! `settle.rs` turns a run's outcome into its store command; `finish.rs`
//! reads a command's reply into the response and the next run.

mod finish;
mod settle;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::call::{Call, TaskLeg};
use crate::error::{Error, ErrorCode, Result};
use crate::response::{Outcome, Response, status_for};
use crate::tasks::{TASKS_EXTENSION, TaskCommand, TaskOp, declares_tasks, task_key};
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
        Some(leg @ TaskLeg { task_id: Some(_), .. }) => settle::settle(ctx, call, leg, outcome),
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
