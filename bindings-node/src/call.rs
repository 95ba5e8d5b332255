//! What a handler reads: `Call` (the core's `Call`) and its `Answer`s.

use napi::bindgen_prelude::*;
use serde_json::Value;

use crate::error::Result;
use crate::json;
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
// The TypeScript shape only: answers are built by `makeAnswer` of
// `src/response.js` in one crossing (issue 16), never from this struct.
#[napi(object)]
// Holds JS handles (or key bytes), which must not and cannot be Debug.
#[allow(missing_debug_implementations, dead_code)]
pub struct Answer<'a> {
    /// What the client did.
    #[napi(ts_type = "'missing' | 'accepted' | 'declined' | 'cancelled' | 'invalid' | 'changed'")]
    pub kind: String,
    /// For `accepted`: the validated content (`null` for URL elicitation,
    /// where accept means consent, not completion).
    #[napi(ts_type = "any")]
    pub value: Option<Unknown<'a>>,
    /// For `invalid`: why, naming the offending field.
    pub reason: Option<String>,
}

fn js_opt<'e>(env: &'e Env, v: Option<&Value>) -> Result<Unknown<'e>> {
    json::to_js(env, v.unwrap_or(&Value::Null))
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
        json::parse_to_js(env, params_wire(&self.inner))
    }
    /// The rest of the request's `_meta` (e.g. `progressToken`), without the
    /// protocol version, capabilities and client info snodo reads itself.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn meta<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::parse_to_js(env, meta_wire(&self.inner))
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
        js_opt(env, self.inner.arguments())
    }
    /// The principal given to `begin`, or `null` for anonymous.
    #[napi(getter, catch_unwind)]
    pub fn principal(&self) -> Option<String> {
        json::principal_name(self.inner.principal())
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
        js_opt(env, self.inner.client_info())
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
    /// Issue 17: the flow id of the token opened on this retry (the same
    /// for every round of one flow; 22 characters of base64url), or `null`
    /// on a first round.
    #[napi(getter, catch_unwind)]
    pub fn flow_id(&self) -> Option<String> {
        self.inner.flow_id().map(str::to_owned)
    }
    /// Issue 17: the random id of the token opened on this retry, or
    /// `null` on a first round.
    #[napi(getter, catch_unwind)]
    pub fn token_id(&self) -> Option<String> {
        self.inner.token_id().map(str::to_owned)
    }
    /// Issue 17: when the token opened on this retry expires (Unix
    /// seconds), or `null` on a first round.
    #[napi(getter, catch_unwind)]
    pub fn token_expires_at(&self) -> Option<i64> {
        self.inner.token_expires_at().map(|t| i64::try_from(t).unwrap_or(i64::MAX))
    }
    /// Issue 17: base64url (no padding) SHA-256 of the canonical JSON of
    /// this request's `inputResponses` (`{}` when none): with `flowId`, the
    /// key of a remembered final result.
    #[napi(getter, catch_unwind)]
    pub fn answers_digest(&self) -> String {
        self.inner.answers_digest()
    }
    /// The application state carried by the token, or `null`.
    #[napi(getter, catch_unwind, ts_return_type = "any")]
    pub fn state<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        js_opt(env, self.inner.state())
    }
    /// The keys asked in the previous round (empty on round 1).
    #[napi(getter, catch_unwind)]
    pub fn asked_keys(&self) -> Vec<String> {
        self.inner.asked_keys().into_iter().map(str::to_owned).collect()
    }

    /// The answer to input request `key`, which the handler would ask as
    /// `request` (rebuild the same request each round: it counts only if that
    /// exact question was asked under `key` in the previous round).
    #[napi(catch_unwind, ts_return_type = "Answer")]
    pub fn response<'e>(
        &self,
        env: &'e Env,
        key: String,
        #[napi(ts_arg_type = "object | string | Buffer")] request: Unknown,
    ) -> Result<Unknown<'e>> {
        response_of(&self.inner, env, &key, request)
    }

    /// `response` of the question's JSON text, for the `response` that
    /// `src/response.js` puts on the prototype (which takes this method off
    /// it): see [`response_text_of`].
    #[napi(js_name = "responseText", skip_typescript, catch_unwind)]
    pub fn response_text<'e>(&self, env: &'e Env, key: String, request: Unknown) -> Result<Unknown<'e>> {
        response_text_of(&self.inner, env, &key, request)
    }

    /// The whole `inputResponses` map of this request, read-only and
    /// unvalidated (`{}` when none); `response(key, request)` is the
    /// validated reading.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn input_responses<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::parse_to_js(env, input_responses_wire(&self.inner))
    }

    /// The raw answer for `key`, unvalidated, only for keys asked in the
    /// previous round; `null` otherwise. Validate it yourself.
    #[napi(catch_unwind, ts_return_type = "Record<string, any> | null")]
    pub fn raw_response<'e>(&self, env: &'e Env, key: String) -> Result<Unknown<'e>> {
        js_opt(env, self.inner.raw_response(&key))
    }

    /// A short description without any params or state (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        describe(&self.inner)
    }
}

