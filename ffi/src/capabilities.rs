//! What a client can receive: `snodo_missing_capabilities` and
//! `snodo_filter_supported`.

use std::ffi::c_char;

use crate::error::snodo_status;
use crate::ffi::json_pair_to_json;

/// The capabilities a client declaring `capabilities` (a ClientCapabilities
/// JSON object) must add to receive every request in `requests` (a JSON
/// object of key → input request; anything else is ARGUMENT), as a
/// ClientCapabilities-shaped JSON object: `{}` when all can be sent.
///
/// On OK `*out` is a new JSON string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, ARGUMENT
/// (`requests` not an object), JSON, INVALID_UTF8, NULL_ARGUMENT,
/// PANIC. Thread-safe.
///
/// # Safety
///
/// `requests` and `capabilities` valid for their lengths; `out` valid for
/// one pointer write; `out_len` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_missing_capabilities(
    requests: *const u8,
    requests_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        json_pair_to_json(
            (requests, requests_len, "requests"),
            (capabilities, capabilities_len, "capabilities"),
            out,
            out_len,
            |r, c| Ok(snodo::missing_capabilities(r, c)?),
        )
    }
}

/// Keeps only the requests (a JSON object of key → input request) that a
/// client declaring `capabilities` can receive, as a JSON object. Use it for
/// optional questions; for required ones let `snodo_engine_decide` answer
/// `-32021`.
///
/// On OK `*out` is a new JSON string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, ARGUMENT
/// (`requests` not an object), JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
/// Thread-safe.
///
/// # Safety
///
/// As `snodo_missing_capabilities`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_filter_supported(
    requests: *const u8,
    requests_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        json_pair_to_json(
            (requests, requests_len, "requests"),
            (capabilities, capabilities_len, "capabilities"),
            out,
            out_len,
            |r, c| Ok(snodo::filter_supported(r, c)?),
        )
    }
}
