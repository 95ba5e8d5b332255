//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) as far as
//! the MRTR core is concerned. Pure functions over plain
//! values; `decide` and `begin` call them at three small hooks.
//!
//! * A `CreateTaskResult` (`resultType: "task"`) may answer `tools/call`, the
//!   only method the extension supports today, and only when *this*
//!   request's client capabilities declare `extensions[TASKS_EXTENSION]`
//!   (an object). Otherwise: `-32021` naming the extension
//!   ([`task_required_capabilities`]) on `tools/call`, `-32603` elsewhere.
//! * The task itself is checked ([`check_create_task_result`]): the `Task`
//!   fields with their types, and no `inputRequests`/`requestState`.
//! * `tasks/update` carries `inputResponses` for the task's outstanding input
//!   requests; `begin` validates the envelope as on an MRTR retry and the
//!   handler reads them through `Call::response(key, question)`, validated
//!   against the question like any answer. There is no token: the task's
//!   unique keys are the pin (the server's duty, SEP-2663).
//! * [`check_task_input_requests`] checks the `inputRequests` a `tasks/get`
//!   result carries against the capabilities the `tasks/get` request
//!   declared, with the same rules as an `input_required` result.
//! * The task store: [`TaskCommand`] (one Lua script on one key, `scripts.rs`)
//!   and [`TaskStore`], with the in-memory [`MemoryTaskStore`]; `RedisStore`
//!   (feature `redis`) runs the same commands. The machine that hands them
//!   out is `task_machine`, above the two steps it uses.

mod command;
mod memory;
mod scripts;

pub(crate) use command::{Record, Reply, read_reply, task_key, unexpected};
pub use command::{TaskCommand, TaskOp};
pub use memory::{DEFAULT_MAX_TASKS, MemoryTaskStore};
pub use scripts::*;

use serde_json::{Map, Value, json};

use crate::capabilities;
use crate::elicitation;
use crate::error::Result;

/// A store tasks live in, shared by every thread of a server (and, for
/// `RedisStore` (feature `redis`), by every process of a fleet). It runs
/// one [`TaskCommand`] atomically and answers its script's reply text.
/// Every error is [`ErrorCode::Store`](crate::ErrorCode::Store); the step
/// then answers `-32603` and changes nothing it could not confirm.
pub trait TaskStore: Send + Sync {
    /// Runs `command` and returns its reply text.
    fn execute(&self, command: &TaskCommand) -> Result<String>;
}

/// The extension's identifier, the key under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The method that delivers answers to a task's input requests.
pub const TASKS_UPDATE: &str = "tasks/update";
/// The methods on which a `CreateTaskResult` may be returned.
pub const TASK_METHODS: [&str; 1] = ["tools/call"];

const STATUSES: [&str; 5] = ["working", "input_required", "completed", "cancelled", "failed"];

/// Whether client capabilities `caps` declare the Tasks extension.
pub fn declares_tasks(caps: &Value) -> bool {
    caps.get("extensions").and_then(|e| e.get(TASKS_EXTENSION)).is_some_and(Value::is_object)
}

/// The `requiredCapabilities` of the `-32021` for a task outcome the client
/// cannot receive: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`.
pub fn task_required_capabilities() -> Value {
    json!({"extensions": {TASKS_EXTENSION: {}}})
}

/// Checks a `CreateTaskResult` (`Result & Task`). `Err` names the field as
/// a JSON pointer.
pub fn check_create_task_result(result: &Map<String, Value>) -> Result<(), String> {
    for key in ["inputRequests", "requestState"] {
        if result.contains_key(key) {
            return Err(format!("/{key}: a task result must not carry {key}"));
        }
    }
    check_task(result)
}

/// The `Task` fields: `taskId` a non-empty string, `status` one of the five,
/// `createdAt`/`lastUpdatedAt` strings, `ttlMs` an integer ≥ 0 or null,
/// `statusMessage` a string and `pollIntervalMs` an integer ≥ 0 when present.
fn check_task(task: &Map<String, Value>) -> Result<(), String> {
    match task.get("taskId") {
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(_) => return Err("/taskId: must be a non-empty string".to_owned()),
        None => return Err("/taskId: required".to_owned()),
    }
    match task.get("status").and_then(Value::as_str) {
        Some(s) if STATUSES.contains(&s) => {}
        _ => return Err(format!("/status: must be one of {}", STATUSES.join(", "))),
    }
    for key in ["createdAt", "lastUpdatedAt"] {
        if !task.get(key).is_some_and(Value::is_string) {
            return Err(format!("/{key}: required, a string"));
        }
    }
    match task.get("ttlMs") {
        Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_u64().is_some() => {}
        Some(_) => return Err("/ttlMs: must be an integer >= 0 or null".to_owned()),
        None => return Err("/ttlMs: required (an integer >= 0 or null)".to_owned()),
    }
    if task.get("statusMessage").is_some_and(|v| !v.is_string()) {
        return Err("/statusMessage: must be a string".to_owned());
    }
    if task.get("pollIntervalMs").is_some_and(|v| v.as_u64().is_none()) {
        return Err("/pollIntervalMs: must be an integer >= 0".to_owned());
    }
    if task.get("_meta").is_some_and(|m| !m.is_object()) {
        return Err("/_meta: must be an object".to_owned());
    }
    Ok(())
}

