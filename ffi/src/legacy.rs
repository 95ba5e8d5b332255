//! Issue 14: 2025-era (`initialize`) sessions through the same handlers,
//! sans-IO (`docs/legacy.md`). `snodo_session` (what `initialize`
//! negotiated), `snodo_engine_begin_legacy`, `snodo_engine_decide_legacy`
//! (→ `snodo_bridge_kind`), `snodo_pending_flow` (one round in flight) fed
//! with `snodo_engine_feed` / `snodo_engine_timeout` (→ `snodo_feed_kind`).
//! Each export is argument conversion plus one core call.

use std::ffi::c_char;

use serde_json::{Map, Value};
use snodo::{Begin, Bridge, Feed, Outcome, PendingFlow, Session};

use crate::call::snodo_call;
use crate::engine::{principal, snodo_engine};
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, guard_void, handle, into_handle, json, json_opt, text};
use crate::response::snodo_response;

/// What a 2025-era session negotiated at `initialize`: protocol revision,
/// client capabilities, client info and a session id. Immutable once
/// built (but `snodo_session_with_id`) and thread-safe: share one session
/// across the threads serving it. Free with `snodo_session_free`.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_session {
    pub(crate) inner: Session,
}

/// One legacy round in flight (`snodo_engine_decide_legacy` →
/// `SNODO_BRIDGE_KIND_SEND`): the requests to send to the client and what
/// resuming the handler needs. Owned by the caller; free it with
/// `snodo_pending_flow_free` when the flow ends or the session disconnects
/// (snodo keeps nothing else). **Not thread-safe**: feed one flow from one
/// thread at a time (moving it between threads is fine). Holds no secret
/// that goes on the wire; bounded (at most `max_input_responses` requests,
/// answers totalling at most `max_request_bytes`).
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_pending_flow {
    pub(crate) inner: PendingFlow,
}

/// What `snodo_engine_decide_legacy` produced.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_bridge_kind {
    /// `*out_response` is the final response to the originating request:
    /// send it.
    Respond = 0,
    /// `*out_pending` is a new flow: send `snodo_pending_flow_requests` on
    /// the session, keep the flow and feed the client's responses to it.
    Send = 1,
    /// `*out_call` is a new call (a round with state but nothing to ask):
    /// run the handler again with it (pace it; the round cap ends the loop).
    Resume = 2,
}

/// What `snodo_engine_feed` and `snodo_engine_timeout` produced.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_feed_kind {
    /// Recorded; other requests of the round are still unanswered.
    Waiting = 0,
    /// Every answer is in: `*out_call` is the call for the handler's next
    /// round (the answers as its input responses); decide it with
    /// `snodo_engine_decide_legacy`. The flow has ended.
    Resume = 1,
    /// The flow failed (client error, deadline, size, rounds, flow age):
    /// send `*out_response` on the originating request and the
    /// `notifications/cancelled` messages in `*out_cancellations` (a JSON
    /// array, possibly empty). The flow has ended.
    Respond = 2,
}

// ---------------------------------------------------------------- session

fn write_session(out: Out<*mut snodo_session>, session: Session) {
    // SAFETY: every caller checked `out` with Out::new under its contract.
    unsafe { out.write(into_handle(snodo_session { inner: session })) }
}

/// A session that negotiated `protocol_version` (the version the server
/// answered in its `initialize` result), with the client's `capabilities`
/// (JSON text of an object) and `client_info` (JSON text of an object, or
/// NULL). Its id is random; set the transport's own with
/// `snodo_session_with_id`. Whether the version is accepted is decided by
/// the engine at `snodo_engine_begin_legacy`.
///
/// On OK `*out` owns a new session (free with `snodo_session_free`).
/// Statuses: OK, ARGUMENT (names the field), JSON, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `protocol_version` and `capabilities` valid for their lengths;
/// `client_info` NULL or valid for `client_info_len` bytes; `out` valid
/// for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_new(
    protocol_version: *const u8,
    protocol_version_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    client_info: *const u8,
    client_info_len: usize,
    out: *mut *mut snodo_session,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let version = unsafe { text(protocol_version, protocol_version_len, "protocol_version") }?;
        // SAFETY: caller contract.
        let caps = unsafe { json(capabilities, capabilities_len, "capabilities") }?;
        // SAFETY: caller contract.
        let info = unsafe { json_opt(client_info, client_info_len, "client_info") }?;
        let out = Out::new(out, "out")?;
        write_session(out, Session::new(version, caps, info)?);
        Ok(())
    })
}

