//! The task machine (`Engine::task_step`, `docs/tasks.md`) for C: `snodo_task_step`, one step with at most
//! one store command (`snodo_task_command`, lent as a once command is), finished with the store's reply; and
//! `snodo_memory_task_store`, the core's one-process store. A runner loops: while there is a leg, run the
//! handler on it, step its outcome, run the command (a NULL reply: none, or the store failed), finish (log
//! the response of a background leg) and go on with the next leg.

use std::ffi::c_char;
use std::ptr::{from_ref, null_mut};

use snodo::{MemoryTaskStore, Outcome, TaskCommand, TaskStep, TaskStore};

use crate::call::{snodo_call, snodo_response};
use crate::engine::snodo_engine;
use crate::error::snodo_status;
use crate::ffi::{
    Lent, Out, free_handle, guard, handle, into_handle, json_opt, make, nul_terminated, read_text_or,
};
use crate::ffi::{read_lent, read_scalar, text_opt};

/// One task store command (the core's `TaskCommand`): its op name, the task's key, the Lua script and its
/// arguments, lent by `snodo_task_step_command` and living as long as its step (never free it). Immutable and
/// shareable across threads.
#[derive(Debug)]
pub struct snodo_task_command {
    inner: TaskCommand,
    /// The op name and the script, NUL-terminated once so that they can be lent (as `lent` does the rest).
    op: Box<[u8]>,
    script: Box<[u8]>,
    lent: Lent,
}

/// One step of the task machine, from `snodo_engine_task_step`: run its command (if any) on the task store,
/// then hand the reply to `snodo_task_step_finish`, which consumes the step. Not shareable across threads.
/// Free a step that is not finished with `snodo_task_step_free`.
#[derive(Debug)]
pub struct snodo_task_step {
    inner: TaskStep,
    command: Option<snodo_task_command>,
}

/// The step for `call` (`docs/tasks.md`), a request from a begin function or a leg from
/// `snodo_task_step_finish`. `outcome` is the handler's outcome JSON as `snodo_engine_decide` reads it
/// (`{"type":"task","state":...}` hands the rest on as a task; on a request the step decides the call); NULL
/// for a `tasks/get`, `tasks/update` or `tasks/cancel` request, whose step answers it, or on a task's leg,
/// whose step reads its own task (a long run learns it was cancelled). Statuses: OK, ARGUMENT (bad outcome
/// shape, NULL on a request), ALREADY_DECIDED, STORE (no randomness for a task id).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_task_step(
    engine: *const snodo_engine,
    call: *const snodo_call,
    outcome: *const u8,
    outcome_len: usize,
    out: *mut *mut snodo_task_step,
) -> snodo_status {
    unsafe {
        make(out, || {
            let (engine, call) = (handle(engine, "engine")?, handle(call, "call")?);
            let outcome = json_opt(outcome, outcome_len, "outcome")?.map(Outcome::from_value).transpose()?;
            let inner = engine.inner.task_step(&call.inner, outcome)?;
            let command = inner.command().map(|c| snodo_task_command {
                op: nul_terminated(c.op().name()),
                script: nul_terminated(c.script()),
                lent: Lent::new(c.key(), c.args()),
                inner: c.clone(),
            });
            Ok(snodo_task_step { inner, command })
        })
    }
}

/// The step's store command, **lent by the step** (valid until it is finished or freed; never free it), or
/// NULL when the step needs none (finish it with a NULL reply).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_step_command(
    step: *const snodo_task_step,
    out: *mut *const snodo_task_command,
) -> snodo_status {
    unsafe { read_scalar(step, "step", out, |s| s.command.as_ref().map_or(std::ptr::null(), from_ref)) }
}