// What the class methods above and the `External` path of
// `crate::call_handle` share, so the two cannot drift.

/// `call.toJSON()`: a short description without params or state.
pub(crate) fn describe(c: &snodo::Call) -> String {
    format!("Call({} round {})", c.method(), c.round())
}

/// The JSON text of `call.params`.
pub(crate) fn params_wire(c: &snodo::Call) -> String {
    snodo::to_wire(&Value::Object(c.params().clone()))
}

/// The JSON text of `call.meta`.
pub(crate) fn meta_wire(c: &snodo::Call) -> String {
    snodo::to_wire(&Value::Object(c.meta().clone()))
}

/// The JSON text of `call.inputResponses`.
pub(crate) fn input_responses_wire(c: &snodo::Call) -> String {
    snodo::to_wire(&Value::Object(c.input_responses().clone()))
}

/// The JSON text of an optional value (`null` when absent).
pub(crate) fn opt_wire(v: Option<&Value>) -> String {
    snodo::to_wire(v.unwrap_or(&Value::Null))
}

/// The core's answer to `call.response(key, request)`, the question read
/// from its JSON text (`Call#response` and `Call#responseText` alike).
fn answer_of(c: &snodo::Call, env: &Env, key: &str, request: Unknown) -> Result<snodo::Answer> {
    // The same question every round: parsed once per thread.
    let request = crate::questions::parsed(&json::text_of(env, request, "request")?, "request")?;
    Ok(c.response(key, &request))
}

/// `call.response(key, request)`: the Answer object.
pub(crate) fn response_of<'e>(
    c: &snodo::Call,
    env: &'e Env,
    key: &str,
    request: Unknown,
) -> Result<Unknown<'e>> {
    let answer = answer_of(c, env, key, request)?;
    let kind = answer.kind();
    match answer {
        snodo::Answer::Accepted(v) => answer_object(env, kind, Some(snodo::to_wire(&v)), None),
        snodo::Answer::Invalid(why) => answer_object(env, kind, None, Some(why)),
        _ => answer_object(env, kind, None, None),
    }
}

/// `response` of the question's JSON text, for the JS `response` methods
/// of `src/response.js`: an accepted value's JSON text, the index in
/// [`crate::response::PLAIN_KINDS`] of a kind without a payload, or the
/// Answer itself (`invalid`).
pub(crate) fn response_text_of<'e>(
    c: &snodo::Call,
    env: &'e Env,
    key: &str,
    request: Unknown,
) -> Result<Unknown<'e>> {
    let answer = answer_of(c, env, key, request)?;
    let kind = answer.kind();
    let raw = match answer {
        snodo::Answer::Accepted(v) => json::js_string(env, &snodo::to_wire(&v))?,
        snodo::Answer::Invalid(why) => return answer_object(env, kind, None, Some(why)),
        _ => match crate::response::PLAIN_KINDS.iter().position(|k| *k == kind) {
            Some(i) => json::js_u32(env, u32::try_from(i).unwrap_or(u32::MAX))?,
            None => return answer_object(env, kind, None, None),
        },
    };
    // SAFETY: `raw` was just created in `env`, the live environment of
    // this callback, and is returned to it at once.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), raw) })
}
