//! `snodo_question`: an input request as an immutable value (the core's `Question`), its builders and
//! readers, and the (key, question) pairs of an `input_required` outcome.

use std::ffi::c_char;

use serde_json::Value;
use snodo::{Outcome, Question, RequestKind};

use crate::error::{Fail, snodo_status};
use crate::ffi::{bytes, free_handle, handle, json, json_opt, make, read_scalar, read_text, slice, text};

/// An input request (what a server asks under a key of `inputRequests`), validated once, with its canonical
/// JSON and the digest a token pins computed once: made by the builders below or `snodo_question_from_json`,
/// read by `snodo_call_response`, asked by `snodo_engine_decide_input_required`. **Immutable and shareable
/// across threads**: build each question once, at start-up, and pass the same handle on every round, from any
/// thread.
#[derive(Debug)]
pub struct snodo_question {
    pub(crate) inner: Question,
}

/// The kind of a question (the core's `RequestKind`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_request_kind {
    /// Form-mode `elicitation/create`.
    Form = 0,
    /// URL-mode `elicitation/create`.
    Url = 1,
    /// `sampling/createMessage` (deprecated).
    Sampling = 2,
    /// `roots/list` (deprecated).
    Roots = 3,
}

/// One entry of an `input_required` outcome's `inputRequests`: the key (UTF-8, pointer + length) and the
/// question asked under it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct snodo_input_request {
    /// The key, e.g. `seat`.
    pub key: *const u8,
    /// Length of `key` in bytes.
    pub key_len: usize,
    /// The question asked under `key`.
    pub question: *const snodo_question,
}

/// The body of every builder: `build` runs inside the panic boundary and its question goes to `*out`.
unsafe fn build(
    out: *mut *mut snodo_question,
    build: impl FnOnce() -> Result<Question, Fail>,
) -> snodo_status {
    unsafe { make(out, || Ok(snodo_question { inner: build()? })) }
}

/// A form-mode `elicitation/create` question from a message and a `requestedSchema` (JSON text; the spec's
/// flat subset, strict keyword allowlist); it always carries `"mode":"form"`. Fields that look like secrets
/// (passwords, API keys, tokens, card numbers) or URLs are SCHEMA (the core's lint, docs/policies.md): ask by
/// URL instead, or use `snodo_elicit_form_without_lint` for a false positive. Statuses: OK, INPUT_REQUEST
/// (empty message), SCHEMA (the last error names the path).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_form(
    message: *const u8,
    message_len: usize,
    schema: *const u8,
    schema_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    unsafe {
        build(out, || {
            let (message, schema) =
                (text(message, message_len, "message")?, json(schema, schema_len, "schema")?);
            Ok(snodo::elicit_form(message, &schema)?)
        })
    }
}

/// A URL-mode `elicitation/create` question. The URL must be http or https with a host, and no userinfo,
/// whitespace, control characters or backslashes, and no credential- or PII-looking query or fragment
/// parameters (the core's lint; `snodo_elicit_url_without_lint` for a false positive). Accepting means
/// consent, not completion. Statuses: OK, INPUT_REQUEST (empty message), URL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_url(
    message: *const u8,
    message_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    unsafe {
        build(out, || {
            Ok(snodo::elicit_url(text(message, message_len, "message")?, text(url, url_len, "url")?)?)
        })
    }
}

/// `snodo_elicit_form` without the safety lint: for a field the lint takes for a secret that is not one (e.g.
/// `token` meaning a word). Statuses: OK, INPUT_REQUEST, SCHEMA.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_form_without_lint(
    message: *const u8,
    message_len: usize,
    schema: *const u8,
    schema_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    unsafe {
        build(out, || {
            let (message, schema) =
                (text(message, message_len, "message")?, json(schema, schema_len, "schema")?);
            Ok(snodo::elicit_form_without_lint(message, &schema)?)
        })
    }
}

