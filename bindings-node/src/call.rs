//! What a handler reads: `Call` (the core's `Call`) and its `Answer`s.

use napi::bindgen_prelude::*;
use serde_json::Value;

use crate::error::Result;
use crate::json;
use crate::question::question_arg;
use crate::response::answer_object;

/// One request as the handler sees it (from `engine.begin`).
#[napi]
#[derive(Debug)]
pub struct Call {
    pub(crate) inner: Box<snodo::Call>,
}

impl Call {
    pub(crate) fn new(inner: Box<snodo::Call>) -> Call {
        Call { inner }
    }
}

/// The answer to one input request (`call.response`).
// The TypeScript shape only: answers are built by `answer_object`.
#[napi(object)]
// Holds JS handles, which must not and cannot be Debug.
#[allow(missing_debug_implementations, dead_code)]
pub struct Answer<'a> {
    /// What the client did.
    #[napi(ts_type = "'missing' | 'accepted' | 'declined' | 'cancelled' | 'invalid' | 'changed'")]
    pub kind: String,
    /// For `accepted`: the validated content (`null` for URL elicitation, where accept means
    /// consent, not completion).
    #[napi(ts_type = "any")]
    pub value: Option<Unknown<'a>>,
    /// For `invalid`: why, naming the offending field.
    pub reason: Option<String>,
}

#[napi]
impl Call {
    /// The JSON-RPC id, as received (string or number).
    #[napi(getter, catch_unwind, ts_return_type = "string | number")]
    pub fn id<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.id())
    }
    /// The method, e.g. `tools/call`.
    #[napi(getter, catch_unwind)]
    pub fn method(&self) -> String {
        self.inner.method().to_owned()
    }
    /// The salient params: all but `_meta`, `inputResponses`, `requestState`.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn params<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, &Value::Object(self.inner.params().clone()))
    }
    /// The rest of the request's `_meta` (e.g. `progressToken`), without the protocol version,
    /// capabilities and client info snodo reads itself.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn meta<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, &Value::Object(self.inner.meta().clone()))
    }
    /// `params.name` if a string (tools/call, prompts/get), else `null`.
    #[napi(getter, catch_unwind)]
    pub fn name(&self) -> Option<String> {
        self.inner.name().map(str::to_owned)
    }
    /// `params.uri` if a string (resources/read), else `null`.
    #[napi(getter, catch_unwind)]
    pub fn uri(&self) -> Option<String> {
        self.inner.uri().map(str::to_owned)
    }
    /// `params.arguments`, or `null`.
    #[napi(getter, catch_unwind, ts_return_type = "any")]
    pub fn arguments<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.arguments().unwrap_or(&Value::Null))
    }
    /// The principal given to `begin`, or `null` for anonymous.
    #[napi(getter, catch_unwind)]
    pub fn principal(&self) -> Option<String> {
        self.inner.principal().name().map(str::to_owned)
    }
    /// The request's protocol version.
    #[napi(getter, catch_unwind)]
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version().to_owned()
    }
    /// Whether `inputRequired` may be answered here.
    #[napi(getter, catch_unwind)]
    pub fn mrtr_allowed(&self) -> bool {
        self.inner.mrtr_allowed()
    }
    /// Whether the call came from `beginLegacy` (a 2025-era session).
    #[napi(getter, catch_unwind)]
    pub fn is_legacy(&self) -> bool {
        self.inner.is_legacy()
    }
    /// This request's client capabilities (never an earlier request's).
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn client_capabilities<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.client_capabilities())
    }
    /// The self-reported client info, or `null`. Never use it for security.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any> | null")]
    pub fn client_info<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.client_info().unwrap_or(&Value::Null))
    }
    /// 1 for a first call, n+1 for a retry of round n.
    #[napi(getter, catch_unwind)]
    pub fn round(&self) -> u32 {
        self.inner.round()
    }
    /// Whether the request carried a valid token.
    #[napi(getter, catch_unwind)]
    pub fn is_retry(&self) -> bool {
        self.inner.is_retry()
    }
    /// Unix seconds when the flow began.
    #[napi(getter, catch_unwind)]
    pub fn flow_start(&self) -> i64 {
        i64::try_from(self.inner.flow_start()).unwrap_or(i64::MAX)
    }
    /// The flow id of the token opened on this retry (the same for every round of one flow; 22
    /// characters of base64url), or `null` on a first round.
    #[napi(getter, catch_unwind)]
    pub fn flow_id(&self) -> Option<String> {
        self.inner.flow_id().map(str::to_owned)
    }
    /// The random id of the token opened on this retry, or `null` on a first round.
    #[napi(getter, catch_unwind)]
    pub fn token_id(&self) -> Option<String> {
        self.inner.token_id().map(str::to_owned)
    }
    /// When the token opened on this retry expires (Unix seconds), or `null` on a first round.
    #[napi(getter, catch_unwind)]
    pub fn token_expires_at(&self) -> Option<i64> {
        self.inner.token_expires_at().map(|t| i64::try_from(t).unwrap_or(i64::MAX))
    }
    /// Base64url (no padding) SHA-256 of the canonical JSON of this request's `inputResponses`
    /// (`{}` when none): with `flowId`, the key of a remembered final result.
    #[napi(getter, catch_unwind)]
    pub fn answers_digest(&self) -> String {
        self.inner.answers_digest()
    }
    /// The application state carried by the token, or `null`.
    #[napi(getter, catch_unwind, ts_return_type = "any")]
    pub fn state<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::parse_to_js(env, self.inner.state_text().unwrap_or("null"))
    }
    /// The task this run of the handler belongs to (a `leg` run as a task), else `null`.
    #[napi(getter, catch_unwind)]
    pub fn task_id(&self) -> Option<String> {
        self.inner.task_id().map(str::to_owned)
    }
    /// The keys asked in the previous round (empty on round 1).
    #[napi(getter, catch_unwind)]
    pub fn asked_keys(&self) -> Vec<String> {
        self.inner.asked_keys().into_iter().map(str::to_owned).collect()
    }
    /// The answer to input request `key`, asked as `question` (a `Question`, or a request as object
    /// or text): it counts only if that exact question was asked under `key` in the previous round.
    #[napi(catch_unwind, ts_return_type = "Answer")]
    pub fn response<'e>(
        &self,
        env: &'e Env,
        key: String,
        #[napi(ts_arg_type = "Question | Record<string, any> | string | Buffer")] question: Unknown,
    ) -> Result<Object<'e>> {
        let question = question_arg(env, question)?;
        answer_object(env, self.inner.response(&key, &question))
    }
    /// The whole `inputResponses` map of this request, read-only and unvalidated (`{}` when none);
    /// `response(key, request)` is the validated reading.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn input_responses<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, &Value::Object(self.inner.input_responses().clone()))
    }
    /// The raw answer for `key`, unvalidated, only for keys asked in the previous round; `null`
    /// otherwise. Validate it yourself.
    #[napi(catch_unwind, ts_return_type = "Record<string, any> | null")]
    pub fn raw_response<'e>(&self, env: &'e Env, key: String) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.raw_response(&key).unwrap_or(&Value::Null))
    }
    /// A short description without any params or state (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        format!("Call({} round {})", self.inner.method(), self.inner.round())
    }
}
