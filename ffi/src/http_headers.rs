//! `snodo_check_http_headers`: the Streamable HTTP request-metadata header
//! rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), decided by the
//! core's `check_http_headers_text`.

use crate::error::{Fail, snodo_status};
use std::borrow::Cow;

use crate::ffi::{Out, bytes, guard, into_handle};
use crate::response::snodo_response;

/// One HTTP request header as received (for `snodo_check_http_headers`
/// and `snodo_check_http_origin`): name and value, each a pointer + length
/// (no NUL needed): UTF-8, or else read as Latin-1. Names compare
/// case-insensitively; pass repeated headers as separate entries (a
/// standard header sent twice is a mismatch, so do not join them).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct snodo_header {
    /// The header name, e.g. `Mcp-Method`.
    pub name: *const u8,
    /// Length of `name` in bytes.
    pub name_len: usize,
    /// The header value as received.
    pub value: *const u8,
    /// Length of `value` in bytes.
    pub value_len: usize,
}

/// Header bytes as text: UTF-8 when they are UTF-8, else each byte as its
/// Latin-1 character (HTTP's obs-text; what Python's binding does with
/// `bytes`). Such a value never equals the request's field unless the
/// field holds the same characters, so bad bytes end as a mismatch
/// (-32020), never as a C-only status.
fn header_text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => Cow::Owned(b.iter().map(|&c| char::from(c)).collect()),
    }
}

/// One header's name and value as text.
pub(crate) type HeaderText<'a> = (Cow<'a, str>, Cow<'a, str>);

/// The `(name, value)` texts of a C header array (see [`header_text`]),
/// for the core's header checks. `headers` may be NULL when
/// `headers_len` is 0.
///
/// # Safety
///
/// `headers` NULL or valid for `headers_len` entries, each pointing to its
/// stated lengths, all valid for `'a`.
pub(crate) unsafe fn header_pairs<'a>(
    headers: *const snodo_header,
    headers_len: usize,
) -> Result<Vec<HeaderText<'a>>, Fail> {
    let entries: &[snodo_header] = if headers_len == 0 {
        &[]
    } else if headers.is_null() {
        return Err(Fail::null("headers"));
    } else if headers_len > isize::MAX as usize / size_of::<snodo_header>() {
        return Err(Fail::new(snodo_status::Argument, format!("headers: length {headers_len} is too large")));
    } else {
        // SAFETY: non-NULL and valid for headers_len entries (caller contract).
        unsafe { std::slice::from_raw_parts(headers, headers_len) }
    };
    let mut owned = Vec::with_capacity(entries.len());
    for h in entries {
        // SAFETY: each entry points to its stated lengths (caller contract).
        let name = unsafe { bytes(h.name, h.name_len, "header name") }?;
        // SAFETY: as above.
        let value = unsafe { bytes(h.value, h.value_len, "header value") }?;
        owned.push((header_text(name), header_text(value)));
    }
    Ok(owned)
}

/// Checks the headers of an HTTP POST against the JSON-RPC request it
/// carries (the body text as received), before `snodo_engine_begin`.
///
/// On OK `*out_response` is NULL when the request may go on to
/// `snodo_engine_begin`, or a new response to send as is (`-32020`
/// `Header mismatch: …`, `snodo_response_http_status` 400; free it with
/// `snodo_response_free`). A body that is not UTF-8 JSON is left to
/// `snodo_engine_begin` (NULL here, `-32700` there). `headers` may be NULL
/// when `headers_len` is 0.
///
/// Statuses: OK, NULL_ARGUMENT, ARGUMENT (a length too large), PANIC.
/// Thread-safe.
///
/// # Safety
///
/// `headers` NULL or valid for `headers_len` entries, each pointing to its
/// stated lengths; `request` valid for `request_len` bytes; `out_response`
/// valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_http_headers(
    headers: *const snodo_header,
    headers_len: usize,
    request: *const u8,
    request_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let owned = unsafe { header_pairs(headers, headers_len) }?;
        let pairs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_ref(), v.as_ref())).collect();
        // SAFETY: caller contract.
        let request = unsafe { bytes(request, request_len, "request") }?;
        let out = Out::new(out_response, "out_response")?;
        let response =
            std::str::from_utf8(request).ok().and_then(|t| snodo::check_http_headers_text(&pairs, t));
        let handle = response.map_or(std::ptr::null_mut(), |r| into_handle(snodo_response { inner: r }));
        // SAFETY: caller contract.
        unsafe { out.write(handle) };
        Ok(())
    })
}
