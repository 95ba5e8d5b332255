//! A run's outcome as its store command: questions park the task under keys
//! minted for it, anything else ends it, a hand-on goes on.

use serde_json::{Map, Value, json};

use super::{Ctx, MAX_TASK_HOPS, TaskStep, Then, done, iso, leg_call, state_leg, text};
use crate::call::{Call, TaskLeg};
use crate::elicitation;
use crate::error::Result;
use crate::response::Outcome;
use crate::tasks::{TaskCommand, TaskOp, task_key};

/// The key a question asked under `key` in run `leg` goes out under: unique
/// over the task's life (the run's number after the last `@`), within the
/// 64 bytes a key may have.
fn mint(key: &str, leg: u64, index: usize) -> String {
    let minted = format!("{key}@{leg}");
    if minted.len() <= 64 { minted } else { format!("{leg}.{index}") }
}

/// A run's outcome: park, finish, or go on.
pub(super) fn settle(ctx: &Ctx<'_>, call: &Call, leg: &TaskLeg, outcome: Outcome) -> Result<TaskStep> {
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
