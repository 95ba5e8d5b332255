//! The `Engine` class: built once from a config, immutable, cheap to use
//! from any number of calls. Key bytes are copied into the core (which
//! zeroizes them on drop) and never kept on the JS object, so neither
//! `util.inspect` nor `JSON.stringify` can show them.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::Value;
use snodo::{Config, ErrorCode, Key};

use crate::call::{Call, MakeResponse, response_maker, response_object};
use crate::error::{Result, argument, core, error, napi_failure};
use crate::json;

/// The MRTR engine. Build it once (`new Engine(config)` or
/// `Engine.development()`) and share it across requests.
// Debug shows the summary only (key ids, never key bytes).
#[napi]
pub struct Engine {
    pub(crate) inner: Arc<snodo::Engine>,
    summary: EngineSummary,
    /// Builds response objects in this engine's JS environment (an engine
    /// never leaves the environment that created it).
    make_response: MakeResponse,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("summary", &self.summary).finish_non_exhaustive()
    }
}

/// What `JSON.stringify(engine)` shows: the configuration without secrets.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct EngineSummary {
    /// The key ids, signing key first. Never the key bytes.
    pub key_ids: Vec<String>,
    /// Token lifetime, seconds.
    pub ttl_secs: u32,
    /// Most rounds per flow.
    pub max_rounds: u32,
    /// Accepted protocol versions.
    pub supported_versions: Vec<String>,
    /// Whether this is the single-process development engine.
    pub development: bool,
}

/// What an opened token says (`Engine.open`).
#[napi(object)]
// Holds JS handles (or key bytes), which must not and cannot be Debug.
#[allow(missing_debug_implementations)]
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
    /// The keys of the questions asked that round, sorted.
    pub question_keys: Vec<String>,
    /// The application state, or `null`.
    #[napi(ts_type = "unknown")]
    pub state: Unknown<'a>,
}

fn config_error(message: impl ToString) -> Error<crate::error::Code> {
    error(ErrorCode::Config, message)
}

fn prop<'e>(obj: &Object<'e>, name: &str) -> Result<Option<Unknown<'e>>> {
    let v: Unknown = obj.get_named_property_unchecked(name).map_err(napi_failure)?;
    if json::is_nullish(&v)? { Ok(None) } else { Ok(Some(v)) }
}

fn number<T: TryFrom<u64>>(env: &Env, obj: &Object, name: &str) -> Result<Option<T>> {
    let Some(v) = prop(obj, name)? else { return Ok(None) };
    let bad = || config_error(format!("{name}: must be a non-negative integer"));
    if v.get_type().map_err(napi_failure)? != ValueType::Number {
        return Err(bad());
    }
    match json::read(env, v, name)? {
        Value::Number(n) => n.as_u64().and_then(|n| T::try_from(n).ok()).map(Some).ok_or_else(bad),
        _ => Err(bad()),
    }
}

fn read_key(item: Unknown, i: usize) -> Result<Key> {
    let what = format!("keys[{i}]");
    if item.get_type().map_err(napi_failure)? != ValueType::Object {
        return Err(config_error(format!("{what}: must be {{id, secret}}")));
    }
    let obj = Object::from_unknown(item).map_err(napi_failure)?;
    let id = match prop(&obj, "id")? {
        Some(v) if v.get_type().map_err(napi_failure)? == ValueType::String => {
            String::from_unknown(v).map_err(napi_failure)?
        }
        _ => return Err(config_error(format!("{what}.id: must be a string"))),
    };
    let secret = match prop(&obj, "secret")? {
        Some(v) if v.is_buffer().map_err(napi_failure)? => {
            Buffer::from_unknown(v).map_err(napi_failure)?.to_vec()
        }
        Some(v) if v.is_typedarray().map_err(napi_failure)? => Uint8Array::from_unknown(v)
            .map_err(|_| config_error(format!("{what}.secret: must be a Buffer or Uint8Array")))?
            .to_vec(),
        _ => return Err(config_error(format!("{what}.secret: must be a Buffer or Uint8Array"))),
    };
    Key::new(id, secret).map_err(core)
}

