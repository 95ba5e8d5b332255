//! `snodo_session`: what a 2025-era session negotiated at `initialize`
//! (issue 14, `docs/legacy.md`), and the principal that opened it. Mirrors
//! the core's `legacy/session.rs`.

use std::ffi::c_char;

use serde_json::Value;
use snodo::Session;

use crate::engine::principal;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, guard_void, handle, into_handle, json, json_opt, read_text, text};
use crate::response::snodo_response;

/// What a 2025-era session negotiated at `initialize`: protocol revision,
/// client capabilities, client info, the principal that opened it and a
/// session id. Immutable once built (but `snodo_session_with_id`) and
/// thread-safe: share one session across the threads serving it. Free with
/// `snodo_session_free`.
///
/// A session belongs to its principal: every later message on it (a call,
/// an answer, a cancellation, a GET or DELETE of the session) goes through
/// `snodo_session_check_principal` first, so that whoever learns a session
/// id cannot use another user's session (`snodo_engine_begin_legacy` and
/// `snodo_engine_feed` apply the rule themselves).
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_session {
    pub(crate) inner: Session,
}

fn write_session(out: Out<*mut snodo_session>, session: Session) {
    // SAFETY: every caller checked `out` with Out::new under its contract.
    unsafe { out.write(into_handle(snodo_session { inner: session })) }
}

/// A session that negotiated `protocol_version` (the version the server
/// answered in its `initialize` result), with the client's `capabilities`
/// (JSON text of an object) and `client_info` (JSON text of an object, or
/// NULL), opened by `principal`: the verified user of the `initialize`
/// request (NULL = the explicit anonymous principal; an empty name is
/// ARGUMENT). Its id is random; set the transport's own with
/// `snodo_session_with_id`. Whether the version is accepted is decided by
/// the engine at `snodo_engine_begin_legacy`.
///
/// On OK `*out` owns a new session (free with `snodo_session_free`).
/// Statuses: OK, ARGUMENT (names the field, or an empty principal), JSON,
/// INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `protocol_version` and `capabilities` valid for their lengths;
/// `client_info` NULL or valid for `client_info_len` bytes; `principal`
/// NULL or valid for `principal_len` bytes; `out` valid for one pointer
/// write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn snodo_session_new(
    protocol_version: *const u8,
    protocol_version_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    client_info: *const u8,
    client_info_len: usize,
    principal: *const u8,
    principal_len: usize,
    out: *mut *mut snodo_session,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let version = unsafe { text(protocol_version, protocol_version_len, "protocol_version") }?;
        // SAFETY: caller contract.
        let caps = unsafe { json(capabilities, capabilities_len, "capabilities") }?;
        // SAFETY: caller contract.
        let info = unsafe { json_opt(client_info, client_info_len, "client_info") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out = Out::new(out, "out")?;
        write_session(out, Session::new(version, caps, info, &principal)?);
        Ok(())
    })
}

/// A session from the client's `initialize` request (JSON text of the whole
/// message or of its `params`), with `negotiated` the version the server
/// answered (see `snodo_engine_legacy_version_for`), opened by `principal`
/// (the verified user of the `initialize` request; NULL = the explicit
/// anonymous principal). Random id as `snodo_session_new`.
///
/// On OK `*out` owns a new session. Statuses: OK, ARGUMENT (not an
/// initialize request, bad field, empty principal), JSON, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `initialize` and `negotiated` valid for their lengths; `principal` NULL
/// or valid for `principal_len` bytes; `out` valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_from_initialize(
    initialize: *const u8,
    initialize_len: usize,
    negotiated: *const u8,
    negotiated_len: usize,
    principal: *const u8,
    principal_len: usize,
    out: *mut *mut snodo_session,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let init = unsafe { json(initialize, initialize_len, "initialize") }?;
        // SAFETY: caller contract.
        let negotiated = unsafe { text(negotiated, negotiated_len, "negotiated") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out = Out::new(out, "out")?;
        write_session(out, Session::from_initialize(&init, negotiated, &principal)?);
        Ok(())
    })
}

/// Sets the session's id to the transport's (the `Mcp-Session-Id` the
/// server issued, or any unique string for a stdio connection): 1 to 128
/// printable ASCII bytes. Rust's `with_id`, applied in place; on an error
/// the session is unchanged.
///
/// Statuses: OK, ARGUMENT, INVALID_UTF8, NULL_ARGUMENT, PANIC. Not
/// thread-safe: set the id before sharing the session.
///
/// # Safety
///
/// `session` a live session no other thread uses; `id` valid for `id_len`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_with_id(
    session: *mut snodo_session,
    id: *const u8,
    id_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract (exclusive use).
        let session = unsafe { session.as_mut() }.ok_or_else(|| Fail::null("session"))?;
        // SAFETY: caller contract.
        let id = unsafe { text(id, id_len, "id") }?;
        session.inner = session.inner.clone().with_id(id)?;
        Ok(())
    })
}

