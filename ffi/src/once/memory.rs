//! The core's in-memory once store for one process: it runs the machine's
//! commands natively, with the same meaning and replies as the Redis
//! scripts.

use std::ffi::c_char;
use std::time::Duration;

use snodo::{MemoryStore, OnceStore};

use super::command::snodo_once_command;
use crate::error::snodo_status;
use crate::ffi::{Out, OutStr, guard, guard_void, handle, into_handle};

/// The byte budget of `snodo_once_memory_new` when `max_bytes` is 0
/// (64 MiB).
pub const SNODO_ONCE_DEFAULT_MAX_BYTES: usize = 67_108_864;
/// One principal's share when `max_bytes_per_principal` is 0 (a quarter
/// of the default budget).
pub const SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL: usize = 16_777_216;

/// The core's in-memory once store, for one process: bounded in bytes with
/// a share per principal, expiring, thread-safe (share one store across
/// threads freely; free it once no thread uses it). A fleet of processes
/// needs a shared store instead: Redis, with the command's script.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_once_memory {
    inner: MemoryStore,
}

/// Creates an in-memory store holding at most `max_bytes` of records (0 =
/// `SNODO_ONCE_DEFAULT_MAX_BYTES`, else at least 1024), at most
/// `max_bytes_per_principal` of them for one principal (0 =
/// `SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL`; 1024 to `max_bytes`). A
/// claim that would go past either fails with STORE rather than forget a
/// live record (forgetting one would allow a second effect). The lease is
/// not the store's: each command carries the one its run was created with.
///
/// On OK `*out` owns a new store: free it with `snodo_once_memory_free`.
/// Statuses: OK, CONFIG (a bound out of range), NULL_ARGUMENT (`out` NULL),
/// PANIC. Thread-safe.
///
/// # Safety
///
/// `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_new(
    max_bytes: usize,
    max_bytes_per_principal: usize,
    out: *mut *mut snodo_once_memory,
) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        // 0 means "the default" so that C callers need no second function;
        // the core itself refuses 0 for both.
        let max = if max_bytes == 0 { SNODO_ONCE_DEFAULT_MAX_BYTES } else { max_bytes };
        let per = if max_bytes_per_principal == 0 {
            SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL
        } else {
            max_bytes_per_principal
        };
        // The core's store wants a lease for its settings; commands from C
        // runs carry their own, so the default stands in here.
        let lease = Duration::from_secs(snodo::DEFAULT_ONCE_LEASE_SECS);
        let inner = MemoryStore::with_limits(max, per, lease)?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_once_memory { inner })) };
        Ok(())
    })
}

/// Frees a store. NULL is a no-op.
///
/// # Safety
///
/// `store` NULL or a store from `snodo_once_memory_new`, not yet freed, and
/// used by no other thread any more.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_free(store: *mut snodo_once_memory) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(store) });
}

/// Runs `command` (from a step) on the store, atomically, as of `now_ms`
/// (Unix milliseconds; 0 = the system clock). A test whose engine runs on
/// the fixed clock (`snodo_config_set_fixed_time`, test builds only) passes
/// that clock (`snodo_engine_now` × 1000), so that leases and records
/// expire on the tokens' clock. Feed the reply to
/// `snodo_once_run_feed` (or, for an extend command,
/// `snodo_once_step_extended`).
///
/// On OK `*out` is the reply text, a new string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL. Statuses: OK, STORE
/// (the store or this principal's share is full: report it, never run the
/// effect), NULL_ARGUMENT (`store`, `command` or `out` NULL), PANIC.
/// Thread-safe: any number of threads may run commands on one store.
///
/// # Safety
///
/// `store` NULL or a live store; `command` NULL or a command lent by a live
/// step; `out` NULL or valid for one pointer write; `out_len` NULL or valid
/// for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_execute(
    store: *const snodo_once_memory,
    command: *const snodo_once_command,
    now_ms: u64,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let command = unsafe { handle(command, "command") }?;
        let out = OutStr::new(out, out_len)?;
        let reply = if now_ms == 0 {
            store.inner.execute(&command.inner)?
        } else {
            store.inner.execute_at(&command.inner, now_ms)?
        };
        // SAFETY: caller contract.
        unsafe { out.write(reply.as_bytes()) };
        Ok(())
    })
}
