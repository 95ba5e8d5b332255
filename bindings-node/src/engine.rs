//! The `Engine` class: built once from a config, immutable, cheap to use
//! from any number of calls. Key bytes are copied into the core (which
//! zeroizes them on drop) and never kept on the JS object, so neither
//! `util.inspect` nor `JSON.stringify` can show them.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use snodo::Config;

use crate::call::Call;
use crate::error::{Result, core};
use crate::response::response_object;
use crate::{config, json, state, token};

/// The MRTR engine. Build it once (`new Engine(config)` or
/// `Engine.development()`) and share it across requests.
// Debug shows the summary only (key ids, never key bytes).
#[napi]
pub struct Engine {
    pub(crate) inner: Arc<snodo::Engine>,
    summary: EngineSummary,
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

fn summary(c: &Config, development: bool) -> EngineSummary {
    EngineSummary {
        key_ids: c.keys.iter().map(|k| k.id().to_owned()).collect(),
        ttl_secs: u32::try_from(c.ttl_secs).unwrap_or(u32::MAX),
        max_rounds: c.max_rounds,
        supported_versions: c.supported_versions.clone(),
        development,
    }
}

#[napi]
impl Engine {
    /// Validates `config` and builds the engine. Throws `CONFIG` on any
    /// invalid field (the message names it as written, e.g. `ttlSecs`).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, #[napi(ts_arg_type = "EngineConfig")] config: Unknown) -> Result<Self> {
        let config = config::read(&env, config)?;
        let summary = summary(&config, false);
        let inner = snodo::Engine::new(config).map_err(core)?;
        Ok(Engine { inner: Arc::new(inner), summary })
    }

    /// An engine with one random key that lives as long as this engine.
    ///
    /// **Development only, single process only**: its tokens cannot be opened
    /// by another process, another worker thread, or after a restart.
    #[napi(factory, catch_unwind)]
    pub fn development() -> Result<Engine> {
        let inner = snodo::Engine::development().map_err(core)?;
        let mut summary = summary(&Config::new(Vec::new()), true);
        summary.key_ids = vec!["dev".to_owned()];
        Ok(Engine { inner: Arc::new(inner), summary })
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
        begin_on(&self.inner, env, request, principal)
    }

    /// `begin` for a request an SDK has already parsed: the JSON-RPC `id`,
    /// the `method` and the `params` as received (with `_meta`,
    /// `inputResponses` and `requestState` left in; `null`/`undefined` for
    /// no params; JSON text is read exactly). Same checks, binding and
    /// token as `begin` on the bytes.
    #[napi(catch_unwind, ts_return_type = "Call | Response")]
    pub fn begin_parts<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "string | number | null")] id: Unknown,
        method: String,
        #[napi(ts_arg_type = "object | string | Buffer | null | undefined")] params: Unknown,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Either<Call, Unknown<'e>>> {
        let principal = json::principal(principal)?;
        // The id is a value, never text: a string id is a JSON string.
        let id = json::parse(json::stringify(env, id, "id")?.as_bytes(), "id")?;
        let params = if json::is_nullish(&params)? {
            serde_json::Value::Null
        } else {
            json::read(env, params, "params")?
        };
        match self.inner.begin_parts(id, &method, params, &principal).map_err(core)? {
            snodo::Begin::Call(call) => Ok(Either::A(Call::new(call))),
            snodo::Begin::Respond(r) => Ok(Either::B(response_object(env, &r)?)),
        }
    }

    /// Turns the handler's outcome into the response to send, once per call
    /// (a second decide throws `ALREADY_DECIDED`). `outcome` is the JSON
    /// spelling (`complete(result)`, `inputRequired(requests, state)`,
    /// `error(code, message, data)`, `toolError(message)`, `raw(result)`),
    /// as an object or as JSON text.
    #[napi(catch_unwind, ts_return_type = "Response")]
    pub fn decide<'e>(
        &self,
        env: &'e Env,
        call: &Call,
        #[napi(ts_arg_type = "Outcome | string | Buffer")] outcome: Unknown,
    ) -> Result<Unknown<'e>> {
        let outcome = state::read_outcome(env, outcome)?;
        let response = self.inner.decide(&call.inner, outcome).map_err(core)?;
        response_object(env, &response)
    }

    /// Low-level: seals a token at the engine's time. `input` (object or
    /// JSON text): `{principal, binding | method+params, round?, flowStart?,
    /// questions?, state?}`; `binding` is 64 hex characters.
    #[napi(catch_unwind)]
    pub fn seal(
        &self,
        env: Env,
        #[napi(ts_arg_type = "SealInput | string | Buffer")] input: Unknown,
    ) -> Result<String> {
        token::seal(&self.inner, &env, input)
    }

    /// Low-level: opens `token` for `principal` and the request `binding`
    /// (`bindingDigest(method, params)`, a Buffer or hex) at the engine's
    /// time. Throws `TOKEN` with `err.reason` (one of `TOKEN_REASONS`).
    #[napi(catch_unwind, ts_return_type = "Opened")]
    pub fn open<'e>(
        &self,
        env: &'e Env,
        token: String,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
        #[napi(ts_arg_type = "Buffer | string")] binding: Unknown,
    ) -> Result<Unknown<'e>> {
        token::open(&self.inner, env, &token, principal, binding)
    }

    /// Unix seconds from the engine's clock (fixed when `fixedTime` was given).
    #[napi(catch_unwind)]
    pub fn now(&self) -> i64 {
        i64::try_from(self.inner.now()).unwrap_or(i64::MAX)
    }

    /// The configuration without secrets (also what `JSON.stringify` shows).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> EngineSummary {
        self.summary.clone()
    }
}

