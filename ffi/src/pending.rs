//! `snodo_pending_flow`: one legacy round in flight, its requests and
//! readers (issue 14, `docs/legacy.md`). Mirrors the core's
//! `legacy/pending.rs`.

use std::ffi::c_char;

use serde_json::{Map, Value};
use snodo::PendingFlow;

use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, guard_void, handle, json, read_scalar, read_text, text};

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
    // SAFETY: caller contract.
    unsafe { read_text(pending, "pending", out, out_len, |p| f(&p.inner)) }
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
    // SAFETY: caller contract.
    unsafe { read_scalar(pending, "pending", out, |p| f(&p.inner)) }
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

// A flow moves between threads (fed from one at a time).
const _: fn() = || {
    fn movable<T: Send>() {}
    movable::<snodo_pending_flow>();
};
