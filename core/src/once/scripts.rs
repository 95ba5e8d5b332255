//! The Redis values and Lua scripts, published so that the Python
//! (redis-py) and Node clients run the same scripts byte for byte
//! (`docs/once.md` shows them; tests compare them with the bindings').
//!
//! A remembered-result key holds either [`ONCE_PENDING`] (a claim is being
//! run, with the lease as the key's expiry) or [`ONCE_DONE_PREFIX`] followed
//! by the final response text (with the result's expiry). A consume-once key
//! holds [`ONCE_CONSUMED`], set by `SET <key> 1 NX PX <ttl_ms>`; that one
//! command is atomic, so it needs no script.

/// The value of a consumed token id's key.
pub const ONCE_CONSUMED: &str = "1";

/// The value of a claimed, still running, remembered-result key.
pub const ONCE_PENDING: &str = "pending";

/// The prefix of a completed remembered-result value; the final response
/// text follows it unchanged.
pub const ONCE_DONE_PREFIX: &str = "done:";

/// What [`ONCE_CLAIM_SCRIPT`] returns to the caller that won the claim. It
/// can never be a stored value (those are `pending` or start with `done:`).
pub const ONCE_WON: &str = "won";

/// Claim: `KEYS[1]` = the result key, `ARGV[1]` = the lease in
/// milliseconds. Sets the pending marker if the key is absent and returns
/// `won`; otherwise returns the stored value (`pending` or `done:<text>`).
/// A script keeps the SET and the GET one atomic step, so a loser always
/// sees the value that made it lose.
pub const ONCE_CLAIM_SCRIPT: &str = "\
if redis.call('SET', KEYS[1], 'pending', 'NX', 'PX', ARGV[1]) then
  return 'won'
end
return redis.call('GET', KEYS[1])
";

/// Complete: `KEYS[1]` = the result key, `ARGV[1]` = the final response
/// text, `ARGV[2]` = how long to remember it, in milliseconds. Stores
/// `done:<text>` unless a `done:` value is already there (the first
/// completion stays); returns 1 if it stored, 0 if not.
pub const ONCE_COMPLETE_SCRIPT: &str = "\
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 5) == 'done:' then
  return 0
end
redis.call('SET', KEYS[1], 'done:' .. ARGV[1], 'PX', ARGV[2])
return 1
";

/// Release: `KEYS[1]` = the result key, optional `KEYS[2]` = the token
/// key the releasing attempt consumed. Only while the result key still
/// holds the pending marker, deletes it and the token key (one script, so
/// a crash cannot give back one without the other); returns the number of
/// keys deleted.
pub const ONCE_RELEASE_SCRIPT: &str = "\
if redis.call('GET', KEYS[1]) == 'pending' then
  return redis.call('DEL', unpack(KEYS))
end
return 0
";
