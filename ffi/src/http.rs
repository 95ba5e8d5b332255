//! The Streamable HTTP edge: `snodo_origin_policy` and `snodo_check_http_origin` (`Origin` and `Host` against
//! a web page's requests), and `snodo_check_http_headers` (the request-metadata headers
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), each decided by the core.

use std::borrow::Cow;

use snodo::{OriginPolicy, Response};

use crate::call::snodo_response;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, bytes, free_handle, guard, handle, into_handle, make, slice, string_list};

/// One HTTP request header as received: name and value, each a pointer + length (no NUL needed); UTF-8, or
/// else read as Latin-1. Names compare case-insensitively; pass repeated headers as separate entries (a
/// standard header sent twice is a mismatch, so do not join them).
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

/// Which `Host` and `Origin` values a server accepts. Immutable and shareable across threads: build one at
/// start-up. Free it with `snodo_origin_policy_free`.
#[derive(Debug)]
pub struct snodo_origin_policy {
    pub(crate) inner: OriginPolicy,
}

/// Header bytes as text: UTF-8 when they are UTF-8, else each byte as its Latin-1 character (HTTP's obs-text;
/// what Python's binding does with `bytes`). Such a value never equals the request's field unless the field
/// holds the same characters, so bad bytes end as a refusal, never as a C-only status.
fn header_text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => Cow::Owned(b.iter().map(|&c| char::from(c)).collect()),
    }
}

/// Runs `check` on the (name, value) texts of a C header array (NULL when `headers_len` is 0) and writes its
/// refusal, or NULL, to `out`.
unsafe fn check_headers(
    headers: *const snodo_header,
    headers_len: usize,
    out: *mut *mut snodo_response,
    check: impl FnOnce(&[(&str, &str)]) -> Result<Option<Response>, Fail>,
) -> snodo_status {
    guard(|| {
        let entries = unsafe { slice(headers, headers_len, "headers") }?;
        let out = unsafe { Out::new(out, "out_response") }?;
        let owned = entries
            .iter()
            // SAFETY: the pointer contract, for each entry.
            .map(|h| unsafe {
                Ok((bytes(h.name, h.name_len, "header name")?, bytes(h.value, h.value_len, "header value")?))
            })
            .map(|pair: Result<_, Fail>| pair.map(|(n, v)| (header_text(n), header_text(v))))
            .collect::<Result<Vec<_>, Fail>>()?;
        let pairs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_ref(), v.as_ref())).collect();
        out.write(check(&pairs)?.map_or(std::ptr::null_mut(), |r| into_handle(snodo_response { inner: r })))
    })
}

/// Checks the headers of an HTTP POST (NULL when `headers_len` is 0) against the JSON-RPC request it carries,
/// before `snodo_engine_begin`: `*out_response` is NULL (go on) or a `-32020` `Header mismatch: …` to send
/// (HTTP 400). A body that is not UTF-8 JSON is left to `snodo_engine_begin`. Statuses: OK, ARGUMENT (a
/// length too large).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_http_headers(
    headers: *const snodo_header,
    headers_len: usize,
    request: *const u8,
    request_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    unsafe {
        check_headers(headers, headers_len, out_response, |pairs| {
            let request = std::str::from_utf8(bytes(request, request_len, "request")?).ok();
            Ok(request.and_then(|t| snodo::check_http_headers_text(pairs, t)))
        })
    }
}

/// The policy of a server bound to loopback (the default): the hosts `localhost`, `127.0.0.1` and `[::1]` on
/// any port, and no `Origin` but the request's own (a page served by this server).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_loopback(out: *mut *mut snodo_origin_policy) -> snodo_status {
    unsafe { make(out, || Ok(snodo_origin_policy { inner: OriginPolicy::loopback() })) }
}

/// A policy from lists, each JSON text of an array of strings: `hosts` entries are `name` (any port),
/// `name:port`, or `*` (any host: only behind a proxy that checks `Host` itself); `origins` entries are
/// `scheme://host[:port]` (`http` or `https`) or `*` (any page: never for a server that acts for a user).
/// `null` is never allowed; loopback is not implied; `[]` is an empty list (a request's own origin is always
/// allowed). Statuses: OK, CONFIG (not an array of strings, or a bad entry: the last error quotes it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_new(
    hosts: *const u8,
    hosts_len: usize,
    origins: *const u8,
    origins_len: usize,
    out: *mut *mut snodo_origin_policy,
) -> snodo_status {
    unsafe {
        make(out, || {
            let hosts = string_list(hosts, hosts_len, "hosts")?;
            let origins = string_list(origins, origins_len, "origins")?;
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
            Ok(snodo_origin_policy { inner: OriginPolicy::new(&hosts, &origins)? })
        })
    }
}

/// Frees a policy. No other thread may be using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_free(policy: *mut snodo_origin_policy) {
    unsafe { free_handle(policy) }
}

/// Checks `Origin` and `Host` of an HTTP request (its headers as received; NULL when `headers_len` is 0)
/// against `policy`: on every request, before reading the body. `*out_response` is NULL (go on) or a `-32600`
/// to send as is: HTTP 421 (`data.reason` `"host"`: a missing, repeated or unlisted `Host`) or 403
/// (`"origin"`: a repeated, `null`, malformed or unlisted `Origin`). A request without `Origin` is held to
/// `Host` only. Statuses: OK, ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_http_origin(
    policy: *const snodo_origin_policy,
    headers: *const snodo_header,
    headers_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    unsafe {
        check_headers(headers, headers_len, out_response, |pairs| {
            Ok(snodo::check_http_origin(&handle(policy, "policy")?.inner, pairs))
        })
    }
}
