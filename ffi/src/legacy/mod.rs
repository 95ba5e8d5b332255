//! 2025-era (`initialize`) sessions through the same handlers, sans-IO (`docs/legacy.md`): `snodo_session`
//! (what `initialize` negotiated), `snodo_engine_begin_legacy`, the legacy decide functions (→
//! `snodo_bridge_kind`), and `snodo_pending_flow` (one round in flight) fed with `snodo_engine_feed` /
//! `snodo_engine_timeout` (→ `snodo_feed_kind`).

// The modules' order is the exports' order in include/snodo.h (cbindgen reads them in declaration order).
mod session;

mod pending;

pub use pending::*;
pub use session::*;

use std::ffi::c_char;
use std::ptr::null_mut as null;

use serde_json::Value;
use snodo::{Bridge, Feed, Outcome};

use crate::call::{snodo_call, snodo_response};
use crate::engine::{BeginOuts, principal, snodo_engine};
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, bytes, guard, handle, handle_mut, into_handle, json, read_text_or, text};
use crate::question::{input_required, snodo_input_request};

/// What a legacy decide produced.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_bridge_kind {
    /// `*out_response` is the final response to the originating request: send it.
    Respond = 0,
    /// `*out_pending` is a new flow: send `snodo_pending_flow_requests` on the session, keep the flow and
    /// feed the client's responses to it.
    Send = 1,
    /// `*out_call` is a new call (a round with state but nothing to ask): run the handler again with it (pace
    /// it; the round cap ends the loop).
    Resume = 2,
}

/// What `snodo_engine_feed` and `snodo_engine_timeout` produced.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_feed_kind {
    /// Recorded; other requests of the round are still unanswered.
    Waiting = 0,
    /// Every answer is in: `*out_call` is the call for the handler's next round (the answers as its input
    /// responses); decide it with a legacy decide function. The flow has ended.
    Resume = 1,
    /// The flow failed (client error, deadline, size, rounds, flow age): send `*out_response` on the
    /// originating request and the `notifications/cancelled` messages in `*out_cancellations` (a JSON array,
    /// possibly empty). The flow has ended.
    Respond = 2,
}

/// The protocol version to answer an `initialize` that asked for `requested`: `requested` itself when it is
/// an accepted legacy revision, else the first configured one (the spec's counter-offer); or NULL when legacy
/// sessions are disabled (`legacy_versions` empty).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_legacy_version_for(
    engine: *const snodo_engine,
    requested: *const u8,
    requested_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(engine, "engine", out, out_len, |e| {
            Ok(e.inner.legacy_version_for(text(requested, requested_len, "requested")?).map(str::to_owned))
        })
    }
}

/// Reads a request that arrived on the 2025-era `session` into the same call a 2026 request gives
/// (`snodo_call_is_legacy` true, the session's usable capabilities); another principal than the session's
/// gets `-32001` "Session not found" (HTTP 404). Outs as `snodo_engine_begin` (decide the call with a legacy
/// decide function). Statuses: OK, NOT_A_REQUEST (a response belongs to a pending flow: `snodo_engine_feed`),
/// ARGUMENT.
#[unsafe(no_mangle)]
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
        let engine = unsafe { handle(engine, "engine") }?;
        let request = unsafe { bytes(request, request_len, "request") }?;
        let session = unsafe { handle(session, "session") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let outs = unsafe { BeginOuts::new(out_call, out_response) }?;
        outs.write(engine.inner.begin_legacy(request, &session.inner, &who)?)
    })
}

/// The body of both legacy decide functions.
unsafe fn decide_legacy(
    engine: *const snodo_engine,
    call: *const snodo_call,
    out_kind: *mut snodo_bridge_kind,
    out_response: *mut *mut snodo_response,
    out_pending: *mut *mut snodo_pending_flow,
    out_call: *mut *mut snodo_call,
    outcome: impl FnOnce() -> Result<Outcome, Fail>,
) -> snodo_status {
    guard(|| {
        let (engine, call) = unsafe { (handle(engine, "engine")?, handle(call, "call")?) };
        let out_kind = unsafe { Out::new(out_kind, "out_kind") }?;
        let out_response = unsafe { Out::new(out_response, "out_response") }?;
        let out_pending = unsafe { Out::new(out_pending, "out_pending") }?;
        let out_call = unsafe { Out::new(out_call, "out_call") }?;
        use snodo_bridge_kind as K;
        let (kind, response, pending, next) = match engine.inner.decide_legacy(&call.inner, outcome()?)? {
            Bridge::Respond(r) => (K::Respond, into_handle(snodo_response { inner: r }), null(), null()),
            Bridge::Send(p) => (K::Send, null(), into_handle(snodo_pending_flow { inner: *p }), null()),
            Bridge::Resume(c) => (K::Resume, null(), null(), into_handle(snodo_call { inner: *c })),
        };
        out_kind.write(kind)?;
        out_response.write(response)?;
        out_pending.write(pending)?;
        out_call.write(next)
    })
}

