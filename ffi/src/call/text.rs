//! The string and JSON readers of `snodo_call`.

use std::ffi::c_char;

use serde_json::Value;
use snodo::Call;

use super::snodo_call;
use crate::error::snodo_status;
use crate::ffi::{OutStr, guard, handle, read_text};

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
