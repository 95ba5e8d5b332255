//! `snodo_call`: what a handler reads about one request.
//!
//! Readers of JSON values return compact JSON text; an absent optional value
//! is the JSON text `null` (never a NULL pointer), so every result parses.

use std::ffi::c_char;

use serde_json::Value;
use snodo::Call;

use crate::answer::snodo_answer_kind;
use crate::error::snodo_status;
use crate::ffi::{Out, OutStr, guard, guard_void, handle, json, read_scalar, read_text, text};

/// One request as the handler sees it, from `snodo_engine_begin`. Free it
/// with `snodo_call_free`. Not thread-safe: use a call from one thread at a
/// time (moving it to another thread is fine).
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_call {
    pub(crate) inner: Call,
}

impl snodo_call {
    pub(crate) fn new(inner: Call) -> snodo_call {
        snodo_call { inner }
    }
}

/// Frees a call. NULL is a no-op.
///
/// # Safety
///
/// `call` must be NULL or a call from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_free(call: *mut snodo_call) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(call) });
}

/// Shared body of the string readers.
///
/// # Safety
///
/// `call` NULL or live; `out`/`out_len` as in [`OutStr::write`].
unsafe fn read(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&Call) -> Vec<u8>,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_text(call, "call", out, out_len, |c| f(&c.inner)) }
}

fn json_text(v: Option<&Value>) -> Vec<u8> {
    snodo::to_wire(v.unwrap_or(&Value::Null)).into_bytes()
}

/// The method, e.g. `tools/call` (text, not JSON).
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_method(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| c.method().as_bytes().to_vec()) }
}

/// The request's protocol version, e.g. `2026-07-28` (text, not JSON).
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_protocol_version(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| c.protocol_version().as_bytes().to_vec()) }
}

/// The JSON-RPC id as JSON text, exactly as received (`"a"`, `0`, ...).
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(c.id()))) }
}

/// The rest of the request's `_meta` as a JSON object (for example
/// `progressToken`), without the protocol version, client capabilities and
/// client info that snodo reads itself.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_meta(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(&Value::Object(c.meta().clone())))) }
}

/// The salient params as a JSON object: everything but `_meta`,
/// `inputResponses` and `requestState` (exactly what the token binds).
/// `name`, `uri` and `arguments` are read from it.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_params(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(&Value::Object(c.params().clone())))) }
}

/// The application state carried by the token, as JSON (`null` if none).
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_state(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(c.state())) }
}

/// This request's client capabilities, as a JSON object.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_client_capabilities(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(c.client_capabilities()))) }
}

/// The self-reported client info as JSON (`null` if not sent).
/// Informational only: never use it for security decisions.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_client_info(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(c.client_info())) }
}

/// The principal the call was begun for: on OK `*out` is a new string
/// owned by the caller (free with `snodo_string_free`), or NULL (and
/// `*out_len` 0) for the explicit anonymous principal. `out_len` may be NULL.
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_principal(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        match call.inner.principal().name() {
            Some(name) => unsafe { out.write(name.as_bytes()) },
            None => unsafe { out.write_null() },
        }
        Ok(())
    })
}

/// The whole `inputResponses` map the request carried (a JSON object,
/// `{}` when none; on `tasks/update` too), read-only and unvalidated:
/// `snodo_call_response` is the validated reader. On OK `*out` is a new
/// string owned by the caller (free with `snodo_string_free`); `out_len`
/// may be NULL. Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_input_responses(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(&Value::Object(c.input_responses().clone())))) }
}

/// The keys asked in the previous round, as a JSON array of strings
/// (`[]` on round 1).
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL, else it receives the
/// length without the NUL. Statuses: OK, NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_asked_keys(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read(call, out, out_len, |c| json_text(Some(&Value::from(c.asked_keys())))) }
}

/// Shared body of the scalar readers.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
unsafe fn scalar<T>(call: *const snodo_call, out: *mut T, f: impl FnOnce(&Call) -> T) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(call, "call", out, |c| f(&c.inner)) }
}

/// The round: 1 for a first call, n+1 for a retry of round n.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_round(call: *const snodo_call, out: *mut u32) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.round()) }
}

/// Unix seconds when the flow began (this request's time on round 1).
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_start(call: *const snodo_call, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.flow_start()) }
}

/// Whether this request carried a valid token.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_is_retry(call: *const snodo_call, out: *mut bool) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.is_retry()) }
}

/// Whether `input_required` may be answered: one of the three MRTR
/// methods in the 2026-07-28 dialect.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_mrtr_allowed(call: *const snodo_call, out: *mut bool) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.mrtr_allowed()) }
}

/// The answer to input request `key`, which the handler would ask as
/// `request` (JSON text of the same input request it built last round).
/// It counts only if exactly that request was asked under `key` in the
/// previous round; otherwise the kind is MISSING. Accepted form content is
/// validated against the schema.
///
/// On OK `*out_kind` is written and, if `out_value` is not NULL, `*out_value`
/// is a new JSON string owned by the caller (free with `snodo_string_free`;
/// see `snodo_answer_kind` for what it holds). `out_value_len` may be NULL.
/// Statuses: OK, JSON, INVALID_UTF8, NULL_ARGUMENT (`call`, `key`,
/// `request` or `out_kind` NULL), PANIC. Not thread-safe for one call.
///
/// # Safety
///
/// `call` a live call; `key` valid for `key_len` bytes; `request` valid for
/// `request_len` bytes; the outs NULL or valid for one write each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_response(
    call: *const snodo_call,
    key: *const u8,
    key_len: usize,
    request: *const u8,
    request_len: usize,
    out_kind: *mut snodo_answer_kind,
    out_value: *mut *mut c_char,
    out_value_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        // SAFETY: caller contract.
        let key = unsafe { text(key, key_len, "key") }?;
        // SAFETY: caller contract.
        let request = unsafe { json(request, request_len, "request") }?;
        let out_kind = Out::new(out_kind, "out_kind")?;
        let out_value = if out_value.is_null() { None } else { Some(OutStr::new(out_value, out_value_len)?) };
        let (kind, value) = snodo_answer_kind::split(call.inner.response(key, &request))?;
        // SAFETY: caller contract.
        unsafe {
            out_kind.write(kind);
            if let Some(o) = out_value {
                o.write_json(&value);
            }
        }
        Ok(())
    })
}

/// The raw answer object the client sent for `key`, as JSON, without pinning
/// the question: only for keys asked in the previous round (else `null`).
/// The handler validates it itself.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, INVALID_UTF8,
/// NULL_ARGUMENT (`call`, `key` or `out` NULL), PANIC. Not thread-safe for
/// one call.
///
/// # Safety
///
/// `call` a live call; `key` valid for `key_len` bytes; outs as for the readers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_raw_response(
    call: *const snodo_call,
    key: *const u8,
    key_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        // SAFETY: caller contract.
        let key = unsafe { text(key, key_len, "key") }?;
        let out = OutStr::new(out, out_len)?;
        let value = call.inner.raw_response(key);
        // SAFETY: caller contract.
        unsafe { out.write_json(value.unwrap_or(&Value::Null)) };
        Ok(())
    })
}

/// Whether the call came from `snodo_engine_begin_legacy` (a 2025-era
/// session, issue 14): decide it with `snodo_engine_decide_legacy`.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_is_legacy(call: *const snodo_call, out: *mut bool) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.is_legacy()) }
}
