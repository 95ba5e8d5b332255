//! The store side of the once machine: `snodo_once_command`, one store command, lent by the step that carries
//! it (a Redis client runs its script with `KEYS[1]` = its key and `ARGV` = its arguments and feeds the reply
//! text back); `snodo_once_memory`, the core's in-memory store, which runs the commands natively with the
//! same meaning and replies; and the five Lua scripts, byte for byte the core's, for a server to load at
//! start-up (`SCRIPT LOAD`, for `EVALSHA`), with the `maxmemory-policy` check.

use std::ffi::c_char;
use std::sync::LazyLock;
use std::time::Duration;

use snodo::{MemoryStore, OnceCommand, OnceOp, OnceStore};

use crate::error::snodo_status;
use crate::ffi::{
    Lent, free_handle, guard, handle, make, nul_terminated, read_lent, read_scalar, read_text_or, text,
};

/// Which store step a command is (the core's `OnceOp`). The numbers are stable, so a server may index a table
/// of its five script hashes by them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_once_op {
    /// Take the flow's claim (or learn that it is pending or done).
    Claim = 0,
    /// Remember the result of the owner's claim.
    Complete = 1,
    /// Drop the owner's claim after an effect that did nothing.
    Release = 2,
    /// Move the owner's lease a full lease from now.
    Extend = 3,
    /// Read the flow's record without changing it.
    Lookup = 4,
}

impl From<OnceOp> for snodo_once_op {
    fn from(op: OnceOp) -> snodo_once_op {
        match op {
            OnceOp::Claim => snodo_once_op::Claim,
            OnceOp::Complete => snodo_once_op::Complete,
            OnceOp::Release => snodo_once_op::Release,
            OnceOp::Extend => snodo_once_op::Extend,
            OnceOp::Lookup => snodo_once_op::Lookup,
        }
    }
}

/// One store command (the core's `OnceCommand`): its op, the flow's key, the Lua script to run and the
/// script's arguments. Never made or freed by the caller: `snodo_once_step_command` and
/// `snodo_once_step_extend_command` lend it, and it lives as long as its step. Immutable and shareable across
/// threads.
#[derive(Debug)]
pub struct snodo_once_command {
    pub(crate) inner: OnceCommand,
    lent: Lent,
}

impl snodo_once_command {
    pub(crate) fn new(inner: OnceCommand) -> snodo_once_command {
        snodo_once_command { lent: Lent::new(inner.key(), &inner.args()), inner }
    }
}

/// The command's op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_op(
    command: *const snodo_once_command,
    out: *mut snodo_once_op,
) -> snodo_status {
    unsafe { read_scalar(command, "command", out, |c| c.inner.op().into()) }
}

/// The flow's key, `KEYS[1]` of the script (`<prefix>flow:{<flow id>}`). `*out` points at NUL-terminated text
/// **lent by the step** (valid until `snodo_once_step_free`; do not free it); `*out_len` (optional) is its
/// length without the NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_key(
    command: *const snodo_once_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| Ok(&c.lent.key)) }
}

/// The Lua script to run, byte for byte (one of the five `snodo_once_*_script` texts): `*out` points at a
/// static NUL-terminated string (never free it); `*out_len` (optional) is its length.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_script(
    command: *const snodo_once_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| Ok(script_of(c.inner.op()))) }
}

/// How many arguments (`ARGV`) the script takes: 4 (claim, complete), 3 (extend), 1 (release) or 0 (lookup).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_arg_count(
    command: *const snodo_once_command,
    out: *mut usize,
) -> snodo_status {
    unsafe { read_scalar(command, "command", out, |c| c.lent.args.len()) }
}

/// Argument `index` (0-based: `ARGV[index + 1]` of the script) as text **lent by the step**, as
/// `snodo_once_command_key`; pass `*out_len` to the Redis client, since a result text may itself hold a NUL.
/// Statuses: OK, ARGUMENT (`index` not below `snodo_once_command_arg_count`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_arg(
    command: *const snodo_once_command,
    index: usize,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_lent(command, "command", out, out_len, |c| c.lent.arg("once", c.inner.op().name(), index)) }
}

/// The byte budget of `snodo_once_memory_new` when `max_bytes` is 0 (64 MiB).
pub const SNODO_ONCE_DEFAULT_MAX_BYTES: usize = 67_108_864;
/// One principal's share when `max_bytes_per_principal` is 0 (a quarter of the default budget).
pub const SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL: usize = 16_777_216;

/// The core's in-memory once store, for one process: bounded in bytes with a share per principal, expiring,
/// shareable across threads. A fleet of processes needs a shared store instead: Redis, with the command's
/// script.
#[derive(Debug)]
pub struct snodo_once_memory {
    inner: MemoryStore,
}

