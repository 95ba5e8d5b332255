//! The Tasks extension: the core's task machine (`Engine.task_step` hands
//! out a `TaskStep`; its `TaskCommand` runs on a `MemoryTaskStore` or on
//! the redis-py stores of `snodo_mrtr/once.py`; the runner is
//! `snodo_mrtr/tasks.py`), and the checks of a `tasks/get` result.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use snodo::{ErrorCode, TaskInputCheck, TaskStore};

use crate::call::Call;
use crate::error::{raise, to_py_err};
use crate::json::{object_arg, to_py, to_value};
use crate::response::Response;

/// One task store step: run `script` with `KEYS = [key]` and `ARGV = args`.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct TaskCommand {
    inner: snodo::TaskCommand,
}

#[pymethods]
impl TaskCommand {
    /// `"create"`, `"get"`, `"answer"`, `"cancel"`, `"park"` or `"finish"`.
    #[getter]
    fn op(&self) -> &'static str {
        self.inner.op().name()
    }
    /// The task's key (`KEYS[1]`): `snodo:task:{<taskId>}`.
    #[getter]
    fn key(&self) -> &str {
        self.inner.key()
    }
    #[getter]
    fn script(&self) -> &'static str {
        self.inner.script()
    }
    #[getter]
    fn args(&self) -> Vec<String> {
        self.inner.args().to_vec()
    }
    fn __repr__(&self) -> String {
        // Not the args: they carry the task's call, answers and result.
        format!("TaskCommand(op={:?}, key={:?})", self.op(), self.key())
    }
}

/// One step of the task machine: run `command` (if any) on a task store,
/// then `finish` with its reply. Finished once: the mutex makes a second
/// `finish` (from any thread) an `ArgumentError`, never a double run.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct TaskStep(pub(crate) Mutex<Option<snodo::TaskStep>>);

#[pymethods]
impl TaskStep {
    #[getter]
    fn command(&self) -> Option<TaskCommand> {
        let step = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        step.as_ref()?.command().map(|c| TaskCommand { inner: c.clone() })
    }
    /// `reply`: the command's reply text; `None` without a command or when
    /// the store failed (then -32603 and no run). Returns `(response, leg)`.
    fn finish(&self, py: Python<'_>, reply: Option<&str>) -> PyResult<(Option<Response>, Option<Call>)> {
        let step = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        let step = step.ok_or_else(|| raise(py, ErrorCode::Argument, "TaskStep.finish: already finished"))?;
        let done = step.finish(reply).map_err(|e| to_py_err(py, &e))?;
        Ok((done.response.map(|inner| Response { inner }), done.leg.map(|c| Call { inner: *c })))
    }
}

/// The core's in-memory task store: one process, thread-safe, bounded.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct MemoryTaskStore(snodo::MemoryTaskStore);

#[pymethods]
impl MemoryTaskStore {
    #[new]
    #[pyo3(signature = (max_tasks=snodo::DEFAULT_MAX_TASKS))]
    fn new(max_tasks: usize) -> Self {
        MemoryTaskStore(snodo::MemoryTaskStore::new(max_tasks))
    }
    /// Runs `command` and returns its reply text (`StoreError` when full).
    fn execute(&self, py: Python<'_>, command: PyRef<'_, TaskCommand>) -> PyResult<String> {
        self.0.execute(&command.inner).map_err(|e| to_py_err(py, &e))
    }
    fn __len__(&self) -> usize {
        self.0.len()
    }
}

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

/// `{"extensions": {TASKS_EXTENSION: {}}}`: the `requiredCapabilities` of
/// the -32021 for a client that must declare the extension.
#[pyfunction]
pub fn task_required_capabilities(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &snodo::task_required_capabilities())
}

/// Whether client capabilities declare the Tasks extension
/// (`extensions["io.modelcontextprotocol/tasks"]`, an object): the one test
/// `decide` applies before it sends a task result.
#[pyfunction]
pub fn declares_tasks(capabilities: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(snodo::declares_tasks(&to_value(capabilities)?))
}

/// Adds the task classes and constants.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TaskCommand>()?;
    m.add_class::<TaskStep>()?;
    m.add_class::<MemoryTaskStore>()?;
    m.add_function(wrap_pyfunction!(check_task_input_requests, m)?)?;
    m.add_function(wrap_pyfunction!(declares_tasks, m)?)?;
    m.add("TASKS_EXTENSION", snodo::TASKS_EXTENSION)?;
    m.add("TASK_CREATE_SCRIPT", snodo::TASK_CREATE_SCRIPT)?;
    m.add("TASK_GET_SCRIPT", snodo::TASK_GET_SCRIPT)?;
    m.add("TASK_ANSWER_SCRIPT", snodo::TASK_ANSWER_SCRIPT)?;
    m.add("TASK_CANCEL_SCRIPT", snodo::TASK_CANCEL_SCRIPT)?;
    m.add("TASK_PARK_SCRIPT", snodo::TASK_PARK_SCRIPT)?;
    m.add("TASK_FINISH_SCRIPT", snodo::TASK_FINISH_SCRIPT)?;
    m.add("DEFAULT_TASK_TTL_MS", snodo::DEFAULT_TASK_TTL_MS)?;
    m.add("DEFAULT_TASK_POLL_MS", snodo::DEFAULT_TASK_POLL_MS)?;
    m.add("DEFAULT_MAX_TASKS", snodo::DEFAULT_MAX_TASKS)?;
    m.add_function(wrap_pyfunction!(task_required_capabilities, m)?)
}