/// A session from the client's `initialize` request (JSON text of the whole
/// message or of its `params`), with `negotiated` the version the server
/// answered (see `snodo_engine_legacy_version_for`). Random id as
/// `snodo_session_new`.
///
/// On OK `*out` owns a new session. Statuses: OK, ARGUMENT (not an
/// initialize request, bad field), JSON, INVALID_UTF8, NULL_ARGUMENT,
/// PANIC. Thread-safe.
///
/// # Safety
///
/// `initialize` and `negotiated` valid for their lengths; `out` valid for
/// one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_session_from_initialize(
    initialize: *const u8,
    initialize_len: usize,
    negotiated: *const u8,
    negotiated_len: usize,
    out: *mut *mut snodo_session,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let init = unsafe { json(initialize, initialize_len, "initialize") }?;
        // SAFETY: caller contract.
        let negotiated = unsafe { text(negotiated, negotiated_len, "negotiated") }?;
        let out = Out::new(out, "out")?;
        write_session(out, Session::from_initialize(&init, negotiated)?);
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
    guard(|| {
        // SAFETY: caller contract.
        let session = unsafe { handle(session, "session") }?;
        let out = OutStr::new(out, out_len)?;
        let bytes = f(&session.inner);
        // SAFETY: caller contract.
        unsafe { out.write(&bytes) };
        Ok(())
    })
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

// ----------------------------------------------------------------- engine

/// The protocol version to answer an `initialize` that asked for
/// `requested`: `requested` itself when it is an accepted legacy revision,
/// else the first configured one (the spec's counter-offer).
///
/// On OK `*out` is a new string, or NULL (length 0) when legacy sessions
/// are disabled (`legacy_versions` empty). Statuses: OK, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `engine` live; `requested` valid for its length; `out` valid for one
/// pointer write; `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_legacy_version_for(
    engine: *const snodo_engine,
    requested: *const u8,
    requested_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let requested = unsafe { text(requested, requested_len, "requested") }?;
        let out = OutStr::new(out, out_len)?;
        // SAFETY: caller contract.
        unsafe {
            match engine.inner.legacy_version_for(requested) {
                Some(v) => out.write(v.as_bytes()),
                None => out.write_null(),
            }
        }
        Ok(())
    })
}

/// Reads a request that arrived on the 2025-era `session` (the bytes as
/// received) into the same call a 2026 request gives (`mrtr_allowed`
/// false, `snodo_call_is_legacy` true, the session's usable capabilities),
/// for the verified `principal` (NULL = explicit anonymous). Outs as
/// `snodo_engine_begin`: exactly one of `*out_call` (run the handler, then
/// `snodo_engine_decide_legacy`) and `*out_response` (a ready error, e.g.
/// `-32602 Unsupported protocol version`) is set, the other NULL.
///
/// Statuses: OK, NOT_A_REQUEST (a notification or a response: a response
/// belongs to a pending flow, `snodo_engine_feed`), ARGUMENT, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Thread-safe (engine and session are shared).
///
/// # Safety
///
/// `engine` and `session` live; `request` valid for `request_len` bytes;
/// `principal` NULL or valid for `principal_len` bytes; both outs valid for
/// one pointer write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn snodo_engine_begin_legacy(
    engine: *const snodo_engine,
    request: *const u8,
    request_len: usize,
    session: *const snodo_session,
    principal: *const u8,
    principal_len: usize,
    out_call: *mut *mut snodo_call,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let request = unsafe { crate::ffi::bytes(request, request_len, "request") }?;
        // SAFETY: caller contract.
        let session = unsafe { handle(session, "session") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out_call = Out::new(out_call, "out_call")?;
        let out_response = Out::new(out_response, "out_response")?;
        let (call, response) = match engine.inner.begin_legacy(request, &session.inner, &principal)? {
            Begin::Call(call) => (into_handle(snodo_call::new(*call)), std::ptr::null_mut()),
            Begin::Respond(r) => (std::ptr::null_mut(), into_handle(snodo_response { inner: r })),
        };
        // SAFETY: caller contract.
        unsafe {
            out_call.write(call);
            out_response.write(response);
        }
        Ok(())
    })
}

