//! At most once per flow, across a fleet: the once machine and its stores.
//!
//! For one flow id, at most one effect runs across every process sharing a
//! store, whatever tokens of the flow a client presents, in whatever order,
//! with whatever answers, for the flow's whole possible life; a later final
//! round with the same answers gets the remembered result, with other
//! answers the `replayed` refusal. `docs/once.md` states the contract and
//! its limits.
//!
//! - [`OnceRun`] (`machine.rs`) is the protocol, sans IO: claim with an
//!   owner and a fencing number, effect, complete or release, lease
//!   extension, lookup. It hands out [`OnceCommand`]s (`command.rs`) and
//!   reads their replies.
//! - [`OnceStore`] runs a command: [`MemoryStore`] in process, `RedisStore`
//!   (feature `redis`) on Redis or Redis Cluster with the Lua scripts of
//!   `scripts.rs`, the same bytes every language sends.
//! - [`run_once`], [`try_run_once`] and [`check_once`] (`run.rs`) drive the
//!   machine on a store for Rust servers.

mod command;
mod keys;
mod machine;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod run;
mod scripts;
#[cfg(test)]
mod tests;

pub use command::{OnceCommand, OnceOp};
pub use keys::*;
pub use machine::{
    DEFAULT_ONCE_LEASE_SECS, ONCE_REPLAYED_MESSAGE, OnceOptions, OnceRun, OnceSettings, OnceStep, OnceTicket,
};
pub use memory::*;
#[cfg(feature = "redis")]
pub use redis::*;
pub use run::{OnceLease, check_once, run_once, try_run_once};
pub use scripts::*;

use crate::error::Result;

/// A store the once machine runs on, shared by every thread of a server
/// (and, for `RedisStore` (feature `redis`), by every process of a fleet).
///
/// A store runs one [`OnceCommand`] atomically and answers the reply text
/// its script answers. Every error is
/// [`ErrorCode::Store`](crate::ErrorCode::Store) (unreachable, timed out,
/// full, an evicting Redis): the caller then reports it and never runs the
/// effect on a claim it could not confirm.
pub trait OnceStore: Send + Sync {
    /// The prefix and lease every run on this store uses.
    fn settings(&self) -> &OnceSettings;
    /// Runs `command` and returns its reply text.
    fn execute(&self, command: &OnceCommand) -> Result<String>;
}
