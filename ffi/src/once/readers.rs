//! The call readers of at most once: the flow and token ids, the token's
//! and the flow's expiry, the answers digest, and the engine's clock (the
//! `now_ms` a test on the fixed clock gives the in-memory store).

use std::ffi::c_char;

use crate::call::snodo_call;
use crate::engine::snodo_engine;
use crate::error::snodo_status;
use crate::ffi::{OutStr, guard, handle, read_scalar, read_text};

/// Shared body of the two optional id readers: the id, or NULL and length 0
/// on a first round (like `snodo_call_principal`'s anonymous case).
///
/// # Safety
///
/// `call` NULL or live; `out`/`out_len` as for the string readers.
unsafe fn read_opt_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&snodo::Call) -> Option<&str>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        match f(&call.inner) {
            Some(id) => unsafe { out.write(id.as_bytes()) },
            None => unsafe { out.write_null() },
        }
        Ok(())
    })
}

/// The flow id of the token this retry opened: 22 characters of base64url,
/// the same for every round of one flow (the once machine keys its record
/// on it).
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`), or NULL (and `*out_len` 0) on a first round, which
/// opened no token. `out_len` may be NULL. Statuses: OK, NULL_ARGUMENT
/// (`call` or `out` NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_opt_id(call, out, out_len, |c| c.flow_id()) }
}

/// The random id of the token this retry opened: 22 characters of
/// base64url, new on every round.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`), or NULL (and `*out_len` 0) on a first round.
/// `out_len` may be NULL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_token_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_opt_id(call, out, out_len, |c| c.token_id()) }
}

/// When the token this retry opened expires, in Unix seconds (the engine
/// refuses it from then on, give or take its clock skew). `*out` is 0 on a
/// first round, which opened no token (0 is never a real expiry).
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_token_expires_at(call: *const snodo_call, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(call, "call", out, |c| c.inner.token_expires_at().unwrap_or(0)) }
}

/// The last Unix second at which any token of this retry's flow can still
/// be accepted by an engine of this configuration: the flow start plus
/// `max_flow_age_secs` plus `clock_skew_secs`. The once machine keeps the
/// flow's record at least this long (its commands carry it). `*out` is 0
/// on a first round, which opened no token.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_expires_at(call: *const snodo_call, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(call, "call", out, |c| c.inner.flow_expires_at().unwrap_or(0)) }
}

/// The answers digest: SHA-256 of the canonical JSON of this request's
/// `inputResponses` (`{}` when absent), as 43 characters of base64url. The
/// same answers give the same digest whatever their key order or spacing.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL. Statuses: OK,
/// NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_answers_digest(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_text(call, "call", out, out_len, |c| c.inner.answers_digest().into_bytes()) }
}

/// The engine's clock, in Unix seconds (the fixed time in tests). A test
/// whose engine runs on the fixed clock (`snodo_config_set_fixed_time`,
/// test builds only) passes this × 1000 as the `now_ms` of
/// `snodo_once_memory_execute`, so that records expire on the tokens'
/// clock.
///
/// Statuses: OK, NULL_ARGUMENT (`engine` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `engine` NULL or a live engine; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_now(engine: *const snodo_engine, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(engine, "engine", out, |e| e.inner.now()) }
}
