//! Low-level continuation tokens (the core's `token`): `engine.seal` / `engine.open` argument
//! conversion, the request binding, the reasons.

use napi::ValueType;
use napi::bindgen_prelude::*;
use serde_json::{Map, Value};

use crate::engine::Engine;
use crate::error::{Coded, Result, argument, core};
use crate::json;

/// What an opened token says (`engine.open`): the core's `Opened::to_json()`, as in C and Python.
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
    /// The token's random id (base64url, 22 characters).
    pub token_id: String,
    /// The id of the token's flow, kept across its rounds.
    pub flow_id: String,
}

/// `engine.seal(input)`; omitted fields take the core's defaults (`Engine::seal_input`).
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
    /// The questions asked, by key (`Question`s or requests as objects).
    #[napi(ts_type = "Record<string, Question | Record<string, any>>")]
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
    let bytes = if value.get_type().coded()? == ValueType::String {
        hex(&String::from_unknown(value).coded()?).ok_or_else(|| argument("binding: bad hex"))?
    } else {
        json::text_of(env, value, "binding")?
    };
    bytes.try_into().map_err(|_| argument("binding: must be 32 bytes (a Buffer, or 64 hex characters)"))
}

/// A non-negative integer member of `engine.seal`'s input.
fn u64_field(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| argument(format!("input.{key}: must be a non-negative integer"))),
    }
}

#[napi]
impl Engine {
    /// Low-level: seals a token at the engine's time; `input` (object or JSON text) is a
    /// `SealInput`, `binding` 64 hex characters.
    #[napi(catch_unwind)]
    pub fn seal(
        &self,
        env: Env,
        #[napi(ts_arg_type = "SealInput | string | Buffer")] input: Unknown,
    ) -> Result<String> {
        let Value::Object(obj) = json::read(&env, input, "input")? else {
            return Err(argument("input: must be an object"));
        };
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
                snodo::binding_digest(m, obj.get("params").unwrap_or(&Value::Object(Map::new())))
                    .map_err(core)?
            }
            _ => return Err(argument("input: give `binding` (hex) or `method` and `params`")),
        };
        let round = u64_field(&obj, "round")?
            .map(|r| u32::try_from(r).map_err(|_| argument("input.round: too large")))
            .transpose()?;
        let flow_start = u64_field(&obj, "flowStart")?;
        let questions = match obj.get("questions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| Ok((k.clone(), snodo::Question::from_value(v.clone()).map_err(core)?)))
                .collect::<Result<_>>()?,
            Some(_) => return Err(argument("input.questions: must be an object")),
        };
        let mut seal = self.inner.seal_input(&principal, &binding);
        seal.round = round.unwrap_or(seal.round);
        seal.flow_start = flow_start.unwrap_or(seal.flow_start);
        seal.questions = &questions;
        seal.state = obj.get("state");
        self.inner.seal(&seal).map_err(core)
    }
    /// Low-level: opens `token` for `principal` and the request `binding` (`bindingDigest`, Buffer
    /// or hex) at the engine's time. Throws `TOKEN` with `err.reason` (of `TOKEN_REASONS`).
    #[napi(catch_unwind, ts_return_type = "Opened")]
    pub fn open<'e>(
        &self,
        env: &'e Env,
        token: String,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
        #[napi(ts_arg_type = "Buffer | string")] binding: Unknown,
    ) -> Result<Unknown<'e>> {
        let principal = json::principal(principal)?;
        let binding = binding_of(env, binding)?;
        match self.inner.open(&token, &principal, &binding) {
            Ok(o) => {
                // The core's fields, and the state from its text by `JSON.parse`.
                let mut fields = Object::from_unknown(json::to_js(env, &o.fields_json())?).coded()?;
                let state = json::parse_to_js(env, o.state_json().unwrap_or("null"))?;
                fields.set_named_property("state", state).coded()?;
                Ok(fields.to_unknown())
            }
            // The message is the core's, the same text in every language.
            Err(e) => Err(crate::error::with_reason(env, e.to_string(), e.reason.name())),
        }
    }
}

/// The 32-byte request binding a token pins: method + SHA-256 of the canonical params without
/// `_meta`, `inputResponses`, `requestState`.
#[napi(catch_unwind)]
pub fn binding_digest(
    env: &Env,
    method: String,
    #[napi(ts_arg_type = "string | Buffer | object")] params: Unknown,
) -> Result<Buffer> {
    let params = json::read(env, params, "params")?;
    Ok(snodo::binding_digest(&method, &params).map_err(core)?.to_vec().into())
}
