//! Issue 17, at most once: the call's ids and answers digest, the core's
//! in-memory consume-once store, and the Redis key names, values and Lua
//! scripts a C server needs to run the same protocol on its own Redis
//! client (examples/c/once_redis.c is the recipe with hiredis).
//!
//! One file per part: `readers` (the call's ids, expiry and answers digest,
//! the engine's clock), `memory` (the in-memory store) and `redis` (key
//! names and Lua scripts); `tests` checks all three against the core.

// The order of these modules is the order of the exports in
// include/snodo.h (cbindgen reads them in declaration order), so they are
// kept one per group: rustfmt would sort a group alphabetically.
mod readers;

mod memory;

mod redis;

pub use memory::*;
pub use readers::*;
pub use redis::*;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
