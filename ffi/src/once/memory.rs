//! Issue 17, the core's in-memory consume-once store for one process. The
//! exports are thin: argument conversion, then one call of the core's
//! `MemoryStore` through the `OnceStore` trait.

use std::ffi::c_char;
use std::time::Duration;

use snodo::{Claim, MemoryStore, OnceStore};

use crate::error::snodo_status;
use crate::ffi::{Out, OutStr, guard, guard_void, handle, into_handle, text};

/// The core's in-memory consume-once store, for one process: bounded,
/// expiring, thread-safe (share one store across threads freely; free it
/// once no thread uses it). Create with `snodo_once_memory_new`. A fleet of
/// processes needs a shared store instead: see the Redis constants below.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_once_memory {
    inner: MemoryStore,
}

/// What `snodo_once_claim` found for a (flow id, answers digest).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_claim {
    /// This caller holds the claim: consume the token id, run the effect,
    /// then `snodo_once_complete` (or `snodo_once_release` if the effect
    /// did nothing at all).
    Won = 0,
    /// The effect already ran: the text out-param holds its remembered
    /// result. Return it; do not run the effect again.
    Done = 1,
    /// Another caller is running the effect now: ask again after a pause
    /// (the core polls from 5 ms doubling to 250 ms); a crashed holder's
    /// claim turns into WON when its lease lapses.
    Pending = 2,
}

/// The default bound of `snodo_once_memory_new` (when `max_entries` is 0).
pub const SNODO_ONCE_DEFAULT_MAX_ENTRIES: u32 = 100_000;
/// The default lease of a won claim in seconds (when `lease_secs` is 0).
pub const SNODO_ONCE_DEFAULT_LEASE_SECS: u32 = 30;

/// Creates an in-memory store holding at most `max_entries` live entries
/// (token ids plus results; 0 = 100 000) whose won claims lapse after
/// `lease_secs` (0 = 30). When full of live entries a call fails with
/// STORE rather than forget one (forgetting would allow a second effect).
///
/// On OK `*out` owns a new store: free it with `snodo_once_memory_free`.
/// Statuses: OK, NULL_ARGUMENT (`out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_memory_new(
    max_entries: usize,
    lease_secs: u64,
    out: *mut *mut snodo_once_memory,
) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        // 0 means "the default" so that C callers need no second function;
        // the core itself refuses 0 for both.
        let max = if max_entries == 0 { snodo::DEFAULT_ONCE_MAX_ENTRIES } else { max_entries };
        let lease = if lease_secs == 0 { snodo::DEFAULT_ONCE_LEASE_SECS } else { lease_secs };
        let inner = MemoryStore::with_limits(max, Duration::from_secs(lease))?;
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

/// Consumes `token_id` (from `snodo_call_token_id`): `*out_first` is true
/// the first time the id is seen and false on every later call until
/// `expires_at` (Unix seconds; pass the token's expiry plus the engine's
/// clock skew). `now` is the caller's clock (`snodo_engine_now`).
///
/// Statuses: OK, ARGUMENT (an id that is empty, over 128 bytes, or not
/// printable ASCII without ':'), STORE (store full), INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. On any error nothing was recorded: do not run the
/// effect. Thread-safe.
///
/// # Safety
///
/// `store` NULL or live; `token_id` valid for `token_id_len` bytes;
/// `out_first` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_consume(
    store: *const snodo_once_memory,
    token_id: *const u8,
    token_id_len: usize,
    expires_at: u64,
    now: u64,
    out_first: *mut bool,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let token_id = unsafe { text(token_id, token_id_len, "token_id") }?;
        let out = Out::new(out_first, "out_first")?;
        let first = store.inner.consume(token_id, expires_at, now)?;
        // SAFETY: caller contract.
        unsafe { out.write(first) };
        Ok(())
    })
}