/// The core engine held by a JS `External` (see [`handle`]).
#[derive(Debug)]
pub struct Handle(pub(crate) Arc<snodo::Engine>);

/// `engine`'s core as an `External`, which `src/response.js` keeps per
/// engine for [`begin_with`] and [`decide_with`].
#[napi(js_name = "engineHandle", skip_typescript, catch_unwind)]
pub fn handle(engine: &Engine) -> External<Handle> {
    External::new(Handle(Arc::clone(&engine.inner)))
}

// Issue 16, seventh pass: `begin` and `decide` as free functions of the
// engine's handle. A method's `&self` costs napi-rs a borrow record (a
// global lock and a map entry, and the class check) on every call: about
// 230 ns, measured against a free function, while reading an `External`
// is a type-id compare. `src/response.js` puts JS `begin` and `decide` on
// the prototype that call these with the handle it keeps for each engine,
// and takes them off the exports.

/// `engine.begin` with the engine's handle.
#[napi(js_name = "beginWith", skip_typescript, catch_unwind)]
pub fn begin_with<'e>(
    env: &'e Env,
    engine: &External<Handle>,
    request: Unknown,
    principal: Unknown,
) -> Result<Either<Call, Unknown<'e>>> {
    begin_on(&engine.0, env, request, principal)
}

/// `decide` of outcome JSON text with the engine's handle: the response's
/// JSON text when it is a 200 without a diagnostic (the JS side makes the
/// Response), else the Response itself.
#[napi(js_name = "decideWith", skip_typescript, catch_unwind)]
pub fn decide_with<'e>(
    env: &'e Env,
    engine: &External<Handle>,
    call: &Call,
    outcome: Unknown,
) -> Result<Unknown<'e>> {
    decide_on(&engine.0, env, &call.inner, outcome)
}

/// `decide` on a core engine and call: the response's JSON text when it is
/// a 200 without a diagnostic, else the Response.
pub(crate) fn decide_on<'e>(
    engine: &snodo::Engine,
    env: &'e Env,
    call: &snodo::Call,
    outcome: Unknown,
) -> Result<Unknown<'e>> {
    let outcome = state::read_outcome(env, outcome)?;
    let response = engine.decide(call, outcome).map_err(core)?;
    if response.http_status() == 200 && response.diagnostic().is_none() {
        let text = json::js_string(env, &response.to_json())?;
        // SAFETY: `text` was just created in `env`, the live environment
        // of this callback, and is returned to it at once.
        return Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), text) });
    }
    response_object(env, &response)
}

/// `begin` on a core engine (the method and [`begin_with`]).
fn begin_on<'e>(
    engine: &snodo::Engine,
    env: &'e Env,
    request: Unknown,
    principal: Unknown,
) -> Result<Either<Call, Unknown<'e>>> {
    let principal = json::principal(principal)?;
    let bytes = json::text_of(env, request, "request")?;
    match engine.begin(&bytes, &principal).map_err(core)? {
        snodo::Begin::Call(call) => Ok(Either::A(Call::new(call))),
        snodo::Begin::Respond(r) => Ok(Either::B(response_object(env, &r)?)),
    }
}
