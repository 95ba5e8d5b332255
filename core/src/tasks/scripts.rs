//! The Redis Lua scripts of the task store, published so that every client
//! (Rust, redis-py, node-redis, hiredis) runs the same bytes.
//!
//! A task is one Redis hash, `snodo:task:{<taskId>}` (one key: every script
//! runs on Redis Cluster). Every value is text the core wrote:
//!
//! | field          | meaning |
//! |----------------|---------|
//! | `v`            | the record format, `1` |
//! | `who`          | SHA-256 (hex) of the principal that created the task |
//! | `status`       | `working`, `input_required`, `completed`, `failed`, `cancelled` |
//! | `created`, `updated` | ISO 8601 UTC times (`createdAt`, `lastUpdatedAt`) |
//! | `ttl`, `poll`  | `ttlMs` and `pollIntervalMs` |
//! | `leg`          | the number of the handler run the task waits for or runs; only grows |
//! | `call`         | the creating `tools/call` (method, params, version, capabilities) as JSON |
//! | `state`        | the handler's state for its next run, JSON (absent: none) |
//! | `ask:<key>`    | an outstanding input request: `{"key": the handler's key, "request": …}` |
//! | `ans:<key>`    | the answer received for `ask:<key>`, JSON |
//! | `outcome`      | `{"result": …}` or `{"error": …}` once terminal |
//!
//! The record expires at `createdAt + ttlMs` (`PEXPIREAT`). A task another
//! principal created answers exactly like one that does not exist
//! (`none`). Writes of a handler run (`park`, `finish`) carry the run's
//! `leg` and apply only while the task is `working` on that leg, so a
//! cancelled task never comes back to life and a run that lost a race
//! learns it (`stale`). Each reply is one string; `command.rs` reads it.

/// `dump(key)`: every field and value as `<bytes>:<text>` pairs, concatenated.
macro_rules! dump_fn {
    () => {
        "local function dump(key)
  local all = redis.call('HGETALL', key)
  local out = {}
  for i = 1, #all do out[i] = #all[i] .. ':' .. all[i] end
  return table.concat(out)
end
"
    };
}

/// Drops the `ask:`/`ans:` fields of `key` (a new leg, or a terminal task).
macro_rules! clear_fn {
    () => {
        "local function clear(key)
  for _, f in ipairs(redis.call('HKEYS', key)) do
    local p = string.sub(f, 1, 4)
    if p == 'ask:' or p == 'ans:' then redis.call('HDEL', key, f) end
  end
end
"
    };
}

/// Create: `ARGV[1]` = expiry (Unix ms), then field/value pairs. Replies
/// `created`, or `exists` (an id collision: never reuse a task).
pub const TASK_CREATE_SCRIPT: &str = "\
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 'created'
";

/// Get: `ARGV[1]` = who. Replies `task <dump>` or `none`.
pub const TASK_GET_SCRIPT: &str = concat!(
    dump_fn!(),
    "local who = redis.call('HGET', KEYS[1], 'who')
if not who or who ~= ARGV[1] then return 'none' end
return 'task ' .. dump(KEYS[1])
"
);

/// Answer (`tasks/update`): `ARGV[1]` = who, `ARGV[2]` = updated, then
/// key/answer pairs. An answer is taken only for an outstanding key not yet
/// answered; others are ignored. Replies `none`, `ignored` (nothing taken),
/// `waiting` (keys remain) or `resume <dump>` (the last key was answered:
/// the task is `working` again and the caller runs the next leg).
pub const TASK_ANSWER_SCRIPT: &str = concat!(
    dump_fn!(),
    "local r = redis.call('HMGET', KEYS[1], 'who', 'status')
if not r[1] or r[1] ~= ARGV[1] then return 'none' end
if r[2] ~= 'input_required' then return 'ignored' end
local took = 0
for i = 3, #ARGV - 1, 2 do
  if redis.call('HEXISTS', KEYS[1], 'ask:' .. ARGV[i]) == 1
     and redis.call('HSETNX', KEYS[1], 'ans:' .. ARGV[i], ARGV[i + 1]) == 1 then
    took = took + 1
  end
end
if took == 0 then return 'ignored' end
redis.call('HSET', KEYS[1], 'updated', ARGV[2])
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 4) == 'ask:' and redis.call('HEXISTS', KEYS[1], 'ans:' .. string.sub(f, 5)) == 0 then
    return 'waiting'
  end
end
redis.call('HSET', KEYS[1], 'status', 'working')
return 'resume ' .. dump(KEYS[1])
"
);

/// Cancel: `ARGV[1]` = who, `ARGV[2]` = updated. Replies `none`,
/// `terminal` (left as it ended) or `cancelled`.
pub const TASK_CANCEL_SCRIPT: &str = concat!(
    clear_fn!(),
    "local r = redis.call('HMGET', KEYS[1], 'who', 'status')
if not r[1] or r[1] ~= ARGV[1] then return 'none' end
if r[2] == 'completed' or r[2] == 'failed' or r[2] == 'cancelled' then return 'terminal' end
clear(KEYS[1])
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'updated', ARGV[2])
return 'cancelled'
"
);

/// Park (a leg asks for input): `ARGV[1]` = leg, `ARGV[2]` = updated,
/// `ARGV[3]` = state (empty: none), then key/ask pairs. Replies `parked`
/// (the task is `input_required` on leg + 1) or `stale`.
pub const TASK_PARK_SCRIPT: &str = concat!(
    clear_fn!(),
    "local r = redis.call('HMGET', KEYS[1], 'status', 'leg')
if r[1] ~= 'working' or r[2] ~= ARGV[1] then return 'stale' end
clear(KEYS[1])
for i = 4, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], 'ask:' .. ARGV[i], ARGV[i + 1]) end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'state') else redis.call('HSET', KEYS[1], 'state', ARGV[3]) end
redis.call('HSET', KEYS[1], 'status', 'input_required', 'leg', tostring(tonumber(ARGV[1]) + 1), 'updated', ARGV[2])
return 'parked'
"
);

/// Finish (a leg ends the task): `ARGV[1]` = leg, `ARGV[2]` = updated,
/// `ARGV[3]` = `completed` or `failed`, `ARGV[4]` = outcome. Replies
/// `finished` or `stale`.
pub const TASK_FINISH_SCRIPT: &str = concat!(
    clear_fn!(),
    "local r = redis.call('HMGET', KEYS[1], 'status', 'leg')
if r[1] ~= 'working' or r[2] ~= ARGV[1] then return 'stale' end
clear(KEYS[1])
redis.call('HDEL', KEYS[1], 'state')
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'updated', ARGV[2], 'outcome', ARGV[4])
return 'finished'
"
);
