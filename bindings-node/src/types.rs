//! Shapes that exist only for TypeScript: arguments the bindings read field
//! by field themselves (so that every mistake throws with a `SnodoErrorCode`
//! rather than a napi-rs conversion status).
#![allow(dead_code)]

use napi::bindgen_prelude::*;

/// One key of the ring.
#[napi(object)]
// Holds JS handles (or key bytes), which must not and cannot be Debug.
#[allow(missing_debug_implementations)]
pub struct EngineKey {
    /// 1 to 32 characters of `A-Z a-z 0-9 _ -`; written into every token.
    pub id: String,
    /// 32 to 1024 random bytes. Never shown by the engine afterwards.
    pub secret: Buffer,
}

/// `new Engine(config)`. Every field but `keys` is optional.
#[napi(object)]
#[allow(missing_debug_implementations)]
pub struct EngineConfig {
    /// 1 to 8 keys: the first signs, all verify (rotation).
    pub keys: Vec<EngineKey>,
    /// Token lifetime, 1 to 900 s (default 300).
    pub ttl_secs: Option<u32>,
    /// Most rounds per flow, 1 to 1000 (default 16).
    pub max_rounds: Option<u32>,
    /// Oldest a flow may get, seconds (default 3600).
    pub max_flow_age_secs: Option<u32>,
    /// Largest `requestState`, bytes (default 16384).
    pub max_token_bytes: Option<u32>,
    /// Largest request message `begin` reads, bytes (default 4 MiB).
    pub max_request_bytes: Option<u32>,
    /// Most `inputResponses` entries (default 64).
    pub max_input_responses: Option<u32>,
    /// Accepted protocol versions (default `["2026-07-28"]`).
    pub supported_versions: Option<Vec<String>>,
    /// Tolerated clock skew, 0 to 300 s (default 60).
    pub clock_skew_secs: Option<u32>,
    /// `io.modelcontextprotocol/serverInfo` stamped on every result's `_meta`.
    #[napi(ts_type = "Record<string, any>")]
    pub server_info: Option<()>,
    /// A fixed clock (Unix seconds), for tests. Absent: system time.
    pub now: Option<i64>,
}

/// A handler outcome in the core's JSON spelling; build it with
/// `complete`, `inputRequired`, `error`, `toolError` or `raw`.
#[napi(object)]
#[derive(Debug)]
pub struct Outcome {
    /// Which outcome.
    #[napi(js_name = "type", ts_type = "'complete' | 'input_required' | 'error' | 'tool_error' | 'raw'")]
    pub kind: String,
    /// complete / raw: the result object.
    #[napi(ts_type = "Record<string, any>")]
    pub result: Option<()>,
    /// input_required: the requests by key.
    #[napi(ts_type = "Record<string, object>")]
    pub input_requests: Option<()>,
    /// input_required: application state for the next round.
    #[napi(ts_type = "any")]
    pub state: Option<()>,
    /// error: the JSON-RPC code.
    pub code: Option<i64>,
    /// error / tool_error: the message.
    pub message: Option<String>,
    /// error: optional data.
    #[napi(ts_type = "any")]
    pub data: Option<()>,
}

/// `engine.seal(input)`.
#[napi(object)]
#[derive(Debug)]
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
    /// The questions asked, by key.
    #[napi(ts_type = "Record<string, object>")]
    pub questions: Option<()>,
    /// Application state (readable: never put secrets here).
    #[napi(ts_type = "any")]
    pub state: Option<()>,
}
