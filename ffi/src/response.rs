//! `snodo_response`: the JSON-RPC response to send, and its HTTP status.

use std::ffi::c_char;

use snodo::Response;

use crate::error::snodo_status;
use crate::ffi::{Out, OutStr, guard, guard_void, handle};

/// A JSON-RPC response message ready for the wire, from
/// `snodo_engine_begin` or `snodo_engine_decide`. Free it with
/// `snodo_response_free`. Not thread-safe: use from one thread at a time.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_response {
    pub(crate) inner: Response,
}

/// Frees a response. NULL is a no-op.
///
/// # Safety
///
/// `response` must be NULL or a response from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_free(response: *mut snodo_response) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(response) });
}

/// The whole JSON-RPC message as compact JSON text, to send as is.
///
/// On OK `*out` is a new NUL-terminated string owned by the caller (free
/// with `snodo_string_free`); `out_len` may be NULL. Statuses: OK,
/// NULL_ARGUMENT (`response` or `out` NULL), PANIC. Not thread-safe for one response.
///
/// # Safety
///
/// `response` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_body(
    response: *const snodo_response,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let response = unsafe { handle(response, "response") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        unsafe { out.write(response.inner.to_json().as_bytes()) };
        Ok(())
    })
}

/// The HTTP status a Streamable HTTP server should use: 400 for `-32700`,
/// `-32600`, `-32020`, `-32021`, `-32022` and `_meta`-level `-32602`; 404
/// for `-32601`; 200 otherwise.
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one response.
///
/// # Safety
///
/// `response` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_http_status(
    response: *const snodo_response,
    out: *mut u16,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let response = unsafe { handle(response, "response") }?;
        let out = Out::new(out, "out")?;
        // SAFETY: caller contract.
        unsafe { out.write(response.inner.http_status()) };
        Ok(())
    })
}

/// Whether the response is a JSON-RPC error.
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one response.
///
/// # Safety
///
/// `response` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_is_error(
    response: *const snodo_response,
    out: *mut bool,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let response = unsafe { handle(response, "response") }?;
        let out = Out::new(out, "out")?;
        // SAFETY: caller contract.
        unsafe { out.write(response.inner.is_error()) };
        Ok(())
    })
}

/// Why snodo replaced the handler's outcome with `-32603`, for the server's
/// log (never sent on the wire).
///
/// On OK `*out` is either a new string owned by the caller (free with
/// `snodo_string_free`) or NULL (with length 0) when there is no
/// diagnostic. Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one response.
///
/// # Safety
///
/// `response` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_diagnostic(
    response: *const snodo_response,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let response = unsafe { handle(response, "response") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        unsafe {
            match response.inner.diagnostic() {
                Some(d) => out.write(d.as_bytes()),
                None => out.write_null(),
            }
        }
        Ok(())
    })
}