fn read_config(env: &Env, config: Unknown) -> Result<(Config, EngineSummary)> {
    if config.get_type().map_err(napi_failure)? != ValueType::Object {
        return Err(config_error("config: must be an object"));
    }
    let obj = Object::from_unknown(config).map_err(napi_failure)?;
    let Some(keys) = prop(&obj, "keys")? else {
        return Err(config_error("keys: required, an array of {id, secret}"));
    };
    if !keys.is_array().map_err(napi_failure)? {
        return Err(config_error("keys: must be an array of {id, secret}"));
    }
    let keys = Array::from_unknown(keys).map_err(napi_failure)?;
    let mut ring = Vec::with_capacity(keys.len() as usize);
    for i in 0..keys.len() {
        let item: Unknown = keys.get(i).map_err(napi_failure)?.ok_or_else(|| config_error("keys: hole"))?;
        ring.push(read_key(item, i as usize)?);
    }
    let mut c = Config::new(ring);
    // Node spells config names in camelCase; the core's errors follow.
    c.spelling = snodo::Spelling::Camel;
    // Every numeric limit from the core's one schema.
    for limit in &snodo::LIMITS {
        if let Some(n) = number::<u64>(env, &obj, limit.camel)? {
            c.set_limit(limit.camel, n).map_err(core)?;
        }
    }
    if let Some(v) = prop(&obj, "supportedVersions")? {
        let bad = || config_error("supportedVersions: must be an array of strings");
        match json::read(env, v, "supportedVersions").map_err(|_| bad())? {
            Value::Array(items) => {
                c.supported_versions = items
                    .into_iter()
                    .map(|i| i.as_str().map(str::to_owned).ok_or_else(bad))
                    .collect::<Result<_>>()?;
            }
            _ => return Err(bad()),
        }
    }
    if let Some(v) = prop(&obj, "serverInfo")? {
        c.server_info = Some(json::read(env, v, "serverInfo").map_err(|e| config_error(e.reason.clone()))?);
    }
    if let Some(now) = number::<u64>(env, &obj, "now")? {
        c = c.fixed_time(now);
    }
    let summary = summary(&c, false);
    Ok((c, summary))
}

fn summary(c: &Config, development: bool) -> EngineSummary {
    EngineSummary {
        key_ids: c.keys.iter().map(|k| k.id().to_owned()).collect(),
        ttl_secs: u32::try_from(c.ttl_secs).unwrap_or(u32::MAX),
        max_rounds: c.max_rounds,
        supported_versions: c.supported_versions.clone(),
        development,
    }
}

