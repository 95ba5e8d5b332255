//! Reading a request that may be an MRTR retry: `begin`, a function of
//! the [`Policy`], the token [`Sealer`] and the clock, into a [`Call`] for
//! the handler or a ready [`Response`].
//!
//!
//! It validates, in order: the JSON text (size, syntax, duplicate keys,
//! depth), the JSON-RPC request shape, the per-request `_meta` dialect
//! (`protocolVersion` and `clientCapabilities` required, version supported),
//! and on the three MRTR methods in the 2026-07-28 dialect the retry envelope
//! (`inputResponses`, `requestState`) and the token.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::call::{Answers, Call, LazyArgs};
use crate::error::Result;
use crate::json::{self, Envelope, JsonError, RawAnswers, StateArg};
use crate::policy::Policy;
use crate::response::Response;
use crate::token::{self, Principal, Sealer};

mod shape;
use shape::check_shape;
pub(crate) use shape::{Shape, read_shape};

/// `_meta` key of the protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the (self-reported, informational) client info.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// What `begin` produced.
#[derive(Debug)]
pub enum Begin {
    /// A valid request for the handler.
    Call(Box<Call>),
    /// A ready error response: send it, do not run the handler.
    Respond(Response),
}

fn jsonrpc_error(id: Value, code: i64, message: &str, data: Option<Value>, http_status: u16) -> Response {
    Response::error(id, code, message, data, http_status)
}

fn invalid_params(id: Value, message: &str, http_status: u16) -> Begin {
    Begin::Respond(jsonrpc_error(id, -32602, message, None, http_status))
}

fn invalid_state(id: Value, reason: &str) -> Begin {
    Begin::Respond(jsonrpc_error(
        id,
        -32602,
        "Invalid or expired requestState",
        Some(json!({"reason": reason})),
        200,
    ))
}

/// Reads a request message that may be an MRTR retry (see the module
/// docs for the order of checks), at the time `now()` returns.
pub(crate) fn begin(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    bytes: &[u8],
    principal: &Principal,
) -> Result<Begin> {
    // Issue 16, fifth pass: no whole-message tree; one strict pass keeps
    // what `begin` reads (json/envelope.rs), `params.arguments` streamed
    // into canonical bytes. The same errors and results as the tree path
    // below, held to it by the property test in begin/tests.rs.
    match json::read_envelope(bytes, policy.max_request_bytes) {
        Ok(Some(env)) => begin_envelope(policy, sealer, now, env, principal),
        // Arguments whose canonical bytes would not read back: the tree.
        Ok(None) => begin_reference(policy, sealer, now, bytes, principal),
        Err(e) => Ok(text_error(e)),
    }
}

/// [`begin`] through the whole-message tree: the reference the envelope
/// path is held to, and the path for arguments the stream calls odd.
pub(crate) fn begin_reference(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    bytes: &[u8],
    principal: &Principal,
) -> Result<Begin> {
    // Issue 16: `params.arguments` is streamed into canonical bytes (for
    // the binding) rather than built as a tree; the same errors either way.
    match json::parse_request(bytes, policy.max_request_bytes) {
        Ok((value, args)) => begin_parsed(policy, sealer, now, value, args, principal),
        Err(e) => Ok(text_error(e)),
    }
}

fn begin_envelope(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    mut env: Envelope<'_>,
    principal: &Principal,
) -> Result<Begin> {
    let args = env.args.take();
    let retry = match &mut env.params {
        Some(Some(p)) => {
            let answers = match p.answers_text.take() {
                Some(raw) => Input::Text(raw),
                None => Input::Tree(p.input_responses.take()),
            };
            Retry {
                input_responses: answers,
                request_state: p.request_state.take(),
                known: std::mem::take(&mut p.meta_known),
                shared: std::mem::take(&mut p.meta_shared),
                version: p.version_known,
            }
        }
        _ => Retry::from_tree(Input::Tree(None), None),
    };
    match check_shape(env, "a response, not a request")? {
        Ok(shape) => begin_shape(policy, sealer, now, shape, args, retry, principal),
        Err(respond) => Ok(respond),
    }
}

/// The text rules every request shares, 2026 or legacy (size, syntax,
/// duplicate keys, depth): the parsed message, or the ready error.
pub(crate) fn parse_text(bytes: &[u8], max_bytes: usize) -> std::result::Result<Value, Begin> {
    json::parse(bytes, max_bytes).map_err(text_error)
}

