//! Builders of input requests, returned as JSON text.
//!
//! Every builder: on OK `*out` is a new NUL-terminated JSON string owned by
//! the caller (free with `snodo_string_free`); `out_len` may be NULL, else it
//! receives the length without the NUL. Builders are pure functions:
//! thread-safe.

use std::ffi::c_char;

use serde_json::Value;

use crate::error::snodo_status;
use crate::ffi::{OutStr, guard, json, text};

/// The body of both form builders (with and without the lint).
///
/// # Safety
///
/// As `snodo_elicit_form`.
unsafe fn form(
    message: *const u8,
    message_len: usize,
    schema: *const u8,
    schema_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
    build: fn(&str, &Value) -> snodo::Result<Value>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let message = unsafe { text(message, message_len, "message") }?;
        // SAFETY: caller contract.
        let schema = unsafe { json(schema, schema_len, "schema") }?;
        let out = OutStr::new(out, out_len)?;
        let request = build(message, &schema)?;
        // SAFETY: caller contract.
        unsafe { out.write_json(&request) };
        Ok(())
    })
}

/// The body of both URL builders (with and without the lint).
///
/// # Safety
///
/// As `snodo_elicit_url`.
unsafe fn url_request(
    message: *const u8,
    message_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
    build: fn(&str, &str) -> snodo::Result<Value>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let message = unsafe { text(message, message_len, "message") }?;
        // SAFETY: caller contract.
        let url = unsafe { text(url, url_len, "url") }?;
        let out = OutStr::new(out, out_len)?;
        let request = build(message, url)?;
        // SAFETY: caller contract.
        unsafe { out.write_json(&request) };
        Ok(())
    })
}

/// Builds a form-mode `elicitation/create` request from a message and a
/// `requestedSchema` (JSON text; the spec's flat subset, strict keyword
/// allowlist). The result always carries `"mode":"form"`. Fields that look
/// like secrets (passwords, API keys, tokens, card numbers) or URLs in the
/// form are SCHEMA (the core's lint, docs/policies.md): ask by URL instead,
/// or use `snodo_elicit_form_without_lint` for a false positive.
///
/// Statuses: OK, INPUT_REQUEST (empty message), SCHEMA (the last error
/// names the offending path), JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `message` valid for `message_len` bytes; `schema` valid for `schema_len`
/// bytes; `out` valid for one pointer write; `out_len` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_form(
    message: *const u8,
    message_len: usize,
    schema: *const u8,
    schema_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { form(message, message_len, schema, schema_len, out, out_len, snodo::elicit_form) }
}

/// Builds a URL-mode `elicitation/create` request. The URL must be http or
/// https with a host, and no userinfo, whitespace, control characters or
/// backslashes, and no credential- or PII-looking query or fragment
/// parameters (the core's lint; `snodo_elicit_url_without_lint` for a
/// false positive). Accepting means consent, not completion.
///
/// Statuses: OK, INPUT_REQUEST (empty message), URL, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `message` and `url` valid for their lengths; outs as for every builder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_url(
    message: *const u8,
    message_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { url_request(message, message_len, url, url_len, out, out_len, snodo::elicit_url) }
}

/// `snodo_elicit_form` without the safety lint (issue 13): for a field the
/// lint takes for a secret but that is not one (e.g. `token` meaning a word).
/// Builds a form-mode `elicitation/create` request from a message and a
/// `requestedSchema` (JSON text; the spec's flat subset, strict keyword
/// allowlist). The result always carries `"mode":"form"`.
///
/// Statuses: OK, INPUT_REQUEST (empty message), SCHEMA (the last error
/// names the offending path), JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `message` valid for `message_len` bytes; `schema` valid for `schema_len`
/// bytes; `out` valid for one pointer write; `out_len` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_form_without_lint(
    message: *const u8,
    message_len: usize,
    schema: *const u8,
    schema_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { form(message, message_len, schema, schema_len, out, out_len, snodo::elicit_form_without_lint) }
}

/// `snodo_elicit_url` without the safety lint (issue 13): for a query
/// parameter the lint takes for a credential or PII but that is not one.
/// Builds a URL-mode `elicitation/create` request. The URL must be http or
/// https with a host, and no userinfo, whitespace, control characters or
/// backslashes. Accepting means consent, not completion.
///
/// Statuses: OK, INPUT_REQUEST (empty message), URL, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `message` and `url` valid for their lengths; outs as for every builder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_url_without_lint(
    message: *const u8,
    message_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { url_request(message, message_len, url, url_len, out, out_len, snodo::elicit_url_without_lint) }
}

/// Deprecated in MCP 2026-07-28 (prefer elicitation): builds a
/// `sampling/createMessage` request from its params (JSON text).
///
/// Statuses: OK, SAMPLING, JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `params` valid for `params_len` bytes; outs as for every builder.
#[deprecated(note = "sampling is deprecated in MCP 2026-07-28: prefer elicitation")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_sampling(
    params: *const u8,
    params_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let params = unsafe { json(params, params_len, "params") }?;
        let out = OutStr::new(out, out_len)?;
        // The C API keeps the deprecated builder for servers that still need
        // it; `#[deprecated]` above becomes a C compiler attribute (cbindgen).
        #[allow(deprecated)]
        let request = snodo::sampling(&params)?;
        // SAFETY: caller contract.
        unsafe { out.write_json(&request) };
        Ok(())
    })
}

/// Deprecated in MCP 2026-07-28: builds a `roots/list` request.
///
/// Statuses: OK, NULL_ARGUMENT (`out` NULL), PANIC.
///
/// # Safety
///
/// Outs as for every builder.
#[deprecated(note = "roots are deprecated in MCP 2026-07-28")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_list_roots(out: *mut *mut c_char, out_len: *mut usize) -> snodo_status {
    guard(|| {
        let out = OutStr::new(out, out_len)?;
        #[allow(deprecated)]
        let request = snodo::list_roots();
        // SAFETY: caller contract.
        unsafe { out.write_json(&request) };
        Ok(())
    })
}
