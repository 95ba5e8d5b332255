//! `snodo_origin_policy` and `snodo_check_http_origin`: the Streamable HTTP
//! edge check of `Origin` and `Host` against a web page's requests, decided
//! by the core's `check_http_origin` (`core/src/http_origin.rs`).

use snodo::OriginPolicy;

use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, guard, guard_void, handle, into_handle, json};
use crate::http_headers::{header_pairs, snodo_header};
use crate::response::snodo_response;

/// Which `Host` and `Origin` values a server accepts. Immutable and
/// thread-safe: build one at start-up and share it across the threads
/// serving requests. Free with `snodo_origin_policy_free`.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_origin_policy {
    pub(crate) inner: OriginPolicy,
}

fn write_policy(out: Out<*mut snodo_origin_policy>, policy: OriginPolicy) {
    // SAFETY: every caller checked `out` with Out::new under its contract.
    unsafe { out.write(into_handle(snodo_origin_policy { inner: policy })) }
}

/// The policy of a server bound to loopback (the default): the hosts
/// `localhost`, `127.0.0.1` and `[::1]` on any port, and no `Origin` but
/// the request's own (a page served by this server).
///
/// On OK `*out` owns a new policy (free with `snodo_origin_policy_free`).
/// Statuses: OK, NULL_ARGUMENT (`out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `out` must be NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_loopback(out: *mut *mut snodo_origin_policy) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        write_policy(out, OriginPolicy::loopback());
        Ok(())
    })
}

/// Reads a JSON array of strings (`what`: the argument's name).
///
/// # Safety
///
/// `ptr` NULL or valid for `len` bytes.
unsafe fn string_list(ptr: *const u8, len: usize, what: &str) -> Result<Vec<String>, Fail> {
    // SAFETY: caller contract.
    let list = unsafe { json(ptr, len, what) }?;
    let bad =
        || Fail::new(snodo_status::Config, format!("origin policy: {what} must be a JSON array of strings"));
    let items = list.as_array().ok_or_else(bad)?;
    items.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>().ok_or_else(bad)
}

/// A policy from lists, each JSON text of an array of strings: `hosts`
/// entries are `name` (any port), `name:port`, or `*` (any host: only
/// behind a proxy that checks `Host` itself); `origins` entries are
/// `scheme://host[:port]` (`http` or `https`) or `*` (any page: never for
/// a server that acts for a user). `null` is never an allowed origin, and
/// loopback is not implied: list it too if the server also answers there.
/// Pass `[]` for an empty list (a request's own origin is always allowed).
///
/// On OK `*out` owns a new policy (free with `snodo_origin_policy_free`).
/// Statuses: OK, CONFIG (not an array of strings, or a bad entry: the
/// last error quotes it), JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
/// Thread-safe.
///
/// # Safety
///
/// `hosts` and `origins` valid for their lengths; `out` valid for one
/// pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_new(
    hosts: *const u8,
    hosts_len: usize,
    origins: *const u8,
    origins_len: usize,
    out: *mut *mut snodo_origin_policy,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let hosts = unsafe { string_list(hosts, hosts_len, "hosts") }?;
        // SAFETY: caller contract.
        let origins = unsafe { string_list(origins, origins_len, "origins") }?;
        let out = Out::new(out, "out")?;
        let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
        let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
        write_policy(out, OriginPolicy::new(&hosts, &origins)?);
        Ok(())
    })
}

/// Frees a policy. NULL is a no-op. No other thread may be using it.
///
/// # Safety
///
/// `policy` must be NULL or a policy from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_origin_policy_free(policy: *mut snodo_origin_policy) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(policy) });
}

/// Checks `Origin` and `Host` of one HTTP request (its headers as
/// received, every occurrence its own entry, as for
/// `snodo_check_http_headers`) against `policy`. Run it on every request,
/// every method, before reading the body.
///
/// On OK `*out_response` is NULL when the request may go on, or a new
/// response to send as is (free it with `snodo_response_free`): HTTP 421
/// (`snodo_response_http_status`) with `data.reason` `"host"` for a
/// missing, repeated or unlisted `Host`, or HTTP 403 with `data.reason`
/// `"origin"` for a repeated, `null`, malformed, foreign or unlisted
/// `Origin`; the body is a JSON-RPC error `-32600` with id null. A request
/// without `Origin` (not a browser) is held to `Host` only. Header bytes
/// that are not UTF-8 never match (a refusal, not a status). `headers` may
/// be NULL when `headers_len` is 0.
///
/// Statuses: OK, NULL_ARGUMENT, ARGUMENT (a length too large), PANIC.
/// Thread-safe (the policy is shared).
///
/// # Safety
///
/// `policy` a live policy; `headers` NULL or valid for `headers_len`
/// entries, each pointing to its stated lengths; `out_response` valid for
/// one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_http_origin(
    policy: *const snodo_origin_policy,
    headers: *const snodo_header,
    headers_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let policy = unsafe { handle(policy, "policy") }?;
        // SAFETY: caller contract.
        let owned = unsafe { header_pairs(headers, headers_len) }?;
        let out = Out::new(out_response, "out_response")?;
        let pairs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_ref(), v.as_ref())).collect();
        let response = snodo::check_http_origin(&policy.inner, &pairs);
        let handle = response.map_or(std::ptr::null_mut(), |r| into_handle(snodo_response { inner: r }));
        // SAFETY: caller contract.
        unsafe { out.write(handle) };
        Ok(())
    })
}

// Policies are shared across C threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<snodo_origin_policy>();
};