/// The ready error for a request text the strict parser refused.
fn text_error(e: JsonError) -> Begin {
    match e {
        JsonError::Syntax(_) => Begin::Respond(jsonrpc_error(Value::Null, -32700, "Parse error", None, 400)),
        JsonError::TooLarge => invalid_params(Value::Null, "Request exceeds the size limit", 400),
        JsonError::TooDeep => invalid_params(Value::Null, "Request is nested too deeply", 400),
        JsonError::DuplicateKey(_) => invalid_params(Value::Null, "Request has a duplicate object key", 400),
    }
}

/// [`begin`] for an already parsed message.
pub(crate) fn begin_value(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    value: Value,
    principal: &Principal,
) -> Result<Begin> {
    begin_parsed(policy, sealer, now, value, None, principal)
}

/// [`begin_value`], where `args` (if any) are the canonical bytes of
/// `params.arguments`, which the message holds as a `null` placeholder.
fn begin_parsed(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    value: Value,
    args: Option<Vec<u8>>,
    principal: &Principal,
) -> Result<Begin> {
    let mut shape = match read_shape(value, "a response, not a request")? {
        Ok(shape) => shape,
        Err(respond) => return Ok(respond),
    };
    let input_responses = Input::Tree(shape.params.remove("inputResponses"));
    let request_state = shape.params.remove("requestState").map(|v| match v {
        Value::String(s) => StateArg::Text(s.into()),
        _ => StateArg::Other,
    });
    let retry = Retry::from_tree(input_responses, request_state);
    begin_shape(policy, sealer, now, shape, args, retry, principal)
}

/// What `begin_shape` reads besides the shape: the retry envelope, and
/// the `_meta` members the hand reader split off (`json::META_KNOWN`;
/// all `None` when they are still in the shape's `meta`), the capabilities
/// and client info as shared trees when it found them as objects.
struct Retry<'a> {
    input_responses: Input<'a>,
    request_state: Option<StateArg<'a>>,
    known: [Option<Value>; 3],
    shared: [Option<Arc<Value>>; 2],
    /// The version, when the hand reader found one snodo knows.
    version: Option<&'static str>,
}

impl<'a> Retry<'a> {
    /// The envelope as the tree path reads it: the `_meta` members still
    /// in the shape's `meta`.
    fn from_tree(input_responses: Input<'a>, request_state: Option<StateArg<'a>>) -> Retry<'a> {
        Retry {
            input_responses,
            request_state,
            known: Default::default(),
            shared: Default::default(),
            version: None,
        }
    }
}

/// `params.inputResponses` as read: a tree (or absent), or (issue 16,
/// seventh pass) text the hand reader checked without building.
enum Input<'a> {
    Tree(Option<Value>),
    Text(RawAnswers<'a>),
}

/// What both paths share once the shape is read: the `_meta` dialect, the
/// call, and on a retry the envelope and the token.
fn begin_shape(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    shape: Shape,
    args: Option<Vec<u8>>,
    retry: Retry<'_>,
    principal: &Principal,
) -> Result<Begin> {
    let Shape { id, method, params, mut meta } = shape;
    let Retry {
        input_responses,
        request_state,
        known: [version, capabilities, client_info],
        shared: [shared_capabilities, shared_client_info],
        version: version_known,
    } = retry;
    // The 2026-07-28 dialect: every request carries its own _meta.
    let version = match shape::version(version_known, version, &mut meta) {
        Ok(v) => v,
        Err(message) => return Ok(invalid_params(id, message, 400)),
    };
    // Issue 13: the version is checked before anything else in _meta, so a
    // client on an unknown version always learns which versions to use
    // (-32022 with supported/requested), even if its other _meta fields
    // follow a different revision's rules.
    if !policy.versions.iter().any(|v| *v == version) {
        return Ok(Begin::Respond(jsonrpc_error(
            id,
            -32022,
            "Unsupported protocol version",
            Some(json!({"supported": policy.versions, "requested": version})),
            400,
        )));
    }
    let capabilities = match shape::capabilities(shared_capabilities, capabilities, &mut meta) {
        Ok(c) => c,
        Err(message) => return Ok(invalid_params(id, &message, 400)),
    };
    // Informational only; a malformed optional field is ignored, not fatal.
    let client_info = shared_client_info.or_else(|| {
        client_info.or_else(|| meta.remove(META_CLIENT_INFO)).filter(Value::is_object).map(Arc::new)
    });

    let mrtr = version.as_ref() >= crate::MRTR_VERSION;
    let call = Call {
        id,
        method,
        params,
        principal: principal.clone(),
        protocol_version: version,
        mrtr,
        capabilities,
        client_info,
        meta,
        round: 1,
        flow_start: now(),
        binding: [0; 32],
        opened: None,
        state_cache: OnceLock::new(),
        responses: Answers::default(),
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: policy.strict_answers,
        legacy_tag: None,
        lazy_args: LazyArgs::new(args),
    };
    let now = call.flow_start;
    if call.mrtr && call.method == crate::tasks::TASKS_UPDATE {
        // Issue 13: tasks/update carries answers to a task's input requests;
        // the envelope is read as on a retry (no token: the task's unique
        // keys pin the questions), so Call::response reaches them.
        let mut call = Box::new(call);
        return match read_input_responses(policy, &call.id, input_responses) {
            Ok(entries) => {
                call.responses = entries;
                Ok(Begin::Call(call))
            }
            Err(respond) => Ok(respond),
        };
    }
    if !call.mrtr_allowed() {
        // inputResponses / requestState mean nothing here: never honoured.
        return Ok(Begin::Call(Box::new(call)));
    }
    let mut call = Box::new(call);
    call.binding =
        token::binding_digest_spliced(&call.method, &call.params, call.lazy_args.canonical.as_deref());
    // Issue 13: the configured audience, if any, is bound into every token.
    call.binding = crate::audience::audience_binding(&call.binding, policy.audience.as_deref());
    finish_retry(policy, sealer, call, input_responses, request_state, now)
}