fn binding_of(env: &Env, value: Unknown) -> Result<[u8; 32]> {
    let bytes = if value.get_type().map_err(napi_failure)? == ValueType::String {
        hex(&String::from_unknown(value).map_err(napi_failure)?)
            .ok_or_else(|| argument("binding: bad hex"))?
    } else {
        json::text_of(env, value, "binding")?
    };
    bytes.try_into().map_err(|_| argument("binding: must be 32 bytes (a Buffer, or 64 hex characters)"))
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

fn i64_of(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[napi]
impl Engine {
    /// Validates `config` and builds the engine. Throws `CONFIG` on any
    /// invalid field (the message names it).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, #[napi(ts_arg_type = "EngineConfig")] config: Unknown) -> Result<Self> {
        let (config, summary) = read_config(&env, config)?;
        let inner = snodo::Engine::new(config).map_err(core)?;
        Ok(Engine { inner: Arc::new(inner), summary, make_response: response_maker(&env)? })
    }

    /// An engine with one random key that lives as long as this engine.
    ///
    /// **Development only, single process only**: its tokens cannot be opened
    /// by another process, another worker thread, or after a restart.
    #[napi(factory, catch_unwind)]
    pub fn development(env: Env) -> Result<Engine> {
        let inner = snodo::Engine::development().map_err(core)?;
        let mut summary = summary(&Config::new(Vec::new()), true);
        summary.key_ids = vec!["dev".to_owned()];
        Ok(Engine { inner: Arc::new(inner), summary, make_response: response_maker(&env)? })
    }

    /// Reads a request message that may be an MRTR retry. `request` is the
    /// whole JSON-RPC message: text (`string`/`Buffer`, read exactly; what a
    /// transport has) or a parsed object (see the README on numbers).
    /// `principal` is the verified user, or `null` for anonymous.
    ///
    /// Returns a `Call` for the handler, or a ready `Response` to send as is
    /// (`result instanceof Call` tells them apart). Throws `NOT_A_REQUEST`
    /// for a notification or a response: send nothing back for those.
    #[napi(catch_unwind, ts_return_type = "Call | Response")]
    pub fn begin<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "string | Buffer | object")] request: Unknown,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Either<Call, Unknown<'e>>> {
        let principal = json::principal(principal)?;
        let bytes = json::text_of(env, request, "request")?;
        match self.inner.begin(&bytes, &principal).map_err(core)? {
            snodo::Begin::Call(call) => Ok(Either::A(Call::new(call))),
            snodo::Begin::Respond(r) => Ok(Either::B(response_object(env, &self.make_response, &r)?)),
        }
    }

    /// Turns the handler's outcome into the response to send. `outcome` is
    /// the JSON spelling (`complete(result)`, `inputRequired(requests,
    /// state)`, `error(code, message, data)`, `toolError(message)`,
    /// `raw(result)`), as an object or as JSON text.
    #[napi(catch_unwind, ts_return_type = "Response")]
    pub fn decide<'e>(
        &self,
        env: &'e Env,
        call: &Call,
        #[napi(ts_arg_type = "Outcome | string | Buffer")] outcome: Unknown,
    ) -> Result<Unknown<'e>> {
        let value = json::read(env, outcome, "outcome")?;
        let outcome = snodo::Outcome::from_value(value).map_err(core)?;
        let response = self.inner.decide(&call.inner, outcome).map_err(core)?;
        response_object(env, &self.make_response, &response)
    }

    /// Low-level: seals a token at the engine's time. `input` (object or
    /// JSON text): `{principal, binding | method+params, round, flowStart,
    /// questions, state?}`; `binding` is 64 hex characters.
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
            Some(Value::String(s)) => snodo::Principal::user(s.clone()).map_err(core)?,
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
        // Omitted fields take the core's defaults (Engine::seal_input).
        let mut seal = self.inner.seal_input(&principal, &binding);
        if let Some(round) = json::u64_field(&obj, "round", "input")? {
            seal.round = u32::try_from(round).map_err(|_| argument("input.round: too large"))?;
        }
        if let Some(flow_start) = json::u64_field(&obj, "flowStart", "input")? {
            seal.flow_start = flow_start;
        }
        let questions = match obj.get("questions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Some(_) => return Err(argument("input.questions: must be an object")),
        };
        seal.questions = &questions;
        seal.state = obj.get("state").filter(|s| !s.is_null());
        self.inner.seal(&seal).map_err(core)
    }

    /// Low-level: opens `token` for `principal` and the request `binding`
    /// (`bindingDigest(method, params)`, a Buffer or hex) at the engine's
    /// time. Throws `TOKEN` with `err.reason` (see `tokenReasons()`).
    #[napi(catch_unwind)]
    pub fn open<'e>(
        &self,
        env: &'e Env,
        token: String,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
        #[napi(ts_arg_type = "Buffer | string")] binding: Unknown,
    ) -> Result<Opened<'e>> {
        let principal = json::principal(principal)?;
        let binding = binding_of(env, binding)?;
        match self.inner.open(&token, &principal, &binding) {
            Ok(o) => Ok(Opened {
                question_keys: o.question_keys().into_iter().map(str::to_owned).collect(),
                state: json::to_js(env, o.state().as_ref().unwrap_or(&Value::Null))?,
                key_id: o.key_id,
                issued_at: i64_of(o.issued_at),
                expires_at: i64_of(o.expires_at),
                flow_start: i64_of(o.flow_start),
                round: o.round,
            }),
            Err(e) => Err(crate::error::token(env, e)),
        }
    }

    /// Unix seconds from the engine's clock (fixed when `now` was given).
    #[napi(catch_unwind)]
    pub fn now(&self) -> i64 {
        i64_of(self.inner.now())
    }

    /// The configuration without secrets (also what `JSON.stringify` shows).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> EngineSummary {
        self.summary.clone()
    }
}
