//! The Tasks extension helpers: `snodo_check_task_input_requests`,
//! `snodo_declares_tasks`.

use std::ffi::c_char;

use serde_json::{Map, Value};
use snodo::TaskInputCheck;

use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, guard, json, json_pair_to_json};

/// Checks the input requests a `tasks/get` result carries: `task` is the
/// Task object (JSON text), `capabilities` the ClientCapabilities the
/// `tasks/get` request declared. An `input_required` task must carry a
/// non-empty `inputRequests` object of valid input requests under valid
/// keys; any other status none.
///
/// On OK `*out` is a new JSON string owned by the caller (free with
/// `snodo_string_free`): `{}` when the client can receive them all, else
/// the capabilities it lacks (shaped as `snodo_missing_capabilities`
/// returns them). A malformed task is INPUT_REQUEST (as in Python), the
/// last error naming the field. `out_len` may be NULL.
///
/// Statuses: OK, INPUT_REQUEST (malformed task), JSON, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `task` and `capabilities` valid for their lengths; `out` valid for one
/// pointer write; `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_task_input_requests(
    task: *const u8,
    task_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        json_pair_to_json(
            (task, task_len, "task"),
            (capabilities, capabilities_len, "capabilities"),
            out,
            out_len,
            |t, c| match snodo::check_task_input_requests(t, c) {
                Ok(()) => Ok(Value::Object(Map::new())),
                Err(TaskInputCheck::MissingCapabilities(m)) => Ok(m),
                Err(TaskInputCheck::Invalid(why)) => Err(Fail::new(snodo_status::InputRequest, why)),
            },
        )
    }
}

/// Whether `capabilities` (a ClientCapabilities JSON object) declares the
/// Tasks extension (`extensions["io.modelcontextprotocol/tasks"]`, an
/// object): only then may a `tools/call` outcome be a `CreateTaskResult`.
///
/// Statuses: OK, JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `capabilities` valid for `capabilities_len` bytes; `out` valid for one
/// `bool` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_declares_tasks(
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut bool,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let caps = unsafe { json(capabilities, capabilities_len, "capabilities") }?;
        let out = Out::new(out, "out")?;
        // SAFETY: caller contract.
        unsafe { out.write(snodo::declares_tasks(&caps)) };
        Ok(())
    })
}
