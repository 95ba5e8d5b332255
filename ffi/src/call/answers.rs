//! The client's answers as `snodo_call` reads them, and which decide
//! answers the call (`snodo_call_is_legacy`, kept last so the header's order
//! of exports is unchanged).

use std::ffi::c_char;

use serde_json::Value;

use super::scalars::scalar;
use super::snodo_call;
use crate::answer::snodo_answer_kind;
use crate::error::snodo_status;
use crate::ffi::{Out, OutStr, guard, handle, text};

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
        let request = unsafe { text(request, request_len, "request") }?;
        // Issue 16: the same question every round; parsed once (`memo`).
        let request = crate::memo::parsed(request.as_bytes(), "request")?;
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
