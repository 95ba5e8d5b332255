//! The Redis Lua scripts of the once machine, published so that every
//! client (Rust, redis-py, node-redis, hiredis) runs the same bytes: a
//! command names its script, and `EVALSHA` needs the exact text.
//!
//! A flow's record is one Redis hash, `<prefix>flow:{<flow_id>}`:
//!
//! | field    | meaning |
//! |----------|---------|
//! | `state`  | `pending` (claimed), `done` (completed) or `free` (released) |
//! | `fence`  | the last fencing number handed out; only grows |
//! | `owner`  | the random id of the caller holding a pending claim |
//! | `digest` | the answers digest of the pending or completed attempt |
//! | `lease`  | when a pending claim lapses, Redis milliseconds |
//! | `text`   | the remembered final result (`done` only) |
//!
//! One key per flow: every script touches exactly one key, so it runs on
//! Redis Cluster. Times are Redis's own (`TIME`), never a caller's: a
//! caller with a fast clock cannot take over a live lease. The record's
//! expiry is the flow's last possible use (a caller's `keep_until`, from the
//! token's flow start and the engine's limits) and at least one lease from
//! its last write. `redis.replicate_commands()` lets a script write after
//! `TIME` on Redis 5 and 6; from Redis 7 on it is the only mode and the call
//! is a no-op. Each reply is one string; [`super::machine`] reads it.

/// Claim: `KEYS[1]` = the flow key; `ARGV` = digest, owner, lease (ms),
/// keep until (Unix ms). Replies `won <fence>` (a new pending claim with
/// the next fence, also when a lapsed lease is taken over),
/// `pending <fence>` (another owner's lease is live), `done <fence>
/// <digest> <text>` (the flow completed), or `foreign` (the key holds
/// something snodo does not write).
pub const ONCE_CLAIM_SCRIPT: &str = "\
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local r = redis.call('HMGET', KEYS[1], 'state', 'fence', 'digest', 'lease', 'text')
local fence = tonumber(r[2]) or 0
if r[1] == 'done' then
  return 'done ' .. string.format('%d', fence) .. ' ' .. r[3] .. ' ' .. r[5]
end
if r[1] == 'pending' and (tonumber(r[4]) or 0) > now then
  return 'pending ' .. string.format('%d', fence)
end
if r[1] and r[1] ~= 'pending' and r[1] ~= 'free' then
  return 'foreign'
end
fence = fence + 1
local lease = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'state', 'pending', 'fence', string.format('%d', fence), 'owner', ARGV[2],
  'digest', ARGV[1], 'lease', string.format('%d', lease))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', math.max(tonumber(ARGV[4]), lease)))
return 'won ' .. string.format('%d', fence)
";

/// Complete: `KEYS[1]`; `ARGV` = owner, result text, lease (ms), keep
/// until (Unix ms). Only the owner of the pending claim completes it
/// (whether or not its lease lapsed, as long as nobody took it over):
/// replies `completed`, else `lost` (the claim was taken over, released or
/// completed by someone else, or expired).
pub const ONCE_COMPLETE_SCRIPT: &str = "\
redis.replicate_commands()
local r = redis.call('HMGET', KEYS[1], 'state', 'owner')
if r[1] ~= 'pending' or r[2] ~= ARGV[1] then
  return 'lost'
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'state', 'done', 'text', ARGV[2])
redis.call('HDEL', KEYS[1], 'owner', 'lease')
redis.call('PEXPIREAT', KEYS[1], string.format('%d', math.max(tonumber(ARGV[4]), now + tonumber(ARGV[3]))))
return 'completed'
";

/// Release: `KEYS[1]`; `ARGV` = owner. Only the owner of the pending claim
/// releases it (the effect failed before doing anything): the record turns
/// `free` and keeps its fence, so the next winner gets a greater one.
/// Replies `released`, else `lost`.
pub const ONCE_RELEASE_SCRIPT: &str = "\
local r = redis.call('HMGET', KEYS[1], 'state', 'owner')
if r[1] ~= 'pending' or r[2] ~= ARGV[1] then
  return 'lost'
end
redis.call('HSET', KEYS[1], 'state', 'free')
redis.call('HDEL', KEYS[1], 'owner', 'lease', 'digest')
return 'released'
";

/// Extend: `KEYS[1]`; `ARGV` = owner, lease (ms), keep until (Unix ms).
/// Only the owner of the pending claim moves its lease to a full lease
/// from now: replies `extended <fence>`, else `lost`.
pub const ONCE_EXTEND_SCRIPT: &str = "\
redis.replicate_commands()
local r = redis.call('HMGET', KEYS[1], 'state', 'owner', 'fence')
if r[1] ~= 'pending' or r[2] ~= ARGV[1] then
  return 'lost'
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'lease', string.format('%d', lease))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', math.max(tonumber(ARGV[3]), lease)))
return 'extended ' .. r[3]
";

/// Lookup: `KEYS[1]`, read only. Replies `none` (no record), `free
/// <fence>` (released, or a lapsed lease nobody took over), `pending
/// <fence>`, `done <fence> <digest> <text>`, or `foreign`.
pub const ONCE_LOOKUP_SCRIPT: &str = "\
local r = redis.call('HMGET', KEYS[1], 'state', 'fence', 'digest', 'lease', 'text')
if not r[1] then
  return 'none'
end
local fence = string.format('%d', tonumber(r[2]) or 0)
if r[1] == 'done' then
  return 'done ' .. fence .. ' ' .. r[3] .. ' ' .. r[5]
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if r[1] == 'pending' and (tonumber(r[4]) or 0) > now then
  return 'pending ' .. fence
end
if r[1] == 'pending' or r[1] == 'free' then
  return 'free ' .. fence
end
return 'foreign'
";

/// The only `maxmemory-policy` under which Redis never drops a key to make
/// room: every other policy may evict a live flow record (they all carry an
/// expiry), and a forgotten record lets a flow's effect run again.
pub const ONCE_SAFE_EVICTION_POLICY: &str = "noeviction";

/// Checks a Redis `maxmemory-policy` (as `CONFIG GET maxmemory-policy`
/// answers it): `Ok` only for [`ONCE_SAFE_EVICTION_POLICY`], else a
/// [`ErrorCode::Store`](crate::ErrorCode::Store) error saying why. Every
/// Redis store runs it before its first command.
pub fn check_once_eviction_policy(policy: &str) -> crate::Result<()> {
    if policy == ONCE_SAFE_EVICTION_POLICY {
        return Ok(());
    }
    Err(crate::Error::new(
        crate::ErrorCode::Store,
        format!(
            "once store: Redis maxmemory-policy is {policy:?}: Redis may evict a live flow record and let its effect run twice; set maxmemory-policy noeviction (or opt in to an evicting policy, which only warns)"
        ),
    ))
}
