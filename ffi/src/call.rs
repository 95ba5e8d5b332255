//! `snodo_call`, what a handler reads about one request, with the client's answers (`snodo_answer_kind`, the
//! core's `Answer`); and `snodo_response`, the JSON-RPC response to send, with its HTTP status.

use std::ffi::c_char;

use serde_json::Value;
use snodo::{Answer, Call, Response};

use crate::error::{Fail, snodo_status};
use crate::ffi::{
    Out, OutStr, free_handle, guard, handle, read_json, read_scalar, read_text, read_text_or, text,
};
use crate::question::snodo_question;

/// One request as the handler sees it, from a begin function. Not shareable across threads.
#[derive(Debug)]
pub struct snodo_call {
    pub(crate) inner: Call,
}

/// The kind of a client's answer to one question.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_answer_kind {
    /// No usable answer (not asked last round, or not sent): ask. Value: `null`.
    Missing = 0,
    /// Accepted. Value: the validated content (form), `null` (URL mode: consent, not completion), the
    /// `CreateMessageResult` (sampling) or the roots array (roots).
    Accepted = 1,
    /// Declined (elicitation only). Value: `null`.
    Declined = 2,
    /// Cancelled (elicitation only). Value: `null`.
    Cancelled = 3,
    /// The answer is invalid for the question. Value: the reason, a JSON string naming the offending field.
    Invalid = 4,
    /// The question changed since it was asked: ask the new one. Value: `null`.
    Changed = 5,
}

/// Frees a call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_free(call: *mut snodo_call) {
    unsafe { free_handle(call) }
}

/// The method, e.g. `tools/call` (text, not JSON).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_method(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| Some(c.inner.method().to_owned())) }
}

/// The request's protocol version, e.g. `2026-07-28` (text, not JSON).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_protocol_version(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| Some(c.inner.protocol_version().to_owned())) }
}

/// The JSON-RPC id as JSON text, exactly as received (`"a"`, `0`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| Some(c.inner.id().clone())) }
}

/// The request's `_meta` as a JSON object (e.g. `progressToken`), without the protocol version, client
/// capabilities and client info snodo reads itself.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_meta(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| Some(Value::Object(c.inner.meta().clone()))) }
}

/// The params as a JSON object without `_meta`, `inputResponses` and `requestState` (what the token binds:
/// `name`, `uri`, `arguments`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_params(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| Some(Value::Object(c.inner.params().clone()))) }
}

/// The application state carried by the token, as JSON (`null` if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_state(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| c.inner.state().cloned()) }
}

/// This request's client capabilities, as a JSON object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_client_capabilities(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| Some(c.inner.client_capabilities().clone())) }
}

/// The self-reported client info as JSON (`null` if not sent): never use it for security decisions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_client_info(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| c.inner.client_info().cloned()) }
}

/// The principal the call was begun for, or NULL for the anonymous one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_principal(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| c.inner.principal().name().map(str::to_owned)) }
}

/// The `inputResponses` object the request carried (`{}` when none), as sent: `snodo_call_response` is the
/// validated reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_input_responses(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_json(call, "call", out, out_len, |c| Some(Value::Object(c.inner.input_responses().clone())))
    }
}

/// The keys asked in the previous round (a JSON array; `[]` on round 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_asked_keys(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_json(call, "call", out, out_len, |c| Some(Value::from(c.inner.asked_keys()))) }
}

/// The round: 1 for a first call, n+1 for a retry of round n.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_round(call: *const snodo_call, out: *mut u32) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.round()) }
}

/// Unix seconds when the flow began (this request's time on round 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_start(call: *const snodo_call, out: *mut u64) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.flow_start()) }
}

/// Whether this request carried a valid token.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_is_retry(call: *const snodo_call, out: *mut bool) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.is_retry()) }
}

/// Whether `input_required` may be answered (an MRTR method, 2026-07-28 on).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_mrtr_allowed(call: *const snodo_call, out: *mut bool) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.mrtr_allowed()) }
}

/// Whether the call came from `snodo_engine_begin_legacy` (decide it with a legacy decide function).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_is_legacy(call: *const snodo_call, out: *mut bool) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.is_legacy()) }
}

