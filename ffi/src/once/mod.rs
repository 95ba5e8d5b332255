//! At most once per flow: the core's once machine (`OnceRun`) for C, its
//! commands, the in-memory store, and the Redis scripts.
//!
//! The machine is sans IO: a C server creates a run on the final round's
//! call, reads each step, runs the step's command on its store (the
//! in-memory store here, or its own Redis client with the command's
//! script, key and arguments) and feeds the reply back. Every rule lives
//! in the core; these exports convert arguments and call it once.
//! `examples/c/once_redis.c` is the driver with hiredis.
//!
//! One file per part: `readers` (the call's ids, expiries and answers
//! digest, the engine's clock), `machine` (the run), `step` (what the run
//! asks next), `command` (one store command), `memory` (the in-memory
//! store) and `scripts` (the Lua scripts and the eviction-policy check);
//! `tests` checks them against the core.

// The order of these modules is the order of the exports in
// include/snodo.h (cbindgen reads them in declaration order), so they are
// kept one per group: rustfmt would sort a group alphabetically.
mod readers;

mod command;

mod step;

mod machine;

mod memory;

mod scripts;

pub use command::*;
pub use machine::*;
pub use memory::*;
pub use readers::*;
pub use scripts::*;
pub use step::*;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
