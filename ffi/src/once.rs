//! Issue 17, at most once: the call's ids and answers digest, the core's
//! in-memory consume-once store, and the Redis key names, values and Lua
//! scripts a C server needs to run the same protocol on its own Redis
//! client (examples/c/once_redis.c is the recipe with hiredis).
//!
//! The store exports are thin: argument conversion, then one call of the
//! core's `MemoryStore` through the `OnceStore` trait. The Redis scripts are
//! the core's constants, made NUL-terminated at compile time, so C runs
//! them byte for byte like Python and Node.

use std::ffi::c_char;
use std::time::Duration;

use snodo::{Claim, MemoryStore, OnceStore};

use crate::call::snodo_call;
use crate::engine::snodo_engine;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, guard_void, handle, into_handle, read_scalar, read_text, text};

// ---- Call readers -------------------------------------------------------

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
/// the same for every round of one flow (the key of a remembered result,
/// with `snodo_call_answers_digest`).
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
/// base64url, new on every round (the key of consume-once).
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
/// first round, which opened no token (0 is never a real expiry). A store
/// entry for this call should live until this plus the engine's clock skew
/// (`clock_skew_secs`, 60 by default).
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

/// The engine's clock, in Unix seconds (the fixed time in tests): the `now`
/// to pass to the store functions so that entries expire on the same clock
/// as the tokens.
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

// ---- The in-memory store ------------------------------------------------

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

// ---- Redis: keys, values and scripts ------------------------------------

// The string values (`SNODO_ONCE_DEFAULT_PREFIX`, `SNODO_ONCE_CONSUMED`,
// `SNODO_ONCE_PENDING`, `SNODO_ONCE_DONE_PREFIX`, `SNODO_ONCE_WON`,
// `SNODO_ONCE_REPLAYED_MESSAGE`) are header macros written in
// cbindgen.toml, because cbindgen does not export `&str` constants; the
// test `header_macros_are_the_cores` below reads them back from the
// committed header and compares them with the core's.

/// `s` with a NUL appended, at compile time (`N` must be `s.len() + 1`), so
/// the scripts C gets are the core's constants and cannot drift from them.
const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < b.len() {
        out[i] = b[i];
        i += 1;
    }
    out
}

static CLAIM_SCRIPT: [u8; snodo::ONCE_CLAIM_SCRIPT.len() + 1] = nul_terminated(snodo::ONCE_CLAIM_SCRIPT);
static COMPLETE_SCRIPT: [u8; snodo::ONCE_COMPLETE_SCRIPT.len() + 1] =
    nul_terminated(snodo::ONCE_COMPLETE_SCRIPT);
static RELEASE_SCRIPT: [u8; snodo::ONCE_RELEASE_SCRIPT.len() + 1] =
    nul_terminated(snodo::ONCE_RELEASE_SCRIPT);

/// The claim Lua script, byte for byte the one Rust, Python and Node run:
/// `EVAL <script> 1 <result key> <lease_ms>` returns `won`, `pending` or
/// `done:<text>`. A static NUL-terminated string: never free it; never
/// NULL. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_claim_script() -> *const c_char {
    CLAIM_SCRIPT.as_ptr().cast()
}

/// The complete Lua script: `EVAL <script> 1 <result key> <text> <ttl_ms>`
/// stores `done:<text>` unless a result is already there (returns 1 if it
/// stored, 0 if not). Static, never NULL, never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_complete_script() -> *const c_char {
    COMPLETE_SCRIPT.as_ptr().cast()
}

/// The release Lua script: `EVAL <script> 1 <result key>` deletes the key
/// only while it is still `pending`; `EVAL <script> 2 <result key> <token
/// key>` (after a failed effect) also deletes the token key this attempt
/// consumed, in the same step. Static, never NULL, never free it.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_release_script() -> *const c_char {
    RELEASE_SCRIPT.as_ptr().cast()
}

/// The prefix argument: NULL means the default prefix.
///
/// # Safety
///
/// `prefix` NULL or valid for `len` bytes.
unsafe fn prefix_arg<'a>(prefix: *const u8, len: usize) -> Result<&'a str, Fail> {
    if prefix.is_null() {
        return Ok(snodo::DEFAULT_ONCE_PREFIX);
    }
    // SAFETY: caller contract.
    unsafe { text(prefix, len, "prefix") }
}