/// Frees a session. NULL is a no-op. Calls and flows made with it stay
/// valid (they copied what they need).
///
/// # Safety
///
/// `session` NULL or a session from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_free(session: *mut snodo_session) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(session) });
}

/// Shared body of the session's string readers.
///
/// # Safety
///
/// `session` NULL or live; `out`/`out_len` as in `OutStr::write`.
unsafe fn session_read(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&Session) -> Vec<u8>,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_text(session, "session", out, out_len, |s| f(&s.inner)) }
}

/// The session id (text). On OK `*out` is a new string (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `session` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_id(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { session_read(session, out, out_len, |s| s.id().as_bytes().to_vec()) }
}

/// The negotiated protocol revision (text). Outs and statuses as
/// `snodo_session_id`.
///
/// # Safety
///
/// As `snodo_session_id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_protocol_version(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { session_read(session, out, out_len, |s| s.protocol_version().as_bytes().to_vec()) }
}

/// The capabilities the client declared at `initialize`, as given (JSON
/// text). Outs and statuses as `snodo_session_id`.
///
/// # Safety
///
/// As `snodo_session_id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_client_capabilities(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { session_read(session, out, out_len, |s| snodo::to_wire(s.client_capabilities()).into_bytes()) }
}

/// The capabilities this session can use: declared minus what its
/// revision lacks (JSON text; what a legacy call reports and admission
/// checks). Outs and statuses as `snodo_session_id`.
///
/// # Safety
///
/// As `snodo_session_id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_usable_capabilities(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { session_read(session, out, out_len, |s| snodo::to_wire(&s.usable_capabilities()).into_bytes()) }
}

/// The client info from `initialize` (JSON text; `null` when absent).
/// Outs and statuses as `snodo_session_id`.
///
/// # Safety
///
/// As `snodo_session_id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_client_info(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        session_read(session, out, out_len, |s| {
            snodo::to_wire(s.client_info().unwrap_or(&Value::Null)).into_bytes()
        })
    }
}

/// The principal that opened the session: on OK `*out` is a new string
/// owned by the caller (free with `snodo_string_free`), or NULL (and
/// `*out_len` 0) for the explicit anonymous principal. `out_len` may be
/// NULL. Statuses: OK, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `session` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_principal(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let session = unsafe { handle(session, "session") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        match session.inner.principal().name() {
            Some(name) => unsafe { out.write(name.as_bytes()) },
            None => unsafe { out.write_null() },
        }
        Ok(())
    })
}

/// Checks that a message on this session comes from the principal that
/// opened it (`principal`: the verified user of this HTTP request; NULL =
/// the explicit anonymous principal). Run it on every message a server
/// routes to the session (a POST of a request, a response or a
/// notification such as `notifications/cancelled`, a GET, a DELETE)
/// before touching the session or its flows.
///
/// On OK `*out_response` is NULL when the principal is the session's (go
/// on), or a new response to send as is (free it with
/// `snodo_response_free`): HTTP 404 (`snodo_response_http_status`) with
/// JSON-RPC error `-32001` "Session not found" and id null, the answer to
/// a session that does not exist, so that a session id learned by someone
/// else neither works nor confirms that it exists.
///
/// Statuses: OK, ARGUMENT (an empty principal), INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe (the session is shared).
///
/// # Safety
///
/// `session` live; `principal` NULL or valid for `principal_len` bytes;
/// `out_response` valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_check_principal(
    session: *const snodo_session,
    principal: *const u8,
    principal_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let session = unsafe { handle(session, "session") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out = Out::new(out_response, "out_response")?;
        let response = session.inner.check_principal(&principal);
        let handle = response.map_or(std::ptr::null_mut(), |r| into_handle(snodo_response { inner: r }));
        // SAFETY: caller contract.
        unsafe { out.write(handle) };
        Ok(())
    })
}

/// The 2025-11-25 `notifications/elicitation/complete` message (JSON text)
/// for `elicitation_id` (from `snodo_pending_flow_elicitation_ids`), to
/// send when the out-of-band step of a URL elicitation completes.
///
/// On OK `*out` is a new string (free with `snodo_string_free`). Statuses:
/// OK, ARGUMENT (the session cannot receive it: revision before 2025-11-25
/// or no `elicitation.url`; or an empty id), INVALID_UTF8, NULL_ARGUMENT,
/// PANIC. Thread-safe.
///
/// # Safety
///
/// `session` live; `elicitation_id` valid for its length; `out` valid for
/// one pointer write; `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_elicitation_complete(
    session: *const snodo_session,
    elicitation_id: *const u8,
    elicitation_id_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let session = unsafe { handle(session, "session") }?;
        // SAFETY: caller contract.
        let eid = unsafe { text(elicitation_id, elicitation_id_len, "elicitation_id") }?;
        let out = OutStr::new(out, out_len)?;
        let message = session.inner.elicitation_complete(eid)?;
        // SAFETY: caller contract.
        unsafe { out.write_json(&message) };
        Ok(())
    })
}

// Sessions are shared across C threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<snodo_session>();
};