/// Decides a call from `snodo_engine_begin_legacy` (`outcome` JSON text as
/// for `snodo_engine_decide`). An `input_required` outcome becomes the
/// round's server-to-client requests and a pending flow instead of
/// `-32603`; any other outcome is decided as by `snodo_engine_decide`. On a
/// 2026 call it is exactly `snodo_engine_decide`. A call is decided once
/// (ALREADY_DECIDED).
///
/// On OK `*out_kind` says which of the three other outs holds a new handle
/// owned by the caller (`RESPOND`: `*out_response`; `SEND`:
/// `*out_pending`; `RESUME`: `*out_call`); the other two are NULL.
///
/// Statuses: OK, ARGUMENT (bad outcome shape), JSON, INVALID_UTF8,
/// ALREADY_DECIDED, NULL_ARGUMENT, PANIC. Thread-safe for the engine; the
/// call must not be used by two threads at once.
///
/// # Safety
///
/// `engine` and `call` live; `outcome` valid for `outcome_len` bytes; the
/// four outs valid for one write each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_decide_legacy(
    engine: *const snodo_engine,
    call: *const snodo_call,
    outcome: *const u8,
    outcome_len: usize,
    out_kind: *mut snodo_bridge_kind,
    out_response: *mut *mut snodo_response,
    out_pending: *mut *mut snodo_pending_flow,
    out_call: *mut *mut snodo_call,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        let out_kind = Out::new(out_kind, "out_kind")?;
        let out_response = Out::new(out_response, "out_response")?;
        let out_pending = Out::new(out_pending, "out_pending")?;
        let out_call = Out::new(out_call, "out_call")?;
        // SAFETY: caller contract.
        let outcome = Outcome::from_value(unsafe { json(outcome, outcome_len, "outcome") }?)?;
        let (kind, response, pending, next) = match engine.inner.decide_legacy(&call.inner, outcome)? {
            Bridge::Respond(r) => {
                (snodo_bridge_kind::Respond, into_handle(snodo_response { inner: r }), null(), null())
            }
            Bridge::Send(p) => {
                (snodo_bridge_kind::Send, null(), into_handle(snodo_pending_flow { inner: *p }), null())
            }
            Bridge::Resume(c) => {
                (snodo_bridge_kind::Resume, null(), null(), into_handle(snodo_call::new(*c)))
            }
        };
        // SAFETY: caller contract.
        unsafe {
            out_kind.write(kind);
            out_response.write(response);
            out_pending.write(pending);
            out_call.write(next);
        }
        Ok(())
    })
}

fn null<T>() -> *mut T {
    std::ptr::null_mut()
}

/// The outs of `snodo_engine_feed` and `snodo_engine_timeout`, checked up
/// front and written only on success.
struct FeedOuts {
    kind: Out<snodo_feed_kind>,
    call: Out<*mut snodo_call>,
    response: Out<*mut snodo_response>,
    cancellations: OutStr,
}