/// The `inputResponses` envelope: absent, or an object of at most
/// `max_input_responses` objects; anything else is the ready `-32602`.
fn read_input_responses(
    policy: &Policy,
    id: &Value,
    input: Input<'_>,
) -> std::result::Result<Answers, Begin> {
    let input_responses = match input {
        // Checked text that passes: kept as text (see `call::Answers`).
        Input::Text(raw) if raw.all_objects && raw.members <= policy.max_input_responses => {
            return Ok(Answers::text(raw.text));
        }
        // Text that fails: its tree, for the error in the words and order
        // it has always had (the tree is never wanting: see `answers_tree`).
        Input::Text(raw) => Some(json::answers_tree(raw.text).unwrap_or(Value::Null)),
        Input::Tree(tree) => tree,
    };
    read_answers_tree(policy, id, input_responses).map(Answers::from)
}

/// [`read_input_responses`] of a tree.
fn read_answers_tree(
    policy: &Policy,
    id: &Value,
    input_responses: Option<Value>,
) -> std::result::Result<Map<String, Value>, Begin> {
    match input_responses {
        None => Ok(Map::new()),
        Some(Value::Object(entries)) => {
            if entries.len() > policy.max_input_responses {
                return Err(invalid_params(
                    id.clone(),
                    "Invalid params: too many inputResponses entries",
                    200,
                ));
            }
            if let Some((k, _)) = entries.iter().find(|(_, v)| !v.is_object()) {
                let msg = format!(
                    "Invalid params: inputResponses[{}] must be an object",
                    json::to_wire(&Value::String(k.clone()))
                );
                return Err(invalid_params(id.clone(), &msg, 200));
            }
            Ok(entries)
        }
        Some(_) => Err(invalid_params(id.clone(), "Invalid params: inputResponses must be an object", 200)),
    }
}

fn finish_retry(
    policy: &Policy,
    sealer: &Sealer,
    mut call: Box<Call>,
    input_responses: Input<'_>,
    request_state: Option<StateArg<'_>>,
    now: u64,
) -> Result<Begin> {
    match read_input_responses(policy, &call.id, input_responses) {
        Ok(entries) => call.responses = entries,
        Err(respond) => return Ok(respond),
    }
    match request_state {
        None => {}
        Some(StateArg::Text(s)) if !s.is_empty() => {
            match sealer.open(now, &s, &call.principal, &call.binding) {
                Ok(opened) => {
                    call.round = opened.round.saturating_add(1);
                    call.flow_start = opened.flow_start;
                    call.opened = Some(opened);
                }
                Err(e) => return Ok(invalid_state(call.id.clone(), e.reason.name())),
            }
        }
        Some(_) => return Ok(invalid_state(call.id.clone(), "malformed")),
    }
    Ok(Begin::Call(call))
}

#[cfg(test)]
mod tests;
