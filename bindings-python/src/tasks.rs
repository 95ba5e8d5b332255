//! The Tasks extension: checking the input requests a `tasks/get` result
//! carries against the client's capabilities (`snodo::check_task_input_requests`).

use pyo3::prelude::*;
use snodo::{ErrorCode, TaskInputCheck};

use crate::error::raise;
use crate::json::{object_arg, to_py, to_value};

/// The capabilities the client must add to receive the task's input
/// requests (`{}` when it can receive them all, or the task carries none).
/// A malformed task or input request raises `InputRequestError` naming the
/// field: the core's `TaskInputCheck::Invalid`.
#[pyfunction]
pub fn check_task_input_requests<'py>(
    py: Python<'py>,
    task: &Bound<'py, PyAny>,
    capabilities: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let task = to_value(task)?;
    let caps = object_arg(capabilities, "capabilities")?;
    match snodo::check_task_input_requests(&task, &caps) {
        Ok(()) => to_py(py, &serde_json::Value::Object(serde_json::Map::new())),
        Err(TaskInputCheck::MissingCapabilities(missing)) => to_py(py, &missing),
        Err(TaskInputCheck::Invalid(why)) => Err(raise(py, ErrorCode::InputRequest, why)),
    }
}

/// Whether client capabilities declare the Tasks extension
/// (`extensions["io.modelcontextprotocol/tasks"]`, an object): the one test
/// `decide` applies before it sends a task result.
#[pyfunction]
pub fn declares_tasks(capabilities: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(snodo::declares_tasks(&to_value(capabilities)?))
}
