//! What a handler reads (`Call`), what it sends (`Response`), and the tiny
//! outcome helpers that spell outcomes in the core's JSON form.

use napi::bindgen_prelude::*;
use serde_json::Value;

use crate::error::{Result, argument, napi_failure};
use crate::json;

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

/// A JSON-RPC response ready for the wire.
// The TypeScript shape only: responses are built by `make_response` below (a
// JS object whose `body` is produced on first read), never from this struct.
#[napi(object)]
// Holds JS handles (or key bytes), which must not and cannot be Debug.
#[allow(missing_debug_implementations, dead_code)]
pub struct Response<'a> {
    /// The whole JSON-RPC message as a plain object. Integers above 2^53
    /// lose precision here: send `json`.
    #[napi(
        ts_type = "{ jsonrpc: '2.0'; id: string | number | null; result?: Record<string, any>; error?: { code: number; message: string; data?: any } }"
    )]
    pub body: Unknown<'a>,
    /// The HTTP status for Streamable HTTP (400 for `_meta`-level errors,
    /// `-32021`, `-32022`; 404 for `-32601`; 200 otherwise).
    pub http_status: u32,
    /// Why snodo replaced the handler's outcome with `-32603`: log it, never
    /// send it. Absent otherwise.
    pub diagnostic: Option<String>,
    /// The message as compact JSON text, exact: this is what to send.
    pub json: String,
}

/// The JS function that builds a response object: `(json, httpStatus,
/// diagnostic) => response`.
// `'static` only because a stored reference cannot name a scope: every call
// site returns the result straight to JS within the current callback.
pub(crate) type MakeResponse = FunctionRef<FnArgs<(String, u32, Option<String>)>, Unknown<'static>>;

/// Source of [`MakeResponse`], compiled once per engine. `httpStatus`,
/// `json` and `diagnostic` (only when present) are own data properties;
/// `body` is a getter on a shared prototype that runs `JSON.parse(json)`
/// (exactly what building it eagerly did: the wire text of the same
/// message) on the first read and then replaces itself with an own data
/// property, so `r.body === r.body` and later reads are plain reads. A server
/// that only sends `json` never pays for the object. The setter keeps
/// `r.body = x` working as it did on the eager object (in strict code a
/// getter-only accessor would throw). `toJSON` keeps `JSON.stringify(response)`
/// as it was for the eager object.
const MAKE_RESPONSE_JS: &str = r#"(function () {
  'use strict';
  const proto = {
    get body() {
      const body = JSON.parse(this.json);
      Object.defineProperty(this, 'body', { value: body, writable: true, enumerable: true, configurable: true });
      return body;
    },
    set body(value) {
      Object.defineProperty(this, 'body', { value, writable: true, enumerable: true, configurable: true });
    },
    toJSON() {
      const out = { body: this.body, httpStatus: this.httpStatus };
      if (this.diagnostic !== undefined) out.diagnostic = this.diagnostic;
      out.json = this.json;
      return out;
    },
  };
  Object.defineProperty(proto, 'toJSON', { enumerable: false });
  return function makeResponse(json, httpStatus, diagnostic) {
    const r = { __proto__: proto, httpStatus, json };
    if (diagnostic != null) r.diagnostic = diagnostic;
    return r;
  };
})()"#;

/// Compiles [`MAKE_RESPONSE_JS`] in `env` and keeps a reference to it.
pub(crate) fn response_maker(env: &Env) -> Result<MakeResponse> {
    let f: Function<FnArgs<(String, u32, Option<String>)>, Unknown<'static>> =
        env.run_script(MAKE_RESPONSE_JS).map_err(napi_failure)?;
    f.create_ref().map_err(napi_failure)
}

pub(crate) fn response_object<'e>(
    env: &'e Env,
    make: &MakeResponse,
    r: &snodo::Response,
) -> Result<Unknown<'e>> {
    let f = make.borrow_back(env).map_err(napi_failure)?;
    let args = (r.to_json(), u32::from(r.http_status()), r.diagnostic().map(str::to_owned));
    f.call(args.into()).map_err(napi_failure)
}

/// The answer to one input request (`call.response`).
#[napi(object)]
// Holds JS handles (or key bytes), which must not and cannot be Debug.
#[allow(missing_debug_implementations)]
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
        json::to_js(env, &Value::Object(self.inner.params().clone()))
    }
    /// The rest of the request's `_meta` (e.g. `progressToken`), without the
    /// protocol version, capabilities and client info snodo reads itself.
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
    #[napi(catch_unwind)]
    pub fn response<'e>(
        &self,
        env: &'e Env,
        key: String,
        #[napi(ts_arg_type = "object | string | Buffer")] request: Unknown,
    ) -> Result<Answer<'e>> {
        let request = json::read(env, request, "request")?;
        let answer = self.inner.response(&key, &request);
        let kind = answer.kind().to_owned();
        Ok(match answer {
            snodo::Answer::Accepted(v) => Answer { kind, value: Some(json::to_js(env, &v)?), reason: None },
            snodo::Answer::Invalid(why) => Answer { kind, value: None, reason: Some(why) },
            _ => Answer { kind, value: None, reason: None },
        })
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
        format!("Call({} round {})", self.inner.method(), self.inner.round())
    }
}

fn outcome<'e>(env: &'e Env, kind: &str, fields: Vec<(&str, Option<Unknown>)>) -> Result<Object<'e>> {
    let mut o = Object::new(env).map_err(napi_failure)?;
    o.set("type", kind).map_err(napi_failure)?;
    for (name, value) in fields {
        if let Some(v) = value
            && !json::is_nullish(&v)?
        {
            o.set(name, v).map_err(napi_failure)?;
        }
    }
    Ok(o)
}

/// Outcome: a final result (`resultType` is stamped `"complete"`).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn complete<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Unknown,
) -> Result<Object<'e>> {
    outcome(env, "complete", vec![("result", Some(result))])
}

/// Outcome: ask the client for input. `inputRequests` maps keys to requests
/// (from the builders); `state` is carried, readable and sealed, to the retry.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn input_required<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object>")] input_requests: Unknown,
    #[napi(ts_arg_type = "any")] state: Option<Unknown>,
) -> Result<Object<'e>> {
    outcome(env, "input_required", vec![("inputRequests", Some(input_requests)), ("state", state)])
}

/// Outcome: a JSON-RPC error (reserved codes become `-32603`).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn error<'e>(
    env: &'e Env,
    code: i64,
    message: String,
    #[napi(ts_arg_type = "any")] data: Option<Unknown>,
) -> Result<Object<'e>> {
    let mut o = outcome(env, "error", vec![("data", data)])?;
    o.set("code", code).map_err(napi_failure)?;
    o.set("message", message).map_err(napi_failure)?;
    Ok(o)
}

/// Outcome: a tool execution error (`isError: true`), tools/call only.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn tool_error<'e>(env: &'e Env, message: String) -> Result<Object<'e>> {
    let mut o = outcome(env, "tool_error", vec![])?;
    o.set("message", message).map_err(napi_failure)?;
    Ok(o)
}

/// Outcome: a raw result object (the escape hatch; the same checks apply).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn raw<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Unknown,
) -> Result<Object<'e>> {
    if json::is_nullish(&result)? {
        return Err(argument("result: must be an object"));
    }
    outcome(env, "raw", vec![("result", Some(result))])
}
