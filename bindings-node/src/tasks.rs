//! The Tasks extension helper: checks the input requests a `tasks/get` result carries against the
//! client's capabilities (`snodo::check_task_input_requests`).

use napi::bindgen_prelude::*;
use serde_json::{Map, Value};
use snodo::{ErrorCode, TaskInputCheck};

use crate::error::{Result, error};
use crate::json;

/// The capabilities the client must add to receive the task's input requests (`{}` when it can
/// receive them all, or the task carries none). A malformed task or input request throws
/// `INPUT_REQUEST` naming the field.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn check_task_input_requests<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any> | string | Buffer")] task: Unknown,
    #[napi(ts_arg_type = "Record<string, any> | string | Buffer")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let task = json::read(env, task, "task")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    match snodo::check_task_input_requests(&task, &caps) {
        Ok(()) => json::to_js(env, &Value::Object(Map::new())),
        Err(TaskInputCheck::MissingCapabilities(missing)) => json::to_js(env, &missing),
        Err(TaskInputCheck::Invalid(why)) => Err(error(ErrorCode::InputRequest, why)),
    }
}

/// Whether client capabilities declare the Tasks extension
/// (`extensions["io.modelcontextprotocol/tasks"]`, an object): when a `tools/call` may be answered
/// with a task.
#[napi(catch_unwind)]
pub fn declares_tasks(
    env: &Env,
    #[napi(ts_arg_type = "Record<string, any> | string | Buffer")] capabilities: Unknown,
) -> Result<bool> {
    Ok(snodo::declares_tasks(&json::read(env, capabilities, "capabilities")?))
}