/// `snodo_elicit_url` without the safety lint: for a query parameter the lint takes for a credential or PII
/// that is not one. Statuses: OK, INPUT_REQUEST, URL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_elicit_url_without_lint(
    message: *const u8,
    message_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    unsafe {
        build(out, || {
            let (message, url) = (text(message, message_len, "message")?, text(url, url_len, "url")?);
            Ok(snodo::elicit_url_without_lint(message, url)?)
        })
    }
}

/// Deprecated in MCP 2026-07-28 (prefer elicitation): a `sampling/createMessage` question from its params
/// (JSON text). Statuses: OK, SAMPLING.
#[deprecated(note = "sampling is deprecated in MCP 2026-07-28: prefer elicitation")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_sampling(
    params: *const u8,
    params_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    // The C API keeps the deprecated builder for servers that still need it; `#[deprecated]` above becomes a
    // C compiler attribute (cbindgen).
    #[allow(deprecated)]
    unsafe {
        build(out, || Ok(snodo::sampling(&json(params, params_len, "params")?)?))
    }
}

/// Deprecated in MCP 2026-07-28: a `roots/list` question.
#[deprecated(note = "roots are deprecated in MCP 2026-07-28")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_list_roots(out: *mut *mut snodo_question) -> snodo_status {
    #[allow(deprecated)]
    unsafe {
        build(out, || Ok(snodo::list_roots()))
    }
}

/// A question from an input request written as JSON text (what the builders make, or a request written by
/// hand), with the checks the builders apply. Statuses: OK, JSON (not strict UTF-8 JSON: the last error
/// starts "JSON: question:"), INPUT_REQUEST, SCHEMA, URL, SAMPLING, ARGUMENT (nested over 64 levels).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_question_from_json(
    text: *const u8,
    text_len: usize,
    out: *mut *mut snodo_question,
) -> snodo_status {
    unsafe { build(out, || Ok(Question::from_json(bytes(text, text_len, "text")?)?)) }
}

/// Frees a question. No other thread may be using it; outcomes and responses made with it do not need it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_question_free(question: *mut snodo_question) {
    unsafe { free_handle(question) }
}

/// The question as JSON text: its canonical form (object keys sorted), also compact JSON for the wire.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_question_to_json(
    question: *const snodo_question,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe { read_text(question, "question", out, out_len, |q| Some(q.inner.to_json().to_owned())) }
}

/// The question's kind.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_question_kind(
    question: *const snodo_question,
    out: *mut snodo_request_kind,
) -> snodo_status {
    unsafe {
        read_scalar(question, "question", out, |q| match q.inner.kind() {
            RequestKind::Form => snodo_request_kind::Form,
            RequestKind::Url => snodo_request_kind::Url,
            RequestKind::Sampling => snodo_request_kind::Sampling,
            RequestKind::Roots => snodo_request_kind::Roots,
        })
    }
}

/// The `input_required` outcome of `requests_len` (key, question) pairs at `requests` and an optional state
/// (NULL = none).
pub(crate) unsafe fn input_required(
    requests: *const snodo_input_request,
    requests_len: usize,
    state: *const u8,
    state_len: usize,
) -> Result<Outcome, Fail> {
    let pairs = unsafe { slice(requests, requests_len, "requests") }?;
    let requests = pairs
        .iter()
        // SAFETY: the pointer contract, for each pair.
        .map(|r| unsafe {
            Ok((text(r.key, r.key_len, "key")?.to_owned(), handle(r.question, "question")?.inner.clone()))
        })
        .collect::<Result<Vec<_>, Fail>>()?;
    let state = unsafe { json_opt(state, state_len, "state") }?;
    Ok(Outcome::InputRequired { requests, state })
}

/// A JSON object of key → input request (what `snodo_engine_seal` takes) as (key, question) pairs; not an
/// object is ARGUMENT.
pub(crate) fn questions(requests: &Value) -> Result<Vec<(String, Question)>, Fail> {
    let requests = snodo::input_requests(requests)?;
    requests.iter().map(|(k, q)| Ok((k.clone(), Question::from_value(q.clone())?))).collect()
}