/// An in-memory store holding at most `max_bytes` of records (0 = `SNODO_ONCE_DEFAULT_MAX_BYTES`, else at
/// least 1024), at most `max_bytes_per_principal` for one principal (0 = the default; 1024 to `max_bytes`): a
/// claim past either is STORE, never a forgotten live record (which would allow a second effect). Statuses:
/// OK, CONFIG.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_new(
    max_bytes: usize,
    max_bytes_per_principal: usize,
    out: *mut *mut snodo_once_memory,
) -> snodo_status {
    // 0 means "the default" so that C callers need no second function (the core refuses 0 for both). The
    // core's store wants a lease for its settings; commands from C runs carry their own, so the default
    // stands in.
    let max = if max_bytes == 0 { SNODO_ONCE_DEFAULT_MAX_BYTES } else { max_bytes };
    let per = if max_bytes_per_principal == 0 {
        SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL
    } else {
        max_bytes_per_principal
    };
    let lease = Duration::from_secs(snodo::DEFAULT_ONCE_LEASE_SECS);
    unsafe { make(out, || Ok(snodo_once_memory { inner: MemoryStore::with_limits(max, per, lease)? })) }
}

/// Frees a store; no other thread may be using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_free(store: *mut snodo_once_memory) {
    unsafe { free_handle(store) }
}

/// Runs `command` on the store, atomically, as of `now_ms` (Unix milliseconds; 0 = the system clock; a test
/// on the fixed clock passes `snodo_engine_now` × 1000). `*out` is the reply for `snodo_once_run_feed` (or
/// `snodo_once_step_extended`). Statuses: OK, STORE (the store or this principal's share is full: report it,
/// never run the effect).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_execute(
    store: *const snodo_once_memory,
    command: *const snodo_once_command,
    now_ms: u64,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(store, "store", out, out_len, |s| {
            let command = &handle(command, "command")?.inner;
            let reply =
                if now_ms == 0 { s.inner.execute(command) } else { s.inner.execute_at(command, now_ms) };
            Ok(Some(reply?))
        })
    }
}

// The string constants (`SNODO_ONCE_DEFAULT_PREFIX`, ...) are header macros in cbindgen.toml (cbindgen
// exports no `&str`); `header_macros_are_the_cores` holds them to the core's.

/// The script of `op`, NUL-terminated: the core's constant, copied once so that C gets a pointer that lives
/// as long as the process.
pub(crate) fn script_of(op: OnceOp) -> &'static [u8] {
    static SCRIPTS: LazyLock<[Box<[u8]>; 5]> = LazyLock::new(|| {
        use snodo::{
            ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT,
            ONCE_RELEASE_SCRIPT,
        };
        [ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_RELEASE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT]
            .map(nul_terminated)
    });
    let [claim, complete, release, extend, lookup] = &*SCRIPTS;
    match op {
        OnceOp::Claim => claim,
        OnceOp::Complete => complete,
        OnceOp::Release => release,
        OnceOp::Extend => extend,
        OnceOp::Lookup => lookup,
    }
}

/// The claim Lua script (`SNODO_ONCE_OP_CLAIM`): `KEYS[1]` = the flow key, `ARGV` = answers digest, owner,
/// lease ms, keep-until Unix ms. A static NUL-terminated string, byte for byte the one Rust, Python and Node
/// run: never free it; never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_claim_script() -> *const c_char {
    script_of(OnceOp::Claim).as_ptr().cast()
}

/// The complete Lua script (`SNODO_ONCE_OP_COMPLETE`): `ARGV` = owner, result text, lease ms, keep-until Unix
/// ms. Static, never NULL, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_complete_script() -> *const c_char {
    script_of(OnceOp::Complete).as_ptr().cast()
}

/// The release Lua script (`SNODO_ONCE_OP_RELEASE`): `ARGV` = owner. Static, never NULL, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_release_script() -> *const c_char {
    script_of(OnceOp::Release).as_ptr().cast()
}

/// The lease-extension Lua script (`SNODO_ONCE_OP_EXTEND`): `ARGV` = owner, lease ms, keep-until Unix ms.
/// Static, never NULL, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_extend_script() -> *const c_char {
    script_of(OnceOp::Extend).as_ptr().cast()
}

/// The read-only lookup Lua script (`SNODO_ONCE_OP_LOOKUP`): no `ARGV`. Static, never NULL, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_lookup_script() -> *const c_char {
    script_of(OnceOp::Lookup).as_ptr().cast()
}

/// Checks a Redis `maxmemory-policy` (`CONFIG GET maxmemory-policy`, on every master): OK only for
/// `SNODO_ONCE_SAFE_EVICTION_POLICY`; any other may evict a live flow record and run its effect twice: STORE,
/// the reason in the last error (refuse to start, or warn loudly). Statuses: OK, STORE.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_check_eviction_policy(
    policy: *const u8,
    policy_len: usize,
) -> snodo_status {
    guard(|| Ok(snodo::check_once_eviction_policy(unsafe { text(policy, policy_len, "policy") }?)?))
}