/// What is wrong with the input requests of a `tasks/get` result.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskInputCheck {
    /// The task or one of its input requests is malformed (a server bug);
    /// the text names the field.
    Invalid(String),
    /// The client cannot receive some of them: the capabilities to add,
    /// shaped like `missing_capabilities` returns them.
    MissingCapabilities(Value),
}

/// Checks the `inputRequests` of a `tasks/get` result (a `Task` object)
/// against `caps`, the capabilities the `tasks/get` request declared: an
/// `input_required` task must carry a non-empty `inputRequests` object of
/// valid input requests under valid keys that the client can receive; any
/// other status must carry none.
pub fn check_task_input_requests(task: &Value, caps: &Value) -> Result<(), TaskInputCheck> {
    let Value::Object(task) = task else {
        return Err(TaskInputCheck::Invalid("task: must be an object".to_owned()));
    };
    check_task(task).map_err(TaskInputCheck::Invalid)?;
    let input_required = task.get("status").and_then(Value::as_str) == Some("input_required");
    let requests = match (task.get("inputRequests"), input_required) {
        (None, false) => return Ok(()),
        (Some(_), false) => {
            return Err(TaskInputCheck::Invalid(
                "/inputRequests: only an input_required task carries input requests".to_owned(),
            ));
        }
        (Some(Value::Object(m)), true) if !m.is_empty() => m,
        (_, true) => {
            return Err(TaskInputCheck::Invalid(
                "/inputRequests: an input_required task needs a non-empty object".to_owned(),
            ));
        }
    };
    for (key, request) in requests {
        elicitation::validate_key(key)
            .map_err(|e| TaskInputCheck::Invalid(format!("/inputRequests key: {}", e.message())))?;
        elicitation::validate_input_request(request)
            .map_err(|e| TaskInputCheck::Invalid(format!("/inputRequests/{key}: {}", e.message())))?;
    }
    let missing = capabilities::missing_of(requests.values(), caps);
    if missing.as_object().is_some_and(|m| !m.is_empty()) {
        return Err(TaskInputCheck::MissingCapabilities(missing));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn task(extra: Value) -> Value {
        let mut t = json!({"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z",
            "lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000,"pollIntervalMs":5000});
        if let (Some(t), Some(e)) = (t.as_object_mut(), extra.as_object()) {
            t.extend(e.clone());
        }
        t
    }

    #[test]
    fn declaration() {
        assert!(declares_tasks(&json!({"extensions":{"io.modelcontextprotocol/tasks":{}}})));
        assert!(!declares_tasks(&json!({"extensions":{"io.modelcontextprotocol/tasks":true}})));
        assert!(!declares_tasks(&json!({"tasks":{}})));
    }

    #[test]
    fn create_task_result() {
        check_create_task_result(task(json!({})).as_object().unwrap()).unwrap();
        check_create_task_result(task(json!({"ttlMs":null})).as_object().unwrap()).unwrap();
        for (extra, field) in [
            (json!({"taskId":""}), "/taskId"),
            (json!({"status":"done"}), "/status"),
            (json!({"createdAt":1}), "/createdAt"),
            (json!({"ttlMs":-5}), "/ttlMs"),
            (json!({"pollIntervalMs":"5"}), "/pollIntervalMs"),
            (json!({"requestState":"x"}), "/requestState"),
        ] {
            let why = check_create_task_result(task(extra.clone()).as_object().unwrap()).unwrap_err();
            assert!(why.starts_with(field), "{extra}: {why}");
        }
    }

    #[test]
    fn task_input_requests() {
        let form = json!({"method":"elicitation/create","params":{"mode":"form","message":"m",
            "requestedSchema":{"type":"object","properties":{}}}});
        let waiting = task(json!({"status":"input_required","inputRequests":{"q":form}}));
        check_task_input_requests(&waiting, &json!({"elicitation":{}})).unwrap();
        assert_eq!(
            check_task_input_requests(&waiting, &json!({})),
            Err(TaskInputCheck::MissingCapabilities(json!({"elicitation":{}})))
        );
        check_task_input_requests(&task(json!({})), &json!({})).unwrap();
        for bad in [
            task(json!({"status":"input_required"})),
            task(json!({"status":"input_required","inputRequests":{}})),
            task(json!({"inputRequests":{"q":form}})),
            task(json!({"status":"input_required","inputRequests":{"q":{"method":"ping"}}})),
            json!(1),
        ] {
            assert!(
                matches!(check_task_input_requests(&bad, &json!({})), Err(TaskInputCheck::Invalid(_))),
                "{bad}"
            );
        }
    }
}