impl FeedOuts {
    fn new(
        kind: *mut snodo_feed_kind,
        call: *mut *mut snodo_call,
        response: *mut *mut snodo_response,
        cancellations: *mut *mut c_char,
        cancellations_len: *mut usize,
    ) -> Result<FeedOuts, Fail> {
        Ok(FeedOuts {
            kind: Out::new(kind, "out_kind")?,
            call: Out::new(call, "out_call")?,
            response: Out::new(response, "out_response")?,
            cancellations: OutStr::new(cancellations, cancellations_len)
                .map_err(|_| Fail::null("out_cancellations"))?,
        })
    }

    /// # Safety
    ///
    /// The pointers given to [`FeedOuts::new`] valid for one write each.
    unsafe fn write(self, feed: Feed) {
        let (kind, call, response, cancellations) = match feed {
            Feed::Waiting => (snodo_feed_kind::Waiting, null(), null(), Vec::new()),
            Feed::Resume(c) => {
                (snodo_feed_kind::Resume, into_handle(snodo_call::new(*c)), null(), Vec::new())
            }
            Feed::Respond { response, cancellations } => (
                snodo_feed_kind::Respond,
                null(),
                into_handle(snodo_response { inner: response }),
                cancellations,
            ),
        };
        // SAFETY: caller contract.
        unsafe {
            self.kind.write(kind);
            self.call.write(call);
            self.response.write(response);
            self.cancellations.write_json(&Value::Array(cancellations));
        }
    }
}

/// Feeds the client's JSON-RPC response (the bytes as received) to one of
/// `pending`'s requests (route with `snodo_pending_flow_awaits`).
///
/// On OK `*out_kind` is written (see `snodo_feed_kind`): `RESUME` sets
/// `*out_call`, `RESPOND` sets `*out_response`, the other is NULL;
/// `*out_cancellations` is always a new JSON array string (empty unless
/// `RESPOND`; free with `snodo_string_free`; `out_cancellations_len` may be
/// NULL).
///
/// A response that is malformed (JSON), not a JSON-RPC response, for an id
/// not of this flow, a duplicate, or late (the flow ended) is refused
/// (ARGUMENT; the last error says which) and **changes nothing**: the flow
/// is as before and no out is written.
///
/// Statuses: OK, JSON, ARGUMENT, NULL_ARGUMENT, PANIC. Thread-safe for the
/// engine; **one flow is fed from one thread at a time**.
///
/// # Safety
///
/// `engine` live; `pending` a live flow no other thread uses; `response`
/// valid for `response_len` bytes; the outs valid for one write each
/// (`out_cancellations_len` may be NULL).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn snodo_engine_feed(
    engine: *const snodo_engine,
    pending: *mut snodo_pending_flow,
    response: *const u8,
    response_len: usize,
    out_kind: *mut snodo_feed_kind,
    out_call: *mut *mut snodo_call,
    out_response: *mut *mut snodo_response,
    out_cancellations: *mut *mut c_char,
    out_cancellations_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract (exclusive use).
        let pending = unsafe { pending.as_mut() }.ok_or_else(|| Fail::null("pending"))?;
        // SAFETY: caller contract.
        let response = unsafe { crate::ffi::bytes(response, response_len, "response") }?;
        let outs = FeedOuts::new(out_kind, out_call, out_response, out_cancellations, out_cancellations_len)?;
        let feed = engine.inner.feed(&mut pending.inner, response)?;
        // SAFETY: caller contract.
        unsafe { outs.write(feed) };
        Ok(())
    })
}

