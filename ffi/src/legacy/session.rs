//! `snodo_session`: what a 2025-era session negotiated at `initialize`, and the principal that opened it (the
//! core's `legacy/session.rs`).

use std::ffi::c_char;

use snodo::Session;

use crate::call::snodo_response;
use crate::engine::principal;
use crate::error::snodo_status;
use crate::ffi::{
    Out, free_handle, guard, handle, handle_mut, into_handle, json, json_opt, read_json, read_text,
    read_text_or, text,
};

/// What a 2025-era session negotiated at `initialize`: protocol revision, client capabilities and info, the
/// principal that opened it and an id. Immutable once built (but `snodo_session_with_id`) and shareable
/// across threads. It belongs to its principal: see `snodo_session_check_principal`.
#[derive(Debug)]
pub struct snodo_session {
    pub(crate) inner: Session,
}

/// A session that negotiated `protocol_version` (what the server answered to `initialize`), with the client's
/// `capabilities` and `client_info` (JSON objects; NULL = no info), opened by `principal`, the verified user
/// of the `initialize` request; a random id (`snodo_session_with_id` sets the transport's). Statuses: OK,
/// ARGUMENT (names the field).
#[unsafe(no_mangle)]
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
        let version = unsafe { text(protocol_version, protocol_version_len, "protocol_version") }?;
        let caps = unsafe { json(capabilities, capabilities_len, "capabilities") }?;
        let info = unsafe { json_opt(client_info, client_info_len, "client_info") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let out = unsafe { Out::new(out, "out") }?;
        out.write(into_handle(snodo_session { inner: Session::new(version, caps, info, &who)? }))
    })
}

/// A session from the client's `initialize` request (JSON text of the whole message or of its `params`), with
/// `negotiated` the version the server answered (see `snodo_engine_legacy_version_for`), opened by
/// `principal`. Random id as `snodo_session_new`. Statuses: OK, ARGUMENT (not an initialize request, bad
/// field, empty principal).
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
        let init = unsafe { json(initialize, initialize_len, "initialize") }?;
        let negotiated = unsafe { text(negotiated, negotiated_len, "negotiated") }?;
        let (who, out) = unsafe { (self::principal(principal, principal_len)?, Out::new(out, "out")?) };
        out.write(into_handle(snodo_session { inner: Session::from_initialize(&init, negotiated, &who)? }))
    })
}

/// Sets the session's id to the transport's (the `Mcp-Session-Id` the server issued, or any unique string for
/// a stdio connection): 1 to 128 printable ASCII bytes. On an error the session is unchanged. Set it before
/// sharing the session. Statuses: OK, ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_with_id(
    session: *mut snodo_session,
    id: *const u8,
    id_len: usize,
) -> snodo_status {
    guard(|| {
        let (session, id) = unsafe { (handle_mut(session, "session")?, text(id, id_len, "id")?) };
        session.inner = session.inner.clone().with_id(id)?;
        Ok(())
    })
}

/// Frees a session. Calls and flows made with it stay valid (they copied what they need).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_free(session: *mut snodo_session) {
    unsafe { free_handle(session) }
}

/// The session id (text).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_id(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(session, "session", out, out_len, |s| Some(s.inner.id().to_owned())) }
}

/// The negotiated protocol revision (text).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_protocol_version(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(session, "session", out, out_len, |s| Some(s.inner.protocol_version().to_owned())) }
}

/// The capabilities the client declared at `initialize`, as given (JSON).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_client_capabilities(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(session, "session", out, out_len, |s| Some(s.inner.client_capabilities().clone())) }
}

/// The capabilities this session can use: declared minus what its revision lacks (JSON; what a legacy call
/// reports and admission checks).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_usable_capabilities(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(session, "session", out, out_len, |s| Some(s.inner.usable_capabilities())) }
}

/// The client info from `initialize` (JSON; `null` when absent).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_client_info(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(session, "session", out, out_len, |s| s.inner.client_info().cloned()) }
}

/// The principal that opened the session, or NULL for the explicit anonymous principal.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_principal(
    session: *const snodo_session,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(session, "session", out, out_len, |s| s.inner.principal().name().map(str::to_owned)) }
}

/// Checks that a message on this session comes from the principal that opened it: run it on every message
/// routed to the session (a request, a response, a notification, a GET, a DELETE) before touching it or its
/// flows (`snodo_engine_begin_legacy` and `snodo_engine_feed` apply it themselves). `*out_response` is NULL
/// (go on) or a new response to send as is: HTTP 404, `-32001` "Session not found", id null, as for a session
/// that does not exist, so that a leaked id neither works nor confirms it exists. Statuses: OK, ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_check_principal(
    session: *const snodo_session,
    principal: *const u8,
    principal_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        let session = unsafe { handle(session, "session") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let out = unsafe { Out::new(out_response, "out_response") }?;
        let response = session.inner.check_principal(&who);
        out.write(response.map_or(std::ptr::null_mut(), |r| into_handle(snodo_response { inner: r })))
    })
}

/// The response to a message naming a session id the server does not know: HTTP 404, `-32001` "Session not
/// found", id null. Byte for byte the refusal `snodo_session_check_principal` gives another user's message,
/// so that a leaked or guessed id cannot be told from an unknown one. Statuses: OK, NULL_ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_unknown_session(out_response: *mut *mut snodo_response) -> snodo_status {
    guard(|| {
        let out = unsafe { Out::new(out_response, "out_response") }?;
        out.write(into_handle(snodo_response { inner: snodo::unknown_session() }))
    })
}

/// The 2025-11-25 `notifications/elicitation/complete` message (JSON text) for `elicitation_id` (from
/// `snodo_pending_flow_elicitation_ids`), to send when the out-of-band step of a URL elicitation completes.
/// Statuses: OK, ARGUMENT (the session cannot receive it: revision before 2025-11-25 or no `elicitation.url`;
/// or an empty id).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_elicitation_complete(
    session: *const snodo_session,
    elicitation_id: *const u8,
    elicitation_id_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(session, "session", out, out_len, |s| {
            let id = text(elicitation_id, elicitation_id_len, "elicitation_id")?;
            Ok(Some(snodo::to_wire(&s.inner.elicitation_complete(id)?)))
        })
    }
}