/// The answer under `key` to `question`, the question the handler asks under that key this round (the same
/// handle every round): it counts only if that question was asked under `key` last round. Accepted form
/// content is validated against the schema. `*out_kind` is the kind; `*out_value` (optional: `out_value` may
/// be NULL) its value as JSON (`snodo_answer_kind`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_response(
    call: *const snodo_call,
    key: *const u8,
    key_len: usize,
    question: *const snodo_question,
    out_kind: *mut snodo_answer_kind,
    out_value: *mut *mut c_char,
    out_value_len: *mut usize,
) -> snodo_status {
    guard(|| {
        let (call, key) = unsafe { (handle(call, "call")?, text(key, key_len, "key")?) };
        let question = unsafe { handle(question, "question") }?;
        let out_kind = unsafe { Out::new(out_kind, "out_kind") }?;
        let out_value =
            unsafe { if out_value.is_null() { None } else { Some(OutStr::new(out_value, out_value_len)?) } };
        let (kind, value) = match call.inner.response(key, &question.inner) {
            Answer::Missing => (snodo_answer_kind::Missing, Value::Null),
            Answer::Accepted(v) => (snodo_answer_kind::Accepted, v),
            Answer::Declined => (snodo_answer_kind::Declined, Value::Null),
            Answer::Cancelled => (snodo_answer_kind::Cancelled, Value::Null),
            Answer::Invalid(why) => (snodo_answer_kind::Invalid, Value::String(why)),
            Answer::Changed => (snodo_answer_kind::Changed, Value::Null),
            // Answer is non_exhaustive: see Fail::unknown_kind.
            _ => return Err(Fail::unknown_kind("Answer")),
        };
        out_kind.write(kind)?;
        out_value.map_or(Ok(()), |o| o.write_json(&value))
    })
}

/// The raw answer object the client sent for `key` (JSON), not pinned to a question and not validated; `null`
/// unless `key` was asked last round.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_raw_response(
    call: *const snodo_call,
    key: *const u8,
    key_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(call, "call", out, out_len, |c| {
            Ok(Some(snodo::to_wire(c.inner.raw_response(text(key, key_len, "key")?).unwrap_or(&Value::Null))))
        })
    }
}

/// The flow id of the token this retry opened: 22 characters of base64url, the same for every round of one
/// flow (the once machine keys its record on it); NULL on a first round, which opened no token.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| c.inner.flow_id().map(str::to_owned)) }
}

/// The random id of the token this retry opened, or NULL on a first round.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_token_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| c.inner.token_id().map(str::to_owned)) }
}

/// When the token this retry opened expires, in Unix seconds (the engine refuses it from then on, give or
/// take its clock skew); 0 on a first round (0 is never a real expiry).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_token_expires_at(call: *const snodo_call, out: *mut u64) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.token_expires_at().unwrap_or(0)) }
}

/// The last Unix second any token of this retry's flow can be accepted (flow start + `max_flow_age_secs` +
/// `clock_skew_secs`); 0 on a first round.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_expires_at(call: *const snodo_call, out: *mut u64) -> snodo_status {
    unsafe { read_scalar(call, "call", out, |c| c.inner.flow_expires_at().unwrap_or(0)) }
}

/// The task this run of the handler belongs to (a leg from `snodo_task_step_finish` run as a task: run it in
/// the background), or NULL in a request and on an inline continuation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_task_id(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| c.inner.task_id().map(str::to_owned)) }
}

/// The answers digest: SHA-256 of the canonical JSON of this request's `inputResponses` (`{}` when absent),
/// as 43 characters of base64url. The same answers give the same digest whatever their key order or spacing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_answers_digest(
    call: *const snodo_call,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(call, "call", out, out_len, |c| Some(c.inner.answers_digest())) }
}

/// A JSON-RPC response message ready for the wire, from a begin, decide or check function. Not shareable
/// across threads. Free it with `snodo_response_free`.
#[derive(Debug)]
pub struct snodo_response {
    pub(crate) inner: Response,
}

/// Frees a response.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_free(response: *mut snodo_response) {
    unsafe { free_handle(response) }
}

/// The whole JSON-RPC message as compact JSON text, to send as is.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_body(
    response: *const snodo_response,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(response, "response", out, out_len, |r| Some(r.inner.to_json())) }
}

/// The HTTP status a Streamable HTTP server should use: 400 for `-32700`, `-32600`, `-32020`, `-32021`,
/// `-32022` and `_meta`-level `-32602`; 404 for `-32601` and a session that is not the caller's; 403 and 421
/// for an origin or host refusal; 200 otherwise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_http_status(
    response: *const snodo_response,
    out: *mut u16,
) -> snodo_status {
    unsafe { read_scalar(response, "response", out, |r| r.inner.http_status()) }
}

/// Whether the response is a JSON-RPC error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_is_error(
    response: *const snodo_response,
    out: *mut bool,
) -> snodo_status {
    unsafe { read_scalar(response, "response", out, |r| r.inner.is_error()) }
}

/// Why snodo replaced the handler's outcome with `-32603`, for the server's log (never sent on the wire), or
/// NULL when there is none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_response_diagnostic(
    response: *const snodo_response,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(response, "response", out, out_len, |r| r.inner.diagnostic().map(str::to_owned)) }
}
