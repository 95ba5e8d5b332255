//! The Tasks extension: its checks, and the core's task machine (`engine.taskStep`, `TaskStep`,
//! `TaskCommand`, `MemoryTaskStore`); `tasks.js` drives it.

use napi::bindgen_prelude::*;
use serde_json::{Map, Value};
use snodo::{ErrorCode, TaskInputCheck};

use crate::call::Call;
use crate::error::{Coded, Result, core, error};
use crate::json;
use crate::once::whole;
use crate::response::Response;

/// The capabilities the client must add to receive the task's input requests (`{}`: none). A
/// malformed task or input request throws `INPUT_REQUEST` naming the field.
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

/// Whether client capabilities declare the Tasks extension (`io.modelcontextprotocol/tasks`, an
/// object under `extensions`): when a `tools/call` may be answered with a task.
#[napi(catch_unwind)]
pub fn declares_tasks(
    env: &Env,
    #[napi(ts_arg_type = "Record<string, any> | string | Buffer")] capabilities: Unknown,
) -> Result<bool> {
    Ok(snodo::declares_tasks(&json::read(env, capabilities, "capabilities")?))
}

/// The `requiredCapabilities` of a `-32021` for a task the client cannot receive:
/// `{extensions: {"io.modelcontextprotocol/tasks": {}}}`.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn task_required_capabilities(env: &Env) -> Result<Unknown<'_>> {
    json::to_js(env, &snodo::task_required_capabilities())
}

/// How long a task stays readable after its creation (`ttlMs`), in milliseconds.
#[napi]
pub const DEFAULT_TASK_TTL_MS: u32 = snodo::DEFAULT_TASK_TTL_MS as u32;
/// The `pollIntervalMs` a task suggests, in milliseconds.
#[napi]
pub const DEFAULT_TASK_POLL_MS: u32 = snodo::DEFAULT_TASK_POLL_MS as u32;
// The task store's Lua scripts, byte for byte the core's (a `TaskCommand` names its own).
#[napi]
pub const TASK_CREATE_SCRIPT: &str = snodo::TASK_CREATE_SCRIPT;
#[napi]
pub const TASK_GET_SCRIPT: &str = snodo::TASK_GET_SCRIPT;
#[napi]
pub const TASK_ANSWER_SCRIPT: &str = snodo::TASK_ANSWER_SCRIPT;
#[napi]
pub const TASK_CANCEL_SCRIPT: &str = snodo::TASK_CANCEL_SCRIPT;
#[napi]
pub const TASK_PARK_SCRIPT: &str = snodo::TASK_PARK_SCRIPT;
#[napi]
pub const TASK_FINISH_SCRIPT: &str = snodo::TASK_FINISH_SCRIPT;

/// One task store command: run `script` with `KEYS[1] = key` and `ARGV = args` (the `RedisStore`
/// of `snodo-mrtr/once` does), or hand it to `MemoryTaskStore.execute`; give the reply to `finish`.
#[napi]
#[derive(Debug)]
pub struct TaskCommand {
    /// The step: `create`, `get`, `answer`, `cancel`, `park` or `finish`.
    #[napi(readonly)]
    pub op: String,
    /// The task's key (`KEYS[1]`): `snodo:task:{<taskId>}`.
    #[napi(readonly)]
    pub key: String,
    /// The Lua script, byte for byte (one of the `TASK_*_SCRIPT`s).
    #[napi(readonly)]
    pub script: String,
    /// The script's `ARGV`.
    #[napi(readonly)]
    pub args: Vec<String>,
    inner: snodo::TaskCommand,
}

/// One step of the task machine (`engine.taskStep`): run `command`, if any, on the task store, then
/// `finish` with its reply.
#[napi]
#[derive(Debug)]
pub struct TaskStep {
    pub(crate) inner: Option<snodo::TaskStep>,
}

#[napi]
impl TaskStep {
    /// The store command to run, or `null`.
    #[napi(getter, catch_unwind)]
    pub fn command(&self) -> Option<TaskCommand> {
        let c = self.inner.as_ref()?.command()?;
        let (op, key, script) = (c.op().name().into(), c.key().into(), c.script().into());
        Some(TaskCommand { op, key, script, args: c.args().to_vec(), inner: c.clone() })
    }
    /// The command's reply (`null`: none, or the store failed: `-32603`, no run) → the response to
    /// send (on a run, to log) and the next run. Once (again: `ALREADY_DECIDED`); `STORE`: bad reply.
    #[napi(catch_unwind, ts_return_type = "{ response: Response | null; leg: Call | null }")]
    pub fn finish<'e>(&mut self, env: &'e Env, reply: Option<String>) -> Result<Object<'e>> {
        let step =
            self.inner.take().ok_or_else(|| error(ErrorCode::AlreadyDecided, "task step: finished"))?;
        let done = step.finish(reply.as_deref()).map_err(core)?;
        let mut o = Object::new(env).coded()?;
        o.set("response", done.response.as_ref().map(Response::from)).coded()?;
        o.set("leg", done.leg.map(Call::new)).coded()?;
        Ok(o)
    }
}

/// The in-memory task store of one process (the core's `MemoryTaskStore`): at most `maxTasks` live
/// tasks (default 10 000; one more is `STORE`, never an eviction), each gone `ttlMs` after creation.
#[napi]
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: snodo::MemoryTaskStore,
}

#[napi]
impl MemoryTaskStore {
    /// A store of at most `maxTasks` (a whole number, at least 1) live tasks.
    #[napi(constructor, catch_unwind)]
    pub fn new(max_tasks: Option<f64>) -> Result<Self> {
        let max =
            max_tasks.map(|m| whole(ErrorCode::Config, "MemoryTaskStore: maxTasks", m, 1.0)).transpose()?;
        let max = max.map_or(snodo::DEFAULT_MAX_TASKS, |m| usize::try_from(m).unwrap_or(usize::MAX));
        Ok(MemoryTaskStore { inner: snodo::MemoryTaskStore::new(max) })
    }
    /// Runs a `TaskCommand` and returns its reply text. `STORE` when full.
    #[napi(catch_unwind)]
    pub fn execute(&self, command: &TaskCommand) -> Result<String> {
        snodo::TaskStore::execute(&self.inner, &command.inner).map_err(core)
    }
    /// How many tasks are live.
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }
}