/// Decides a call from `snodo_engine_begin_legacy` (`outcome` JSON text as for `snodo_engine_decide`). An
/// `input_required` outcome becomes the round's server-to-client requests and a pending flow instead of
/// `-32603`; any other outcome is decided as by `snodo_engine_decide`, and on a 2026 call it is exactly
/// `snodo_engine_decide`. A call is decided once. On OK `*out_kind` says which of the three other outs holds
/// a new handle (`RESPOND`: `*out_response`; `SEND`: `*out_pending`; `RESUME`: `*out_call`); the other two
/// are NULL. Statuses: OK, ARGUMENT (bad outcome shape), ALREADY_DECIDED.
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
    unsafe {
        decide_legacy(engine, call, out_kind, out_response, out_pending, out_call, || {
            Ok(Outcome::from_value(json(outcome, outcome_len, "outcome")?)?)
        })
    }
}

/// `snodo_engine_decide_legacy` of an `input_required` outcome built from questions (`requests`, `state` as
/// for `snodo_engine_decide_input_required`). Statuses: OK, ALREADY_DECIDED.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_decide_legacy_input_required(
    engine: *const snodo_engine,
    call: *const snodo_call,
    requests: *const snodo_input_request,
    requests_len: usize,
    state: *const u8,
    state_len: usize,
    out_kind: *mut snodo_bridge_kind,
    out_response: *mut *mut snodo_response,
    out_pending: *mut *mut snodo_pending_flow,
    out_call: *mut *mut snodo_call,
) -> snodo_status {
    unsafe {
        decide_legacy(engine, call, out_kind, out_response, out_pending, out_call, || {
            input_required(requests, requests_len, state, state_len)
        })
    }
}

/// The outs of `snodo_engine_feed` and `snodo_engine_timeout`, checked up front and written only on success.
struct FeedOuts(Out<snodo_feed_kind>, Out<*mut snodo_call>, Out<*mut snodo_response>, OutStr);

impl FeedOuts {
    unsafe fn new(
        kind: *mut snodo_feed_kind,
        call: *mut *mut snodo_call,
        response: *mut *mut snodo_response,
        cancellations: *mut *mut c_char,
        cancellations_len: *mut usize,
    ) -> Result<FeedOuts, Fail> {
        unsafe {
            Ok(FeedOuts(
                Out::new(kind, "out_kind")?,
                Out::new(call, "out_call")?,
                Out::new(response, "out_response")?,
                OutStr::new(cancellations, cancellations_len).map_err(|_| Fail::null("out_cancellations"))?,
            ))
        }
    }

    fn write(self, feed: Feed) -> Result<(), Fail> {
        use snodo_feed_kind as K;
        let (kind, call, response, cancellations) = match feed {
            Feed::Waiting => (K::Waiting, null(), null(), Vec::new()),
            Feed::Resume(c) => (K::Resume, into_handle(snodo_call { inner: *c }), null(), Vec::new()),
            Feed::Respond { response, cancellations } => {
                (K::Respond, null(), into_handle(snodo_response { inner: response }), cancellations)
            }
        };
        self.0.write(kind)?;
        self.1.write(call)?;
        self.2.write(response)?;
        self.3.write_json(&Value::Array(cancellations))
    }
}

/// Feeds the client's JSON-RPC response (the bytes as received) to one of `pending`'s requests (route with
/// `snodo_pending_flow_awaits`). `*out_kind` says which of `*out_call` (`RESUME`) and `*out_response`
/// (`RESPOND`) is set, the other NULL; `*out_cancellations` is a JSON array (empty unless `RESPOND`). A
/// response that is malformed, not for this flow, a duplicate, late, or from another principal than the
/// flow's is ARGUMENT (the last error says which) and **changes nothing**. Statuses: OK, ARGUMENT.
#[unsafe(no_mangle)]
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
        let (engine, pending) = unsafe { (handle(engine, "engine")?, handle_mut(pending, "pending")?) };
        let response = unsafe { bytes(response, response_len, "response") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let outs = unsafe {
            FeedOuts::new(out_kind, out_call, out_response, out_cancellations, out_cancellations_len)
        }?;
        outs.write(engine.inner.feed(&mut pending.inner, response, &who)?)
    })
}

/// The application's timer for `pending` fired (at `snodo_pending_flow_deadline`): the flow ends with a
/// failure response and cancellations for its unanswered requests. Outs as `snodo_engine_feed` (the kind is
/// always `RESPOND`). Statuses: OK, ARGUMENT (the flow already ended; nothing changes).
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
        let (engine, pending) = unsafe { (handle(engine, "engine")?, handle_mut(pending, "pending")?) };
        let outs = unsafe {
            FeedOuts::new(out_kind, out_call, out_response, out_cancellations, out_cancellations_len)
        }?;
        outs.write(engine.inner.timeout(&mut pending.inner)?)
    })
}