/// The consume-once key of `token_id`: `<prefix>token:<token_id>`.
/// `prefix` NULL means `SNODO_ONCE_DEFAULT_PREFIX`.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, CONFIG (a
/// prefix over 128 bytes or not printable ASCII), ARGUMENT (bad id),
/// INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `prefix` NULL or valid for `prefix_len` bytes; `token_id` valid for
/// `token_id_len` bytes; `out` valid for one pointer write; `out_len` NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_token_key(
    prefix: *const u8,
    prefix_len: usize,
    token_id: *const u8,
    token_id_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let prefix = unsafe { prefix_arg(prefix, prefix_len) }?;
        // SAFETY: caller contract.
        let token_id = unsafe { text(token_id, token_id_len, "token_id") }?;
        let out = OutStr::new(out, out_len)?;
        let key = snodo::once_token_key(prefix, token_id)?;
        // SAFETY: caller contract.
        unsafe { out.write(key.as_bytes()) };
        Ok(())
    })
}

/// The remembered-result key of a final round:
/// `<prefix>result:<flow_id>:<digest>`. `prefix` NULL means the default.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: as
/// `snodo_once_token_key`. Thread-safe.
///
/// # Safety
///
/// As `snodo_once_token_key`, for each id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_result_key(
    prefix: *const u8,
    prefix_len: usize,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let prefix = unsafe { prefix_arg(prefix, prefix_len) }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        let out = OutStr::new(out, out_len)?;
        let key = snodo::once_result_key(prefix, flow_id, digest)?;
        // SAFETY: caller contract.
        unsafe { out.write(key.as_bytes()) };
        Ok(())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    /// The value of `#define <name> "<value>"` in the committed header.
    fn header_macro(name: &str) -> String {
        let header = include_str!("../../include/snodo.h");
        let line = header
            .lines()
            .find(|l| l.starts_with(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("{name} not in include/snodo.h"));
        let value = line[format!("#define {name} ").len()..].trim();
        serde_json::from_str(value).unwrap()
    }

    #[test]
    fn header_macros_are_the_cores() {
        assert_eq!(header_macro("SNODO_ONCE_DEFAULT_PREFIX"), snodo::DEFAULT_ONCE_PREFIX);
        assert_eq!(header_macro("SNODO_ONCE_CONSUMED"), snodo::ONCE_CONSUMED);
        assert_eq!(header_macro("SNODO_ONCE_PENDING"), snodo::ONCE_PENDING);
        assert_eq!(header_macro("SNODO_ONCE_DONE_PREFIX"), snodo::ONCE_DONE_PREFIX);
        assert_eq!(header_macro("SNODO_ONCE_WON"), snodo::ONCE_WON);
        assert_eq!(header_macro("SNODO_ONCE_REPLAYED_MESSAGE"), snodo::ONCE_REPLAYED_MESSAGE);
    }

    /// The C readers return what the core's `Call` says, for a first round
    /// (no ids) and for a request whose answers are on the wire in another
    /// key order (the digest is over the canonical form).
    #[test]
    fn readers_are_the_cores() {
        let engine = snodo::Engine::development().unwrap();
        let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{}},
            "inputResponses":{"b":{"action":"decline"},"a":{"content":{"y":1,"x":2},"action":"accept"}}}}"#;
        let call = match engine.begin(request, &snodo::Principal::anonymous()).unwrap() {
            snodo::Begin::Call(call) => call,
            snodo::Begin::Respond(r) => panic!("not a call: {r:?}"),
        };
        let want = call.answers_digest();
        // Not the digest of `{}`: the answers are read on this request.
        assert_ne!(want, "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o");
        let c = crate::call::snodo_call::new(*call);
        let mut out: *mut c_char = std::ptr::null_mut();
        let mut len = 0usize;
        let mut at = 7u64;
        // SAFETY: a live call and valid out-pointers; strings freed below.
        unsafe {
            assert_eq!(snodo_call_answers_digest(&c, &mut out, &mut len), snodo_status::Ok);
            assert_eq!(CStr::from_ptr(out).to_str().unwrap(), want);
            assert_eq!(len, 43);
            crate::ffi::snodo_string_free(out);
            assert_eq!(snodo_call_flow_id(&c, &mut out, &mut len), snodo_status::Ok);
            assert!(out.is_null() && len == 0);
            assert_eq!(snodo_call_token_expires_at(&c, &mut at), snodo_status::Ok);
            assert_eq!(at, 0);
        }
    }

    #[test]
    fn constants_are_the_cores() {
        assert_eq!(SNODO_ONCE_DEFAULT_MAX_ENTRIES as usize, snodo::DEFAULT_ONCE_MAX_ENTRIES);
        assert_eq!(u64::from(SNODO_ONCE_DEFAULT_LEASE_SECS), snodo::DEFAULT_ONCE_LEASE_SECS);
        let read = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        assert_eq!(read(snodo_once_claim_script()), snodo::ONCE_CLAIM_SCRIPT);
        assert_eq!(read(snodo_once_complete_script()), snodo::ONCE_COMPLETE_SCRIPT);
        assert_eq!(read(snodo_once_release_script()), snodo::ONCE_RELEASE_SCRIPT);
    }
}