/// Finishes a step with `reply`, the store's reply text to its command; NULL when it had none, or when the
/// store failed (the step then answers `-32603` "task store unavailable" and hands no leg). `*out_response`
/// is the response to send (NULL: none; on a background leg it is only for the log), `*out_leg` the next run
/// of the handler as a call (NULL: none): run it (in the background when `snodo_call_task_id` is set) and
/// hand its outcome to `snodo_engine_task_step`. A NULL or non-UTF-8 argument is refused before the step is
/// touched (it is still the caller's); otherwise the step is consumed, whatever the status. Statuses: OK,
/// STORE (a reply snodo does not write).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_step_finish(
    step: *mut snodo_task_step,
    reply: *const u8,
    reply_len: usize,
    out_response: *mut *mut snodo_response,
    out_leg: *mut *mut snodo_call,
) -> snodo_status {
    guard(|| {
        let (_, reply) = unsafe { (handle(step, "step")?, text_opt(reply, reply_len, "reply")?) };
        let (response, leg) =
            unsafe { (Out::new(out_response, "out_response")?, Out::new(out_leg, "out_leg")?) };
        // SAFETY: a live step from snodo_engine_task_step (checked non-NULL above), consumed here.
        let done = unsafe { Box::from_raw(step) }.inner.finish(reply)?;
        response.write(done.response.map_or(null_mut(), |r| into_handle(snodo_response { inner: r })))?;
        leg.write(done.leg.map_or(null_mut(), |c| into_handle(snodo_call { inner: *c })))
    })
}

/// Frees a step that was not finished, and the command it lends.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_step_free(step: *mut snodo_task_step) {
    unsafe { free_handle(step) }
}

/// The command's op name (the core's `TaskOp::name`: `create`, `get`, `answer`, `cancel`, `park` or
/// `finish`), lent as `snodo_task_command_key` lends the key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_command_op(
    command: *const snodo_task_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| Ok(&c.op)) }
}

/// The task's key, `KEYS[1]` of the script (`snodo:task:{<taskId>}`): NUL-terminated text **lent by the
/// step** (valid until it is finished or freed; never free it); `*out_len` (optional) is its length.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_command_key(
    command: *const snodo_task_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| Ok(&c.lent.key)) }
}

/// The Lua script to run (`EVAL`, or `EVALSHA` of its hash), byte for byte the core's, NUL-terminated and
/// **lent by the step**.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_command_script(
    command: *const snodo_task_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| Ok(&c.script)) }
}

/// How many arguments (`ARGV`) the script takes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_command_arg_count(
    command: *const snodo_task_command,
    out: *mut usize,
) -> snodo_status {
    unsafe { read_scalar(command, "command", out, |c| c.lent.args.len()) }
}

/// Argument `index` (`ARGV[index + 1]`), lent as `snodo_once_command_arg` lends one. Statuses: OK, ARGUMENT
/// (`index` not below `snodo_task_command_arg_count`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_task_command_arg(
    command: *const snodo_task_command,
    index: usize,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| c.lent.arg("task", c.inner.op().name(), index)) }
}

/// The bound of `snodo_memory_task_store_new` when `max_tasks` is 0: live tasks at once.
pub const SNODO_TASK_DEFAULT_MAX_TASKS: usize = 10_000;

/// The core's in-memory task store: one process (`tasks/*` must reach the process that created the task; a
/// fleet runs the commands on Redis instead), shareable across threads.
#[derive(Debug)]
pub struct snodo_memory_task_store {
    inner: MemoryTaskStore,
}

/// A store holding at most `max_tasks` live tasks (0 = `SNODO_TASK_DEFAULT_MAX_TASKS`): one more is STORE
/// from `snodo_memory_task_store_execute`, never an eviction of a live task.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_memory_task_store_new(
    max_tasks: usize,
    out: *mut *mut snodo_memory_task_store,
) -> snodo_status {
    let max = if max_tasks == 0 { SNODO_TASK_DEFAULT_MAX_TASKS } else { max_tasks };
    unsafe { make(out, || Ok(snodo_memory_task_store { inner: MemoryTaskStore::new(max) })) }
}

/// Frees a store; no other thread may be using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_memory_task_store_free(store: *mut snodo_memory_task_store) {
    unsafe { free_handle(store) }
}

/// Runs `command` on the store, atomically, on the system clock. `*out` is the reply for
/// `snodo_task_step_finish`. Statuses: OK, STORE (the store is full: finish the step with a NULL reply).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_memory_task_store_execute(
    store: *const snodo_memory_task_store,
    command: *const snodo_task_command,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(store, "store", out, out_len, |s| {
            Ok(Some(s.inner.execute(&handle(command, "command")?.inner)?))
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn default_max_tasks_is_the_cores() {
        assert_eq!(super::SNODO_TASK_DEFAULT_MAX_TASKS, snodo::DEFAULT_MAX_TASKS);
    }
}
