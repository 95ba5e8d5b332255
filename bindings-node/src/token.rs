//! Low-level continuation tokens (the core's `token`): `engine.seal` /
//! `engine.open` argument conversion, the request binding, the reasons.

use napi::ValueType;
use napi::bindgen_prelude::*;
use serde_json::{Map, Value};

use crate::error::{Result, argument, core, napi_failure};
use crate::{json, state};

/// What an opened token says (`engine.open`): the core's `Opened::to_json()`
/// shape, the same names as C's JSON text and Python's `to_dict()`.
// TypeScript shape only: the object is the core's JSON, converted.
#[napi(object)]
#[allow(missing_debug_implementations, dead_code)]
pub struct Opened<'a> {
    /// Key id that signed it.
    pub key_id: String,
    /// Issued at (Unix seconds).
    pub issued_at: i64,
    /// Expires at (Unix seconds); valid strictly before.
    pub expires_at: i64,
    /// When the flow started (Unix seconds).
    pub flow_start: i64,
    /// The round that produced the token.
    pub round: u32,
    /// The keys of the input requests asked that round, sorted.
    pub question_keys: Vec<String>,
    /// The application state, or `null`.
    #[napi(ts_type = "unknown")]
    pub state: Unknown<'a>,
    /// Issue 17: the token's random id (base64url, 22 characters).
    pub token_id: String,
    /// Issue 17: the id of the token's flow, kept across its rounds.
    pub flow_id: String,
}

/// `engine.seal(input)`. Omitted `round`/`flowStart`/`questions`/`state`
/// take the core's defaults (`Engine::seal_input`).
// TypeScript shape only; `seal` below reads the parsed JSON.
#[napi(object)]
#[derive(Debug)]
#[allow(dead_code)]
pub struct SealInput {
    /// The principal, or `null` for anonymous.
    #[napi(ts_type = "string | null")]
    pub principal: Option<String>,
    /// The request binding as 64 hex characters (or give `method` + `params`).
    pub binding: Option<String>,
    /// The method, when `binding` is absent.
    pub method: Option<String>,
    /// The params, when `binding` is absent.
    #[napi(ts_type = "Record<string, any>")]
    pub params: Option<()>,
    /// The round that produced the token (default 1).
    pub round: Option<u32>,
    /// Flow start, Unix seconds (default: now).
    pub flow_start: Option<i64>,
    /// The input requests asked, by key.
    #[napi(ts_type = "Record<string, object>")]
    pub questions: Option<()>,
    /// Application state (readable: never put secrets here).
    #[napi(ts_type = "any")]
    pub state: Option<()>,
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// A binding argument: a 32-byte Buffer, or 64 hex characters.
pub(crate) fn binding_of(env: &Env, value: Unknown) -> Result<[u8; 32]> {
    let bytes = if value.get_type().map_err(napi_failure)? == ValueType::String {
        hex(&String::from_unknown(value).map_err(napi_failure)?)
            .ok_or_else(|| argument("binding: bad hex"))?
    } else {
        json::text_of(env, value, "binding")?
    };
    bytes.try_into().map_err(|_| argument("binding: must be 32 bytes (a Buffer, or 64 hex characters)"))
}

/// Seals `input` (object or JSON text) with `engine`.
pub(crate) fn seal(engine: &snodo::Engine, env: &Env, input: Unknown) -> Result<String> {
    let text = json::text_of(env, input, "input")?;
    // Fast path (src/state.rs): the state goes in as canonical text.
    if let Some(split) = state::split(&text, "input") {
        return seal_object(engine, &split.rest, None, split.state.as_ref());
    }
    // Reference path: also the one that words every error.
    let Value::Object(obj) = json::parse(&text, "input")? else {
        return Err(argument("input: must be an object"));
    };
    seal_object(engine, &obj, obj.get(state::STATE), None)
}

/// Seals the members of `obj` other than `state`, with `state` given apart
/// (as a tree, or as canonical text).
fn seal_object(
    engine: &snodo::Engine,
    obj: &Map<String, Value>,
    state: Option<&Value>,
    text: Option<&snodo::StateText>,
) -> Result<String> {
    let principal = match obj.get("principal") {
        None | Some(Value::Null) => snodo::Principal::anonymous(),
        Some(Value::String(s)) => snodo::Principal::from_option(Some(s)).map_err(core)?,
        Some(_) => return Err(argument("input.principal: must be a string or null")),
    };
    let binding: [u8; 32] = match (obj.get("binding"), obj.get("method")) {
        (Some(Value::String(h)), _) => hex(h)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| argument("input.binding: must be 64 hex characters"))?,
        (None, Some(Value::String(m))) => {
            snodo::binding_digest(m, obj.get("params").unwrap_or(&Value::Object(Default::default())))
                .map_err(core)?
        }
        _ => return Err(argument("input: give `binding` (hex) or `method` and `params`")),
    };
    let mut seal = engine.seal_input(&principal, &binding);
    if let Some(round) = json::u64_field(obj, "round", "input")? {
        seal.round = u32::try_from(round).map_err(|_| argument("input.round: too large"))?;
    }
    if let Some(flow_start) = json::u64_field(obj, "flowStart", "input")? {
        seal.flow_start = flow_start;
    }
    let questions = match obj.get("questions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => return Err(argument("input.questions: must be an object")),
    };
    seal.questions = &questions;
    seal.state = state;
    match text {
        Some(text) => engine.seal_text(&seal, text),
        None => engine.seal(&seal),
    }
    .map_err(core)
}

/// Opens `token`; the result is the core's `Opened::to_json()`.
pub(crate) fn open<'e>(
    engine: &snodo::Engine,
    env: &'e Env,
    token: &str,
    principal: Unknown,
    binding: Unknown,
) -> Result<Unknown<'e>> {
    let principal = json::principal(principal)?;
    let binding = binding_of(env, binding)?;
    match engine.open(token, &principal, &binding) {
        // The state's canonical text goes to `JSON.parse` as it is (src/state.rs).
        Ok(o) => json::parse_to_js(env, state::opened_text(&o)),
        Err(e) => Err(crate::error::token(env, e)),
    }
}

/// The 32-byte request binding a token pins: method + SHA-256 of the
/// canonical params without `_meta`, `inputResponses`, `requestState`.
#[napi(catch_unwind)]
pub fn binding_digest(
    env: &Env,
    method: String,
    #[napi(ts_arg_type = "string | Buffer | object")] params: Unknown,
) -> Result<Buffer> {
    let params = json::read(env, params, "params")?;
    Ok(snodo::binding_digest(&method, &params).map_err(core)?.to_vec().into())
}
