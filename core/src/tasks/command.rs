//! [`TaskCommand`]: one task store step, and the replies read back. A
//! Redis client runs `command.script()` with `KEYS[1] = command.key()` and
//! `ARGV = command.args()`; [`MemoryTaskStore`](super::MemoryTaskStore)
//! runs the same step natively and answers the same text.

use std::collections::BTreeMap;

use super::scripts::{
    TASK_ANSWER_SCRIPT, TASK_CANCEL_SCRIPT, TASK_CREATE_SCRIPT, TASK_FINISH_SCRIPT, TASK_GET_SCRIPT,
    TASK_PARK_SCRIPT,
};
use crate::error::{Error, ErrorCode, Result};

/// Which store step a [`TaskCommand`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskOp {
    /// Store a new task.
    Create,
    /// Read a task.
    Get,
    /// Take answers to outstanding input requests (`tasks/update`).
    Answer,
    /// Cancel a task that is not terminal.
    Cancel,
    /// A handler run asks for input: the task waits on new keys.
    Park,
    /// A handler run ends the task (completed or failed).
    Finish,
}

impl TaskOp {
    /// The lowercase name (`create`, `get`, `answer`, `cancel`, `park`, `finish`).
    pub fn name(self) -> &'static str {
        match self {
            TaskOp::Create => "create",
            TaskOp::Get => "get",
            TaskOp::Answer => "answer",
            TaskOp::Cancel => "cancel",
            TaskOp::Park => "park",
            TaskOp::Finish => "finish",
        }
    }
}

/// One task store step: a script, one key, its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCommand {
    pub(crate) op: TaskOp,
    pub(crate) key: String,
    pub(crate) args: Vec<String>,
}

impl TaskCommand {
    /// The step.
    pub fn op(&self) -> TaskOp {
        self.op
    }
    /// The task's key (`KEYS[1]`): `snodo:task:{<taskId>}`.
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The Lua script to run, byte for byte.
    pub fn script(&self) -> &'static str {
        match self.op {
            TaskOp::Create => TASK_CREATE_SCRIPT,
            TaskOp::Get => TASK_GET_SCRIPT,
            TaskOp::Answer => TASK_ANSWER_SCRIPT,
            TaskOp::Cancel => TASK_CANCEL_SCRIPT,
            TaskOp::Park => TASK_PARK_SCRIPT,
            TaskOp::Finish => TASK_FINISH_SCRIPT,
        }
    }
    /// The script's `ARGV`.
    pub fn args(&self) -> &[String] {
        &self.args
    }
}

/// The key of task `id`. The braces make it one Redis Cluster hash slot.
pub(crate) fn task_key(id: &str) -> String {
    format!("snodo:task:{{{id}}}")
}

pub(crate) fn unexpected(op: TaskOp) -> Error {
    Error::new(
        ErrorCode::Store,
        format!(
            "task store: an unexpected reply to {} (does another application write snodo:task: keys?)",
            op.name()
        ),
    )
}

/// A task record: field → value, as the scripts store it.
pub(crate) type Record = BTreeMap<String, String>;

/// Reads a `dump` (`<bytes>:<text>` pairs, field then value).
pub(crate) fn read_dump(op: TaskOp, mut text: &str) -> Result<Record> {
    let mut items = Vec::new();
    while !text.is_empty() {
        let (len, rest) = text.split_once(':').ok_or_else(|| unexpected(op))?;
        let len: usize = len.parse().map_err(|_| unexpected(op))?;
        if !rest.is_char_boundary(len.min(rest.len())) || len > rest.len() {
            return Err(unexpected(op));
        }
        items.push(rest[..len].to_owned());
        text = &rest[len..];
    }
    if items.len() % 2 != 0 {
        return Err(unexpected(op));
    }
    let mut record = Record::new();
    let mut it = items.into_iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        record.insert(k, v);
    }
    if record.get("v").map(String::as_str) != Some("1") {
        return Err(unexpected(op));
    }
    Ok(record)
}

/// Writes a record as a `dump` (the memory store's replies).
pub(crate) fn write_dump(record: &Record) -> String {
    let mut out = String::new();
    for (k, v) in record {
        for s in [k, v] {
            out.push_str(&s.len().to_string());
            out.push(':');
            out.push_str(s);
        }
    }
    out
}

/// A reply, read: its word, or the record of `task`/`resume`.
#[derive(Debug)]
pub(crate) enum Reply {
    Word(&'static str),
    Record(Record),
}

/// Reads the reply to `op`: only the words that command can answer.
pub(crate) fn read_reply(op: TaskOp, reply: &str) -> Result<Reply> {
    let (word, rest) = reply.split_once(' ').unwrap_or((reply, ""));
    let words: &[&'static str] = match op {
        TaskOp::Create => &["created", "exists"],
        TaskOp::Get => &["none"],
        TaskOp::Answer => &["none", "ignored", "waiting"],
        TaskOp::Cancel => &["none", "terminal", "cancelled"],
        TaskOp::Park => &["parked", "stale"],
        TaskOp::Finish => &["finished", "stale"],
    };
    if let Some(w) = words.iter().find(|w| **w == word) {
        return if rest.is_empty() { Ok(Reply::Word(w)) } else { Err(unexpected(op)) };
    }
    match (op, word) {
        (TaskOp::Get, "task") => Ok(Reply::Record(read_dump(op, rest)?)),
        (TaskOp::Answer, "resume") => Ok(Reply::Record(read_dump(op, rest)?)),
        _ => Err(unexpected(op)),
    }
}