/// The application's timer for `pending` fired (at
/// `snodo_pending_flow_deadline`): the flow ends with a failure response
/// and cancellations for its unanswered requests. Outs as
/// `snodo_engine_feed` (the kind is always `RESPOND`).
///
/// Statuses: OK, ARGUMENT (the flow already ended; nothing changes),
/// NULL_ARGUMENT, PANIC. One flow from one thread at a time.
///
/// # Safety
///
/// `engine` live; `pending` a live flow no other thread uses; the outs
/// valid for one write each (`out_cancellations_len` may be NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_timeout(
    engine: *const snodo_engine,
    pending: *mut snodo_pending_flow,
    out_kind: *mut snodo_feed_kind,
    out_call: *mut *mut snodo_call,
    out_response: *mut *mut snodo_response,
    out_cancellations: *mut *mut c_char,
    out_cancellations_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract (exclusive use).
        let pending = unsafe { pending.as_mut() }.ok_or_else(|| Fail::null("pending"))?;
        let outs = FeedOuts::new(out_kind, out_call, out_response, out_cancellations, out_cancellations_len)?;
        let feed = engine.inner.timeout(&mut pending.inner)?;
        // SAFETY: caller contract.
        unsafe { outs.write(feed) };
        Ok(())
    })
}

// ----------------------------------------------------------- pending flow

/// Frees a pending flow. NULL is a no-op. Dropping a flow is also how a
/// disconnect is handled: snodo holds nothing else about it.
///
/// # Safety
///
/// `pending` NULL or a flow from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_free(pending: *mut snodo_pending_flow) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(pending) });
}

/// Shared body of the flow's string readers.
///
/// # Safety
///
/// `pending` NULL or live; `out`/`out_len` as in `OutStr::write`.
unsafe fn flow_read(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&PendingFlow) -> Vec<u8>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let pending = unsafe { handle(pending, "pending") }?;
        let out = OutStr::new(out, out_len)?;
        let bytes = f(&pending.inner);
        // SAFETY: caller contract.
        unsafe { out.write(&bytes) };
        Ok(())
    })
}

/// Shared body of the flow's scalar readers.
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one write.
unsafe fn flow_scalar<T>(
    pending: *const snodo_pending_flow,
    out: *mut T,
    f: impl FnOnce(&PendingFlow) -> T,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let pending = unsafe { handle(pending, "pending") }?;
        let out = Out::new(out, "out")?;
        let value = f(&pending.inner);
        // SAFETY: caller contract.
        unsafe { out.write(value) };
        Ok(())
    })
}

fn wire(v: &Value) -> Vec<u8> {
    snodo::to_wire(v).into_bytes()
}

fn id_list(ids: Vec<&str>) -> Vec<u8> {
    wire(&Value::Array(ids.into_iter().map(|s| Value::String(s.to_owned())).collect()))
}

/// The JSON-RPC requests to send to the client (JSON text of an array, in
/// the outcome's key order; each id `snodo-<flow>-<round>-<n>`). On OK
/// `*out` is a new string (free with `snodo_string_free`); `out_len` may be
/// NULL. Statuses: OK, NULL_ARGUMENT, PANIC. One flow from one thread at a
/// time (as every reader below).
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_requests(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_read(pending, out, out_len, |p| wire(&Value::Array(p.requests().to_vec()))) }
}

/// The ids of this round's requests (JSON array of strings). Outs and
/// statuses as `snodo_pending_flow_requests`.
///
/// # Safety
///
/// As `snodo_pending_flow_requests`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_request_ids(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_read(pending, out, out_len, |p| id_list(p.request_ids())) }
}

/// The ids still unanswered (JSON array of strings; `[]` once the flow
/// ended). Outs and statuses as `snodo_pending_flow_requests`.
///
/// # Safety
///
/// As `snodo_pending_flow_requests`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_outstanding(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_read(pending, out, out_len, |p| id_list(p.outstanding())) }
}

/// The URL elicitations of this round as a JSON object of key →
/// `elicitationId` (`{}` when none), for
/// `snodo_session_elicitation_complete`. (Rust returns pairs; the keys are
/// unique, so an object carries the same.) Outs and statuses as
/// `snodo_pending_flow_requests`.
///
/// # Safety
///
/// As `snodo_pending_flow_requests`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_elicitation_ids(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        flow_read(pending, out, out_len, |p| {
            let map: Map<String, Value> = p
                .elicitation_ids()
                .into_iter()
                .map(|(k, e)| (k.to_owned(), Value::String(e.to_owned())))
                .collect();
            wire(&Value::Object(map))
        })
    }
}

