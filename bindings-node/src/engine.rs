//! The `Engine` class, immutable. Key bytes are copied into the core (zeroized on drop), never kept
//! on the JS object: neither `util.inspect` nor `JSON.stringify` can show them.

use napi::bindgen_prelude::*;
use serde_json::Value;
use snodo::Config;

use crate::call::Call;
use crate::error::{Result, core};
use crate::response::{Response, outcome_arg};
use crate::tasks::TaskStep;
use crate::{config, json};

/// The MRTR engine: build it once (`new Engine(config)`, `Engine.development()`), share it.
// Debug shows key ids, never key bytes (the core's Debug and the summary).
#[napi]
#[derive(Debug)]
pub struct Engine {
    pub(crate) inner: snodo::Engine,
    summary: EngineSummary,
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
    /// Validates `config` and builds the engine. Throws `CONFIG` on any invalid field (the message
    /// names it as written, e.g. `ttlSecs`).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, #[napi(ts_arg_type = "EngineConfig")] config: Unknown) -> Result<Self> {
        let config = config::read(&env, config, None)?;
        Ok(Engine { summary: summary(&config, false), inner: snodo::Engine::new(config).map_err(core)? })
    }
    /// The key ring of `SNODO_KEYS` (`id:hex`/`id:base64`, comma-separated, the first signs) and
    /// `options` (`new Engine`'s but `keys`). `CONFIG` if unset, or naming a bad entry (never bytes).
    #[napi(factory, catch_unwind, ts_args_type = "options?: Omit<EngineConfig, 'keys'>")]
    pub fn from_env(env: Env, options: Unknown) -> Result<Self> {
        let config = config::read(&env, options, Some(Config::from_env().map_err(core)?.keys))?;
        Ok(Engine { summary: summary(&config, false), inner: snodo::Engine::new(config).map_err(core)? })
    }
    /// An engine with one random key that lives as long as this engine. **Development only, single
    /// process only**: no other process, worker thread or restart can open its tokens.
    #[napi(factory, catch_unwind)]
    pub fn development() -> Result<Engine> {
        let summary =
            EngineSummary { key_ids: vec!["dev".to_owned()], ..summary(&Config::new(Vec::new()), true) };
        Ok(Engine { inner: snodo::Engine::development().map_err(core)?, summary })
    }
    /// Reads a request that may be an MRTR retry: the whole JSON-RPC message as text (read exactly)
    /// or an object; `principal` the verified user, or `null` for anonymous. Returns a `Call` for
    /// the handler or a ready `Response` to send (`instanceof Call` tells them apart). Throws
    /// `NOT_A_REQUEST` for a notification or a response: send nothing back for those.
    #[napi(catch_unwind)]
    pub fn begin(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "string | Buffer | object")] request: Unknown,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Either<Call, Response>> {
        let principal = json::principal(principal)?;
        let request = json::text_of(env, request, "request")?;
        Ok(begun(self.inner.begin(&request, &principal).map_err(core)?))
    }
    /// `begin` for a request an SDK has already parsed: `id`, `method` and `params` as received
    /// (`_meta`, `inputResponses`, `requestState` left in; nullish for none). Same checks as `begin`.
    #[napi(catch_unwind)]
    pub fn begin_parts(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "string | number | null")] id: Unknown,
        method: String,
        #[napi(ts_arg_type = "object | string | Buffer | null | undefined")] params: Unknown,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Either<Call, Response>> {
        let principal = json::principal(principal)?;
        let id = json::id(env, id)?;
        let params =
            if json::is_nullish(&params)? { Value::Null } else { json::read(env, params, "params")? };
        Ok(begun(self.inner.begin_parts(id, &method, params, &principal).map_err(core)?))
    }
    /// Turns the handler's outcome (`complete`, `inputRequired`, `error`, `toolError`, `raw`; object
    /// or JSON text) into the response to send, once per call (again: `ALREADY_DECIDED`).
    #[napi(catch_unwind)]
    pub fn decide(
        &self,
        env: &Env,
        call: &Call,
        #[napi(ts_arg_type = "Outcome | string | Buffer")] outcome: Unknown,
    ) -> Result<Response> {
        let outcome = outcome_arg(env, outcome)?;
        Ok(Response::from(&self.inner.decide(&call.inner, outcome).map_err(core)?))
    }
    /// The task machine's step (`docs/tasks.md`): `outcome` is the handler's, on a request or a run
    /// (`leg`); none for `tasks/get|update|cancel`, or for a run reading its own task (cancelled?).
    /// Another outcome than `runAsTask` on a request is decided as `decide` does.
    #[napi(catch_unwind)]
    pub fn task_step(
        &self,
        env: &Env,
        call: &Call,
        #[napi(ts_arg_type = "Outcome | string | Buffer | null")] outcome: Option<Unknown>,
    ) -> Result<TaskStep> {
        let outcome = outcome.filter(|o| !json::is_nullish(o).unwrap_or(true));
        let outcome = outcome.map(|o| outcome_arg(env, o)).transpose()?;
        Ok(TaskStep { inner: Some(self.inner.task_step(&call.inner, outcome).map_err(core)?) })
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

/// What `begin` gives JS: the handler's `Call`, or the ready `Response`.
pub(crate) fn begun(begin: snodo::Begin) -> Either<Call, Response> {
    match begin {
        snodo::Begin::Call(call) => Either::A(Call::new(call)),
        snodo::Begin::Respond(r) => Either::B(Response::from(&r)),
    }
}
