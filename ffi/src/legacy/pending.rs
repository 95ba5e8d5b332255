//! `snodo_pending_flow`: one legacy round in flight, its requests and readers (the core's
//! `legacy/pending.rs`).

use std::ffi::c_char;

use serde_json::{Map, Value};
use snodo::PendingFlow;

use crate::error::snodo_status;
use crate::ffi::{
    OutStr, free_handle, guard, handle_mut, json, read_json, read_scalar, read_scalar_or, read_text, text_opt,
};

/// One legacy round in flight (a legacy decide → `SNODO_BRIDGE_KIND_SEND`): the requests to send and what
/// resuming the handler needs; bounded by the config. Not shareable across threads. Free it when the flow
/// ends or the session disconnects (snodo keeps nothing else about it).
#[derive(Debug)]
pub struct snodo_pending_flow {
    pub(crate) inner: PendingFlow,
}

/// Frees a pending flow (also how a disconnect is handled).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_free(pending: *mut snodo_pending_flow) {
    unsafe { free_handle(pending) }
}

/// The JSON-RPC requests to send to the client (a JSON array, in the outcome's key order; each id
/// `snodo-<flow>-<round>-<n>`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_requests(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_json(pending, "pending", out, out_len, |p| Some(Value::Array(p.inner.requests().to_vec())))
    }
}

/// The ids of this round's requests (a JSON array of strings).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_request_ids(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(pending, "pending", out, out_len, |p| Some(Value::from(p.inner.request_ids()))) }
}

/// The ids still unanswered (a JSON array of strings; `[]` once the flow ended).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_outstanding(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(pending, "pending", out, out_len, |p| Some(Value::from(p.inner.outstanding()))) }
}

/// The URL elicitations of this round as a JSON object of key → `elicitationId` (`{}` when none), for
/// `snodo_session_elicitation_complete`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_elicitation_ids(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_json(pending, "pending", out, out_len, |p| {
            let ids = p.inner.elicitation_ids().into_iter().map(|(k, e)| (k.to_owned(), Value::from(e)));
            Some(Value::Object(ids.collect::<Map<String, Value>>()))
        })
    }
}

/// The originating request's JSON-RPC id (JSON; the final response goes there).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_id(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(pending, "pending", out, out_len, |p| Some(p.inner.id().clone())) }
}

/// The originating request's method (text).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_method(
    pending: *const snodo_pending_flow,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(pending, "pending", out, out_len, |p| Some(p.inner.method().to_owned())) }
}

/// Whether a response with JSON-RPC id `id` (JSON text, e.g. `"snodo-…-1-1"` with the quotes) would be
/// accepted now: a request of this flow, unanswered, flow not ended. Lets an application route a response
/// among its flows.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_awaits(
    pending: *const snodo_pending_flow,
    id: *const u8,
    id_len: usize,
    out: *mut bool,
) -> snodo_status {
    unsafe { read_scalar_or(pending, "pending", out, |p| Ok(p.inner.awaits(&json(id, id_len, "id")?))) }
}

/// Unix seconds after which the round's answers are no longer accepted: set a timer and call
/// `snodo_engine_timeout` when it fires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_deadline(
    pending: *const snodo_pending_flow,
    out: *mut u64,
) -> snodo_status {
    unsafe { read_scalar(pending, "pending", out, |p| p.inner.deadline()) }
}

/// The round that asked (the resumed call has round + 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_round(
    pending: *const snodo_pending_flow,
    out: *mut u32,
) -> snodo_status {
    unsafe { read_scalar(pending, "pending", out, |p| p.inner.round()) }
}

/// Unix seconds when the flow began.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_flow_start(
    pending: *const snodo_pending_flow,
    out: *mut u64,
) -> snodo_status {
    unsafe { read_scalar(pending, "pending", out, |p| p.inner.flow_start()) }
}

/// Whether the flow ended (resumed, failed, timed out or cancelled); free it then.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_is_ended(
    pending: *const snodo_pending_flow,
    out: *mut bool,
) -> snodo_status {
    unsafe { read_scalar(pending, "pending", out, |p| p.inner.is_ended()) }
}

/// The client cancelled the originating request (or the application abandons it): ends the flow; `*out` is a
/// JSON array of the `notifications/cancelled` to send for the unanswered requests (`[]` when the flow
/// already ended). No response is sent for a cancelled request. `reason` NULL = none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_pending_flow_cancel(
    pending: *mut snodo_pending_flow,
    reason: *const u8,
    reason_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        let pending = unsafe { handle_mut(pending, "pending") }?;
        let reason = unsafe { text_opt(reason, reason_len, "reason") }?;
        unsafe { OutStr::new(out, out_len) }?.write_json(&Value::Array(pending.inner.cancel(reason)))
    })
}
