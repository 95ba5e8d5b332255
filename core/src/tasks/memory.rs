//! The in-memory task store: one process. It runs each [`TaskCommand`]
//! with the meaning of its Redis script (`scripts.rs`), on one map under one
//! mutex, and answers the same reply text, so one reader serves every store.
//! Bounded in tasks, with a share per principal (a quarter of the bound), so
//! one user cannot take every place; a task expires at `createdAt + ttlMs`.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use super::TaskStore;
use super::command::{Record, TaskCommand, TaskOp, unexpected, write_dump};
use crate::error::{Error, ErrorCode, Result};

/// The default bound of a [`MemoryTaskStore`]: live tasks at once.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

#[derive(Debug, Default)]
struct Inner {
    records: HashMap<String, (Record, u64)>,
    by_expiry: BTreeSet<(u64, String)>,
    /// Live tasks per principal (the record's `who`).
    by_who: HashMap<String, usize>,
}

/// The in-process [`TaskStore`]: tasks live as long as the process, so
/// `tasks/*` must reach the process that created the task. A fleet uses
/// `RedisStore` (feature `redis`), which runs the same commands.
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: Mutex<Inner>,
    max_tasks: usize,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new(DEFAULT_MAX_TASKS)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn clear(record: &mut Record) {
    record.retain(|k, _| !k.starts_with("ask:") && !k.starts_with("ans:"));
}

fn set(record: &mut Record, pairs: &[(&str, &str)]) {
    for (k, v) in pairs {
        record.insert((*k).to_owned(), (*v).to_owned());
    }
}

/// The pairs after the first `skip` arguments, as (field, value).
fn pairs(args: &[String], skip: usize) -> impl Iterator<Item = (&String, &String)> {
    let rest = args.get(skip..).unwrap_or_default();
    rest.chunks_exact(2).filter_map(|p| Some((p.first()?, p.get(1)?)))
}

impl MemoryTaskStore {
    /// A store holding at most `max_tasks` live tasks, a quarter of them per
    /// principal; one more is a `STORE` error ("full"), never an eviction
    /// of a live task.
    pub fn new(max_tasks: usize) -> MemoryTaskStore {
        MemoryTaskStore { inner: Mutex::new(Inner::default()), max_tasks }
    }

    /// How many tasks are live.
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).records.len()
    }

    /// Whether no task is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Inner {
    fn expire(&mut self, now: u64) {
        while let Some((at, key)) = self.by_expiry.first().cloned() {
            if at > now {
                break;
            }
            self.by_expiry.remove(&(at, key.clone()));
            if let Some((record, _)) = self.records.remove(&key) {
                let who = record.get("who").cloned().unwrap_or_default();
                if let Some(n) = self.by_who.get_mut(&who) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.by_who.remove(&who);
                    }
                }
            }
        }
    }
}

impl TaskStore for MemoryTaskStore {
    fn execute(&self, command: &TaskCommand) -> Result<String> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.expire(now_ms());
        let args = command.args();
        let arg = |i: usize| args.get(i).map_or("", String::as_str);
        let key = command.key();
        if command.op() == TaskOp::Create {
            if inner.records.contains_key(key) {
                return Ok("exists".into());
            }
            if inner.records.len() >= self.max_tasks {
                return Err(Error::new(ErrorCode::Store, "task store: full (the memory store's task bound)"));
            }
            let at: u64 = arg(0).parse().map_err(|_| unexpected(TaskOp::Create))?;
            let record: Record = pairs(args, 1).map(|(k, v)| (k.clone(), v.clone())).collect();
            let who = record.get("who").cloned().unwrap_or_default();
            let share = inner.by_who.entry(who).or_default();
            if *share >= (self.max_tasks / 4).max(1) {
                return Err(Error::new(
                    ErrorCode::Store,
                    "task store: full for this principal (a quarter of the bound)",
                ));
            }
            *share += 1;
            inner.by_expiry.insert((at, key.to_owned()));
            inner.records.insert(key.to_owned(), (record, at));
            return Ok("created".into());
        }
        let Some((record, _)) = inner.records.get_mut(key) else {
            return Ok(match command.op() {
                TaskOp::Park | TaskOp::Finish => "stale",
                _ => "none",
            }
            .into());
        };
        let field = |r: &Record, f: &str| r.get(f).cloned().unwrap_or_default();
        Ok(match command.op() {
            TaskOp::Create => unreachable_create(),
            TaskOp::Get if field(record, "who") != arg(0) => "none".into(),
            TaskOp::Get => format!("task {}", write_dump(record)),
            TaskOp::Answer => {
                if field(record, "who") != arg(0) {
                    return Ok("none".into());
                }
                if field(record, "status") != "input_required" {
                    return Ok("ignored".into());
                }
                let mut took = 0;
                for (k, answer) in pairs(args, 2) {
                    let ans = format!("ans:{k}");
                    if record.contains_key(&format!("ask:{k}")) && !record.contains_key(&ans) {
                        record.insert(ans, answer.clone());
                        took += 1;
                    }
                }
                if took == 0 {
                    return Ok("ignored".into());
                }
                set(record, &[("updated", arg(1))]);
                let waiting = record
                    .keys()
                    .filter_map(|f| f.strip_prefix("ask:"))
                    .any(|k| !record.contains_key(&format!("ans:{k}")));
                if waiting {
                    return Ok("waiting".into());
                }
                set(record, &[("status", "working")]);
                format!("resume {}", write_dump(record))
            }
            TaskOp::Cancel => {
                if field(record, "who") != arg(0) {
                    return Ok("none".into());
                }
                if ["completed", "failed", "cancelled"].contains(&field(record, "status").as_str()) {
                    return Ok("terminal".into());
                }
                clear(record);
                set(record, &[("status", "cancelled"), ("updated", arg(1))]);
                "cancelled".into()
            }
            TaskOp::Park | TaskOp::Finish => {
                if field(record, "status") != "working" || field(record, "leg") != arg(0) {
                    return Ok("stale".into());
                }
                clear(record);
                if command.op() == TaskOp::Park {
                    for (k, ask) in pairs(args, 3) {
                        record.insert(format!("ask:{k}"), ask.clone());
                    }
                    if arg(2).is_empty() {
                        record.remove("state");
                    } else {
                        set(record, &[("state", arg(2))]);
                    }
                    let next = arg(0).parse::<u64>().map_err(|_| unexpected(TaskOp::Park))?.saturating_add(1);
                    set(
                        record,
                        &[("status", "input_required"), ("leg", &next.to_string()), ("updated", arg(1))],
                    );
                    "parked".into()
                } else {
                    record.remove("state");
                    set(record, &[("status", arg(2)), ("updated", arg(1)), ("outcome", arg(3))]);
                    "finished".into()
                }
            }
        })
    }
}

/// `Create` returned above; kept total without a panic path.
fn unreachable_create() -> String {
    "exists".into()
}
