//! Issue 14: 2025-era (`initialize`) sessions through the same handlers,
//! sans-IO (`docs/legacy.md`). `snodo_session` (what `initialize`
//! negotiated), `snodo_engine_begin_legacy`, `snodo_engine_decide_legacy`
//! (→ `snodo_bridge_kind`), `snodo_pending_flow` (one round in flight) fed
//! with `snodo_engine_feed` / `snodo_engine_timeout` (→ `snodo_feed_kind`).
//! Each export is argument conversion plus one core call.

use std::ffi::c_char;

use serde_json::Value;
use snodo::{Begin, Bridge, Feed, Outcome};

use crate::call::snodo_call;
use crate::engine::{principal, snodo_engine};
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, handle, into_handle, json, text};
use crate::pending::snodo_pending_flow;
use crate::response::snodo_response;
use crate::session::snodo_session;

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
/// for the verified `principal` (NULL = explicit anonymous). A principal
/// other than the session's gets the ready `-32001` "Session not found"
/// response (HTTP 404, the request's id), as `snodo_session_check_principal`
/// would. Outs as `snodo_engine_begin`: exactly one of `*out_call` (run the
/// handler, then `snodo_engine_decide_legacy`) and `*out_response` (a ready
/// error, e.g. `-32602 Unsupported protocol version`) is set, the other
/// NULL.
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

/// Feeds the client's JSON-RPC response (the bytes as received), sent by
/// `principal` (the verified user of the HTTP request that carried it;
/// NULL = the explicit anonymous principal), to one of `pending`'s
/// requests (route with `snodo_pending_flow_awaits`).
///
/// On OK `*out_kind` is written (see `snodo_feed_kind`): `RESUME` sets
/// `*out_call`, `RESPOND` sets `*out_response`, the other is NULL;
/// `*out_cancellations` is always a new JSON array string (empty unless
/// `RESPOND`; free with `snodo_string_free`; `out_cancellations_len` may be
/// NULL).
///
/// A response that is malformed (JSON), not a JSON-RPC response, for an id
/// not of this flow, a duplicate, late (the flow ended), or from another
/// principal than the one the flow's question was asked of is refused
/// (ARGUMENT; the last error says which) and **changes nothing**: the flow
/// is as before and no out is written.
///
/// Statuses: OK, JSON, ARGUMENT, INVALID_UTF8 (principal), NULL_ARGUMENT,
/// PANIC. Thread-safe for the engine; **one flow is fed from one thread at
/// a time**.
///
/// # Safety
///
/// `engine` live; `pending` a live flow no other thread uses; `response`
/// valid for `response_len` bytes; `principal` NULL or valid for
/// `principal_len` bytes; the outs valid for one write each
/// (`out_cancellations_len` may be NULL).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn snodo_engine_feed(
    engine: *const snodo_engine,
    pending: *mut snodo_pending_flow,
    response: *const u8,
    response_len: usize,
    principal: *const u8,
    principal_len: usize,
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
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let outs = FeedOuts::new(out_kind, out_call, out_response, out_cancellations, out_cancellations_len)?;
        let feed = engine.inner.feed(&mut pending.inner, response, &principal)?;
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