/// The originating request's JSON-RPC id (JSON text; the final response
/// goes there). Outs and statuses as `snodo_pending_flow_requests`.
///
/// # Safety
///
/// As `snodo_pending_flow_requests`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_id(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_read(pending, out, out_len, |p| wire(p.id())) }
}

/// The originating request's method (text). Outs and statuses as
/// `snodo_pending_flow_requests`.
///
/// # Safety
///
/// As `snodo_pending_flow_requests`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_method(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_read(pending, out, out_len, |p| p.method().as_bytes().to_vec()) }
}

/// Whether a response with JSON-RPC id `id` (JSON text, e.g.
/// `"snodo-…-1-1"` with the quotes) would be accepted now: a request of
/// this flow, unanswered, flow not ended. Lets an application route a
/// response among its flows.
///
/// Statuses: OK, JSON, INVALID_UTF8, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `pending` live; `id` valid for `id_len` bytes; `out` valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_awaits(
    pending: *const snodo_pending_flow,
    id: *const u8,
    id_len: usize,
    out: *mut bool,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let pending = unsafe { handle(pending, "pending") }?;
        // SAFETY: caller contract.
        let id = unsafe { json(id, id_len, "id") }?;
        let out = Out::new(out, "out")?;
        // SAFETY: caller contract.
        unsafe { out.write(pending.inner.awaits(&id)) };
        Ok(())
    })
}

/// Unix seconds after which the round's answers are no longer accepted:
/// set a timer and call `snodo_engine_timeout` when it fires. Statuses:
/// OK, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_deadline(
    pending: *const snodo_pending_flow,
    out: *mut u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_scalar(pending, out, PendingFlow::deadline) }
}

/// The round that asked (the resumed call has round + 1). Statuses: OK,
/// NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_round(
    pending: *const snodo_pending_flow,
    out: *mut u32,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_scalar(pending, out, PendingFlow::round) }
}

/// Unix seconds when the flow began. Statuses: OK, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_flow_start(
    pending: *const snodo_pending_flow,
    out: *mut u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_scalar(pending, out, PendingFlow::flow_start) }
}

/// Whether the flow ended (resumed, failed, timed out or cancelled); free
/// it then. Statuses: OK, NULL_ARGUMENT, PANIC.
///
/// # Safety
///
/// `pending` NULL or live; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_is_ended(
    pending: *const snodo_pending_flow,
    out: *mut bool,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { flow_scalar(pending, out, PendingFlow::is_ended) }
}

/// The client cancelled the originating request (or the application
/// abandons it): ends the flow; `*out` is a new JSON array string of the
/// `notifications/cancelled` to send for the unanswered requests (`[]`
/// when the flow already ended). No response is sent for a cancelled
/// request. `reason` NULL = none.
///
/// Statuses: OK, INVALID_UTF8, NULL_ARGUMENT, PANIC. One flow from one
/// thread at a time.
///
/// # Safety
///
/// `pending` a live flow no other thread uses; `reason` NULL or valid for
/// `reason_len` bytes; `out` valid for one pointer write; `out_len` NULL
/// or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_cancel(
    pending: *mut snodo_pending_flow,
    reason: *const u8,
    reason_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract (exclusive use).
        let pending = unsafe { pending.as_mut() }.ok_or_else(|| Fail::null("pending"))?;
        let reason = if reason.is_null() {
            None
        } else {
            // SAFETY: caller contract.
            Some(unsafe { text(reason, reason_len, "reason") }?)
        };
        let out = OutStr::new(out, out_len)?;
        let cancellations = pending.inner.cancel(reason);
        // SAFETY: caller contract.
        unsafe { out.write_json(&Value::Array(cancellations)) };
        Ok(())
    })
}

// Sessions are shared across C threads; a flow moves between threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    fn movable<T: Send>() {}
    shareable::<snodo_session>();
    movable::<snodo_pending_flow>();
};