/// Claims the effect of a final round, keyed by (`flow_id`, `digest`) from
/// `snodo_call_flow_id` and `snodo_call_answers_digest`; `expires_at` and
/// `now` as for `snodo_once_consume`.
///
/// On OK `*out_claim` says WON, DONE or PENDING (see `snodo_claim`). If
/// `out_text` is not NULL it receives, for DONE, a new string owned by the
/// caller (free with `snodo_string_free`) holding the remembered result,
/// and NULL (length 0) otherwise; `out_text_len` may be NULL.
/// Statuses: OK, ARGUMENT (bad id), STORE (store full), INVALID_UTF8,
/// NULL_ARGUMENT (`store`, an id or `out_claim` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `store` NULL or live; ids valid for their lengths; outs NULL or valid
/// for one write each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_claim(
    store: *const snodo_once_memory,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
    expires_at: u64,
    now: u64,
    out_claim: *mut snodo_claim,
    out_text: *mut *mut c_char,
    out_text_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        let out_claim = Out::new(out_claim, "out_claim")?;
        let out_text = if out_text.is_null() { None } else { Some(OutStr::new(out_text, out_text_len)?) };
        let (claim, remembered) = match store.inner.claim(flow_id, digest, expires_at, now)? {
            Claim::Won => (snodo_claim::Won, None),
            Claim::Done(t) => (snodo_claim::Done, Some(t)),
            Claim::Pending => (snodo_claim::Pending, None),
        };
        // SAFETY: caller contract.
        unsafe {
            out_claim.write(claim);
            if let Some(o) = out_text {
                match remembered {
                    Some(t) => o.write(t.as_bytes()),
                    None => o.write_null(),
                }
            }
        }
        Ok(())
    })
}

/// Remembers the result of a won claim until `expires_at`: `result` (any
/// UTF-8, typically the final result object's JSON) is what later claims of
/// the same (`flow_id`, `digest`) get back as DONE. If a result is already
/// remembered (the lease lapsed and another caller completed first), the
/// first one stays.
///
/// Statuses: OK, ARGUMENT, STORE (store full), INVALID_UTF8, NULL_ARGUMENT,
/// PANIC. Thread-safe.
///
/// # Safety
///
/// `store` NULL or live; ids and `result` valid for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_complete(
    store: *const snodo_once_memory,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
    result: *const u8,
    result_len: usize,
    expires_at: u64,
    now: u64,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        // SAFETY: caller contract.
        let response = unsafe { text(result, result_len, "result") }?;
        store.inner.complete(flow_id, digest, response, expires_at, now)?;
        Ok(())
    })
}

/// Drops a won claim whose effect did nothing at all (it failed before its
/// side effect, or the token id was already consumed), so that the next
/// caller may run it. A claim that is no longer pending is left alone.
///
/// Statuses: OK, ARGUMENT, INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `store` NULL or live; ids valid for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_release(
    store: *const snodo_once_memory,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        store.inner.release(flow_id, digest, None)?;
        Ok(())
    })
}

/// `snodo_once_release`, and gives back the token id this attempt consumed
/// (`snodo_once_consume` answered first) before an effect that failed
/// before doing anything, in the same step: the client's retry of the same
/// final round then runs the effect instead of getting the replay error.
/// Both are dropped only while the claim is still pending. Never pass the
/// token id on the replay path (consume answered "not first"): that id is
/// the other attempt's. A new function rather than a new parameter of
/// `snodo_once_release`, so programs built against the old header keep
/// working.
///
/// Statuses: OK, ARGUMENT, INVALID_UTF8, NULL_ARGUMENT, PANIC. On an error
/// nothing is released and the token id stays consumed (fail closed).
/// Thread-safe.
///
/// # Safety
///
/// `store` NULL or live; ids valid for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_release_token(
    store: *const snodo_once_memory,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
    token_id: *const u8,
    token_id_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        // SAFETY: caller contract.
        let token_id = unsafe { text(token_id, token_id_len, "token_id") }?;
        store.inner.release(flow_id, digest, Some(token_id))?;
        Ok(())
    })
}
