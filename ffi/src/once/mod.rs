//! At most once per flow: the core's once machine (`OnceRun`) for C, its commands, the in-memory store, and
//! the Redis scripts.
//!
//! The machine is sans IO: a C server creates a run on the final round's call, reads each step, runs the
//! step's command on its store (the in-memory store here, or its own Redis client with the command's script,
//! key and arguments) and feeds the reply back. Every rule lives in the core; these exports convert arguments
//! and call it once.

// The modules' order is the exports' order in include/snodo.h (cbindgen reads them in declaration order).
mod run;

mod store;

pub use run::*;
pub use store::*;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
