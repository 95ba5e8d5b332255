//! Low-level continuation tokens: `snodo_binding_digest`,
//! `snodo_engine_seal` and `snodo_engine_open`, so that tokens can be tested
//! and interoperate across languages byte for byte.

use std::ffi::c_char;

use serde_json::Value;
use snodo::SealInput;

use crate::engine::{principal, snodo_engine};
use crate::error::{Fail, snodo_status};
use crate::ffi::{OutStr, bytes, guard, handle, json, json_opt, text};

/// Length of a binding digest, in bytes.
pub const SNODO_BINDING_LEN: usize = 32;

/// Reads a 32-byte binding digest argument.
///
/// # Safety
///
/// `ptr` NULL or valid for 32 bytes.
unsafe fn binding(ptr: *const u8) -> Result<[u8; SNODO_BINDING_LEN], Fail> {
    // SAFETY: caller contract.
    let b = unsafe { bytes(ptr, SNODO_BINDING_LEN, "binding") }?;
    let mut out = [0u8; SNODO_BINDING_LEN];
    out.copy_from_slice(b);
    Ok(out)
}

/// Computes the request binding digest: SHA-256 over a domain label, the
/// method, and the canonical form of `params` (a JSON object; its top-level
/// `_meta`, `inputResponses` and `requestState` are left out).
///
/// On OK writes `SNODO_BINDING_LEN` (32) bytes to `out` (caller-owned
/// memory). Statuses: OK, ARGUMENT (`params` not an object), JSON,
/// INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `method` and `params` valid for their lengths; `out` NULL or valid for
/// 32 byte writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_binding_digest(
    method: *const u8,
    method_len: usize,
    params: *const u8,
    params_len: usize,
    out: *mut u8,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let method = unsafe { text(method, method_len, "method") }?;
        // SAFETY: caller contract.
        let params = unsafe { json(params, params_len, "params") }?;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        let digest = snodo::binding_digest(method, &params)?;
        // SAFETY: non-NULL and valid for 32 bytes per the contract.
        unsafe { std::ptr::copy_nonoverlapping(digest.as_ptr(), out, SNODO_BINDING_LEN) };
        Ok(())
    })
}

/// Seals a token with the engine's signing key at the engine's time.
/// `principal` NULL is the anonymous principal; `binding` is 32 bytes from
/// `snodo_binding_digest`; `questions` is a JSON object of key → input
/// request asked this round (NULL = none); `state` is the application state
/// as JSON (NULL = none; it is readable, never put secrets in it).
///
/// On OK `*out` is the token string, owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK,
/// STATE_TOO_LARGE, ARGUMENT (empty principal, `questions` not an object),
/// JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `engine` a live engine; every pointer NULL or valid for its length
/// (`binding` for 32 bytes); `out` valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_seal(
    engine: *const snodo_engine,
    principal_ptr: *const u8,
    principal_len: usize,
    binding_ptr: *const u8,
    round: u32,
    flow_start: u64,
    questions: *const u8,
    questions_len: usize,
    state: *const u8,
    state_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract (for every unsafe read below).
        let engine = unsafe { handle(engine, "engine") }?;
        let principal = unsafe { principal(principal_ptr, principal_len) }?;
        let binding = unsafe { binding(binding_ptr) }?;
        let questions: Vec<(String, Value)> =
            match unsafe { json_opt(questions, questions_len, "questions") }? {
                None => Vec::new(),
                // The core's one reader of a key → input request map.
                Some(v) => snodo::input_requests(&v)?.clone().into_iter().collect(),
            };
        let state = unsafe { json_opt(state, state_len, "state") }?;
        let out = OutStr::new(out, out_len)?;
        let input = SealInput {
            principal: &principal,
            binding: &binding,
            round,
            flow_start,
            questions: &questions,
            state: state.as_ref(),
        };
        let token = engine.inner.seal(&input)?;
        // SAFETY: caller contract.
        unsafe { out.write(token.as_bytes()) };
        Ok(())
    })
}

/// Opens a token for `principal` (NULL = anonymous) and the request
/// `binding` (32 bytes) at the engine's time.
///
/// On OK `*out` is a JSON object owned by the caller (free with
/// `snodo_string_free`): `{"keyId","issuedAt","expiresAt","flowStart",
/// "round","questionKeys":[...],"state":...|null}`. A token that fails any
/// check is TOKEN, and the last error is the core's one message,
/// `"TOKEN: Invalid or expired requestState (<reason>)"`, with the
/// stable reason name (`malformed`, `signature`, `expired`, `principal`,
/// `request`, `rounds`, ...). Statuses: OK, TOKEN, ARGUMENT (empty
/// principal), INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `engine` a live engine; `token` valid for `token_len` bytes; `principal`
/// NULL or valid for its length; `binding` valid for 32 bytes; `out` valid
/// for one pointer write; `out_len` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_open(
    engine: *const snodo_engine,
    token: *const u8,
    token_len: usize,
    principal_ptr: *const u8,
    principal_len: usize,
    binding_ptr: *const u8,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract (for every unsafe read below).
        let engine = unsafe { handle(engine, "engine") }?;
        let token = unsafe { text(token, token_len, "token") }?;
        let principal = unsafe { principal(principal_ptr, principal_len) }?;
        let binding = unsafe { binding(binding_ptr) }?;
        let out = OutStr::new(out, out_len)?;
        let opened = engine.inner.open(token, &principal, &binding).map_err(Fail::from_token)?;
        // The core's one shape of an opened token.
        // SAFETY: caller contract.
        unsafe { out.write_json(&opened.to_json()) };
        Ok(())
    })
}
